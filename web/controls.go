package web

import (
	"slices"
	"strconv"

	"leaselab/catalog"
	"leaselab/draw"
	"leaselab/engine"
	"leaselab/labs"
)

// labControls is what a lab's live page offers, as the lab declares it
// (lab.yaml controls:).
type labControls = labs.Controls

// controlsOf is the lab's declared controls; absent, the default set.
func controlsOf(l *labs.Lab) *labControls { return l.Controls() }

// ctlButton is one control: the command it sends, the words on it, and
// the accessible name that says whom it acts on ("Bekukan W1").
type ctlButton struct {
	Cmd   string
	Text  string
	Label string
	Key   string // aria-keyshortcuts, or ""
	Class string
}

// workerRow is one worker's controls.
type workerRow struct {
	Name    string
	Index   int
	Freeze  bool
	For     []ctlOption // "until thawed" (chosen at first), then the lab's durations
	Buttons []ctlButton // thaw, crash, restart, cuts, links, clocks
}

type ctlOption struct {
	Value, Text string
}

// worldRows builds every worker's controls from the lab's declaration.
func workerRows(c *labControls, w *engine.World, lang string) []workerRow {
	var rows []workerRow
	for i, name := range workerNames(w) {
		r := workerRow{Name: name, Index: i + 1, Freeze: c.HasFreeze || len(c.Freeze) > 0}
		named := func(key string) string { return T(lang, key) + " " + name }
		if r.Freeze {
			r.For = append(r.For, ctlOption{Value: "", Text: T(lang, "ctl.forever")})
			for _, d := range c.Freeze {
				r.For = append(r.For, ctlOption{Value: d.String(), Text: catalog.TimeText(lang, d)})
			}
			// A freeze that waits for a moment of the worker's (on=check:
			// between its check and its write), with the length chosen in
			// the same list.
			for _, k := range c.FreezeOn {
				cmd := engine.Command{Kind: engine.CmdFreeze, A: name, On: k}
				r.Buttons = append(r.Buttons, ctlButton{Cmd: cmd.String(), Text: T(lang, "ctl.freeze.on."+k.String()), Label: named("ctl.freeze.on." + k.String())})
			}
			r.Buttons = append(r.Buttons, ctlButton{Cmd: "thaw " + name, Text: T(lang, "ctl.thaw"), Label: named("ctl.thaw")})
		}
		for _, p := range c.Policy {
			cmd, err := engine.ParseCommand("policy " + name + " " + p)
			if err != nil {
				continue // the lab's reader refused it already
			}
			r.Buttons = append(r.Buttons, ctlButton{Cmd: cmd.String(), Text: catalog.PolicyText(lang, cmd), Label: draw.CommandText(lang, cmd.String())})
		}
		if c.Crash {
			r.Buttons = append(r.Buttons,
				ctlButton{Cmd: "crash " + name, Text: T(lang, "ctl.crash"), Label: named("ctl.crash")},
				ctlButton{Cmd: "restart " + name, Text: T(lang, "ctl.restart"), Label: named("ctl.restart")})
		}
		for _, to := range c.Cut {
			if to == labs.CutCopies {
				continue // not a worker's link: a world button
			}
			cmd := engine.Command{Kind: engine.CmdPartition, A: name}
			if to != "everyone" {
				cmd.B = to
			}
			text := T(lang, "ctl.partition")
			if len(c.Cut) > 1 {
				text = T(lang, "ctl.cut."+to)
			}
			r.Buttons = append(r.Buttons, ctlButton{Cmd: cmd.String(), Text: text, Label: T(lang, "ctl.partition") + " " + name + " " + T(lang, "ctl.cutfrom."+to)})
		}
		if l := c.Link; l != nil && (len(l.Workers) == 0 || slices.Contains(l.Workers, name)) {
			ways := make([][2]string, 0, len(l.To)+len(l.From))
			for _, to := range l.To {
				ways = append(ways, [2]string{name, to})
			}
			for _, from := range l.From {
				ways = append(ways, [2]string{from, name})
			}
			for _, way := range ways {
				a, to := way[0], way[1]
				where := nodeText(lang, a) + "→" + nodeText(lang, to)
				for _, d := range l.Delay {
					cmd := engine.Command{Kind: engine.CmdLink, A: a, B: to, OneWay: true, HasDelay: true, Dur: d}
					r.Buttons = append(r.Buttons, ctlButton{Cmd: cmd.String(), Text: where + " +" + catalog.TimeText(lang, d), Label: T(lang, "ctl.delay") + " " + where + " " + catalog.TimeText(lang, d)})
				}
				for _, p := range l.Loss {
					cmd := engine.Command{Kind: engine.CmdLink, A: a, B: to, OneWay: true, HasLoss: true, LossPPM: p}
					pct := catalog.Number(lang, float64(p)/1e4) + "%"
					r.Buttons = append(r.Buttons, ctlButton{Cmd: cmd.String(), Text: where + " " + pct, Label: T(lang, "ctl.loss") + " " + where + " " + pct})
				}
				for i, d := range l.Parts {
					if d == 0 {
						continue
					}
					cmd := engine.Command{Kind: engine.CmdLink, A: a, B: to, OneWay: true, HasParts: 1 << i}
					cmd.Parts[i] = d
					part := T(lang, "ctl.part."+engine.DelayParts[i])
					r.Buttons = append(r.Buttons, ctlButton{Cmd: cmd.String(), Text: where + " " + part + " +" + catalog.TimeText(lang, d), Label: T(lang, "ctl.delay") + " " + where + ": " + part + " " + catalog.TimeText(lang, d)})
				}
				undo := engine.Command{Kind: engine.CmdLink, A: a, B: to, OneWay: true, HasDelay: true, HasLoss: true}
				for i, d := range l.Parts {
					if d != 0 {
						undo.HasParts |= 1 << i
					}
				}
				r.Buttons = append(r.Buttons, ctlButton{Cmd: undo.String(), Text: where + " " + T(lang, "ctl.linkok"), Label: T(lang, "ctl.linkok.long") + " " + where})
			}
		}
		if k := c.Clock; k != nil {
			for _, d := range k.Skew {
				cmd := engine.Command{Kind: engine.CmdClock, A: name, HasSkew: true, Skew: d}
				r.Buttons = append(r.Buttons, ctlButton{Cmd: cmd.String(), Text: T(lang, "ctl.skew") + " " + catalog.SignedTime(lang, d), Label: T(lang, "ctl.skew") + " " + name + " " + catalog.SignedTime(lang, d)})
			}
			for _, d := range k.Jump {
				cmd := engine.Command{Kind: engine.CmdClock, A: name, HasJump: true, Jump: d}
				r.Buttons = append(r.Buttons, ctlButton{Cmd: cmd.String(), Text: T(lang, "ctl.jump") + " " + catalog.SignedTime(lang, d), Label: T(lang, "ctl.jump") + " " + name + " " + catalog.SignedTime(lang, d)})
			}
			for _, rt := range k.Rate {
				cmd := engine.Command{Kind: engine.CmdClock, A: name, HasRate: true, Rate: rt}
				x := catalog.Number(lang, float64(rt)/1e6) + "×"
				r.Buttons = append(r.Buttons, ctlButton{Cmd: cmd.String(), Text: T(lang, "ctl.rate") + " " + x, Label: T(lang, "ctl.rate") + " " + name + " " + x})
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// worldButtons are the controls that act on the whole world.
func worldButtons(c *labControls, w *engine.World, lang string) []ctlButton {
	var out []ctlButton
	if c.Fencing {
		out = append(out,
			ctlButton{Cmd: "fencing on", Text: T(lang, "ctl.fencing.on"), Label: T(lang, "ctl.fencing.on"), Key: "F"},
			ctlButton{Cmd: "fencing off", Text: T(lang, "ctl.fencing.off"), Label: T(lang, "ctl.fencing.off")})
	}
	for _, m := range c.Storage {
		cmd := engine.Command{Kind: engine.CmdStorage, Mode: m}
		out = append(out, ctlButton{Cmd: cmd.String(), Text: T(lang, "mode."+m.String()), Label: T(lang, "status.storage") + ": " + T(lang, "mode."+m.String())})
	}
	if slices.Contains(c.Cut, labs.CutCopies) {
		out = append(out,
			ctlButton{Cmd: "partition copy1 copy2", Text: T(lang, "ctl.cut.copies"), Label: T(lang, "ctl.cut.copies")},
			ctlButton{Cmd: "heal copy1 copy2", Text: T(lang, "ctl.heal.copies"), Label: T(lang, "ctl.heal.copies")})
	}
	if len(c.Cut) > 0 || c.Link != nil {
		out = append(out, ctlButton{Cmd: "heal", Text: T(lang, "ctl.heal"), Label: T(lang, "ctl.heal")})
	}
	if k := c.Clock; k != nil {
		for _, n := range k.Replicas {
			for _, d := range k.Jump {
				cmd := engine.Command{Kind: engine.CmdClock, A: "coord", Replica: n, HasJump: true, Jump: d}
				text := string(catalog.Append(nil, lang, "ctl.jump.replica", catalog.Int(int64(n)), catalog.Str(catalog.SignedTime(lang, d))))
				out = append(out, ctlButton{Cmd: cmd.String(), Text: text, Label: text})
			}
			for _, d := range k.Skew {
				cmd := engine.Command{Kind: engine.CmdClock, A: "coord", Replica: n, HasSkew: true, Skew: d}
				text := string(catalog.Append(nil, lang, "ctl.skew.replica", catalog.Int(int64(n)), catalog.Str(catalog.SignedTime(lang, d))))
				out = append(out, ctlButton{Cmd: cmd.String(), Text: text, Label: text})
			}
		}
	}
	if c.Replica {
		for n := 1; n <= len(w.Snapshot().Coordinator.Replicas); n++ {
			for _, up := range []bool{false, true} {
				cmd := engine.Command{Kind: engine.CmdReplica, Replica: n, Up: up}
				key := "ctl.replica.down"
				if up {
					key = "ctl.replica.up"
				}
				text := T(lang, key) + " " + strconv.Itoa(n)
				out = append(out, ctlButton{Cmd: cmd.String(), Text: text, Label: text})
			}
		}
	}
	if len(c.Lease) > 0 {
		lengths := append([]engine.Time(nil), c.Lease...)
		if ttl := w.Scenario().TTL; !slices.Contains(lengths, ttl) {
			lengths = append([]engine.Time{ttl}, lengths...)
		}
		for _, d := range lengths {
			cmd := engine.Command{Kind: engine.CmdLease, Dur: d}
			text := T(lang, "ctl.lease") + " " + catalog.TimeText(lang, d)
			if d == 0 {
				text = T(lang, "ctl.lock")
			}
			out = append(out, ctlButton{Cmd: cmd.String(), Text: text, Label: draw.CommandText(lang, cmd.String())})
		}
	}
	for _, j := range c.Jitter {
		cmd := engine.Command{Kind: engine.CmdJitter, Jitter: j}
		text := T(lang, "ctl.jitter.off")
		if j > 0 {
			text = T(lang, "ctl.jitter") + " " + catalog.Number(lang, float64(j)/1000)
		}
		out = append(out, ctlButton{Cmd: cmd.String(), Text: text, Label: draw.CommandText(lang, cmd.String())})
	}
	for _, t := range c.Until {
		text := T(lang, "ctl.until") + " " + catalog.MomentText(lang, t) // a moment: "detik ke-30"
		out = append(out, ctlButton{Cmd: "until " + t.String(), Text: text, Label: text})
	}
	return out
}

// paramText is a design challenge's policy option in lang's words
// (param.NAME), "" for one the catalog does not name: the option's own
// name, shown beside it, is what the lab file and the link use.
func paramText(lang, name string) string {
	s, _ := catalog.Lookup(lang, "param."+name)
	return s
}

// nodeText is a link end as a button says it: a worker by its name, the
// coordinator or the storage in lang's words.
func nodeText(lang, n string) string {
	if n == "coord" || n == "storage" {
		return T(lang, "node."+n)
	}
	return n
}
