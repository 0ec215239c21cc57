package web

import (
	"strings"

	"leaselab/catalog"
	"leaselab/engine"
)

// commandText is a session's command in the student's words ("cairkan
// W1" for "thaw W1"): what the commands list and a permalink page show.
// A command that does not parse is shown as it was written.
func commandText(lang, src string) string {
	c, err := engine.ParseCommand(src)
	if err != nil {
		return src
	}
	return string(appendCommandText(nil, lang, c))
}

// appendCommandText appends command c in the student's words: a playing
// session's list grows its last command every frame, written so without
// a string.
func appendCommandText(b []byte, lang string, c engine.Command) []byte {
	f := func(key string, args ...catalog.Arg) { b = catalog.Append(b, lang, key, args...) }
	plain := func(key string) { b = append(b, T(lang, key)...) }
	words := func(key string, args ...catalog.Arg) string {
		return string(catalog.Append(nil, lang, key, args...))
	}
	nodeName := func(n string) string {
		switch n {
		case "coord":
			return T(lang, "node.coord")
		case "storage":
			return T(lang, "node.storage")
		}
		return n
	}
	node := func(n string) catalog.Arg { return catalog.Str(nodeName(n)) }
	switch c.Kind {
	case engine.CmdAdvance:
		f("cmd.advance", catalog.Time(c.Dur))
	case engine.CmdStep:
		plain("cmd.step")
	case engine.CmdUntil:
		f("cmd.until", catalog.Time(c.At))
	case engine.CmdFreeze:
		if c.Dur > 0 {
			f("cmd.freeze.for", catalog.Str(c.A), catalog.Time(c.Dur))
		} else {
			f("cmd.freeze", catalog.Str(c.A))
		}
		if c.On != engine.KindNone {
			b = append(b, " ("...)
			f("cmd.freeze.on", catalog.Str(c.A), catalog.Str(T(lang, "cmd.on."+c.On.String())))
			b = append(b, ")"...)
		}
	case engine.CmdThaw:
		f("cmd.thaw", catalog.Str(c.A))
	case engine.CmdCrash:
		f("cmd.crash", catalog.Str(c.A))
	case engine.CmdRestart:
		f("cmd.restart", catalog.Str(c.A))
	case engine.CmdStorage:
		switch c.Mode {
		case engine.StorageFencing:
			plain("cmd.fencing.on")
		case engine.StorageNone:
			plain("cmd.fencing.off")
		default:
			f("cmd.storage", catalog.Str(T(lang, "mode."+c.Mode.String())))
		}
	case engine.CmdPartition:
		if c.B == "" {
			f("cmd.partition", node(c.A))
		} else {
			f("cmd.partition2", node(c.A), node(c.B))
		}
	case engine.CmdHeal:
		switch {
		case c.A == "":
			plain("cmd.heal")
		case c.B == "":
			f("cmd.heal1", node(c.A))
		default:
			f("cmd.heal2", node(c.A), node(c.B))
		}
	case engine.CmdLink:
		var parts []string
		if c.HasDelay {
			parts = append(parts, words("cmd.delay", catalog.Time(c.Dur)))
		}
		if c.HasLoss {
			parts = append(parts, words("cmd.loss", catalog.Str(numberText(lang, float64(c.LossPPM)/1e4)+"%")))
		}
		sep := "—"
		if c.OneWay {
			sep = "→"
		}
		f("cmd.link", catalog.Str(nodeName(c.A)+sep+nodeName(c.B)), catalog.Str(strings.Join(parts, ", ")))
	case engine.CmdClock:
		var parts []string
		if c.HasSkew {
			parts = append(parts, words("cmd.skew", catalog.Str(signedTime(lang, c.Skew))))
		}
		if c.HasJump {
			parts = append(parts, words("cmd.jump", catalog.Str(signedTime(lang, c.Jump))))
		}
		if c.HasRate {
			parts = append(parts, words("cmd.rate", catalog.Str(numberText(lang, float64(c.Rate)/1e6)+"×")))
		}
		f("cmd.clock", catalog.Str(c.A), catalog.Str(strings.Join(parts, ", ")))
	case engine.CmdReplica:
		if c.Up {
			f("cmd.replica.up", catalog.Int(int64(c.Replica)))
		} else {
			f("cmd.replica.down", catalog.Int(int64(c.Replica)))
		}
	case engine.CmdReset:
		plain("cmd.reset")
	case engine.CmdLease:
		f("cmd.lease", catalog.Time(c.Dur))
	default:
		b = c.AppendTo(b)
	}
	return b
}
