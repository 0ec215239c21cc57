package engine

// LeaseSpan is a lease as the coordinator saw it: the real lease.
type LeaseSpan struct {
	Lease  string
	Worker Node
	Token  int64
	Start  Time
	End    Time // expiry or release; while Open, the current expiry
	Open   bool
}

// BeliefSpan is a lease as its worker saw it.
type BeliefSpan struct {
	Worker Node
	Token  int64
	Start  Time // true time the worker learned of the grant
	Local  Time // the believed end, on the worker's own clock
	Until  Time // true time at which the worker's clock reaches Local
	End    Time // true time the worker let go (lost, released, crashed); Never while held
}

// FreezeSpan is a time a worker was frozen.
type FreezeSpan struct {
	Worker Node
	Start  Time
	End    Time // Never while frozen
}

// Snapshot is the state of a world at one moment, for rendering.
type Snapshot struct {
	Now         Time
	Coordinator CoordinatorState
	Storage     StorageState
	Workers     []WorkerState
	Leases      []LeaseSpan
	Beliefs     []BeliefSpan
	Freezes     []FreezeSpan
	Violations  []Event
}

// CoordinatorState is the lease service's visible state.
type CoordinatorState struct {
	Replicas  []bool // up or down
	Leader    int    // 1-based; 0 while there is none
	Available bool
	Why       Reason // why not available
	NextToken int64
	Leases    []LeaseState // one per lease name, in order of first use

	// The first lease, repeated for the common case of one lease.
	Holder  Node // NoNode when free
	Token   int64
	Expires Time
	Waiting []Node
	FreeAt  Time // lock-delay ends
}

// LeaseState is one lease at the coordinator.
type LeaseState struct {
	Name    string
	Holder  Node // NoNode when free
	Token   int64
	Expires Time
	Waiting []Node
	FreeAt  Time
}

// StorageState is the protected storage's visible state.
type StorageState struct {
	Mode    StorageMode
	Highest int64
	Version int64
	Ledger  []Write
}

// WorkerState is one worker's visible state.
type WorkerState struct {
	Name        string
	Crashed     bool
	Frozen      bool
	Done        bool
	Step        int // index in the program of the current step
	Program     []Op
	Holds       bool
	Believes    bool // holds and, if it watches its clock, before its deadline
	Token       int64
	BelievedEnd Time // on its own clock
	LocalNow    Time
	ClockRate   int64 // ppm
}

// Snapshot copies the world's visible state.
func (w *World) Snapshot() Snapshot {
	c := &w.coord
	s := Snapshot{
		Now: w.now,
		Coordinator: CoordinatorState{
			Replicas:  append([]bool(nil), c.up...),
			Leader:    c.leader + 1,
			Why:       c.unavailable(),
			NextToken: c.nextToken,
		},
		Storage: StorageState{
			Mode:    w.mode,
			Highest: w.store.highest,
			Version: w.store.version,
			Ledger:  append([]Write(nil), w.store.ledger...),
		},
		Leases:  append([]LeaseSpan(nil), c.spans...),
		Beliefs: append([]BeliefSpan(nil), w.beliefs...),
		Freezes: append([]FreezeSpan(nil), w.freezes...),
	}
	s.Coordinator.Available = s.Coordinator.Why == ReasonNone
	if c.electing {
		s.Coordinator.Leader = 0
	}
	for _, l := range c.leases {
		ls := LeaseState{Name: w.p.leaseNames[l.index], Holder: l.holder, Token: l.token, Expires: l.expires, FreeAt: l.freeAt}
		for _, wt := range l.waiters {
			ls.Waiting = append(ls.Waiting, wt.node)
		}
		s.Coordinator.Leases = append(s.Coordinator.Leases, ls)
	}
	first := s.Coordinator.Leases[0]
	s.Coordinator.Holder, s.Coordinator.Token, s.Coordinator.Expires = first.Holder, first.Token, first.Expires
	s.Coordinator.Waiting, s.Coordinator.FreeAt = first.Waiting, first.FreeAt
	s.Workers = w.AppendWorkers(nil)
	for _, e := range w.log {
		if e.Kind == KindViolation {
			s.Violations = append(s.Violations, e)
		}
	}
	return s
}

// Spans are the world's real leases, beliefs and freezes so far, each in
// the order it began: the world's own slices, for reading only, valid
// until its next command. A live picture drawn every frame reads them
// here; Snapshot copies them.
func (w *World) Spans() (leases []LeaseSpan, beliefs []BeliefSpan, freezes []FreezeSpan) {
	return w.coord.spans, w.beliefs, w.freezes
}

// Brief is the part of a Snapshot a status line needs, without the
// copies of the spans, the ledger and the violations.
type Brief struct {
	Now     Time
	Mode    StorageMode
	Highest int64
	Holder  Node // of the first lease; NoNode when free
	Token   int64
	Expires Time
	// Written reports that a program decides each write that reaches the
	// storage (Scenario.Sides.Storage): its mode then decides nothing.
	Written bool
}

// Brief reads the world's status at its current moment.
func (w *World) Brief() Brief {
	b := Brief{Now: w.now, Mode: w.mode, Highest: w.store.highest, Holder: NoNode, Written: w.p.sc.Sides.Storage != nil}
	if len(w.coord.leases) > 0 {
		l := w.coord.leases[0]
		b.Holder, b.Token, b.Expires = l.holder, l.token, l.expires
	}
	return b
}

// AppendWorkers appends each worker's visible state, as Snapshot has it,
// to dst: a caller that keeps dst draws every frame without allocating.
func (w *World) AppendWorkers(dst []WorkerState) []WorkerState {
	for i := range w.workers {
		wk := &w.workers[i]
		dst = append(dst, WorkerState{
			Name:        wk.spec.Name,
			Crashed:     wk.crashed,
			Frozen:      wk.frozen,
			Done:        wk.done,
			Step:        int(wk.pc),
			Program:     wk.spec.Program,
			Holds:       wk.holds,
			Believes:    w.believes(wk),
			Token:       wk.token,
			BelievedEnd: wk.believedEnd,
			LocalNow:    wk.clk.local(w.now),
			ClockRate:   wk.clk.rate,
		})
	}
	return dst
}
