package draw

import (
	"strconv"

	"leaselab/catalog"
	"leaselab/engine"
)

// Status is the world's state at a glance: what its words are made
// of, which Markup.status writes, so that a playing session's status keeps
// no strings and its redraw makes none.
type Status struct {
	Lang    string
	Brief   engine.Brief
	Holder  string // the holder's name, when the lease has one
	Workers []engine.WorkerState
	// Outcome is the run so far in one word and colour: harm, safe, warn.
	Outcome runOutcome
	harm    engine.Reason // the outcome's harm, when it is harm

	key statusKey // what the words above were made from, but the time
}

// statusKey is what a status panel's words are made from, but its time:
// a playing session compares it, not the words, to tell whether a frame
// must redraw the panel.
type statusKey struct {
	brief   engine.Brief // Now left out
	outcome struct {
		class       string
		event, harm int
	}
}

func statusKeyOf(b engine.Brief, o runOutcome) statusKey {
	var k statusKey
	k.brief, k.brief.Now = b, 0
	k.outcome.class, k.outcome.event, k.outcome.harm = o.Class, o.Event, o.Harm
	return k
}

func NewStatus(w *engine.World, lang string) *Status {
	s := newStatusOf(w, lang, summarize(w.Events()), w.AppendWorkers(nil))
	return &s
}

// newStatusOf is the status of w, whose run's outcome is o and whose
// workers are as workers says.
func newStatusOf(w *engine.World, lang string, o runOutcome, workers []engine.WorkerState) Status {
	b := w.Brief()
	v := Status{Lang: lang, Brief: b, Workers: workers, Outcome: o, key: statusKeyOf(b, o)}
	if b.Holder != engine.NoNode {
		v.Holder = w.Names().Of(b.Holder)
	}
	if o.Class == outcomeHarm {
		v.harm = w.Events()[o.Event].Reason()
	}
	return v
}

// sameBut reports whether v shows w's status but for its time, its
// workers' rows (the same workers, in the same order) and, when holder
// says so, the lease's holder (who, its token, its expiry): then a frame
// swaps the rows and the holder's words that changed. It compares what
// the words are made from, so that a frame makes no words to compare.
func (v *Status) sameBut(w *engine.World, o runOutcome, workers []engine.WorkerState) (same, holder bool) {
	k := statusKeyOf(w.Brief(), o)
	if len(v.Workers) != len(workers) {
		return false, false
	}
	for i := range v.Workers {
		if v.Workers[i].Name != workers[i].Name {
			return false, false
		}
	}
	if v.key == k {
		return true, false
	}
	b, kb := v.key.brief, k.brief
	b.Holder, b.Token, b.Expires = kb.Holder, kb.Token, kb.Expires
	return v.key.outcome == k.outcome && b == kb, true
}

// setHolder takes w's lease holder into v, as sameBut found it differs.
func (v *Status) setHolder(w *engine.World) {
	b := w.Brief()
	v.Brief.Holder, v.Brief.Token, v.Brief.Expires = b.Holder, b.Token, b.Expires
	v.key.brief.Holder, v.key.brief.Token, v.key.brief.Expires = b.Holder, b.Token, b.Expires
	v.Holder = ""
	if b.Holder != engine.NoNode {
		v.Holder = w.Names().Of(b.Holder)
	}
}

// sameRow reports whether a worker's row says the same of a and b.
func sameRow(a, b *engine.WorkerState) bool {
	return a.Name == b.Name && a.Crashed == b.Crashed && a.Frozen == b.Frozen && a.Done == b.Done && a.Holds == b.Holds && a.Token == b.Token
}

// StatusPanel is the status as a page shows it.
func StatusPanel(s *Status) Part { return func(w *Markup) { w.status(s) } }

// status writes the panel: the time, the lease's holder, the storage, each
// worker's state and the run's outcome.
func (w *Markup) status(s *Status) {
	b, lang := &s.Brief, s.Lang
	w.s(`<dl class="status"><div class="clock"><dt>`)
	w.esc(catalog.T(lang, "status.now"))
	w.s(`</dt><dd id="now">`)
	w.B = catalog.AppendTime(w.B, lang, b.Now) // a time's text needs no escaping
	w.s(`</dd></div><div><dt>`)
	w.esc(catalog.T(lang, "status.holder"))
	w.s(`</dt><dd id="holder">`)
	w.holder(s)
	w.s(`</dd></div><div><dt>`)
	w.esc(catalog.T(lang, "status.storage"))
	w.s(`</dt><dd id="storage-mode"`)
	if b.Written {
		// A student's program decides each write: the mode decides nothing.
		w.attr("data-mode", "program")
		w.s(">")
		w.esc(catalog.T(lang, "mode.program"))
	} else {
		w.attr("data-mode", b.Mode.String())
		w.s(">")
		w.esc(catalog.T(lang, modeKey(b.Mode)))
	}
	w.s(", ")
	w.esc(catalog.T(lang, "status.highest"))
	w.s(" ")
	w.B = strconv.AppendInt(w.B, b.Highest, 10)
	w.s("</dd></div>")
	for _, ws := range s.Workers {
		w.workerRow(lang, ws)
	}
	// The class is as templ joined "outcome" and the outcome's class: with
	// a space before an empty one.
	w.s(`<div class="outcome `)
	w.esc(s.Outcome.Class)
	w.s(`"><dt>`)
	w.esc(catalog.T(lang, "status.outcome"))
	w.s(`</dt><dd id="outcome"`)
	w.attr("data-outcome", s.Outcome.Class)
	w.s(">")
	w.outcomeStatus(s)
	w.s("</dd></div></dl>")
}

// workerRow writes a worker's row of the status, whose id (status-NAME)
// a frame swaps when only workers changed (LivePage.Next).
func (w *Markup) workerRow(lang string, ws engine.WorkerState) {
	w.s(`<div id="status-`)
	w.esc(ws.Name)
	w.s(`"`)
	w.attr("data-worker", ws.Name)
	w.s(` data-frozen="`)
	w.B = strconv.AppendBool(w.B, ws.Frozen)
	w.s(`" class="`)
	if ws.Frozen {
		w.s("frozen")
	}
	w.s(`"><dt>`)
	w.esc(ws.Name)
	w.s("</dt><dd>")
	w.workerState(lang, ws)
	w.s("</dd></div>")
}

// workerState says in words what a worker is doing.
func (w *Markup) workerState(lang string, ws engine.WorkerState) {
	state := ""
	switch {
	case ws.Crashed:
		state = catalog.T(lang, "state.crashed")
	case ws.Frozen:
		state = catalog.T(lang, "state.frozen")
	case ws.Done:
		state = catalog.T(lang, "state.done")
	}
	w.esc(state)
	if ws.Holds {
		if state != "" {
			w.s(", ")
		}
		w.esc(catalog.T(lang, "diagram.token"))
		w.s(" ")
		w.B = strconv.AppendInt(w.B, ws.Token, 10)
	}
	if state == "" && !ws.Holds {
		w.s("—")
	}
}

// outcomeStatus says the run's outcome in a few words.
func (w *Markup) outcomeStatus(s *Status) {
	o, lang := &s.Outcome, s.Lang
	switch o.Class {
	case outcomeNone:
		w.esc(catalog.T(lang, "outcome.none.status"))
	case outcomeHarm:
		w.esc(catalog.T(lang, "outcome.harm"))
		w.s(": ")
		w.esc(catalog.T(lang, harmKey(s.harm)))
		if o.Harm > 1 {
			w.s(" (+")
			w.i(o.Harm - 1)
			w.s(")")
		}
	default:
		w.esc(catalog.T(lang, outcomeKey(o.Class)))
		w.s(": ")
		w.esc(catalog.T(lang, outcomeShortKey(o.Class)))
	}
}

// Catalog keys made of an engine name, joined once: a frame that writes
// one joins nothing.
var modeKeys, harmKeys = func() (modes, harms [256]string) {
	for i := range 256 {
		modes[i] = "mode." + engine.StorageMode(i).String()
		harms[i] = "harm." + engine.Reason(i).String()
	}
	return modes, harms
}()

// modeKey is "mode." and the storage mode's name.
func modeKey(m engine.StorageMode) string {
	if int(m) < len(modeKeys) {
		return modeKeys[m]
	}
	return "mode." + m.String()
}

// harmKey is "harm." and the harm's name.
func harmKey(r engine.Reason) string {
	if int(r) < len(harmKeys) {
		return harmKeys[r]
	}
	return "harm." + r.String()
}

// holder writes the lease holder's words: who, its token and its expiry,
// or that the lease is free. A frame replaces them alone (#holder) when
// only they changed.
func (w *Markup) holder(s *Status) {
	b, lang := &s.Brief, s.Lang
	if b.Holder == engine.NoNode {
		w.esc(catalog.T(lang, "status.none"))
		return
	}
	w.esc(s.Holder)
	w.s(" (")
	w.esc(catalog.T(lang, "diagram.token"))
	w.s(" ")
	w.B = strconv.AppendInt(w.B, b.Token, 10)
	w.s(", ")
	if b.Expires == engine.Never {
		w.esc(catalog.T(lang, "status.no-expiry")) // a lock, or a lease record only candidates expire
	} else {
		w.s("→ ")
		w.B = catalog.AppendMoment(w.B, lang, b.Expires) // until a moment: "→ detik ke-19"
	}
	w.s(")")
}
