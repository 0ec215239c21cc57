package engine

// A Redlock client a student writes (issue 49). With independent masters
// (masters: independent) a written worker may talk to each master on its
// own, as a Redlock client does: lock sets the lock's key on one master
// to a value for a TTL, if the key is free there (or already the
// worker's: an extension), and the master answers (MomentLocked: OK, or
// not — held by another, or the master is down); unlock removes the key
// from a master if it is the worker's. The master keeps the key by its
// own clock, and one that goes down forgets it, as everywhere with
// independent masters.
//
// The client decides from the answers whether it holds the lock; the
// engine keeps the truth: whoever holds the key on a majority of the
// masters holds the lease, until fewer than a majority still hold it
// (keysEnd), with a token from the engine's counter, as any grant: a
// write that carries the lock's value stands for that token, so the
// observers judge the client's writes as any worker's, and compare its
// tokens with the other workers'. Only the storage sees the value.
//
// A worker's first moment (on_start) carries a random number in its
// token, the same for the same seed and start, for the client to make
// its lock's value from: the language itself has no randomness.
//
// A pause armed for the worker's next check (freeze W on=check, the
// search's pause-at-check) falls, for a written worker, between its
// handler's decision and its write: the write waits for the thaw, as a
// client's write waits out a GC pause that struck after it checked its
// validity.

// maxLockTTL bounds a lock's TTL.
const maxLockTTL = Hour

// checkLock refuses a lock or an unlock the world cannot carry out: no
// independent masters, no such master, a TTL out of range.
func (w *World) checkLock(a Action) error {
	if !w.coord.independent || a.Master < 1 || a.Master > len(w.coord.up) {
		return &ActionError{Action: a, Code: "master"}
	}
	if a.Kind == ActLock && (a.TTL <= 0 || a.TTL > maxLockTTL) {
		return &ActionError{Action: a, Code: "ttl"}
	}
	return nil
}

// sendLock sends a lock or an unlock to its master. Its gen names the
// master (from 1), and the master's answer carries it back.
func (w *World) sendLock(wk *worker, a Action) {
	wk.req++
	m := message{kind: MsgAcquire, from: wk.id, to: Coord, req: wk.req, token: a.Token, ttl: a.TTL, gen: uint32(a.Master), lease: wk.lease}
	if a.Kind == ActUnlock {
		m.kind = MsgRelease
	}
	w.send(m)
}

// lockOne is one master answering a lock (MsgAcquire) or an unlock
// (MsgRelease) sent to it alone.
func (w *World) lockOne(m message) {
	c := &w.coord
	l := &c.leases[m.lease]
	i := int(m.gen) - 1
	if i >= len(c.up) {
		return
	}
	k := &c.keys[int(l.index)*len(c.up)+i]
	now := c.rclk[i].local(w.now)
	if m.kind == MsgRelease {
		// Only the key this value set: an older round's unlock, late,
		// leaves a newer round's key alone.
		if c.up[i] && k.holder == m.from && k.value == m.token {
			*k = masterKey{holder: NoNode}
			w.majority(l, m.from, m.token)
		}
		return
	}
	switch {
	case !c.up[i]:
		c.reply(w, m, message{kind: MsgUnavailable, reason: ReasonDown, token: m.token})
	case k.holder != NoNode && (k.holder != m.from || k.value != m.token) && k.expires > now:
		c.reply(w, m, message{kind: MsgDeny, reason: ReasonHeld, token: m.token})
	default:
		*k = masterKey{holder: m.from, expires: now + m.ttl, value: m.token}
		w.majority(l, m.from, m.token)
		c.reply(w, m, message{kind: MsgGrant, token: m.token, ttl: m.ttl})
	}
}

// keysHeld counts the masters that hold n's key for l with value now,
// by their clocks.
func (c *coordinator) keysHeld(w *World, l *lease, n Node, value int64) int {
	got := 0
	for i, k := range c.keys[int(l.index)*len(c.up) : int(l.index+1)*len(c.up)] {
		if k.holder == n && k.value == value && k.expires > c.rclk[i].local(w.now) {
			got++
		}
	}
	return got
}

// majority makes the lease record follow n's keys after one of them
// changed: n holds the lease, with value as its token, while a majority
// of the masters hold its key; it is another's no more when n gets one.
func (w *World) majority(l *lease, n Node, value int64) {
	c := &w.coord
	b := w.workers[n].brain
	current := l.holder == n && b != nil && b.lockValue == value
	if c.keysHeld(w, l, n, value) <= len(c.up)/2 {
		if current {
			c.end(w, l, KindRelease, 0, ReasonNone)
		}
		return
	}
	if current {
		c.scheduleExpiry(w, l) // an extension: the majority's end moved
		c.spans[l.open].End = l.expires
		return
	}
	switch {
	case l.holder == n:
		c.end(w, l, KindRelease, 0, ReasonNone) // its lock of another value
	case l.holder != NoNode:
		c.end(w, l, KindExpire, 0, ReasonForgotten)
	}
	l.holder = n
	c.newToken(l)
	l.tenure = l.token
	l.version++
	if b != nil {
		b.lockValue, b.lockToken = value, l.token
	}
	c.scheduleExpiry(w, l)
	l.lastChange = w.emit(EventFields{Kind: KindGrant, Node: Coord, Peer: n, Token: l.token, At: l.expires, Key: l.key})
	c.spans = append(c.spans, LeaseSpan{Lease: w.p.leaseNames[l.index], Worker: n, Token: l.token, Start: w.now, End: l.expires, Open: true})
	l.open = int32(len(c.spans) - 1)
}

// realToken is the lease token a written worker's write with token
// stands for: the engine's token of the lock it holds, when token is
// that lock's value.
func (b *brain) realToken(token int64) int64 {
	if b.lockValue != 0 && token == b.lockValue {
		return b.lockToken
	}
	return token
}

// startNonce is the random number a written worker's start carries: of
// the world's seed, the worker and its incarnation, so the same in every
// replay and every fork.
func startNonce(seed uint64, wk *worker) int64 {
	r := rng{s: seed ^ uint64(wk.id+1)<<32 ^ uint64(wk.inc)*0x9e3779b97f4a7c15}
	return int64(r.next() >> 34) // 30 bits
}

// hashPending folds a brain's waiting actions into h.
func hashPending(h *hasher, acts []Action) {
	h.int(int64(len(acts)))
	for _, a := range acts {
		h.int(int64(a.Kind)<<8 | int64(a.Master))
		h.int(a.Token)
		h.int(a.Tag)
		h.int(int64(a.At))
		h.int(int64(a.TTL))
		h.int(int64(len(a.Key) + len(a.Timer)<<16))
		for _, s := range []string{a.Key, a.Timer} {
			for i := 0; i < len(s); i++ {
				h.word(uint64(s[i]))
			}
		}
	}
}

// resumeBrain carries out the actions a written worker's pause held, at
// its thaw.
func (w *World) resumeBrain(wk *worker) {
	b := wk.brain
	if b == nil || len(b.pending) == 0 {
		return
	}
	acts := b.pending
	b.pending = nil
	if !b.stopped {
		w.carryOut(wk, acts)
	}
}
