package engine

import (
	"fmt"
	"slices"
)

// A worker whose logic a student writes. Its spec's Logic starts a Program
// whenever the worker starts (and again after a crash and restart: a
// crashed worker forgets everything). The engine calls the program
// synchronously at the worker's moments and carries out the actions it
// returns, in order. The program sees only what the worker sees: its own
// clock and the answers it gets, never the true time. The engine imports
// no interpreter: a Program is anything that answers moments, forks and
// hashes, and it must be deterministic (same moments, same actions).

// MomentKind names what happened to a program's worker.
type MomentKind uint8

const (
	MomentStart         MomentKind = iota // the worker (re)started
	MomentGranted                         // the coordinator granted the lease: Token, TTL
	MomentDenied                          // an acquire was refused (Reason)
	MomentRenewed                         // a renewal succeeded: Token, TTL, Tag
	MomentRenewFailed                     // a renewal was refused or could not be answered (Reason, Tag)
	MomentTimer                           // the timer Timer fired
	MomentWriteOK                         // the storage accepted a write
	MomentWriteRejected                   // the storage rejected a write (Reason)
	// The storage's moment (storage_program.go).
	MomentWrite // a write reached the storage: Token, Key, Value, Effect, Version
	// The coordinator's moments (coord_program.go), besides start and
	// timer.
	MomentAcquire // Worker asks for the lease
	MomentRenew   // Worker asks to renew its lease with Token
	MomentRelease // Worker gives back its lease with Token
	// A worker's, with independent masters (redlock_program.go).
	MomentLocked // master Master answered a lock with value Token: OK, or not (Reason)
	momentCount
)

var momentNames = [momentCount]string{"start", "granted", "denied", "renewed", "renew_failed", "timer", "write_ok", "write_rejected", "write", "acquire", "renew", "release", "locked"}

// String is the moment's name as a program's handler is named (on_<name>).
func (k MomentKind) String() string {
	if k < momentCount {
		return momentNames[k]
	}
	return fmt.Sprintf("moment(%d)", k)
}

// Moments lists every moment kind, in order.
func Moments() []MomentKind {
	out := make([]MomentKind, momentCount)
	for i := range out {
		out[i] = MomentKind(i)
	}
	return out
}

// Moment is one thing that happened to the program's side, as that side
// sees it.
type Moment struct {
	Kind MomentKind
	Now  Time // the side's own clock
	// At is the true time: the program never reads it, a Cause records it.
	At     Time
	Token  int64
	TTL    Time
	Tag    int64 // renewal: the tag the program gave the attempt
	Timer  string
	Reason Reason
	// A write at the storage: its key, the fixed result it puts ("" for
	// the writer's own), whether it is an effect (a send), and the version
	// the writer last read (compare-and-set).
	Key     string
	Value   string
	Effect  bool
	Version int64
	// A request at the coordinator: the worker that sent it.
	Worker string
	// A lock's answer: from which master (1 to the number of masters),
	// and whether the master set the key.
	Master int
	OK     bool
}

// ActionKind names what a program may do.
type ActionKind uint8

const (
	ActAcquire     ActionKind = iota // ask for the lease (no waiting in line)
	ActRenew                         // renew with Token; the answer carries Tag back
	ActWrite                         // write Key with Token to the storage
	ActSetTimer                      // fire Timer when the worker's clock reads At
	ActCancelTimer                   // forget Timer
	ActStop                          // stop working: no more moments
	// The storage's decisions on a write (storage_program.go).
	ActAccept // accept the write
	ActReject // refuse it, saying Reason
	// The coordinator's (coord_program.go).
	ActGrant  // grant the asking worker the lease: Token, for TTL
	ActDeny   // refuse the acquire
	ActExtend // renew the asking worker's lease for TTL
	ActRefuse // refuse the renewal: the worker does not hold the lease
	ActExpire // end Worker's lease
	// A worker's, with independent masters (redlock_program.go).
	ActLock   // set the lock's key on Master to value Token for TTL, if it is free there
	ActUnlock // remove the lock's key from Master, if it is this worker's
	actionCount
)

var actionNames = [actionCount]string{"acquire", "renew", "write", "set_timer", "cancel_timer", "stop", "accept", "reject", "grant", "deny", "extend", "refuse", "expire", "lock", "unlock"}

func (k ActionKind) String() string {
	if k < actionCount {
		return actionNames[k]
	}
	return fmt.Sprintf("action(%d)", k)
}

// Action is one thing a program asks its worker to do. Line and Col are
// where in the program's text it was asked (1-based; 0 when unknown), so
// the events it causes can point at the code.
type Action struct {
	Kind   ActionKind
	Token  int64
	Tag    int64
	Key    string
	Timer  string
	At     Time   // local
	Reason Reason // reject: why
	TTL    Time   // grant, extend, lock: the lease's length
	Worker string // expire: whose lease
	Master int    // lock, unlock: which master, from 1
	Line   int32
	Col    int32
	// Cause is where the program set what this action went by, when its
	// runtime knows it: the value its handler checked, or the timer that
	// called it.
	Cause Cause
}

// Cause is the program line that set what an action went by: a value
// the program keeps (Name is the code that names it, such as
// w.state["until"]) that its handler checked before it (CauseChecked) or
// used (CauseUsed), or the timer that called the handler (CauseTimer:
// Name is the timer's name); At is the true time that line ran. The zero
// Cause: none known.
type Cause struct {
	Kind      CauseKind
	Name      string
	Line, Col int32
	At        Time
}

// CauseKind is what a Cause's line set.
type CauseKind uint8

const (
	CauseNone    CauseKind = iota
	CauseChecked           // a value the program keeps, checked in a condition
	CauseUsed              // a value the program keeps, used
	CauseTimer             // the timer whose moment called the handler
)

// Side is whose decisions a program makes: a worker's, the storage's or
// the coordinator's.
type Side uint8

const (
	SideWorker  Side = iota // a worker's (WorkerSpec.Logic)
	SideStorage             // the storage's: accept or refuse each write (Scenario.Sides)
	SideCoord               // the coordinator's: grant, renew, expire, hand out tokens (Scenario.Sides)
	sideCount
)

var sideNames = [sideCount]string{"worker", "storage", "coordinator"}

func (s Side) String() string {
	if s < sideCount {
		return sideNames[s]
	}
	return fmt.Sprintf("side(%d)", s)
}

// ParseSide reads a side by name.
func ParseSide(s string) (Side, bool) {
	i := slices.Index(sideNames[:], s)
	return Side(max(i, 0)), i >= 0
}

// SideNames lists the sides by name.
func SideNames() []string { return sideNames[:] }

// Moments lists the moments a side's program is told of: its handlers.
// The first is the handler a program of the side must have.
func (s Side) Moments() []MomentKind {
	switch s {
	case SideStorage:
		return []MomentKind{MomentWrite}
	case SideCoord:
		return []MomentKind{MomentAcquire, MomentRenew, MomentRelease, MomentStart, MomentTimer}
	}
	return []MomentKind{MomentStart, MomentGranted, MomentDenied, MomentRenewed, MomentRenewFailed, MomentTimer, MomentWriteOK, MomentWriteRejected, MomentLocked}
}

// Actions lists what a side's program may do.
func (s Side) Actions() []ActionKind {
	switch s {
	case SideStorage:
		return []ActionKind{ActAccept, ActReject}
	case SideCoord:
		return []ActionKind{ActGrant, ActDeny, ActExtend, ActRefuse, ActExpire, ActSetTimer, ActCancelTimer}
	}
	return []ActionKind{ActAcquire, ActRenew, ActWrite, ActSetTimer, ActCancelTimer, ActStop, ActLock, ActUnlock}
}

// Program is a running worker's logic and everything it remembers.
type Program interface {
	// Handle answers a moment with the actions to take. On an error the
	// program must be as it was before the call; the engine takes none of
	// the actions and stops the worker (a ProgramFault).
	Handle(m Moment) ([]Action, error)
	// Fork is an independent copy: a search branches the world.
	Fork() Program
	// Hash is a fingerprint of everything that decides what the program
	// does next; it goes into the world's StateHash.
	Hash() uint64
}

// Restarter is a program part of whose memory survives a restart (a
// coordinator's stable state): Restart is the program started again
// with that part kept.
type Restarter interface {
	Restart() Program
}

// Logic starts a worker's program: the compiled text, shared by every
// world built from one scenario. Start must not fail and must give equal
// programs each time.
type Logic interface {
	Start() Program
}

// ProgramTimers is how many named timers a program may have set at once.
const ProgramTimers = 4

// ActionError is an action the world cannot carry out; no action of the
// moment was taken.
type ActionError struct {
	Action Action
	Code   string // "key", "timers", "tag", "at"
}

func (e *ActionError) Error() string {
	return fmt.Sprintf("%d:%d: %s: cannot do it (%s)", e.Action.Line, e.Action.Col, e.Action.Kind, e.Code)
}

// ProgramFault is a program that failed at a moment: the worker stopped
// there, and the world is as it was before the moment but for the Done
// event at Event.
type ProgramFault struct {
	Worker Node
	Event  int32
	Moment MomentKind
	Err    error
}

// EventLine ties an event to the line of the program whose action caused
// it.
type EventLine struct {
	Event     int32
	Line, Col int32
	Cause     Cause // what the action went by, when known
}

// brain is a program worker's engine-side state.
type brain struct {
	p       Program
	stopped bool
	acqReq  uint32                // the latest acquire's request id
	timers  [ProgramTimers]string // slot i's timer name, "" when free
	// pending are the actions a handler asked for that wait for the
	// worker to thaw: a pause that fell between its decision to write
	// and the write (pause-at-check, redlock_program.go).
	pending []Action
	// lockValue is the value of the lock the worker last got a majority
	// of the masters with, and lockToken the lease token the engine gave
	// that holding (redlock_program.go).
	lockValue, lockToken int64
}

func (b *brain) fork() *brain {
	c := *b
	if c.p != nil {
		c.p = b.p.Fork()
	}
	return &c
}

func (b *brain) hash(h *hasher) {
	h.bool(b.stopped)
	h.int(int64(b.acqReq))
	for _, n := range b.timers {
		h.int(int64(len(n)))
		for i := 0; i < len(n); i++ {
			h.word(uint64(n[i]))
		}
	}
	if b.p != nil {
		h.word(b.p.Hash())
	}
	hashPending(h, b.pending)
	h.int(b.lockValue)
	h.int(b.lockToken)
}

// ProgramFaults lists the programs that failed since the world started.
func (w *World) ProgramFaults() []ProgramFault { return w.faults }

// ProgramLines ties events to the program lines that caused them, in the
// order of the events.
func (w *World) ProgramLines() []EventLine { return w.lines }

// ProgramLine is the program line (and column) that caused event i, or 0.
func (w *World) ProgramLine(i int) (line, col int32) {
	j, ok := slices.BinarySearchFunc(w.lines, int32(i), func(e EventLine, t int32) int { return int(e.Event - t) })
	if !ok {
		return 0, 0
	}
	return w.lines[j].Line, w.lines[j].Col
}

// ProgramCause is where the program set what the action behind event i
// went by (Action.Cause), or the zero Cause.
func (w *World) ProgramCause(i int) Cause {
	j, ok := slices.BinarySearchFunc(w.lines, int32(i), func(e EventLine, t int32) int { return int(e.Event - t) })
	if !ok {
		return Cause{}
	}
	return w.lines[j].Cause
}

func (w *World) startBrain(wk *worker) {
	wk.done = false
	w.emit(EventFields{Kind: KindStart, Node: wk.id, Peer: NoNode})
	for s := range ProgramTimers {
		wk.clearTimer(timerSlot(s))
	}
	wk.brain = &brain{p: wk.spec.Logic.Start()}
	w.think(wk, Moment{Kind: MomentStart, Token: startNonce(w.seed, wk)})
}

// think tells the worker's program what happened and carries out what it
// answers: all of it, or, when the program fails or asks for something the
// world cannot do, none of it.
func (w *World) think(wk *worker, m Moment) {
	b := wk.brain
	if b == nil || b.stopped || b.p == nil {
		return
	}
	m.Now, m.At = wk.clk.local(w.now), w.now
	acts, err := b.p.Handle(m)
	if err == nil {
		err = w.checkActions(wk, acts)
	}
	if err != nil {
		b.stopped = true
		wk.done = true
		ev := w.emit(EventFields{Kind: KindDone, Node: wk.id, Peer: NoNode})
		w.faults = append(w.faults, ProgramFault{Worker: wk.id, Event: ev, Moment: m.Kind, Err: err})
		return
	}
	w.carryOut(wk, acts)
}

// carryOut carries out checked actions in order, each event tied to its
// action's line. A pause armed for the worker's next check (freeze
// on=check) falls before a write: the write and what follows it wait
// for the worker to thaw.
func (w *World) carryOut(wk *worker, acts []Action) {
	b := wk.brain
	for i, a := range acts {
		if a.Kind == ActWrite && wk.freezeOn == KindCheck && !wk.frozen {
			wk.freezeOn = KindNone
			b.pending = slices.Clone(acts[i:])
			w.freezeWorker(wk, wk.freezeFor)
			return
		}
		n := int32(len(w.log))
		w.act(wk, a)
		if a.Line > 0 {
			for i := n; i < int32(len(w.log)); i++ {
				w.lines = append(w.lines, EventLine{Event: i, Line: a.Line, Col: a.Col, Cause: a.Cause})
			}
		}
		if b.stopped {
			return
		}
	}
}

// checkActions refuses a list of actions the world cannot carry out, so
// that none of them is taken.
func (w *World) checkActions(wk *worker, acts []Action) error {
	timers := wk.brain.timers
	for _, a := range acts {
		switch a.Kind {
		case ActWrite:
			if a.Key == "" || !slices.Contains(w.p.names.Keys, a.Key) || slices.Contains(w.p.leaseNames, a.Key) {
				return &ActionError{Action: a, Code: "key"}
			}
		case ActRenew:
			if a.Tag < 0 || a.Tag > 1<<31 {
				return &ActionError{Action: a, Code: "tag"}
			}
		case ActSetTimer:
			if a.At < 0 || a.At > 1<<50 {
				return &ActionError{Action: a, Code: "at"}
			}
			if !slices.Contains(timers[:], a.Timer) {
				i := slices.Index(timers[:], "")
				if i < 0 {
					return &ActionError{Action: a, Code: "timers"}
				}
				timers[i] = a.Timer
			}
		case ActCancelTimer:
			if i := slices.Index(timers[:], a.Timer); i >= 0 {
				timers[i] = ""
			}
		case ActLock, ActUnlock:
			if err := w.checkLock(a); err != nil {
				return err
			}
		case ActAcquire, ActStop:
		default:
			return &ActionError{Action: a, Code: "kind"}
		}
	}
	return nil
}

// act carries out one checked action.
func (w *World) act(wk *worker, a Action) {
	b := wk.brain
	switch a.Kind {
	case ActAcquire:
		wk.req++
		b.acqReq = wk.req
		w.send(message{kind: MsgAcquire, from: wk.id, to: Coord, req: wk.req, lease: wk.lease})
	case ActRenew:
		wk.req++
		w.send(message{kind: MsgRenew, from: wk.id, to: Coord, token: a.Token, req: wk.req, gen: uint32(a.Tag), lease: wk.lease})
	case ActWrite:
		idx := w.emit(EventFields{Kind: KindWrite, Node: wk.id, Peer: Storage, Token: a.Token, Key: w.keyOf(a.Key)})
		real := b.realToken(a.Token) // a lock's value stands for its lease's token (redlock_program.go)
		if !w.coord.holding(wk.lease, wk.id, real, w.now) {
			end := w.leaseEnd(wk.id)
			w.emit(EventFields{Kind: KindViolation, Reason: ViolationActedAfterExpiry, Node: NoNode, Peer: wk.id, Token: a.Token, Ref: idx, Ref2: end, Value: w.endCause(end)})
		}
		wk.req++
		w.send(message{kind: MsgWrite, from: wk.id, to: Storage, req: wk.req, token: a.Token, real: real, key: w.keyOf(a.Key), version: wk.version, lease: wk.lease, ev: idx})
	case ActSetTimer:
		s := slices.Index(b.timers[:], a.Timer)
		if s < 0 {
			s = slices.Index(b.timers[:], "")
			b.timers[s] = a.Timer
		}
		w.setTimer(wk, timerSlot(s), a.At)
	case ActCancelTimer:
		if s := slices.Index(b.timers[:], a.Timer); s >= 0 {
			b.timers[s] = ""
			wk.clearTimer(timerSlot(s))
		}
	case ActLock, ActUnlock:
		w.sendLock(wk, a)
	case ActStop:
		b.stopped = true
		wk.done = true
		for s := range ProgramTimers {
			wk.clearTimer(timerSlot(s))
		}
		w.emit(EventFields{Kind: KindDone, Node: wk.id, Peer: NoNode})
	}
}

// brainTimer runs when one of the program's timers fires.
func (w *World) brainTimer(wk *worker, slot uint8) {
	b := wk.brain
	if int(slot) >= ProgramTimers || b == nil {
		return
	}
	name := b.timers[slot]
	b.timers[slot] = ""
	w.think(wk, Moment{Kind: MomentTimer, Timer: name})
}

// brainReceive turns an answer into the program's moment.
func (w *World) brainReceive(wk *worker, m message) {
	if w.coord.independent && m.gen > 0 && (m.kind == MsgGrant || m.kind == MsgDeny || m.kind == MsgUnavailable) {
		w.think(wk, Moment{Kind: MomentLocked, Master: int(m.gen), OK: m.kind == MsgGrant, Token: m.token, Reason: m.reason})
		return
	}
	switch m.kind {
	case MsgGrant:
		w.think(wk, Moment{Kind: MomentGranted, Token: m.token, TTL: m.ttl})
	case MsgDeny:
		w.think(wk, Moment{Kind: MomentDenied, Reason: m.reason})
	case MsgUnavailable:
		if m.req == wk.brain.acqReq {
			w.think(wk, Moment{Kind: MomentDenied, Reason: m.reason})
		} else {
			w.think(wk, Moment{Kind: MomentRenewFailed, Reason: m.reason, Tag: int64(m.gen)})
		}
	case MsgRenewOK:
		w.think(wk, Moment{Kind: MomentRenewed, Token: m.token, TTL: m.ttl, Tag: int64(m.gen)})
	case MsgRenewReject:
		// Refused: no longer the holder, or (its session revoked) not
		// authorised: the program hears which, as a built-in worker does.
		why := m.reason
		if why == ReasonNone {
			why = ReasonNotHolder
		}
		w.think(wk, Moment{Kind: MomentRenewFailed, Reason: why, Tag: int64(m.gen)})
	case MsgWriteOK:
		wk.version = m.version
		w.think(wk, Moment{Kind: MomentWriteOK})
	case MsgWriteErr:
		w.think(wk, Moment{Kind: MomentWriteRejected, Reason: m.reason})
	}
}

// judgeProgram adds what a written worker owes a challenge to its safety:
// its program must not fail, and through a schedule it must survive it
// must keep working — not stop, and write at least once. It reports
// whether the run failed.
func (w *World) judgeProgram(holder Node, run *Run, work int) bool {
	for _, f := range w.faults {
		if f.Worker == holder {
			run.Failed, run.Event, run.Why = true, int(f.Event), w.log[f.Event]
			return true
		}
	}
	if i := w.wroteAfterRejection(holder); i >= 0 {
		run.Failed, run.Event, run.Why = true, i, w.log[i]
		return true
	}
	if !run.Survive {
		return false
	}
	wrote := false
	for i, e := range w.log {
		switch {
		case e.Kind == KindDone && e.Node == holder:
			run.Failed, run.Event, run.Why = true, i, e
			return true
		case e.Kind == KindWrite && e.Node == holder:
			wrote = true
		}
	}
	if !wrote && len(w.log) > 0 {
		run.Failed, run.Event, run.Why = true, len(w.log)-1, w.log[len(w.log)-1]
		return true
	}
	if work > 0 {
		if share, i := w.WorkShare(holder); share < work && i >= 0 {
			run.Failed, run.Event, run.Why = true, i, w.log[i]
			return true
		}
	}
	return false
}

// WorkShare is the share, in percent, of the seconds from holder's first
// grant to now in which holder wrote, and the event that begins its
// longest stretch of seconds without a write: the last write before it,
// or the grant (-1 when it wrote in every second, or never had a lease).
func (w *World) WorkShare(holder Node) (share, before int) {
	start, grant := Time(-1), -1
	var wrote []bool // a second from start: did holder write in it
	for i, e := range w.log {
		switch {
		case start < 0 && e.Kind == KindGrant && e.Peer() == holder:
			start, grant = e.T, i
			wrote = make([]bool, max(1, int((w.now-start+Second-1)/Second)))
		case start >= 0 && e.Kind == KindWrite && e.Node == holder:
			if k := int((e.T - start) / Second); k < len(wrote) {
				wrote[k] = true
			}
		}
	}
	if start < 0 {
		return 100, -1
	}
	n, gap, longest, run := 0, -1, 0, 0
	for k, ok := range wrote {
		if ok {
			n, run = n+1, 0
			continue
		}
		if run++; run > longest {
			longest, gap = run, k-run+1
		}
	}
	before = -1
	if gap >= 0 {
		before = grant
		for i, e := range w.log {
			if e.Kind == KindWrite && e.Node == holder && e.T < start+Time(gap)*Second {
				before = i
			}
		}
	}
	return n * 100 / len(wrote), before
}

// wroteAfterRejection is the first write of holder with a token the
// storage had already refused as stale, absent or no longer current, or -1.
// A rejection is the storage saying the lease is gone: a worker that
// writes with that token again has not stopped the job.
func (w *World) wroteAfterRejection(holder Node) int {
	refused := int64(-1) // the highest token the storage refused
	for i, e := range w.log {
		switch {
		case e.Kind == KindReject && e.Node == Storage && e.Peer() == holder:
			if r := e.Reason(); r == ReasonStaleToken || r == ReasonNotCurrent || r == ReasonNoToken {
				refused = max(refused, e.Token)
			}
		case e.Kind == KindWrite && e.Node == holder && e.Token <= refused:
			return i
		}
	}
	return -1
}
