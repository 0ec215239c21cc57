package engine

import (
	"errors"
	"slices"
)

// A storage whose decisions a student writes (issue 49). The scenario's
// Sides.Storage starts a Program when the world starts; every write that
// reaches the storage is its moment (MomentWrite: the write's token, key,
// fixed value, whether it is an effect, the version its writer read), and
// the program answers with exactly one decision: accept, or reject with a
// reason. The decision is checked before it applies, as a worker's actions
// are; a program that fails or decides wrongly stops the storage (a
// ProgramFault), which answers nothing from then on. The engine, not the
// program, then does what the decision says and judges it: the accept or
// reject event, the ledger, the observers (a stale write, a lost update,
// an effect done twice) and the answer to the writer. One more observer
// watches a written storage alone: the lease holder's write (its writer
// held the lease at the coordinator with that token) is refused only as
// a duplicate of an effect done already; any other refusal of it is a
// refused-holder violation. A storage that refuses everything is safe and
// useless, and so is one that answers a done effect with an error: its
// sender takes it for the loss of its lease and never goes on.

// Sides holds the programs that decide for a participant other than a
// worker.
type Sides struct {
	Storage Logic // decides each write that reaches the storage
	Coord   Logic // decides each request that reaches the coordinator
}

// any reports whether a program decides for some side.
func (s Sides) any() bool { return s.Storage != nil || s.Coord != nil }

// sideRun is a side's program as it runs in one world.
type sideRun struct {
	p       Program
	stopped bool // it failed: the side answers nothing more
}

// sidesState is what the written sides hold in one world.
type sidesState struct {
	store sideRun
	coord coordRun
}

// initSides starts the sides' programs for a new world: the storage's
// now, the coordinator's at its first moment (time 0). A world without
// them holds none (nil).
func (w *World) initSides() {
	if !w.p.sc.Sides.any() {
		w.sides = nil
		return
	}
	if w.sides == nil {
		w.sides = new(sidesState)
	}
	s := w.sides
	*s = sidesState{coord: coordRun{owner: NoNode}}
	if l := w.p.sc.Sides.Storage; l != nil {
		s.store.p = l.Start()
	}
	if l := w.p.sc.Sides.Coord; l != nil {
		s.coord.p = l.Start()
		w.schedule(item{at: 0, kind: itSideStart, node: Coord})
	}
}

// forkInto copies the sides for a search's branch, in dst when it is
// not nil (a world forked before that is no longer needed).
func (s *sidesState) forkInto(dst *sidesState) *sidesState {
	if s == nil {
		return nil
	}
	if dst == nil {
		dst = new(sidesState)
	}
	*dst = *s
	for _, r := range []*sideRun{&dst.store, &dst.coord.sideRun} {
		if r.p != nil {
			r.p = r.p.Fork()
		}
	}
	return dst
}

// writtenStorage reports whether a program decides for the storage.
func (w *World) writtenStorage() bool { return w.sides != nil && w.sides.store.p != nil }

func (s *sidesState) hash(h *hasher) {
	if s == nil {
		return
	}
	for _, r := range []*sideRun{&s.store, &s.coord.sideRun} {
		h.bool(r.stopped)
		if r.p != nil {
			h.word(r.p.Hash())
		}
	}
	s.coord.hash(h)
}

// footprint estimates the bytes the sides' programs hold.
func (s *sidesState) footprint() int {
	if s == nil {
		return 0
	}
	n := 256 // the sides' own fields, generously
	for _, r := range []*sideRun{&s.store, &s.coord.sideRun} {
		if r.p == nil {
			continue
		}
		n += sizeBrain
		if f, ok := r.p.(interface{ Footprint() int }); ok {
			n += f.Footprint()
		}
	}
	return n
}

// validateSides refuses a scenario a written side cannot play.
func (sc *Scenario) validateSides() error {
	if sc.Sides.Storage != nil && sc.Copies > 1 {
		return errors.New("a written storage is one copy: copies must be 1")
	}
	if sc.Sides.Coord != nil && (sc.IndependentMasters || sc.CandidateExpiry) {
		return errors.New("a written coordinator is one lease service: no independent masters, no candidate expiry")
	}
	return nil
}

// rejectReasons are the reasons a written storage may give a refusal.
var rejectReasons = []Reason{ReasonStaleToken, ReasonNoToken, ReasonNotCurrent, ReasonVersion, ReasonDuplicate}

// decision checks a written storage's answer to a write: exactly one
// accept or reject, a reject with a reason a storage gives.
func decision(acts []Action) (Action, error) {
	if len(acts) != 1 {
		a := Action{}
		if len(acts) > 1 {
			a = acts[1]
		}
		return a, &ActionError{Action: a, Code: "decide"}
	}
	a := acts[0]
	switch {
	case a.Kind != ActAccept && a.Kind != ActReject:
		return a, &ActionError{Action: a, Code: "kind"}
	case a.Kind == ActReject && !slices.Contains(rejectReasons, a.Reason):
		return a, &ActionError{Action: a, Code: "reason"}
	}
	return a, nil
}

// storageDecides hands write m to the written storage and does what it
// decides.
func (w *World) storageDecides(m message) {
	sr := &w.sides.store
	if sr.stopped {
		return // it failed: the writer waits for an answer that never comes
	}
	s := &w.store
	at := s.keyAt(w, 0, m.key)
	ks := s.keys[at]
	acts, err := sr.p.Handle(Moment{Kind: MomentWrite, Now: w.now, At: w.now, Token: m.token, Key: w.p.names.Keys[m.key], Value: w.p.values[m.value], Effect: m.effect, Version: m.version})
	var d Action
	if err == nil {
		d, err = decision(acts)
	}
	if err != nil {
		sr.stopped = true
		ev := w.emit(EventFields{Kind: KindDone, Node: Storage, Peer: NoNode})
		w.faults = append(w.faults, ProgramFault{Worker: Storage, Event: ev, Moment: MomentWrite, Err: err})
		return
	}
	holder := w.coord.holding(m.lease, m.from, m.real, w.now)
	done := m.effect && ks.firstSend >= 0 // an effect done already
	before := ks.highest
	ks.highest = max(ks.highest, m.token)
	s.highest = max(s.highest, m.token)
	if d.Kind == ActReject {
		shown := before
		if d.Reason == ReasonVersion {
			shown = s.version
		}
		idx := w.emit(EventFields{Kind: KindReject, Node: Storage, Peer: m.from, Token: m.token, Key: m.key, Reason: d.Reason, Value: shown, Effect: m.effect, Ref: m.ev, Ref2: -1})
		w.lineOf(idx, d)
		s.ledger = append(s.ledger, Write{T: w.now, Worker: m.from, Token: m.token, Key: w.p.names.Keys[m.key], Effect: m.effect, Reason: d.Reason, Highest: ks.highest, Event: idx})
		s.keys[at] = ks
		if holder && (!done || d.Reason != ReasonDuplicate) {
			w.emit(EventFields{Kind: KindViolation, Reason: ViolationRefusedHolder, Node: NoNode, Peer: m.from, Token: m.token, Ref: idx, Ref2: m.ev})
		}
		reply := MsgWriteErr
		if d.Reason == ReasonDuplicate {
			reply = MsgWriteOK // the effect is done already: the writer may carry on
		}
		w.send(message{kind: reply, from: Storage, to: m.from, req: m.req, reason: d.Reason, token: m.token, version: s.version})
		return
	}
	s.version++
	ks.used = true
	same := !m.effect && m.value != 0 && ks.lastAccept >= 0 && ks.lastValue == m.value
	why := ReasonNone
	if same {
		why = ReasonSameValue
	}
	idx := w.emit(EventFields{Kind: KindAccept, Node: Storage, Peer: m.from, Token: m.token, Key: m.key, Reason: why, Value: ks.highest, Effect: m.effect, Ref: m.ev, Ref2: -1})
	w.lineOf(idx, d)
	s.ledger = append(s.ledger, Write{T: w.now, Worker: m.from, Token: m.token, Key: w.p.names.Keys[m.key], Effect: m.effect, Accepted: true, Highest: ks.highest, Event: idx})
	if !same {
		w.observeAccept(m, idx, &ks)
	}
	s.keys[at] = ks
	w.send(message{kind: MsgWriteOK, from: Storage, to: m.from, req: m.req, token: m.token, version: s.version})
}

// lineOf ties event i to the line of the program that decided it.
func (w *World) lineOf(i int32, a Action) {
	if a.Line > 0 {
		w.lines = append(w.lines, EventLine{Event: i, Line: a.Line, Col: a.Col, Cause: a.Cause})
	}
}

// judgeSides fails run at the first failure of a written side's program;
// and a written coordinator, in a run within the survive limits, when it
// never granted holder (the worker the faults fall on) the lease.
func (w *World) judgeSides(holder Node, run *Run) bool {
	if !w.p.sc.Sides.any() {
		return false
	}
	for _, f := range w.faults {
		if f.Worker < 0 {
			run.Failed, run.Event, run.Why = true, int(f.Event), w.log[f.Event]
			return true
		}
	}
	if w.p.sc.Sides.Coord == nil || !run.Survive || len(w.log) == 0 {
		return false
	}
	for _, e := range w.log {
		if e.Kind == KindGrant && e.Peer() == holder {
			return false
		}
	}
	run.Failed, run.Event, run.Why = true, len(w.log)-1, w.log[len(w.log)-1]
	return true
}

// writtenSide reports whether a program decides for the storage or the
// coordinator: then every violation is the program's, whoever's write
// it concerns.
func (w *World) writtenSide() bool { return w.p.sc.Sides.any() }
