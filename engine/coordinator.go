package engine

// coordinator is the lease service: replicas behind a quorum, one lease,
// a token counter that only rises, and a line of waiters.
type coordinator struct {
	ttl          Time
	lockDelay    Time
	election     Time
	service      Time
	renewToken   bool
	up           []bool
	leader       int // index of the leader replica, -1 while there is none
	electing     bool
	electionID   uint32
	busyUntil    Time
	nextToken    int64
	holder       Node // NoNode when free
	token        int64
	expires      Time
	freeAt       Time // no grant before this (lock-delay)
	freeID       uint32
	waiters      []waiter
	lastChange   int32 // log index of the latest grant, expiry or release
	lastEnd      [MaxWorkers]int32
	spans        []LeaseSpan
	open         int // index in spans of the current lease, -1 if none
	grantedToken [MaxWorkers]int64
}

type waiter struct {
	node Node
	req  uint32
}

func (c *coordinator) init(sc Scenario) {
	c.ttl = sc.TTL
	c.lockDelay = sc.LockDelay
	c.election = sc.ElectionDelay
	c.service = sc.ServiceTime
	c.renewToken = sc.NewTokenOnRenew
	c.up = make([]bool, sc.Replicas)
	for i := range c.up {
		c.up[i] = true
	}
	c.leader = 0
	c.nextToken = sc.FirstToken
	c.holder = NoNode
	c.lastChange = -1
	for i := range c.lastEnd {
		c.lastEnd[i] = -1
	}
	c.open = -1
}

func (c *coordinator) quorum() bool {
	n := 0
	for _, u := range c.up {
		if u {
			n++
		}
	}
	return n > len(c.up)/2
}

// unavailable says why the coordinator cannot serve now, or ReasonNone.
func (c *coordinator) unavailable() Reason {
	if !c.quorum() {
		return ReasonNoQuorum
	}
	if c.leader < 0 || c.electing {
		return ReasonNoLeader
	}
	return ReasonNone
}

func (c *coordinator) receive(w *World, m message) {
	if c.service == 0 {
		c.process(w, m)
		return
	}
	start := max(w.now, c.busyUntil)
	c.busyUntil = start + c.service
	w.schedule(item{at: c.busyUntil, kind: itCoordProcess, node: Coord, msg: m})
}

func (c *coordinator) reply(w *World, to message, m message) {
	m.from, m.to, m.req = Coord, to.from, to.req
	w.send(m)
}

func (c *coordinator) process(w *World, m message) {
	if r := c.unavailable(); r != ReasonNone {
		if m.kind == MsgRelease {
			return
		}
		w.emit(Event{Kind: KindUnavailable, Node: Coord, Peer: m.from, Reason: r})
		c.reply(w, m, message{kind: MsgUnavailable, reason: r})
		return
	}
	switch m.kind {
	case MsgAcquire:
		c.acquire(w, m)
	case MsgRenew:
		c.renew(w, m)
	case MsgRelease:
		if c.holder == m.from && c.token == m.token {
			c.end(w, KindRelease, 0)
		}
	}
}

func (c *coordinator) acquire(w *World, m message) {
	if c.holder == NoNode && w.now >= c.freeAt && len(c.waiters) == 0 {
		c.grant(w, m.from, m.req)
		return
	}
	if m.wait {
		for i := range c.waiters {
			if c.waiters[i].node == m.from {
				c.waiters[i].req = m.req
				return
			}
		}
		c.waiters = append(c.waiters, waiter{node: m.from, req: m.req})
		w.emit(Event{Kind: KindQueue, Node: Coord, Peer: m.from})
		return
	}
	r := ReasonHeld
	if c.holder == NoNode {
		r = ReasonLockDelay
	}
	w.emit(Event{Kind: KindDeny, Node: Coord, Peer: m.from, Reason: r})
	c.reply(w, m, message{kind: MsgDeny, reason: r})
}

func (c *coordinator) grant(w *World, to Node, req uint32) {
	c.holder = to
	c.token = c.nextToken
	c.nextToken++
	c.expires = Never
	if c.ttl > 0 {
		c.expires = w.now + c.ttl
		w.schedule(item{at: c.expires, kind: itCoordExpire, node: Coord, msg: message{token: c.token}})
	}
	c.lastChange = w.emit(Event{Kind: KindGrant, Node: Coord, Peer: to, Token: c.token, At: c.expires})
	c.grantedToken[to] = c.token
	c.spans = append(c.spans, LeaseSpan{Worker: to, Token: c.token, Start: w.now, End: c.expires, Open: true})
	c.open = len(c.spans) - 1
	w.send(message{kind: MsgGrant, from: Coord, to: to, req: req, token: c.token, ttl: c.ttl})
}

func (c *coordinator) renew(w *World, m message) {
	if c.holder != m.from || c.token != m.token {
		w.emit(Event{Kind: KindRenewReject, Node: Coord, Peer: m.from, Token: m.token})
		c.reply(w, m, message{kind: MsgRenewReject, token: m.token})
		return
	}
	if c.renewToken {
		c.token = c.nextToken
		c.nextToken++
		c.spans[c.open].End = w.now
		c.spans[c.open].Open = false
		c.spans = append(c.spans, LeaseSpan{Worker: m.from, Token: c.token, Start: w.now, Open: true})
		c.open = len(c.spans) - 1
		c.grantedToken[m.from] = c.token
	}
	if c.ttl > 0 {
		c.expires = w.now + c.ttl
		w.schedule(item{at: c.expires, kind: itCoordExpire, node: Coord, msg: message{token: c.token}})
	}
	c.spans[c.open].End = c.expires
	idx := w.emit(Event{Kind: KindExtend, Node: Coord, Peer: m.from, Token: c.token, At: c.expires})
	if c.renewToken {
		c.lastChange = idx
	}
	c.reply(w, m, message{kind: MsgRenewOK, token: c.token, ttl: c.ttl})
}

// expireDue runs when a lease's expiry time comes. Renewals since then have
// moved the expiry, so only the lease that truly ends now expires.
func (c *coordinator) expireDue(w *World, token int64) {
	if c.holder == NoNode || c.token != token || c.expires != w.now {
		return
	}
	c.end(w, KindExpire, c.lockDelay)
}

// end frees the lease after an expiry or a release.
func (c *coordinator) end(w *World, k Kind, lockDelay Time) {
	idx := w.emit(Event{Kind: k, Node: Coord, Peer: c.holder, Token: c.token})
	c.lastChange = idx
	c.lastEnd[c.holder] = idx
	c.spans[c.open].End = w.now
	c.spans[c.open].Open = false
	c.open = -1
	c.holder = NoNode
	if lockDelay > 0 {
		c.freeAt = w.now + lockDelay
		c.freeID++
		w.schedule(item{at: c.freeAt, kind: itCoordFree, node: Coord, id: c.freeID})
		return
	}
	c.wakeWaiters(w)
}

// wakeWaiters tells everyone waiting in line that the lease is free, as a
// watch on the lock key does. Each then asks again, and the first request
// to arrive wins; the others queue again. Asking again matters: a worker
// counts its lease from when it sent the request that won it.
func (c *coordinator) wakeWaiters(w *World) {
	if c.holder != NoNode || w.now < c.freeAt || len(c.waiters) == 0 || c.unavailable() != ReasonNone {
		return
	}
	for _, wt := range c.waiters {
		w.send(message{kind: MsgWake, from: Coord, to: wt.node, req: wt.req})
	}
	c.waiters = c.waiters[:0]
}

// live reports whether worker n holds token at the coordinator right now.
func (c *coordinator) live(n Node, token int64, now Time) bool {
	return c.holder == n && c.token == token && now < c.expires
}

func (c *coordinator) setReplica(w *World, i int, up bool) {
	c.up[i] = up
	r := Reason(ReasonDown)
	if up {
		r = ReasonUp
	}
	w.emit(Event{Kind: KindReplica, Node: Coord, Peer: NoNode, Reason: r, Value: int64(i + 1)})
	if !up && i == c.leader {
		c.leader = -1
		c.electing = false
	}
	if c.leader < 0 && !c.electing && c.quorum() {
		c.electing = true
		c.electionID++
		w.emit(Event{Kind: KindElection, Node: Coord, Peer: NoNode, At: w.now + c.election})
		w.schedule(item{at: w.now + c.election, kind: itElection, node: Coord, id: c.electionID})
	}
	if up && c.leader >= 0 && !c.electing {
		c.wakeWaiters(w)
	}
}

func (c *coordinator) electionDone(w *World, id uint32) {
	if id != c.electionID || !c.electing {
		return
	}
	c.electing = false
	if !c.quorum() {
		return
	}
	for i, u := range c.up {
		if u {
			c.leader = i
			break
		}
	}
	w.emit(Event{Kind: KindLeader, Node: Coord, Peer: NoNode, Value: int64(c.leader + 1)})
	c.wakeWaiters(w)
}
