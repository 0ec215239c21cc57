package engine

import "slices"

// A coordinator whose decisions a student writes (issue 49). The
// scenario's Sides.Coord starts a Program at time 0 (MomentStart); every
// acquire, renewal and release that reaches the coordinator while it
// serves is its moment, with the worker that asks (and the token it
// carries). It answers an acquire with exactly one of grant (a token and
// a TTL) or deny, a renewal with exactly one of extend (a TTL) or refuse,
// and may at any moment end a worker's lease (expire) and set or cancel
// timers of its own, by the coordinator's clock. Its actions are checked
// before any applies, as a worker's are; a program that fails or decides
// wrongly stops the coordinator, which answers nothing from then on.
//
// The quorum below it stays the engine's: without a quorum or a leader
// the engine answers "unavailable" as for any coordinator, and the
// program is not asked. Losing service is the program's crash: what it
// kept in memory and its timers are gone, and when the coordinator serves
// again it starts afresh (MomentStart), keeping only what it kept as
// stable (a Restarter: Starlark's c.stable), as a leader keeps only what
// is in the replicated log.
//
// The engine keeps the truth the observers judge by: the lease record
// (holder, token, and the expiry promised, by the coordinator's clock:
// the TTL the grant or renewal told the worker), and the highest token
// ever granted, across restarts. Two violations watch a written
// coordinator: double-grant, a grant to a worker while another's
// promised lease has not run out; token-reused, a token not above every
// token granted before (but the same token again to the worker it was
// granted to).

// coordRun is the coordinator's program in one world.
type coordRun struct {
	sideRun
	down    bool // it lost service: it starts afresh when it serves again
	timers  [ProgramTimers]sideTimer
	highest int64 // the highest token ever granted, whatever the program remembers
	owner   Node  // the worker highest was granted to
}

// sideTimer is a timer of a side's program, by that side's clock.
type sideTimer struct {
	name  string
	local Time
	id    uint32
	on    bool
}

func (c *coordRun) hash(h *hasher) {
	h.bool(c.down)
	h.int(c.highest)
	h.int(int64(c.owner))
	for _, t := range c.timers {
		h.bool(t.on)
		h.int(int64(t.local))
		h.int(int64(len(t.name)))
		for i := 0; i < len(t.name); i++ {
			h.word(uint64(t.name[i]))
		}
	}
}

// The largest token and lease a written coordinator may hand out.
const (
	maxProgramToken = 1 << 50
	maxProgramTTL   = Hour
)

// coordStart runs the coordinator's program's first moment.
func (w *World) coordStart() {
	w.coordThink(Moment{Kind: MomentStart}, nil)
}

// coordDecides hands request m to the written coordinator.
func (w *World) coordDecides(m message) {
	mo := Moment{Worker: w.p.names.Nodes[m.from], Token: m.token}
	switch m.kind {
	case MsgAcquire:
		mo.Kind = MomentAcquire
	case MsgRenew:
		mo.Kind = MomentRenew
	case MsgRelease:
		mo.Kind = MomentRelease
	default:
		return
	}
	w.coordThink(mo, &m)
}

// coordThink tells the coordinator's program what happened (req: the
// request it answers, nil for none) and carries out what it answers:
// all of it, or, when the program fails or asks for what the world cannot
// do, none of it.
func (w *World) coordThink(mo Moment, req *message) {
	if !w.writtenCoord() {
		return
	}
	cr := &w.sides.coord
	if cr.stopped || cr.down {
		return
	}
	mo.Now, mo.At = w.coord.clk.local(w.now), w.now
	acts, err := cr.p.Handle(mo)
	if err == nil {
		err = w.checkCoordActions(mo.Kind, acts)
	}
	if err != nil {
		cr.stopped = true
		ev := w.emit(EventFields{Kind: KindDone, Node: Coord, Peer: NoNode})
		w.faults = append(w.faults, ProgramFault{Worker: Coord, Event: ev, Moment: mo.Kind, Err: err})
		return
	}
	for _, a := range acts {
		n := int32(len(w.log))
		w.coordAct(a, req)
		if a.Line > 0 {
			for i := n; i < int32(len(w.log)); i++ {
				w.lines = append(w.lines, EventLine{Event: i, Line: a.Line, Col: a.Col, Cause: a.Cause})
			}
		}
	}
}

// checkCoordActions refuses actions the world cannot carry out: an
// answer where there is no request to answer, none or two where there
// is, a token or a TTL out of range, an unknown worker, too many timers.
func (w *World) checkCoordActions(k MomentKind, acts []Action) error {
	answers := map[MomentKind][]ActionKind{MomentAcquire: {ActGrant, ActDeny}, MomentRenew: {ActExtend, ActRefuse}}[k]
	timers := w.sides.coord.timers
	answered := 0
	for _, a := range acts {
		switch a.Kind {
		case ActGrant, ActDeny, ActExtend, ActRefuse:
			if answered++; !slices.Contains(answers, a.Kind) || answered > 1 {
				return &ActionError{Action: a, Code: "answer"}
			}
			if (a.Kind == ActGrant || a.Kind == ActExtend) && (a.TTL <= 0 || a.TTL > maxProgramTTL) {
				return &ActionError{Action: a, Code: "ttl"}
			}
			if a.Kind == ActGrant && (a.Token < 1 || a.Token > maxProgramToken) {
				return &ActionError{Action: a, Code: "token"}
			}
		case ActExpire:
			if !slices.Contains(w.p.names.Nodes, a.Worker) {
				return &ActionError{Action: a, Code: "worker"}
			}
		case ActSetTimer:
			if a.At < 0 || a.At > 1<<50 {
				return &ActionError{Action: a, Code: "at"}
			}
			if !slices.ContainsFunc(timers[:], func(t sideTimer) bool { return t.on && t.name == a.Timer }) {
				i := slices.IndexFunc(timers[:], func(t sideTimer) bool { return !t.on })
				if i < 0 {
					return &ActionError{Action: a, Code: "timers"}
				}
				timers[i] = sideTimer{name: a.Timer, on: true}
			}
		case ActCancelTimer:
			if i := slices.IndexFunc(timers[:], func(t sideTimer) bool { return t.on && t.name == a.Timer }); i >= 0 {
				timers[i].on = false
			}
		default:
			return &ActionError{Action: a, Code: "kind"}
		}
	}
	if len(answers) > 0 && answered == 0 {
		return &ActionError{Code: "answer"}
	}
	return nil
}

// coordAct carries out one checked action of the coordinator's program.
func (w *World) coordAct(a Action, req *message) {
	c := &w.coord
	switch a.Kind {
	case ActGrant:
		w.programGrant(req, a.Token, a.TTL, MsgGrant)
	case ActDeny:
		l := &c.leases[req.lease]
		w.emit(EventFields{Kind: KindDeny, Node: Coord, Peer: req.from, Reason: ReasonHeld, Key: l.key})
		c.reply(w, *req, message{kind: MsgDeny, reason: ReasonHeld})
	case ActExtend:
		w.programExtend(req, a.TTL)
	case ActRefuse:
		l := &c.leases[req.lease]
		w.emit(EventFields{Kind: KindRenewReject, Node: Coord, Peer: req.from, Token: req.token, Key: l.key})
		c.reply(w, *req, message{kind: MsgRenewReject, token: req.token})
	case ActExpire:
		n, _ := w.Worker(a.Worker)
		for i := range c.leases {
			if l := &c.leases[i]; l.holder == n {
				c.end(w, l, KindExpire, 0, ReasonNone)
			}
		}
	case ActSetTimer:
		w.setSideTimer(a.Timer, a.At)
	case ActCancelTimer:
		cr := &w.sides.coord
		if i := slices.IndexFunc(cr.timers[:], func(t sideTimer) bool { return t.on && t.name == a.Timer }); i >= 0 {
			cr.timers[i].on = false
			cr.timers[i].id++
		}
	}
}

// promise sets l's expiry ttl from now by the coordinator's clock, as
// the coordinator told its holder. No expiry is scheduled: ending the
// lease is the program's act; the promise is what the observers judge.
func (w *World) promise(l *lease, ttl Time) {
	c := &w.coord
	l.local = c.clk.local(w.now) + ttl
	l.expires = c.clk.trueAt(l.local, w.now)
}

// programGrant hands req's worker the lease with token for ttl, and
// answers it with reply: a grant, or (a renewal of a lease the
// coordinator no longer has) a renewal's success. It judges the grant:
// another's promise still running, a token not above every one before.
func (w *World) programGrant(req *message, token int64, ttl Time, reply MsgKind) {
	c, cr := &w.coord, &w.sides.coord
	l := &c.leases[req.lease]
	from := req.from
	double := l.holder != NoNode && l.holder != from && w.now < l.expires
	before := l.lastChange
	reused := token < cr.highest || token == cr.highest && cr.owner != from
	if l.open >= 0 {
		c.spans[l.open].End = w.now
		c.spans[l.open].Open = false
	}
	l.holder, l.token, l.tenure = from, token, token
	l.tokens++
	l.version++
	w.promise(l, ttl)
	idx := w.emit(EventFields{Kind: KindGrant, Node: Coord, Peer: from, Token: token, At: l.expires, Key: l.key})
	l.lastChange = idx
	c.spans = append(c.spans, LeaseSpan{Lease: w.p.leaseNames[l.index], Worker: from, Token: token, Start: w.now, End: l.expires, Open: true})
	l.open = int32(len(c.spans) - 1)
	if token >= cr.highest {
		cr.highest, cr.owner = token, from
	}
	if double {
		w.emit(EventFields{Kind: KindViolation, Reason: ViolationDoubleGrant, Node: NoNode, Peer: from, Token: token, Ref: idx, Ref2: before})
	}
	if reused {
		w.emit(EventFields{Kind: KindViolation, Reason: ViolationTokenReused, Node: NoNode, Peer: from, Token: token, Ref: idx, Ref2: -1})
	}
	c.reply(w, *req, message{kind: reply, token: token, ttl: ttl})
}

// programExtend renews req's worker's lease for ttl. A renewal of a
// lease the record does not hold (the worker's, with that token) gives
// the worker that token again: a grant, judged as one.
func (w *World) programExtend(req *message, ttl Time) {
	c := &w.coord
	l := &c.leases[req.lease]
	if l.holder != req.from || l.token != req.token {
		w.programGrant(req, req.token, ttl, MsgRenewOK)
		return
	}
	prev := l.expires
	l.version++
	w.promise(l, ttl)
	c.spans[l.open].End = l.expires
	w.emit(EventFields{Kind: KindExtend, Node: Coord, Peer: req.from, Token: l.token, At: l.expires, Value: int64(prev), Key: l.key})
	c.reply(w, *req, message{kind: MsgRenewOK, token: l.token, ttl: ttl})
}

// setSideTimer sets the coordinator program's timer name to fire when
// the coordinator's clock reads at.
func (w *World) setSideTimer(name string, at Time) {
	cr := &w.sides.coord
	i := slices.IndexFunc(cr.timers[:], func(t sideTimer) bool { return t.on && t.name == name })
	if i < 0 {
		i = slices.IndexFunc(cr.timers[:], func(t sideTimer) bool { return !t.on })
	}
	t := &cr.timers[i]
	t.name, t.local, t.on = name, at, true
	t.id++
	w.schedule(item{at: w.coord.clk.trueAt(at, w.now), kind: itSideTimer, node: Coord, slot: uint8(i), id: t.id})
}

// sideTimerDue runs when a coordinator program's timer falls due.
func (w *World) sideTimerDue(it item) {
	if !w.writtenCoord() || int(it.slot) >= ProgramTimers {
		return
	}
	cr := &w.sides.coord
	t := &cr.timers[it.slot]
	if !t.on || t.id != it.id {
		return
	}
	if w.coord.clk.local(w.now) < t.local {
		// The coordinator's clock was set back: not yet.
		w.schedule(item{at: w.coord.clk.trueAt(t.local, w.now), kind: itSideTimer, node: Coord, slot: it.slot, id: t.id})
		return
	}
	t.on = false
	w.coordThink(Moment{Kind: MomentTimer, Timer: t.name}, nil)
}

// sideTimerWanted reports whether a side timer's item is still wanted.
func (w *World) sideTimerWanted(it *item) bool {
	if !w.writtenCoord() {
		return false
	}
	t := w.sides.coord.timers[min(int(it.slot), ProgramTimers-1)]
	return t.on && t.id == it.id
}

// coordDown is the written coordinator losing service: its program's
// memory and timers are gone.
func (w *World) coordDown() {
	if !w.writtenCoord() || w.sides.coord.down {
		return
	}
	cr := &w.sides.coord
	cr.down = true
	for i := range cr.timers {
		cr.timers[i].on = false
		cr.timers[i].id++
	}
}

// coordUp is the written coordinator serving again: its program starts
// afresh, keeping what it kept as stable. It reports whether the
// coordinator is written (its leases are then the program's, not the
// engine's rules').
func (w *World) coordUp() bool {
	if !w.writtenCoord() {
		return false
	}
	cr := &w.sides.coord
	if !cr.down {
		return true
	}
	cr.down = false
	if r, ok := cr.p.(Restarter); ok {
		cr.p = r.Restart()
	} else {
		cr.p = w.p.sc.Sides.Coord.Start()
	}
	w.coordStart()
	return true
}

// writtenCoord reports whether a program decides for the coordinator.
func (w *World) writtenCoord() bool { return w.sides != nil && w.sides.coord.p != nil }
