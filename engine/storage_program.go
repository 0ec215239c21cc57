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
}

// any reports whether a program decides for some side.
func (s Sides) any() bool { return s.Storage != nil }

// sideRun is a side's program as it runs in one world.
type sideRun struct {
	p       Program
	stopped bool // it failed: the side answers nothing more
}

// sidesState is what the written sides hold in one world.
type sidesState struct {
	store sideRun
}

// init starts the sides' programs for a new world of p.
func (s *sidesState) init(p *Prepared) {
	*s = sidesState{}
	if l := p.sc.Sides.Storage; l != nil {
		s.store.p = l.Start()
	}
}

// fork copies the sides for a search's branch.
func (s *sidesState) fork() sidesState {
	c := *s
	if c.store.p != nil {
		c.store.p = s.store.p.Fork()
	}
	return c
}

func (s *sidesState) hash(h *hasher) {
	h.bool(s.store.stopped)
	if s.store.p != nil {
		h.word(s.store.p.Hash())
	}
}

// footprint estimates the bytes the sides' programs hold.
func (s *sidesState) footprint() int {
	n := 0
	if s.store.p != nil {
		n += sizeBrain
		if f, ok := s.store.p.(interface{ Footprint() int }); ok {
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
	acts, err := sr.p.Handle(Moment{Kind: MomentWrite, Now: w.now, Token: m.token, Key: w.p.names.Keys[m.key], Value: w.p.values[m.value], Effect: m.effect, Version: m.version})
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
		w.lines = append(w.lines, EventLine{Event: i, Line: a.Line, Col: a.Col})
	}
}

// judgeSides fails run at the first failure of a written side's program.
func (w *World) judgeSides(run *Run) bool {
	if !w.p.sc.Sides.any() {
		return false
	}
	for _, f := range w.faults {
		if f.Worker < 0 {
			run.Failed, run.Event, run.Why = true, int(f.Event), w.log[f.Event]
			return true
		}
	}
	return false
}

// writtenSide reports whether a program decides for the storage or the
// coordinator: then every violation is the program's, whoever's write
// it concerns.
func (w *World) writtenSide() bool { return w.p.sc.Sides.any() }
