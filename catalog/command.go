package catalog

import (
	"strconv"
	"strings"

	"leaselab/engine"
)

// CommandText is a command written as text in the reader's words ("cairkan
// W1" for "thaw W1"): what a session's command list and a permalink page
// show. A command that does not parse is shown as it was written.
func CommandText(lang, src string) string {
	c, err := engine.ParseCommand(src)
	if err != nil {
		return src
	}
	return string(AppendCommand(nil, lang, c))
}

// AppendCommand appends command c in the reader's words: a playing
// session's list grows its last command every frame, written so without a
// string.
func AppendCommand(b []byte, lang string, c engine.Command) []byte {
	if say := commandWords[c.Kind]; say != nil {
		return say(b, lang, c)
	}
	return c.AppendTo(b)
}

// sayCommand appends one kind of command in lang's words.
type sayCommand func(b []byte, lang string, c engine.Command) []byte

// commandWords is how the catalog says each kind of command of the
// engine's command table (engine.Commands); TestEveryCommandHasWords holds
// it to that table.
var commandWords = map[engine.CommandKind]sayCommand{
	engine.CmdAdvance: func(b []byte, lang string, c engine.Command) []byte {
		return Append(b, lang, "cmd.advance", Time(c.Dur))
	},
	engine.CmdStep: sayPlain("cmd.step"),
	engine.CmdUntil: func(b []byte, lang string, c engine.Command) []byte {
		return Append(b, lang, "cmd.until", Moment(c.At)) // a moment: "jalankan sampai detik ke-30"
	},
	engine.CmdFreeze:    sayFreeze,
	engine.CmdThaw:      sayWorker("cmd.thaw"),
	engine.CmdCrash:     sayWorker("cmd.crash"),
	engine.CmdRestart:   sayWorker("cmd.restart"),
	engine.CmdStorage:   sayStorage,
	engine.CmdPartition: sayPartition,
	engine.CmdHeal:      sayHeal,
	engine.CmdLink:      sayLink,
	engine.CmdLease: func(b []byte, lang string, c engine.Command) []byte {
		if c.Dur == 0 {
			return append(b, T(lang, "cmd.lock")...)
		}
		return Append(b, lang, "cmd.lease", Time(c.Dur))
	},
	engine.CmdClock: sayClock,
	engine.CmdPolicy: func(b []byte, lang string, c engine.Command) []byte {
		return Append(b, lang, "cmd.policy", Str(c.A), Str(PolicyText(lang, c)))
	},
	engine.CmdJitter: func(b []byte, lang string, c engine.Command) []byte {
		if c.Jitter == 0 {
			return append(b, T(lang, "cmd.jitter.off")...)
		}
		return Append(b, lang, "cmd.jitter", Str(Number(lang, float64(c.Jitter)/1000)))
	},
	engine.CmdReplica: sayReplica,
	engine.CmdReset:   sayPlain("cmd.reset"),
}

func sayPlain(key string) sayCommand {
	return func(b []byte, lang string, _ engine.Command) []byte { return append(b, T(lang, key)...) }
}

func sayWorker(key string) sayCommand {
	return func(b []byte, lang string, c engine.Command) []byte { return Append(b, lang, key, Str(c.A)) }
}

func sayFreeze(b []byte, lang string, c engine.Command) []byte {
	if c.Dur > 0 {
		b = Append(b, lang, "cmd.freeze.for", Str(c.A), Time(c.Dur))
	} else {
		b = Append(b, lang, "cmd.freeze", Str(c.A))
	}
	if c.On != engine.KindNone {
		b = append(b, " ("...)
		b = Append(b, lang, "cmd.freeze.on", Str(c.A), Str(T(lang, "cmd.on."+c.On.String())))
		b = append(b, ")"...)
	}
	return b
}

func sayStorage(b []byte, lang string, c engine.Command) []byte {
	switch c.Mode {
	case engine.StorageFencing:
		return append(b, T(lang, "cmd.fencing.on")...)
	case engine.StorageNone:
		return append(b, T(lang, "cmd.fencing.off")...)
	}
	return Append(b, lang, "cmd.storage", Str(T(lang, "mode."+c.Mode.String())))
}

// NodeName is a node as the reader calls it: the coordinator and the
// storage in lang's words, a worker by its name.
func NodeName(lang, n string) string {
	switch n {
	case "coord":
		return T(lang, "node.coord")
	case "storage":
		return T(lang, "node.storage")
	case "copy1", "copy2":
		return T(lang, "node."+n)
	}
	return n
}

func sayPartition(b []byte, lang string, c engine.Command) []byte {
	if c.B == "" {
		return Append(b, lang, "cmd.partition", Str(NodeName(lang, c.A)))
	}
	return Append(b, lang, "cmd.partition2", Str(NodeName(lang, c.A)), Str(NodeName(lang, c.B)))
}

func sayHeal(b []byte, lang string, c engine.Command) []byte {
	switch {
	case c.A == "":
		return append(b, T(lang, "cmd.heal")...)
	case c.B == "":
		return Append(b, lang, "cmd.heal1", Str(NodeName(lang, c.A)))
	}
	return Append(b, lang, "cmd.heal2", Str(NodeName(lang, c.A)), Str(NodeName(lang, c.B)))
}

// words is key's text in lang filled with args, as a string: one part of
// a link's or a clock's change.
func words(lang, key string, args ...Arg) string { return string(Append(nil, lang, key, args...)) }

func sayLink(b []byte, lang string, c engine.Command) []byte {
	var parts []string
	if c.HasDelay {
		parts = append(parts, words(lang, "cmd.delay", Time(c.Dur)))
	}
	if c.HasLoss {
		parts = append(parts, words(lang, "cmd.loss", Str(Number(lang, float64(c.LossPPM)/1e4)+"%")))
	}
	for i, name := range engine.DelayParts {
		if c.HasParts&(1<<i) != 0 && c.Parts[i] != 0 {
			// A named part of the delay: "DNS +400 ms". Its undo (0) goes
			// with the delay's own reset, which says it.
			parts = append(parts, T(lang, "ctl.part."+name)+" +"+TimeText(lang, c.Parts[i]))
		}
	}
	sep := "—"
	if c.OneWay {
		sep = "→"
	}
	return Append(b, lang, "cmd.link", Str(NodeName(lang, c.A)+sep+NodeName(lang, c.B)), Str(strings.Join(parts, ", ")))
}

func sayClock(b []byte, lang string, c engine.Command) []byte {
	var parts []string
	if c.HasSkew {
		parts = append(parts, words(lang, "cmd.skew", Str(SignedTime(lang, c.Skew))))
	}
	if c.HasJump {
		parts = append(parts, words(lang, "cmd.jump", Str(SignedTime(lang, c.Jump))))
	}
	if c.HasRate {
		parts = append(parts, words(lang, "cmd.rate", Str(Number(lang, float64(c.Rate)/1e6)+"×")))
	}
	who := NodeName(lang, c.A)
	if c.Replica > 0 {
		who = words(lang, "node.replica", Int(int64(c.Replica)))
	}
	return Append(b, lang, "cmd.clock", Str(who), Str(strings.Join(parts, ", ")))
}

func sayReplica(b []byte, lang string, c engine.Command) []byte {
	if c.Up {
		return Append(b, lang, "cmd.replica.up", Int(int64(c.Replica)))
	}
	return Append(b, lang, "cmd.replica.down", Int(int64(c.Replica)))
}

// SignedTime is a clock's change with its sign, in lang's words: "+2s",
// "−1,5 dtk" (a minus sign, not a hyphen, as a reader's text has it).
func SignedTime(lang string, d engine.Time) string {
	if d >= 0 {
		return "+" + string(AppendTime(nil, lang, d))
	}
	return "−" + string(AppendTime(nil, lang, -d))
}

// Number is x as a reader of lang writes it, with its decimal mark
// (AppendNumber): "0,125" in Indonesian.
func Number(lang string, x float64) string {
	var scratch [32]byte
	return string(AppendNumber(nil, lang, strconv.AppendFloat(scratch[:0], x, 'f', -1, 64)))
}

// policyKey is the catalog's key for what a policy command sets:
// policy.loops.2, policy.generation.ignore, ...
func policyKey(c engine.Command) string {
	if c.Loops > 0 {
		return "policy.loops." + strconv.Itoa(int(c.Loops))
	}
	switch c.Gen {
	case engine.GenIgnore:
		return "policy.generation.ignore"
	case engine.GenCheck:
		return "policy.generation.check"
	}
	switch c.Cancel {
	case engine.CancelOn:
		return "policy.cancel.on"
	case engine.CancelOff:
		return "policy.cancel.off"
	}
	switch c.Auth {
	case engine.AuthDefinitive:
		return "policy.auth.definitive"
	case engine.AuthTransient:
		return "policy.auth.transient"
	}
	if c.RenewEvery {
		return "policy.renew"
	}
	if c.Dur == 0 {
		return "policy.publish.atomic"
	}
	return "policy.publish-gap"
}

// PolicyText is what a policy command sets, in lang's words: a button's
// text.
func PolicyText(lang string, c engine.Command) string {
	key := policyKey(c)
	if key != "policy.publish-gap" && key != "policy.renew" {
		return T(lang, key)
	}
	return string(Append(nil, lang, key, Time(c.Dur)))
}
