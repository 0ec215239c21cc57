package web

import (
	"strconv"

	"leaselab/engine"
	"leaselab/labs"
)

// signalsLines is how many renewal log lines the panel shows: the latest.
const signalsLines = 6

// Signals is the renewal signals panel of a world (lab.yaml panels:
// [signals]): the numbers the second lesson says to watch, computed by the
// engine from the log, and the latest renewal log lines with the fields
// that tell a slow success from a stale owner.
type Signals struct {
	ID    string
	Lang  string
	Rows  []signalRow
	Lines []signalLine
}

type signalRow struct {
	Key   string // stable, for tests and styling
	Label string
	Value string
	Warn  bool // the signal shows trouble: something failed, was lost or rejected
}

// signalLine is one renewal event as a structured log line.
type signalLine struct {
	At     string
	Worker string
	Event  string // renewed, error, stale, lost
	Fields []signalField
	Warn   bool
}

type signalField struct{ Key, Value string }

// NewSignals computes the panel for a world.
func NewSignals(id string, w *engine.World, lang string) *Signals {
	evs := w.Events()
	m := engine.ComputeMetrics(evs)
	s := &Signals{ID: id, Lang: lang}
	row := func(key, value string, warn bool) {
		s.Rows = append(s.Rows, signalRow{Key: key, Label: T(lang, "signals."+key), Value: value, Warn: warn})
	}
	left, low, latency := "–", "–", "–"
	if n := len(m.Remaining); n > 0 {
		left = m.Remaining[n-1].String()
		low = engine.Percentile(m.Remaining, 0).String() + " · " + engine.Percentile(m.Remaining, 50).String()
	}
	row("left", left, false)
	row("left-low", low, false)
	if len(m.Latency) > 0 {
		latency = engine.Percentile(m.Latency, 50).String() + " · " + engine.Percentile(m.Latency, 99).String() +
			" · " + engine.Percentile(m.Latency, 100).String()
	}
	row("latency", latency, false)
	row("attempts", strconv.Itoa(m.Attempts)+" · "+T(lang, "signals.successes")+" "+strconv.Itoa(m.Successes), false)
	retries := 0
	for _, r := range m.Retries {
		retries = max(retries, r)
	}
	row("retries", strconv.Itoa(retries), retries > 0)
	row("failures", strconv.Itoa(m.Failures)+" ("+T(lang, "signals.transient")+" "+strconv.Itoa(m.Transient)+
		" · "+T(lang, "signals.definitive")+" "+strconv.Itoa(m.Definitive)+")", m.Failures > 0)
	row("rejected", strconv.Itoa(m.Rejected), m.Rejected > 0)
	row("lost", strconv.Itoa(m.Lost), m.Lost > 0)
	row("stale", strconv.Itoa(m.StaleDrops), m.StaleDrops > 0)

	names := w.Names()
	leaseOf := map[string]string{}
	for _, ws := range w.Scenario().Workers {
		leaseOf[ws.Name] = ws.Lease
		if ws.Lease == "" {
			leaseOf[ws.Name] = "lock"
		}
	}
	for i := len(evs) - 1; i >= 0 && len(s.Lines) < signalsLines; i-- {
		if l, ok := signalLineOf(evs[i], names, leaseOf); ok {
			s.Lines = append(s.Lines, l)
		}
	}
	for i, j := 0, len(s.Lines)-1; i < j; i, j = i+1, j-1 {
		s.Lines[i], s.Lines[j] = s.Lines[j], s.Lines[i]
	}
	return s
}

// signalLineOf turns a renewal event into a log line: lease id,
// generation, previous and new expiry, error class.
func signalLineOf(e engine.Event, names engine.Names, leaseOf map[string]string) (signalLine, bool) {
	who := names.Of(e.Node)
	l := signalLine{At: e.T.String(), Worker: who}
	f := func(k, v string) { l.Fields = append(l.Fields, signalField{k, v}) }
	gen := strconv.FormatUint(uint64(e.Gen()), 10)
	switch e.Kind {
	case engine.KindRenewed:
		l.Event = "renewed"
		f("lease", leaseOf[who])
		f("gen", gen)
		f("prev", e.Prev().String())
		f("new", e.At.String())
		f("left", engine.Time(e.Value).String())
	case engine.KindRenewError:
		l.Event, l.Warn = "error", true
		class := "transient"
		if e.Value == 1 {
			class = "definitive"
		}
		f("lease", leaseOf[who])
		f("gen", gen)
		f("class", class)
		f("error", e.Reason().String())
	case engine.KindStaleReply:
		l.Event, l.Warn = "stale", true
		f("lease", leaseOf[who])
		f("gen", gen)
		f("current", strconv.FormatInt(e.Value, 10))
	case engine.KindLost:
		l.Event, l.Warn = "lost", true
		f("lease", leaseOf[who])
		f("why", e.Reason().String())
	default:
		return l, false
	}
	return l, true
}

// signalsPanel is the lab's signals panel for w, or nothing when the lab
// does not ask for one.
func signalsFor(lab *labs.Lab, id string, w *engine.World, lang string) *Signals {
	if lab == nil || w == nil || !lab.HasPanel("signals") {
		return nil
	}
	return NewSignals(id, w, lang)
}
