package draw

import (
	"strconv"

	"leaselab/catalog"
	"leaselab/engine"
	"leaselab/labs"
)

// signalsLines is how many renewal log lines the panel shows: the latest.
const signalsLines = 6

// Signals is the renewal signals panel of a world (lab.yaml panels:
// [signals]): the numbers the second lesson says to watch, computed by the
// engine from the log, and the latest renewal log lines with the fields
// that tell a slow success from a stale owner. It holds what the words
// are made of; Markup.signals writes them.
type Signals struct {
	ID    string
	Lang  string
	world *engine.World
	m     engine.Metrics
	// lines are the log's indexes of the renewal events shown, oldest
	// first.
	lines [signalsLines]int
	shown int
}

// NewSignals computes the panel for a world.
func NewSignals(id string, w *engine.World, lang string) *Signals {
	evs := w.Events()
	s := &Signals{ID: id, Lang: lang, world: w, m: engine.ComputeMetrics(evs)}
	for i := len(evs) - 1; i >= 0 && s.shown < signalsLines; i-- {
		if signalEvent(evs[i].Kind) != "" {
			s.lines[s.shown] = i
			s.shown++
		}
	}
	for i, j := 0, s.shown-1; i < j; i, j = i+1, j-1 {
		s.lines[i], s.lines[j] = s.lines[j], s.lines[i]
	}
	return s
}

// signalEvent is a renewal event's name in the log lines: renewed, error,
// stale, lost; "" for an event the log does not show.
func signalEvent(k engine.Kind) string {
	switch k {
	case engine.KindRenewed:
		return "renewed"
	case engine.KindRenewError:
		return "error"
	case engine.KindStaleReply:
		return "stale"
	case engine.KindLost:
		return "lost"
	}
	return ""
}

// SignalsFor is the lab's signals panel for w, or nil when the lab does
// not ask for one.
func SignalsFor(lab *labs.Lab, id string, w *engine.World, lang string) *Signals {
	if lab == nil || w == nil || !lab.HasPanel("signals") {
		return nil
	}
	return NewSignals(id, w, lang)
}

// SignalsBlock is a lab's renewal signals panel for w, when the lab asks
// for one (lab.yaml panels: [signals]); otherwise nothing.
func SignalsBlock(s *Signals) Part {
	return func(w *Markup) {
		if s != nil {
			w.signals(s)
		}
	}
}

// LiveSignals holds the live world's panel; a live frame replaces what is
// inside it.
func LiveSignals(s *Signals) Part {
	return func(w *Markup) {
		if s != nil {
			w.s(`<div id="signals">`)
			w.signals(s)
			w.s("</div>")
		}
	}
}

// signals writes the renewal signals of a world: the metrics computed
// from its log, the ones showing trouble marked, and the latest renewal
// log lines with their fields.
func (w *Markup) signals(s *Signals) {
	m, lang := &s.m, s.Lang
	w.s(`<section class="signals"`)
	w.attr("id", s.ID)
	w.s(` aria-labelledby="`)
	w.esc(s.ID)
	w.s(`-h"><h3 id="`)
	w.esc(s.ID)
	w.s(`-h">`)
	w.esc(catalog.T(lang, "signals.title"))
	w.s(`</h3><dl class="signal-rows">`)

	w.signalRow(lang, "left", "signals.left", false)
	if n := len(m.Remaining); n > 0 {
		w.B = catalog.AppendTime(w.B, lang, m.Remaining[n-1])
	} else {
		w.s("–")
	}
	w.signalRow(lang, "left-low", "signals.left-low", false)
	if len(m.Remaining) > 0 {
		w.times(lang, " · ", engine.Percentile(m.Remaining, 0), engine.Percentile(m.Remaining, 50))
	} else {
		w.s("–")
	}
	w.signalRow(lang, "latency", "signals.latency", false)
	if len(m.Latency) > 0 {
		w.times(lang, " · ", engine.Percentile(m.Latency, 50), engine.Percentile(m.Latency, 99), engine.Percentile(m.Latency, 100))
	} else {
		w.s("–")
	}
	w.signalRow(lang, "attempts", "signals.attempts", false)
	w.i(m.Attempts)
	w.s(" · ")
	w.esc(catalog.T(lang, "signals.successes"))
	w.s(" ")
	w.i(m.Successes)
	retries := 0
	for _, r := range m.Retries {
		retries = max(retries, r)
	}
	w.signalCount(lang, "retries", "signals.retries", retries)
	w.signalRow(lang, "failures", "signals.failures", m.Failures > 0)
	w.i(m.Failures)
	w.s(" (")
	w.esc(catalog.T(lang, "signals.transient"))
	w.s(" ")
	w.i(m.Transient)
	w.s(" · ")
	w.esc(catalog.T(lang, "signals.definitive"))
	w.s(" ")
	w.i(m.Definitive)
	w.s(")")
	w.signalCount(lang, "rejected", "signals.rejected", m.Rejected)
	w.signalCount(lang, "lost", "signals.lost", m.Lost)
	w.signalCount(lang, "stale", "signals.stale", m.StaleDrops)
	w.s("</dd></div>")

	w.s(`</dl><h4>`)
	w.esc(catalog.T(lang, "signals.log"))
	w.s("</h4>")
	if s.shown == 0 {
		w.s(`<p class="signal-none">`)
		w.esc(catalog.T(lang, "signals.nolog"))
		w.s("</p></section>")
		return
	}
	w.s(`<p class="signal-legend">`)
	w.esc(catalog.T(lang, "signals.legend"))
	w.s(`</p><ol class="signal-log">`)
	events, names := s.world.Events(), s.world.Names()
	for _, i := range s.lines[:s.shown] {
		w.signalLine(lang, s.world, events[i], names)
	}
	w.s("</ol></section>")
}

// signalRow ends the row before it, if any, and opens row key, labelled
// by label, up to its value.
func (w *Markup) signalRow(lang, key, label string, warn bool) {
	if key != "left" {
		w.s("</dd></div>")
	}
	w.s(`<div data-signal="`)
	w.s(key)
	w.s(`" class="`)
	if warn {
		w.s("warn")
	}
	w.s(`"><dt>`)
	w.esc(catalog.T(lang, label))
	w.s("</dt><dd>")
}

// signalCount is a row whose value is a count, marked when it is not 0.
func (w *Markup) signalCount(lang, key, label string, n int) {
	w.signalRow(lang, key, label, n > 0)
	w.i(n)
}

// times writes ts as lang writes times, sep between them.
func (w *Markup) times(lang, sep string, ts ...engine.Time) {
	for i, t := range ts {
		if i > 0 {
			w.s(sep)
		}
		w.B = catalog.AppendTime(w.B, lang, t)
	}
}

// signalLine writes a renewal event as a structured log line: lease id,
// generation, previous and new expiry, error class; its words, keys and
// times in lang (signals.event.*, signals.key.*), its data-event the
// engine's.
func (w *Markup) signalLine(lang string, world *engine.World, e engine.Event, names engine.Names) {
	event := signalEvent(e.Kind)
	who := names.Of(e.Node)
	w.s(`<li class="`)
	if e.Kind != engine.KindRenewed {
		w.s("warn")
	}
	w.s(`" data-event="`)
	w.s(event)
	w.s(`"><code><span class="t">`)
	w.B = catalog.AppendTime(w.B, lang, e.T)
	w.s("</span> <b>")
	w.esc(who)
	w.s("</b> ")
	w.esc(catalog.T(lang, "signals.event."+event))
	w.s(" ")
	w.field(lang, "lease")
	w.esc(leaseOf(world, who))
	if e.Kind != engine.KindLost {
		w.field(lang, "gen")
		w.B = strconv.AppendUint(w.B, uint64(e.Gen()), 10)
	}
	switch e.Kind {
	case engine.KindRenewed:
		w.field(lang, "prev")
		w.B = catalog.AppendTime(w.B, lang, e.Prev())
		w.field(lang, "new")
		w.B = catalog.AppendTime(w.B, lang, e.At)
		w.field(lang, "left")
		w.B = catalog.AppendTime(w.B, lang, engine.Time(e.Value))
	case engine.KindRenewError:
		w.field(lang, "class")
		if e.Value == 1 {
			w.esc(catalog.T(lang, "signals.definitive"))
		} else {
			w.esc(catalog.T(lang, "signals.transient"))
		}
		w.field(lang, "error")
		w.esc(labs.ReasonName(e.Reason(), lang))
	case engine.KindStaleReply:
		w.field(lang, "current")
		w.B = strconv.AppendInt(w.B, e.Value, 10)
	case engine.KindLost:
		w.field(lang, "why")
		w.esc(labs.ReasonName(e.Reason(), lang))
	}
	w.s("</code></li>")
}

// field opens one key=value field of a log line, up to its value: key
// in lang's words (signals.key.KEY).
func (w *Markup) field(lang, key string) {
	w.s(` <span class="k">`)
	w.esc(catalog.T(lang, "signals.key."+key))
	w.s("=</span>")
}

// leaseOf is the lease the worker named who holds in world's scenario,
// "lock" for a lock's; "" for no such worker.
func leaseOf(world *engine.World, who string) string {
	lease := ""
	for _, ws := range world.Scenario().Workers {
		if ws.Name == who {
			lease = ws.Lease
			if lease == "" {
				lease = "lock"
			}
		}
	}
	return lease
}
