package engine

import (
	"errors"
	"fmt"
	"slices"
)

// ErrBudget is returned when one Apply would record more events than its
// budget allows. Like every refused command it changes nothing: the world
// is as it was before the command.
var ErrBudget = errors.New("event budget for one command used up")

// World is one simulated run. It is not safe for concurrent use: one
// goroutine owns it, and everything it does happens inside Apply.
type World struct {
	p        *Prepared // the scenario, shared with the other worlds built from it: read only
	seed     uint64
	mode     StorageMode // a switch the student flips; survives reset
	now      Time
	seq      uint64
	q        queue
	msgs     []message // messages on their way, by place; see post
	freeMsgs []uint32  // places in msgs no message holds
	rnd      rng
	log      []Event
	cmds     []Command
	budget   int // events this Apply may still record; below 0: too many
	coord    coordinator
	store    storage
	workers  []worker
	// jitter is the renewal jitter a command set for every worker, in
	// thousandths; -1: each worker's own (renew-jitter).
	jitter int64
	links  []link // n×n, indexed by linkIndex(a, b); n = workers + 2. Empty until a command sets one: most worlds never do

	beliefs   []BeliefSpan
	freezes   []FreezeSpan
	splitSeen [][2]int64

	faults []ProgramFault // history, like the log: programs that failed
	lines  []EventLine    // history: the program line that caused an event
	sides  *sidesState    // the storage's or the coordinator's program, when a student writes it; nil otherwise
}

type link struct {
	cut      bool
	hasDelay bool
	hasLoss  bool
	delay    Time
	lossPPM  int64
	part     [3]Time // the named parts of the delay: dns, connect, proxy
}

// delayOf is the delay a message on l takes before jitter: the link's own
// or the scenario's, and its named parts.
func (w *World) delayOf(l *link) Time {
	d := w.p.sc.Delay
	if l.hasDelay {
		d = l.delay
	}
	return d + l.part[0] + l.part[1] + l.part[2]
}

// New builds a world at time 0 from a scenario. The scenario is copied.
// A caller that builds many worlds of one scenario prepares it once
// (Prepare) and builds them from that.
func New(sc Scenario) (*World, error) {
	p, err := Prepare(sc)
	if err != nil {
		return nil, err
	}
	return p.New(sc.Seed), nil
}

// Reuse turns w into a new world of sc, as New(sc) would build it, but
// keeps the arrays w has grown (log, queue, actors, ...), so a caller that
// runs many worlds one after another allocates little (Prepared.NewIn
// does the same without preparing sc again). Slices w returned before
// (Events, Commands, Spans) must not be used after. On an error w is
// unchanged.
func (w *World) Reuse(sc Scenario) error {
	p, err := Prepare(sc)
	if err != nil {
		return err
	}
	p.NewIn(w, sc.Seed)
	return nil
}

// keyOf is the id of a key a program names (interned by Prepare).
func (w *World) keyOf(s string) KeyID {
	i := slices.Index(w.p.names.Keys, s)
	return KeyID(max(i, 0))
}

// valueOf is the index of a fixed write result (interned by Prepare).
func (w *World) valueOf(s string) uint16 {
	i := slices.Index(w.p.values, s)
	return uint16(max(i, 0))
}

// init puts every actor in its starting state, in the arrays the world has
// grown: it sets every field but the scenario, seed, storage mode, command
// list and budget. Used by New, reset and replay.
func (w *World) init() {
	w.now = 0
	w.seq = 0
	w.q = w.q[:0]
	w.msgs, w.freeMsgs = w.msgs[:0], w.freeMsgs[:0]
	w.rnd = rng{s: w.seed}
	w.log = w.log[:0]
	w.links = w.links[:0]
	w.jitter = -1
	w.coord.init(w.p)
	w.store = storage{ledger: w.store.ledger[:0], keys: w.store.keys[:0], writes: w.store.writes[:0],
		copies: [2]storeCopy{
			{has: w.store.copies[0].has[:0], held: w.store.copies[0].held[:0]},
			{has: w.store.copies[1].has[:0], held: w.store.copies[1].held[:0]},
		}}
	w.beliefs = w.beliefs[:0]
	w.freezes = w.freezes[:0]
	w.splitSeen = w.splitSeen[:0]
	w.faults, w.lines = w.faults[:0], w.lines[:0]
	w.initSides()
	w.workers = grown(w.workers, len(w.p.sc.Workers))
	for i := range w.workers {
		wk := &w.workers[i]
		spec := &w.p.sc.Workers[i]
		*wk = worker{
			id:       Node(i),
			spec:     spec,
			lease:    uint8(slices.Index(w.p.leaseNames, spec.Lease)),
			clk:      clock{base: spec.Skew, anchor: 0, rate: spec.Drift},
			belief:   -1,
			freeze:   -1,
			anyGen:   -1,
			pubGap:   -1,
			every:    -1,
			cancel:   -1,
			auth:     -1,
			deferred: wk.deferred[:0],
		}
		w.schedule(item{at: spec.Start, kind: itStart, node: wk.id})
	}
}

// grown is s with length n, reusing its array when it is large enough: a
// reset puts the actors in their starting state in the arrays they had.
// The caller sets every element.
func grown[T any](s []T, n int) []T {
	return slices.Grow(s[:0], n)[:n]
}

// Scenario returns the scenario the world was built from, with its
// defaults filled in and its presets resolved. Its workers and their
// programs are shared with the other worlds built from the same prepared
// scenario: read them, do not change them.
func (w *World) Scenario() Scenario {
	sc := w.p.sc
	sc.Seed = w.seed
	return sc
}

// Names maps nodes to names for formatting. It is shared with the other
// worlds built from the same prepared scenario: read it, do not change it.
func (w *World) Names() Names { return w.p.names }

// Now is the current virtual time.
func (w *World) Now() Time { return w.now }

// Events is the log since the world started or was last reset. The slice is
// the world's own: read it, do not change it.
func (w *World) Events() []Event { return w.log }

// Commands is every command applied so far, in order, reset included.
func (w *World) Commands() []Command { return w.cmds }

// Worker finds a worker by name.
func (w *World) Worker(name string) (Node, bool) {
	for i, n := range w.p.names.Nodes {
		if n == name {
			return Node(i), true
		}
	}
	return NoNode, false
}

// node resolves a name that may be a worker, coord or storage.
func (w *World) node(name string) (Node, error) {
	switch name {
	case "coord":
		return Coord, nil
	case "storage":
		return Storage, nil
	}
	if n, ok := w.Worker(name); ok {
		return n, nil
	}
	return NoNode, refuse(RefuseNoNode, fmt.Sprintf("no node called %q (workers: %v, or coord, storage)", name, w.p.names.Nodes), name, nodeList(w.p.names.Nodes))
}

func (w *World) worker(name string) (*worker, error) {
	n, ok := w.Worker(name)
	if !ok {
		return nil, refuse(RefuseNoWorker, fmt.Sprintf("no worker called %q (workers: %v)", name, w.p.names.Nodes), name, nodeList(w.p.names.Nodes))
	}
	return &w.workers[n], nil
}

// Apply carries out one command. A command that is not valid in the
// current state, or that would record more events than the scenario's
// MaxEventsPerApply, returns an error and changes nothing.
func (w *World) Apply(c Command) error { return w.ApplyWithin(c, w.p.limits.MaxEventsPerApply) }

// ApplyWithin is Apply with a budget of its own: the command may record at
// most events events (a reset counts the events of the new log). A command
// that would record more returns an error wrapping ErrBudget and, like
// every refused command, leaves the world, its log and its command list as
// they were. Callers that cap a whole run pass what is left of the cap.
func (w *World) ApplyWithin(c Command, events int) error {
	if err := w.validate(c); err != nil {
		return err
	}
	events = min(events, w.p.limits.MaxEventsPerApply)
	if c.Kind == CmdReset && events < 1 {
		// Otherwise a reset cannot fail: the new log holds one event.
		return fmt.Errorf("%w: a reset records one event (budget %d)", ErrBudget, events)
	}
	// What the command list was, for an undo: record may lengthen the last
	// command (an advance) instead of adding one.
	ncmds := len(w.cmds)
	var lastDur Time
	if ncmds > 0 {
		lastDur = w.cmds[ncmds-1].Dur
	}
	w.record(c)
	if err := w.run(c, events); err != nil {
		w.cmds = w.cmds[:ncmds]
		if ncmds > 0 {
			w.cmds[ncmds-1].Dur = lastDur
		}
		w.replay()
		return err
	}
	return nil
}

// run carries out a validated command that may record events events: it
// returns an error wrapping ErrBudget, part way through, when it would
// record more.
func (w *World) run(c Command, events int) error {
	w.budget = events
	switch c.Kind {
	case CmdReset:
		w.init()
		w.emit(EventFields{Kind: KindReset, Node: NoNode, Peer: NoNode})
	case CmdAdvance:
		return w.runUntil(w.now + c.Dur)
	case CmdUntil:
		return w.runUntil(c.At)
	case CmdStep:
		return w.step()
	default:
		w.command(c)
		if w.budget < 0 {
			return w.overBudget(events)
		}
	}
	return nil
}

// replayBudget is the budget of each command a replay runs again: more
// events than any world can record, so a replay never stops part way
// (advances merged into one may need more than each had).
const replayBudget = 1 << 40

// replay undoes a command refused part way: it builds the world again from
// its scenario and its command list, which no longer holds the refused
// command. The same scenario and commands give the same world, so this
// puts back everything the command changed (the log, the queue, the random
// numbers, every actor) without keeping a copy of any of it before each
// command. A refusal is rare (a session at its cap of events), and it
// costs a run of the world so far again, reusing the arrays it has grown.
func (w *World) replay() {
	w.mode = w.p.sc.Storage
	w.init()
	for _, c := range w.cmds {
		_ = w.run(c, replayBudget) // within replayBudget no command is refused
	}
}

func (w *World) overBudget(events int) error {
	return fmt.Errorf("%w at %s (limit %d)", ErrBudget, w.now, events)
}

// record appends c to the command list. Consecutive advances merge: a
// playing session applies one every frame, and "advance a; advance b" runs
// exactly as "advance a+b" does.
func (w *World) record(c Command) {
	if n := len(w.cmds); n > 0 && c.Kind == CmdAdvance && w.cmds[n-1].Kind == CmdAdvance && w.cmds[n-1].Dur+c.Dur <= w.p.limits.MaxTime {
		w.cmds[n-1].Dur += c.Dur
		return
	}
	w.cmds = append(w.cmds, c)
}

// Do parses and applies a command written as text.
func (w *World) Do(s string) error {
	c, err := ParseCommand(s)
	if err != nil {
		return err
	}
	return w.Apply(c)
}

// Advance lets d of virtual time pass.
func (w *World) Advance(d Time) error { return w.Apply(Command{Kind: CmdAdvance, Dur: d}) }

// Step runs until at least one event is recorded.
func (w *World) Step() error { return w.Apply(Command{Kind: CmdStep}) }

// validate refuses a command the world cannot carry out now, with the
// check the command table names for its kind.
func (w *World) validate(c Command) error {
	if s := c.Kind.spec(); s != nil {
		return s.check(w, c)
	}
	return refuse(RefuseUnknown, "unknown command")
}

// command applies a validated command that does not move time.
func (w *World) command(c Command) {
	switch c.Kind {
	case CmdFreeze:
		wk, _ := w.worker(c.A)
		if c.On != KindNone {
			wk.freezeOn, wk.freezeFor = c.On, c.Dur
			return
		}
		w.freezeWorker(wk, c.Dur)
	case CmdThaw:
		wk, _ := w.worker(c.A)
		wk.freezeOn = KindNone
		if wk.frozen {
			w.thawWorker(wk)
		}
	case CmdCrash:
		wk, _ := w.worker(c.A)
		w.crashWorker(wk)
	case CmdRestart:
		wk, _ := w.worker(c.A)
		wk.crashed = false
		w.emit(EventFields{Kind: KindRestart, Node: wk.id, Peer: NoNode})
		w.schedule(item{at: w.now, kind: itStart, node: wk.id, id: wk.inc})
	case CmdStorage:
		w.mode = c.Mode
		w.emit(EventFields{Kind: KindFencing, Node: Storage, Peer: NoNode, Value: int64(c.Mode)})
	case CmdPartition:
		w.partition(c)
	case CmdHeal:
		w.heal(c)
	case CmdLink:
		a, _ := w.node(c.A)
		b, _ := w.node(c.B)
		w.setLink(a, b, c)
		if !c.OneWay {
			w.setLink(b, a, c)
		}
	case CmdClock:
		if wk, err := w.worker(c.A); err == nil {
			w.changeClock(wk, c)
		} else {
			w.coord.changeClock(w, c)
		}
	case CmdReplica:
		w.coord.setReplica(w, c.Replica-1, c.Up)
	case CmdJitter:
		w.jitter = c.Jitter
	case CmdPolicy:
		wk, _ := w.worker(c.A)
		w.setPolicy(wk, c)
	case CmdRevoke:
		wk, _ := w.worker(c.A)
		w.coord.revoke(w, wk.id)
	case CmdLease:
		// The lease record's length: grants and renewals from now on, and
		// how long a candidate that watches the record waits. 0s makes
		// them locks that never expire.
		w.coord.ttl = c.Dur
	}
}

// partition cuts a node off from another, or from every other, or the
// storage copies' link (partition copy1 copy2).
func (w *World) partition(c Command) {
	if ok, _ := w.copiesLink(c); ok {
		w.store.setCut(w, true)
		w.emit(EventFields{Kind: KindPartition, Node: Storage, Peer: Storage})
		return
	}
	a, _ := w.node(c.A)
	if c.B == "" {
		for _, b := range w.allNodes() {
			if b != a {
				w.setCut(a, b, true)
			}
		}
		w.emit(EventFields{Kind: KindPartition, Node: a, Peer: NoNode})
		return
	}
	b, _ := w.node(c.B)
	w.setCut(a, b, true)
	w.emit(EventFields{Kind: KindPartition, Node: a, Peer: b})
}

// heal mends the links partition cut: all of them (the copies' too), a
// node's, one, or the copies' link.
func (w *World) heal(c Command) {
	switch {
	case c.A == "":
		for i := range w.links {
			w.links[i].cut = false
		}
		w.emit(EventFields{Kind: KindHeal, Node: NoNode, Peer: NoNode})
		w.store.setCut(w, false)
	case slices.Contains(copyNames[:], c.A):
		w.emit(EventFields{Kind: KindHeal, Node: Storage, Peer: Storage})
		w.store.setCut(w, false)
	case c.B == "":
		a, _ := w.node(c.A)
		for _, b := range w.allNodes() {
			if b != a {
				w.setCut(a, b, false)
			}
		}
		w.emit(EventFields{Kind: KindHeal, Node: a, Peer: NoNode})
	default:
		a, _ := w.node(c.A)
		b, _ := w.node(c.B)
		w.setCut(a, b, false)
		w.emit(EventFields{Kind: KindHeal, Node: a, Peer: b})
	}
	w.reconnect()
}

// reconnect lets every holder with the reconnect option whose link to the
// coordinator is whole again renew at once, unless an attempt is already
// on its way.
func (w *World) reconnect() {
	for i := range w.workers {
		wk := &w.workers[i]
		if !wk.spec.Reconnect || !wk.holds || wk.crashed || wk.frozen || !wk.renews() || wk.renewal.loops[0].inflight || w.link(wk.id, Coord).cut {
			continue
		}
		wk.clearTimer(slotRenew)
		w.renewAttempt(wk, 0)
	}
}

func (w *World) setLink(a, b Node, c Command) {
	w.needLinks()
	l := &w.links[w.linkIndex(a, b)]
	if c.HasDelay {
		l.hasDelay, l.delay = true, c.Dur
	}
	if c.HasLoss {
		l.hasLoss, l.lossPPM = true, c.LossPPM
	}
	for i := range l.part {
		if c.HasParts&(1<<i) != 0 {
			l.part[i] = c.Parts[i]
		}
	}
	d, loss := w.delayOf(l), w.p.sc.LossPPM
	if l.hasLoss {
		loss = l.lossPPM
	}
	w.emit(EventFields{Kind: KindLink, Node: a, Peer: b, At: d, Value: loss})
}

func (w *World) setCut(a, b Node, cut bool) {
	w.needLinks()
	w.links[w.linkIndex(a, b)].cut = cut
	w.links[w.linkIndex(b, a)].cut = cut
}

func (w *World) allNodes() []Node {
	ns := []Node{Coord, Storage}
	for i := range w.workers {
		ns = append(ns, Node(i))
	}
	return ns
}

// slot maps a node to its row in the link table.
func slot(n Node) int { return int(n) + 2 }

// linkIndex is where the link a→b lives in the table.
func (w *World) linkIndex(a, b Node) int { return slot(a)*(len(w.p.sc.Workers)+2) + slot(b) }

// logDoubling is the length from which a full log doubles (emit): 192 KB
// of events, more than most live sessions' runs reach.
const logDoubling = 1 << 12

// needLinks makes the link table, all links as the scenario sets them,
// before a command changes one.
func (w *World) needLinks() {
	if len(w.links) > 0 {
		return
	}
	n := len(w.p.sc.Workers) + 2
	w.links = slices.Grow(w.links[:0], n*n)[:n*n]
	clear(w.links)
}

// link is the link a→b: the scenario's, until a command changed it.
func (w *World) link(a, b Node) link {
	if len(w.links) == 0 {
		return link{}
	}
	return w.links[w.linkIndex(a, b)]
}

// itemsPerEvent bounds the queue items one Apply may process for each
// event it may record: items that record nothing (a timer that finds its
// worker crashed) are cheap but not free, and a bug that schedules them
// forever must still end.
const itemsPerEvent = 64

// runUntil processes every item due at or before t, then sets the clock to t.
func (w *World) runUntil(t Time) error {
	events := w.budget
	items := itemsPerEvent*max(events, 0) + 1024
	for len(w.q) > 0 && w.q[0].at <= t {
		if items--; items < 0 {
			return w.overBudget(events)
		}
		w.process(w.q.pop())
		if w.budget < 0 {
			return w.overBudget(events)
		}
	}
	w.now = t
	return nil
}

// step processes items until one of them records an event.
func (w *World) step() error {
	events := w.budget
	items := itemsPerEvent*max(events, 0) + 1024
	n := len(w.log)
	for len(w.q) > 0 && len(w.log) == n {
		if w.q[0].at > w.p.limits.MaxTime {
			break
		}
		if items--; items < 0 {
			return w.overBudget(events)
		}
		w.process(w.q.pop())
		if w.budget < 0 {
			return w.overBudget(events)
		}
	}
	return nil
}

func (w *World) schedule(it item) {
	w.seq++
	it.seq = w.seq
	w.q.push(it)
}

// emit records an event and runs the observers over it. It returns the
// event's index in the log.
func (w *World) emit(f EventFields) int32 {
	f.T = w.now
	n := len(w.log)
	if n == cap(w.log) {
		if n >= logDoubling {
			// Double, where append grows a large slice by only a quarter:
			// a long log would be copied about five times over instead of
			// once.
			w.log = slices.Grow(w.log, n)
		} else {
			// A smaller log (a live session's) grows by an eighth, where
			// append would double it up to 256 events and then grow it by
			// half or more: a session holds little room it has not used
			// (grown as append grows it, a log of 550 events has room for
			// 850).
			w.log = append(make([]Event, 0, n+n/8+16), w.log...)
		}
	}
	w.log = w.log[:n+1]
	f.pack(&w.log[n])
	w.budget--
	if f.Node >= 0 {
		wk := &w.workers[f.Node]
		if wk.freezeOn != KindNone && wk.freezeOn == f.Kind {
			wk.freezeOn = KindNone
			w.freezeWorker(wk, wk.freezeFor)
		}
	}
	return int32(n)
}

func (w *World) process(it item) {
	w.now = it.at
	switch it.kind {
	case itDeliver:
		w.deliver(it)
	case itTimer, itNext, itStart:
		wk := &w.workers[it.node]
		if wk.crashed {
			return
		}
		if wk.frozen {
			wk.deferred = append(wk.deferred, it)
			return
		}
		switch it.kind {
		case itTimer:
			w.workerTimer(wk, it)
		case itNext:
			if it.id == wk.inc {
				w.runOp(wk)
			}
		case itStart:
			if it.id == wk.inc {
				w.startProgram(wk)
			}
		}
	case itThaw:
		wk := &w.workers[it.node]
		if wk.frozen && it.id == wk.thawID {
			w.thawWorker(wk)
		}
	case itCoordProcess:
		w.coord.process(w, w.take(it.id))
	case itCoordExpire:
		w.coord.expireDue(w, it.lease, it.id)
	case itCoordFree:
		if l := &w.coord.leases[it.lease]; it.id == l.freeID {
			w.coord.wakeWaiters(w, l)
		}
	case itElection:
		w.coord.electionDone(w, it.id)
	case itReplicate:
		w.store.arrive(w, it.id)
	case itSideStart:
		w.coordStart()
	case itSideTimer:
		w.sideTimerDue(it)
	}
}

// send puts a message on the network: lost now, or delivered later.
func (w *World) send(m message) {
	m.sent = w.emit(EventFields{Kind: KindSend, Node: m.from, Peer: m.to, Msg: m.kind, Token: m.token, Value: int64(m.req)})
	l := w.link(m.from, m.to)
	if l.cut {
		w.emit(EventFields{Kind: KindDrop, Node: m.from, Peer: m.to, Msg: m.kind, Reason: ReasonPartition, Ref: m.sent, Ref2: -1})
		return
	}
	loss := w.p.sc.LossPPM
	if l.hasLoss {
		loss = l.lossPPM
	}
	if w.rnd.chance(loss) {
		w.emit(EventFields{Kind: KindDrop, Node: m.from, Peer: m.to, Msg: m.kind, Reason: ReasonLoss, Ref: m.sent, Ref2: -1})
		return
	}
	d := w.delayOf(&l) + Time(w.rnd.upTo(int64(w.p.sc.Jitter)))
	w.schedule(item{at: w.now + d, kind: itDeliver, node: m.to, id: w.post(m)})
}

// post keeps m aside while it is on its way and returns its place in
// w.msgs, which its queue item holds. Places are reused, the latest freed
// first, so msgs holds about as many messages as are ever in flight at
// once.
func (w *World) post(m message) uint32 {
	if n := len(w.freeMsgs); n > 0 {
		i := w.freeMsgs[n-1]
		w.freeMsgs = w.freeMsgs[:n-1]
		w.msgs[i] = m
		return i
	}
	w.msgs = append(w.msgs, m)
	return uint32(len(w.msgs) - 1)
}

// take returns the message at place i and frees the place: the message has
// arrived, or will never arrive.
func (w *World) take(i uint32) message {
	m := w.msgs[i]
	w.freeMsgs = append(w.freeMsgs, i)
	return m
}

func (w *World) deliver(it item) {
	m := w.msgs[it.id]
	if w.link(m.from, m.to).cut {
		w.take(it.id)
		w.emit(EventFields{Kind: KindDrop, Node: m.from, Peer: m.to, Msg: m.kind, Reason: ReasonPartition, Ref: m.sent, Ref2: -1})
		return
	}
	if m.to >= 0 {
		wk := &w.workers[m.to]
		if wk.crashed {
			w.take(it.id)
			w.emit(EventFields{Kind: KindDrop, Node: m.from, Peer: m.to, Msg: m.kind, Reason: ReasonDown, Ref: m.sent, Ref2: -1})
			return
		}
		if wk.frozen {
			wk.deferred = append(wk.deferred, it) // the message stays aside
			return
		}
	}
	w.take(it.id)
	w.emit(EventFields{Kind: KindRecv, Node: m.to, Peer: m.from, Msg: m.kind, Value: int64(m.req), Ref: m.sent, Ref2: -1})
	switch m.to {
	case Coord:
		w.coord.receive(w, m)
	case Storage:
		w.store.receive(w, m)
	default:
		w.workerReceive(&w.workers[m.to], m)
	}
}
