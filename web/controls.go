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

// workerRows builds every worker's controls from the lab's declaration.
func workerRows(c *labControls, w *engine.World, lang string) []workerRow {
	var rows []workerRow
	for i, name := range workerNames(w) {
		r := workerRow{Name: name, Index: i + 1, Freeze: c.HasFreeze || len(c.Freeze) > 0}
		if r.Freeze {
			r.For = freezeLengths(c, lang)
			r.Buttons = append(r.Buttons, freezeButtons(c, name, lang)...)
		}
		r.Buttons = append(r.Buttons, policyButtons(c, name, lang)...)
		if c.Revoke {
			r.Buttons = append(r.Buttons, ctlButton{Cmd: "revoke " + name, Text: T(lang, "ctl.revoke"), Label: namedText(lang, "ctl.revoke", name)})
		}
		if c.Crash {
			r.Buttons = append(r.Buttons,
				ctlButton{Cmd: "crash " + name, Text: T(lang, "ctl.crash"), Label: namedText(lang, "ctl.crash", name)},
				ctlButton{Cmd: "restart " + name, Text: T(lang, "ctl.restart"), Label: namedText(lang, "ctl.restart", name)})
		}
		r.Buttons = append(r.Buttons, cutButtons(c, name, lang)...)
		if l := c.Link; l != nil && (len(l.Workers) == 0 || slices.Contains(l.Workers, name)) {
			r.Buttons = append(r.Buttons, linkButtons(l, name, lang)...)
		}
		if k := c.Clock; k != nil {
			r.Buttons = append(r.Buttons, clockButtons(k, name, lang)...)
		}
		rows = append(rows, r)
	}
	return rows
}

// namedText is a control's words with the worker it acts on: "Bekukan W1".
func namedText(lang, key, name string) string { return T(lang, key) + " " + name }

// freezeLengths are the choices of how long a freeze lasts: until thawed
// (chosen at first), then the lab's durations.
func freezeLengths(c *labControls, lang string) []ctlOption {
	opts := []ctlOption{{Value: "", Text: T(lang, "ctl.forever")}}
	for _, d := range c.Freeze {
		opts = append(opts, ctlOption{Value: d.String(), Text: catalog.TimeText(lang, d)})
	}
	return opts
}

// freezeButtons are a worker's freezes that wait for a moment of its own
// (on=check: between its check and its write), with the length chosen in
// the same list, and its thaw.
func freezeButtons(c *labControls, name, lang string) []ctlButton {
	var out []ctlButton
	for _, k := range c.FreezeOn {
		cmd := engine.Command{Kind: engine.CmdFreeze, A: name, On: k}
		out = append(out, ctlButton{Cmd: cmd.String(), Text: T(lang, "ctl.freeze.on."+k.String()), Label: namedText(lang, "ctl.freeze.on."+k.String(), name)})
	}
	return append(out, ctlButton{Cmd: "thaw " + name, Text: T(lang, "ctl.thaw"), Label: namedText(lang, "ctl.thaw", name)})
}

// policyButtons set the worker's renewal policy to each of the lab's.
func policyButtons(c *labControls, name, lang string) []ctlButton {
	var out []ctlButton
	for _, p := range c.Policy {
		cmd, err := engine.ParseCommand("policy " + name + " " + p)
		if err != nil {
			continue // the lab's reader refused it already
		}
		out = append(out, ctlButton{Cmd: cmd.String(), Text: catalog.PolicyText(lang, cmd), Label: draw.CommandText(lang, cmd.String())})
	}
	return out
}

// cutButtons cut the worker off from everyone, or from each of the lab's
// peers.
func cutButtons(c *labControls, name, lang string) []ctlButton {
	var out []ctlButton
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
		out = append(out, ctlButton{Cmd: cmd.String(), Text: text, Label: T(lang, "ctl.partition") + " " + name + " " + T(lang, "ctl.cutfrom."+to)})
	}
	return out
}

// linkButtons slow down, lose on, or mend each one-way link to and from
// the worker that the lab declares.
func linkButtons(l *labs.LinkControl, name, lang string) []ctlButton {
	ways := make([][2]string, 0, len(l.To)+len(l.From))
	for _, to := range l.To {
		ways = append(ways, [2]string{name, to})
	}
	for _, from := range l.From {
		ways = append(ways, [2]string{from, name})
	}
	var out []ctlButton
	for _, way := range ways {
		out = append(out, wayButtons(l, way[0], way[1], lang)...)
	}
	return out
}

// wayButtons are the controls of the one-way link from a to to: each
// delay, loss and delay of one part, and the button that mends it.
func wayButtons(l *labs.LinkControl, a, to, lang string) []ctlButton {
	var out []ctlButton
	where := nodeText(lang, a) + "→" + nodeText(lang, to)
	for _, d := range l.Delay {
		cmd := engine.Command{Kind: engine.CmdLink, A: a, B: to, OneWay: true, HasDelay: true, Dur: d}
		out = append(out, ctlButton{Cmd: cmd.String(), Text: where + " +" + catalog.TimeText(lang, d), Label: T(lang, "ctl.delay") + " " + where + " " + catalog.TimeText(lang, d)})
	}
	for _, p := range l.Loss {
		cmd := engine.Command{Kind: engine.CmdLink, A: a, B: to, OneWay: true, HasLoss: true, LossPPM: p}
		pct := catalog.Number(lang, float64(p)/1e4) + "%"
		out = append(out, ctlButton{Cmd: cmd.String(), Text: where + " " + pct, Label: T(lang, "ctl.loss") + " " + where + " " + pct})
	}
	for i, d := range l.Parts {
		if d == 0 {
			continue
		}
		cmd := engine.Command{Kind: engine.CmdLink, A: a, B: to, OneWay: true, HasParts: 1 << i}
		cmd.Parts[i] = d
		part := T(lang, "ctl.part."+engine.DelayParts[i])
		out = append(out, ctlButton{Cmd: cmd.String(), Text: where + " " + part + " +" + catalog.TimeText(lang, d), Label: T(lang, "ctl.delay") + " " + where + ": " + part + " " + catalog.TimeText(lang, d)})
	}
	undo := engine.Command{Kind: engine.CmdLink, A: a, B: to, OneWay: true, HasDelay: true, HasLoss: true}
	for i, d := range l.Parts {
		if d != 0 {
			undo.HasParts |= 1 << i
		}
	}
	return append(out, ctlButton{Cmd: undo.String(), Text: where + " " + T(lang, "ctl.linkok"), Label: T(lang, "ctl.linkok.long") + " " + where})
}

// clockButtons skew, jump or change the rate of the worker's clock by
// each of the lab's amounts.
func clockButtons(k *labs.ClockControl, name, lang string) []ctlButton {
	var out []ctlButton
	for _, d := range k.Skew {
		cmd := engine.Command{Kind: engine.CmdClock, A: name, HasSkew: true, Skew: d}
		out = append(out, ctlButton{Cmd: cmd.String(), Text: T(lang, "ctl.skew") + " " + catalog.SignedTime(lang, d), Label: T(lang, "ctl.skew") + " " + name + " " + catalog.SignedTime(lang, d)})
	}
	for _, d := range k.Jump {
		cmd := engine.Command{Kind: engine.CmdClock, A: name, HasJump: true, Jump: d}
		out = append(out, ctlButton{Cmd: cmd.String(), Text: T(lang, "ctl.jump") + " " + catalog.SignedTime(lang, d), Label: T(lang, "ctl.jump") + " " + name + " " + catalog.SignedTime(lang, d)})
	}
	for _, rt := range k.Rate {
		cmd := engine.Command{Kind: engine.CmdClock, A: name, HasRate: true, Rate: rt}
		x := catalog.Number(lang, float64(rt)/1e6) + "×"
		out = append(out, ctlButton{Cmd: cmd.String(), Text: T(lang, "ctl.rate") + " " + x, Label: T(lang, "ctl.rate") + " " + name + " " + x})
	}
	return out
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
