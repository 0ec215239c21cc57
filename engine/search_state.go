package engine

import "slices"

// What a search needs of a world: a copy to branch from at a moment
// (forkInto), and a fingerprint of everything that decides what the
// world does next (StateHash), so that two schedules that lead to the same
// world at the same moment are explored once.

// forkInto returns a copy of w at its current moment that changes
// nothing w holds. The copy keeps what decides its future (queue, messages,
// actors, links, clocks, random numbers, the spans the actors point into)
// and its command list, but starts an empty log and an empty storage
// ledger: the engine only appends to them, and a search reads only the
// events a branch records after the fork. A forked world is the search's
// own: its log indexes do not match its commands, so the search replays
// a schedule it reports in a new world.
// It builds the copy in the arrays of dst, a world forked before that is no
// longer needed, when dst is not nil: a search forks a world for every
// schedule it decides and reuses the last one's room.
func (w *World) forkInto(dst *World) *World {
	if dst == nil {
		dst = new(World)
	}
	old := *dst
	*dst = *w
	dst.q = append(old.q[:0], w.q...)
	dst.msgs = append(old.msgs[:0], w.msgs...)
	dst.freeMsgs = append(old.freeMsgs[:0], w.freeMsgs...)
	dst.log = old.log[:0]
	if dst.log == nil {
		dst.log = make([]Event, 0, 64)
	}
	dst.faults, dst.lines = old.faults[:0], old.lines[:0]
	dst.cmds = append(old.cmds[:0], w.cmds...)
	dst.links = append(old.links[:0], w.links...)
	dst.beliefs = append(old.beliefs[:0], w.beliefs...)
	dst.freezes = append(old.freezes[:0], w.freezes...)
	dst.splitSeen = append(old.splitSeen[:0], w.splitSeen...)
	dst.coord.up = append(old.coord.up[:0], w.coord.up...)
	dst.coord.rclk = append(old.coord.rclk[:0], w.coord.rclk...)
	dst.coord.keys = append(old.coord.keys[:0], w.coord.keys...)
	dst.coord.spans = append(old.coord.spans[:0], w.coord.spans...)
	dst.coord.leases = grown(old.coord.leases, len(w.coord.leases))
	for i := range dst.coord.leases {
		waiters := dst.coord.leases[i].waiters
		dst.coord.leases[i] = w.coord.leases[i]
		dst.coord.leases[i].waiters = append(waiters[:0], w.coord.leases[i].waiters...)
	}
	dst.store.ledger = old.store.ledger[:0]
	dst.store.keys = append(old.store.keys[:0], w.store.keys...)
	dst.store.writes = append(old.store.writes[:0], w.store.writes...)
	for c := range dst.store.copies {
		dst.store.copies[c].has = append(old.store.copies[c].has[:0], w.store.copies[c].has...)
		dst.store.copies[c].held = append(old.store.copies[c].held[:0], w.store.copies[c].held...)
	}
	dst.workers = grown(old.workers, len(w.workers))
	for i := range dst.workers {
		deferred := dst.workers[i].deferred
		dst.workers[i] = w.workers[i]
		dst.workers[i].deferred = append(deferred[:0], w.workers[i].deferred...)
		if b := w.workers[i].brain; b != nil {
			dst.workers[i].brain = b.fork()
		}
	}
	dst.sides = w.sides.forkInto(old.sides)
	return dst
}

// hasher folds 64-bit words into a hash (FNV-1a's scheme on whole words,
// with a final mix). Two different states collide with odds near 2^-64
// each; a search of a million states risks about one in ten million.
type hasher struct{ h uint64 }

func (h *hasher) word(x uint64) {
	h.h ^= x
	h.h *= 0x100000001b3
	h.h ^= h.h >> 29
}

func (h *hasher) int(x int64) { h.word(uint64(x)) }

func (h *hasher) bool(b bool) {
	if b {
		h.word(1)
	} else {
		h.word(0)
	}
}

func (h *hasher) sum() uint64 {
	z := h.h
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// StateHash is a fingerprint of everything that decides the world's
// future: the time, the random numbers, the storage mode, what is due in
// the queue (in the order it will happen) and the messages on their way,
// the links, the coordinator, the storage's memory of each key, and every
// worker (its clock, timers, belief and what waits for it while it is
// frozen). Two worlds of one prepared scenario with the same hash do the
// same from now on, given the same commands. History is left out — the
// log, the ledger, the spans, and the log indexes actors keep only to
// point at proof — as are counters that serve only to tell a due item
// still wanted from one cancelled (a timer's id, a freeze's, a crash's
// incarnation): an item is hashed as wanted or not instead.
func (w *World) StateHash() uint64 {
	var scratch []item
	return w.stateHash(&scratch)
}

// stateHash is StateHash with a buffer for the queue in order, kept by a
// caller that hashes many states.
func (w *World) stateHash(scratch *[]item) uint64 {
	h := hasher{h: 0xcbf29ce484222325}
	h.int(int64(w.now))
	h.word(w.rnd.s)
	h.int(int64(w.mode))
	h.int(w.jitter)
	w.hashQueue(&h, scratch)
	w.hashLinks(&h)
	w.hashCoord(&h)
	w.hashStore(&h)
	for i := range w.workers {
		w.hashWorker(&h, &w.workers[i])
	}
	w.sides.hash(&h)
	h.int(int64(len(w.splitSeen)))
	for _, p := range w.splitSeen {
		h.int(p[0])
		h.int(p[1])
	}
	return h.sum()
}

// hashQueue hashes the queue in its order of events, sorted in scratch.
func (w *World) hashQueue(h *hasher, scratch *[]item) {
	q := append((*scratch)[:0], w.q...)
	slices.SortFunc(q, func(a, b item) int {
		if before(&a, &b) {
			return -1
		}
		return 1
	})
	*scratch = q
	h.int(int64(len(q)))
	for i := range q {
		w.hashItem(h, &q[i])
	}
}

// hashLinks hashes the links as commands left them: one set back to the
// scenario's is as if never set (an empty table means every link is the
// scenario's).
func (w *World) hashLinks(h *hasher) {
	for i, l := range w.links {
		if l == (link{}) {
			continue
		}
		h.int(int64(i))
		h.bool(l.cut)
		h.bool(l.hasDelay)
		h.int(int64(l.delay))
		h.int(int64(l.part[0]))
		h.int(int64(l.part[1]))
		h.int(int64(l.part[2]))
		h.bool(l.hasLoss)
		h.int(l.lossPPM)
	}
}

// hashCoord hashes the coordinator: its clocks, keys, replicas and leases.
func (w *World) hashCoord(h *hasher) {
	c := &w.coord
	h.int(int64(c.ttl))
	h.int(int64(c.clk.base))
	h.int(int64(c.clk.anchor))
	h.int(c.clk.rate)
	for _, k := range c.rclk {
		h.int(int64(k.base))
		h.int(int64(k.anchor))
		h.int(k.rate)
	}
	h.int(int64(c.pausedAt))
	for _, k := range c.keys {
		h.int(int64(k.holder))
		h.int(int64(k.expires))
		h.int(k.value)
	}
	for _, u := range c.up {
		h.bool(u)
	}
	h.int(int64(c.leader))
	h.bool(c.electing)
	h.int(int64(c.busyUntil))
	h.int(c.nextToken)
	h.int(int64(c.tokens))
	h.int(int64(c.revoked))
	for _, n := range c.idgen {
		h.int(n)
	}
	for i := range c.leases {
		l := &c.leases[i]
		h.int(int64(l.holder))
		h.bool(l.open >= 0)
		h.int(int64(l.tokens))
		h.int(l.token)
		h.int(int64(l.expires))
		h.int(int64(l.local))
		h.int(int64(l.freeAt))
		h.int(l.version)
		h.int(l.tenure)
		h.int(int64(len(l.waiters)))
		for _, wt := range l.waiters {
			h.int(int64(wt.node))
			h.int(int64(wt.req))
		}
	}
	for i := range w.workers {
		h.bool(c.lastEnd[i] >= 0)
	}
}

// hashStore hashes the storage: what it remembers of each key, its
// copies and the writes between them.
func (w *World) hashStore(h *hasher) {
	h.int(w.store.highest)
	h.int(w.store.version)
	for _, k := range w.store.keys {
		h.bool(k.used)
		h.int(k.highest)
		h.int(k.lastToken)
		h.bool(k.lastAccept >= 0)
		h.bool(k.firstSend >= 0)
		h.bool(k.doubled)
		h.int(int64(k.lastValue))
		p := &k.parts
		for j := range p.from {
			h.int(int64(p.from[j]))
			h.int(p.token[j])
		}
		h.int(int64(p.whole))
		h.int(p.wtoken)
		h.bool(p.mixed)
	}
	h.bool(w.store.cut)
	h.bool(w.store.diverged)
	for _, cw := range w.store.writes {
		h.int(int64(cw.from)<<56 | int64(cw.copy)<<48 | int64(cw.key))
		h.int(cw.token)
	}
	for _, c := range w.store.copies {
		h.int(int64(len(c.has)))
		for _, k := range c.has {
			h.int(int64(k))
		}
		h.int(int64(len(c.held)))
	}
}

func (w *World) hashWorker(h *hasher, wk *worker) {
	h.int(int64(wk.freezeOn))
	h.int(int64(wk.loops)<<8 | int64(uint8(wk.anyGen)))
	h.int(int64(wk.pubGap))
	h.int(int64(wk.every)<<8 | int64(uint8(wk.cancel)))
	h.int(int64(wk.auth))
	h.int(int64(wk.waiting))
	for _, b := range [...]bool{wk.crashed, wk.frozen, wk.done, wk.holds, wk.acquiring, wk.jeopardy, wk.refused, wk.belief >= 0, wk.freeze >= 0} {
		h.bool(b)
	}
	h.int(int64(wk.req))
	h.int(int64(wk.progReq))
	h.int(int64(wk.pc))
	h.int(int64(wk.sub))
	h.bool(wk.worked)
	h.int(int64(wk.freezeFor))
	h.int(int64(wk.reqSent))
	h.int(int64(wk.acqSent))
	h.int(wk.seenVersion)
	h.int(int64(wk.seenAt))
	h.int(wk.token)
	h.int(int64(wk.believedEnd))
	h.int(wk.version)
	r := &wk.renewal
	for _, l := range r.loops {
		h.bool(l.inflight)
		h.int(int64(l.req))
		h.int(int64(l.sent))
		h.int(int64(l.gen))
	}
	h.int(int64(r.gen))
	h.bool(r.uncertain)
	h.bool(r.gaveUp)
	h.int(int64(r.attempts))
	h.int(int64(r.delay))
	h.int(r.pending)
	h.int(int64(wk.clk.base))
	h.int(int64(wk.clk.anchor))
	h.int(wk.clk.rate)
	for _, t := range wk.timers {
		h.bool(t.on)
		h.int(int64(t.local))
	}
	h.int(int64(len(wk.deferred)))
	for i := range wk.deferred {
		w.hashItem(h, &wk.deferred[i])
	}
	if wk.brain != nil {
		wk.brain.hash(h)
	}
}

// hashItem hashes what a due item will do: a message by its contents, any
// other item by whether it is still wanted when its time comes.
func (w *World) hashItem(h *hasher, it *item) {
	h.int(int64(it.at))
	h.int(int64(it.kind)<<24 | int64(it.slot)<<16 | int64(it.lease)<<8 | int64(uint8(it.node)))
	switch it.kind {
	case itDeliver, itCoordProcess:
		m := &w.msgs[it.id]
		h.int(int64(m.kind)<<40 | int64(uint8(m.from))<<32 | int64(uint8(m.to))<<24 | int64(m.reason)<<16 | int64(m.lease)<<8)
		h.bool(m.wait)
		h.bool(m.takeover)
		h.bool(m.effect)
		h.int(m.token)
		h.int(m.real)
		h.int(int64(m.ttl))
		h.int(m.version)
		h.int(int64(m.req))
		h.int(int64(m.gen))
		h.int(int64(m.key)<<16 | int64(m.value))
		h.int(int64(m.form))
	case itTimer:
		t := w.workers[it.node].timers[it.slot]
		h.bool(t.on && t.id == it.id)
	case itNext, itStart:
		h.bool(it.id == w.workers[it.node].inc)
	case itThaw:
		h.bool(it.id == w.workers[it.node].thawID)
	case itReplicate:
		h.int(int64(it.id))
	case itSideTimer:
		h.bool(w.sideTimerWanted(it))
	case itCoordExpire:
		h.bool(it.id == w.coord.leases[it.lease].tokens)
	case itCoordFree:
		h.bool(it.id == w.coord.leases[it.lease].freeID)
	case itElection:
		h.bool(it.id == w.coord.electionID)
	}
}
