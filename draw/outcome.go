package draw

import "leaselab/engine"

// One visual language for what a run did, everywhere a student reads it
// (diagram, status, pinned sentence, event list, verdicts):
//
//	harm — a stale write accepted, a lost update, a double effect, a split
//	       brain: red.
//	safe — a stale write the storage blocked: green.
//	warn — the stale owner acted after its lease expired; whether that did
//	       harm depends on the storage: amber.
const (
	outcomeNone = ""
	outcomeSafe = "safe"
	outcomeWarn = "warn"
	outcomeHarm = "harm"
)

// outcomeKey is the catalog key of an outcome's word, "outcome."+class,
// without joining it each time a frame writes it.
func outcomeKey(class string) string {
	switch class {
	case outcomeSafe:
		return "outcome.safe"
	case outcomeWarn:
		return "outcome.warn"
	case outcomeHarm:
		return "outcome.harm"
	}
	return "outcome." + class
}

// outcomeShortKey is "outcome."+class+".short", likewise.
func outcomeShortKey(class string) string {
	switch class {
	case outcomeSafe:
		return "outcome.safe.short"
	case outcomeWarn:
		return "outcome.warn.short"
	case outcomeHarm:
		return "outcome.harm.short"
	}
	return "outcome." + class + ".short"
}

// harmful reports whether a violation reason is harm.
func harmful(r engine.Reason) bool { return r.IsHarm() }

// blocked reports whether an event is a write the storage refused: the
// check in the resource did its job.
func blocked(e engine.Event) bool { return e.Kind == engine.KindReject }

// eventOutcome classes one event of a log.
func eventOutcome(e engine.Event, harmRefs map[int]bool, i int) string {
	switch {
	case e.Kind == engine.KindViolation && harmful(e.Reason()):
		return outcomeHarm
	case e.Kind == engine.KindViolation:
		return outcomeWarn
	case blocked(e):
		return outcomeSafe
	case e.Kind == engine.KindAccept && harmRefs[i]:
		return outcomeHarm
	}
	return outcomeNone
}

// harmRefsFrom is the set of events the harmful violations from index
// from on point at as their proof: the accepted writes that did the harm;
// nil when there are none.
func harmRefsFrom(events []engine.Event, from int) map[int]bool {
	var out map[int]bool
	for _, e := range events[from:] {
		if e.Kind == engine.KindViolation && harmful(e.Reason()) {
			if out == nil {
				out = map[int]bool{}
			}
			out[int(e.Ref())] = true
		}
	}
	return out
}

// runOutcome sums a run up: the worst class seen, with the event that
// shows it (-1 when nothing happened worth a word). Harm outranks a
// blocked write, which outranks a warning: a stale owner that acted and
// was blocked is the safe story the labs teach.
type runOutcome struct {
	Class        string
	Event        int
	Harm, Warn   int // violations of each class
	Blocked      int // writes the storage refused
	FirstBlocked int
	FirstWarn    int
	firstHarm    int
}

func summarize(events []engine.Event) runOutcome { return newOutcome().fold(events, 0) }

func newOutcome() runOutcome {
	return runOutcome{Event: -1, FirstBlocked: -1, FirstWarn: -1, firstHarm: -1}
}

// fold is o, the outcome of events[:from], with the events from index
// from on added: a live picture sums up only what is new.
func (o runOutcome) fold(events []engine.Event, from int) runOutcome {
	for i := from; i < len(events); i++ {
		e := events[i]
		switch {
		case e.Kind == engine.KindViolation && harmful(e.Reason()):
			o.Harm++
			if o.firstHarm < 0 {
				o.firstHarm = i
			}
		case e.Kind == engine.KindViolation:
			o.Warn++
			if o.FirstWarn < 0 {
				o.FirstWarn = i
			}
		case blocked(e):
			o.Blocked++
			if o.FirstBlocked < 0 {
				o.FirstBlocked = i
			}
		}
	}
	o.Class, o.Event = outcomeNone, -1
	switch {
	case o.firstHarm >= 0:
		o.Class, o.Event = outcomeHarm, o.firstHarm
	case o.FirstBlocked >= 0:
		o.Class, o.Event = outcomeSafe, o.FirstBlocked
	case o.FirstWarn >= 0:
		o.Class, o.Event = outcomeWarn, o.FirstWarn
	}
	return o
}
