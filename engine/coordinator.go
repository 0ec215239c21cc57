package engine

import "slices"

// coordinator is the lease service: replicas behind a quorum, a token
// counter that only rises (it stands for the consensus log index, shared by
// every lease), and the leases themselves, each with its line of waiters.
type coordinator struct {
	ttl       Time
	lockDelay Time
	election  Time
	service   Time
	tick      Time // expiry in buckets of this size (ZooKeeper's tickTime)
	// clk is the coordinator's clock, by which it measures a lease's
	// time (an etcd leader's): normally true time; `clock coord` makes it
	// jump or run at another rate. It is the leading replica's clock
	// (rclk), taken at each election.
	clk clock
	// rclk is each replica's own clock (`clock coord replica=N`): the
	// leader's measures leases; with independent masters each master
	// measures its own keys by its own.
	rclk       []clock
	renewToken bool
	candidate  bool // the lease is a record; candidates judge its expiry
	// independent: the replicas are Redlock's masters, each with its own
	// keys (keys[lease*replicas+master]), no leader and no election.
	independent bool
	keys        []masterKey
	up          []bool
	leader      int // index of the leader replica, -1 while there is none
	electing    bool
	electionID  uint32
	busyUntil   Time
	pausedAt    Time // when the coordinator last stopped serving (for stopped timers)
	// nextToken is the next token a grant takes; with tokens=log, the
	// index the next entry of the log takes, whatever it records.
	nextToken int64
	tokens    TokenSource
	// revoked has bit n set when an operator revoked worker n's session:
	// the coordinator refuses its every request as not authorised.
	revoked uint16
	// idgen is how many lease IDs each replica has made (tokens=lease-id).
	idgen   [9]int64
	leases  []lease
	lastEnd [MaxWorkers]int32 // log index of the end of each worker's latest lease
	spans   []LeaseSpan
}

// lease is one named lease at the coordinator. Its name is
// Prepared.leaseNames[index].
type lease struct {
	index      uint8 // its place in coordinator.leases
	holder     Node  // NoNode when free
	key        KeyID // its name's id in the log
	freeID     uint32
	lastChange int32 // log index of the latest grant, expiry or release
	open       int32 // index in spans of the current grant, -1 if none
	// tokens counts the tokens the lease has had. Tokens only rise, so the
	// count names the current one: an expiry set for a token holds the
	// count, not the token (an item's id), and the count stays below the
	// log's length, which int32 indexes bound.
	tokens  uint32
	token   int64
	expires Time
	local   Time  // expires as the coordinator's clock reads it
	freeAt  Time  // no grant before this (lock-delay)
	version int64 // the record's version: changes with every grant, renewal and release
	tenure  int64 // the first token of the current holder's uninterrupted holding
	waiters []waiter
}

// masterKey is one Redlock master's key for one lease: who set it, and
// when it expires there, by that master's clock.
type masterKey struct {
	holder  Node
	expires Time
	value   int64 // the value a written client set it to (redlock_program.go); 0 for the engine's
}

type waiter struct {
	node Node
	req  uint32
}

// init puts the coordinator in its starting state for p, in the arrays it
// has grown (its replicas, leases and their lines, spans).
func (c *coordinator) init(p *Prepared) {
	sc := &p.sc
	*c = coordinator{
		ttl:         sc.TTL,
		lockDelay:   sc.LockDelay,
		election:    sc.ElectionDelay,
		service:     sc.ServiceTime,
		tick:        sc.Tick,
		clk:         clock{rate: 1_000_000},
		rclk:        grown(c.rclk, sc.Replicas),
		renewToken:  sc.NewTokenOnRenew,
		candidate:   sc.CandidateExpiry,
		independent: sc.IndependentMasters,
		keys:        grown(c.keys, sc.Replicas*len(p.leaseNames)),
		up:          grown(c.up, sc.Replicas),
		nextToken:   sc.FirstToken,
		tokens:      sc.Tokens,
		leases:      grown(c.leases, len(p.leaseNames)),
		spans:       c.spans[:0],
	}
	for i := range c.up {
		c.up[i] = true
		c.rclk[i] = clock{rate: 1_000_000}
	}
	for i := range c.keys {
		c.keys[i] = masterKey{holder: NoNode}
	}
	for i := range c.leases {
		l := &c.leases[i]
		*l = lease{index: uint8(i), key: p.leaseKeys[i], holder: NoNode, lastChange: -1, open: -1, waiters: l.waiters[:0]}
	}
	for i := range c.lastEnd {
		c.lastEnd[i] = -1
	}
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
	if c.independent {
		// Each master answers for itself; an acquire that finds no
		// majority is denied.
		return ReasonNone
	}
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
	w.schedule(item{at: c.busyUntil, kind: itCoordProcess, node: Coord, id: w.post(m)})
}

func (c *coordinator) reply(w *World, to message, m message) {
	m.from, m.to, m.req, m.lease, m.gen = Coord, to.from, to.req, to.lease, to.gen
	w.send(m)
}

func (c *coordinator) process(w *World, m message) {
	if r := c.unavailable(); r != ReasonNone {
		if m.kind == MsgRelease {
			return
		}
		w.emit(EventFields{Kind: KindUnavailable, Node: Coord, Peer: m.from, Reason: r})
		c.reply(w, m, message{kind: MsgUnavailable, reason: r})
		return
	}
	if w.writtenCoord() {
		w.coordDecides(m) // a written coordinator decides (coord_program.go)
		return
	}
	if c.independent && m.gen > 0 && m.kind != MsgRenew {
		w.lockOne(m) // a written client's lock on one master (redlock_program.go)
		return
	}
	l := &c.leases[m.lease]
	if c.revoked&(1<<m.from) != 0 {
		c.unauthorized(w, l, m)
		return
	}
	switch m.kind {
	case MsgAcquire:
		c.acquire(w, l, m)
	case MsgRenew:
		c.renew(w, l, m)
	case MsgRelease:
		if l.holder == m.from && l.token == m.token {
			c.clearKeys(l, m.from)
			c.end(w, l, KindRelease, 0, ReasonNone)
		}
	}
}

func (c *coordinator) acquire(w *World, l *lease, m message) {
	if l.holder == m.from {
		// The holder asks again (its first answer was slow or lost): tell it
		// again what it holds. Nothing is extended.
		w.emit(EventFields{Kind: KindGrant, Node: Coord, Peer: m.from, Token: l.token, At: l.expires, Key: l.key, Reason: ReasonAgain})
		left := c.ttl
		if l.expires != Never {
			left = l.expires - w.now // what is left, not a fresh TTL
		}
		c.reply(w, m, message{kind: MsgGrant, token: l.token, ttl: left})
		return
	}
	if c.independent {
		if c.setKeys(w, l, m.from) {
			if l.holder != NoNode {
				// The old holder's majority is gone: a master that
				// restarted forgot its key. Both now hold the lock.
				c.end(w, l, KindExpire, 0, ReasonForgotten)
			}
			c.grant(w, l, m.from, m.req)
			return
		}
	} else if l.holder == NoNode && w.now >= l.freeAt && len(l.waiters) == 0 {
		c.grant(w, l, m.from, m.req)
		return
	}
	if c.candidate && m.takeover && l.holder != NoNode && m.version == l.version {
		// The candidate saw this very record unchanged for a TTL by its
		// own clock and overwrites it: the compare-and-set succeeds, and
		// whether the holder has stopped is nobody's concern here.
		c.end(w, l, KindExpire, 0, ReasonTakeover)
		c.grant(w, l, m.from, m.req)
		return
	}
	if m.wait {
		for i := range l.waiters {
			if l.waiters[i].node == m.from {
				l.waiters[i].req = m.req
				return
			}
		}
		l.waiters = append(l.waiters, waiter{node: m.from, req: m.req})
		w.emit(EventFields{Kind: KindQueue, Node: Coord, Peer: m.from, Key: l.key})
		return
	}
	r := ReasonHeld
	if l.holder == NoNode {
		r = ReasonLockDelay
	}
	w.emit(EventFields{Kind: KindDeny, Node: Coord, Peer: m.from, Reason: r, Key: l.key, Value: c.recordVersion(l)})
	c.reply(w, m, message{kind: MsgDeny, reason: r, version: c.recordVersion(l)})
}

// recordVersion is what a denied candidate learns of the lease record:
// its version when candidates judge expiry, else nothing.
func (c *coordinator) recordVersion(l *lease) int64 {
	if !c.candidate {
		return 0
	}
	return l.version
}

// serverTTL is how long the coordinator keeps holder's lease from now: the
// TTL, plus the server-side grace of the holder's system (Consul: 2 × TTL).
func (c *coordinator) serverTTL(w *World, holder Node) Time {
	return c.ttl + w.workers[holder].spec.ServerGrace
}

// setExpiry moves l's expiry to at and schedules it, unless candidates
// judge expiry (then the record never expires by itself).
func (c *coordinator) setExpiry(w *World, l *lease, at Time) {
	if c.ttl == 0 || c.candidate {
		l.expires = Never
		return
	}
	// The coordinator measures the time from now to at by its own clock.
	local := c.clk.local(w.now) + (at - w.now)
	if c.tick > 0 {
		// ZooKeeper's ExpiryQueue puts a session in the bucket of the
		// next tick boundary after its time (roundToNextInterval).
		local = (local/c.tick + 1) * c.tick
	}
	l.local = local
	c.scheduleExpiry(w, l)
}

// scheduleExpiry schedules l's expiry at the true time the coordinator's
// clock reaches l.local; with independent masters, at the true time fewer
// than a majority of masters still hold the holder's key, each measuring
// its key by its own clock.
func (c *coordinator) scheduleExpiry(w *World, l *lease) {
	l.expires = c.clk.trueAt(l.local, w.now)
	if c.independent {
		l.expires = c.keysEnd(w, l)
	}
	w.schedule(item{at: l.expires, kind: itCoordExpire, node: Coord, lease: l.index, id: l.tokens})
}

// keysEnd is when, in true time, l's holder stops holding a majority of
// the masters' keys: the majority-th latest end of its keys.
func (c *coordinator) keysEnd(w *World, l *lease) Time {
	var ends [9]Time
	n := 0
	for i, k := range c.keys[int(l.index)*len(c.up) : int(l.index+1)*len(c.up)] {
		if k.holder == l.holder && k.holder != NoNode {
			ends[n] = max(c.rclk[i].trueAt(k.expires, w.now), w.now)
			n++
		}
	}
	m := len(c.up)/2 + 1
	if n < m {
		return w.now
	}
	slices.Sort(ends[:n])
	return ends[n-m]
}

// changeClock sets the coordinator's clock as c says (every replica's, or
// replica c.Replica's), and moves every lease's expiry to the true time
// the clocks now reach it: a clock that jumps forward ends leases early
// (Kleppmann's Redis master).
func (c *coordinator) changeClock(w *World, cmd Command) {
	var at Time
	if cmd.Replica > 0 {
		i := cmd.Replica - 1
		c.rclk[i] = c.rclk[i].changed(w.now, cmd)
		at = c.rclk[i].local(w.now)
		if !c.independent && i == c.leader {
			c.clk = c.rclk[i]
		}
	} else {
		c.clk = c.clk.changed(w.now, cmd)
		at = c.clk.local(w.now)
		for i := range c.rclk {
			c.rclk[i] = c.rclk[i].changed(w.now, cmd)
		}
	}
	rate := c.clk.rate
	if cmd.Replica > 0 {
		rate = c.rclk[cmd.Replica-1].rate
	}
	w.emit(EventFields{Kind: KindClock, Node: Coord, Peer: NoNode, At: at, Value: rate, Token: int64(cmd.Replica)})
	c.rescheduleAll(w)
}

// rescheduleAll moves every held lease's expiry to the true time the
// clocks now give it.
func (c *coordinator) rescheduleAll(w *World) {
	for i := range c.leases {
		l := &c.leases[i]
		if l.holder == NoNode || l.expires == Never {
			continue
		}
		c.scheduleExpiry(w, l)
		c.spans[l.open].End = l.expires
	}
}

func (c *coordinator) grant(w *World, l *lease, to Node, req uint32) {
	l.holder = to
	source, how := c.newToken(l)
	l.tenure = l.token
	l.version++
	li := l.index
	c.setExpiry(w, l, w.now+c.serverTTL(w, to))
	l.lastChange = w.emit(EventFields{Kind: KindGrant, Node: Coord, Peer: to, Token: l.token, At: l.expires, Key: l.key, Value: source, Reason: how})
	c.spans = append(c.spans, LeaseSpan{Lease: w.p.leaseNames[l.index], Worker: to, Token: l.token, Start: w.now, End: l.expires, Open: true})
	l.open = int32(len(c.spans) - 1)
	w.send(message{kind: MsgGrant, from: Coord, to: to, req: req, token: l.token, ttl: c.ttl, lease: li})
}

func (c *coordinator) renew(w *World, l *lease, m message) {
	if l.holder != m.from || l.token != m.token {
		w.emit(EventFields{Kind: KindRenewReject, Node: Coord, Peer: m.from, Token: m.token, Key: l.key})
		c.reply(w, m, message{kind: MsgRenewReject, token: m.token})
		return
	}
	prev := l.expires
	if c.renewToken {
		c.newToken(l)
		c.spans[l.open].End = w.now
		c.spans[l.open].Open = false
		c.spans = append(c.spans, LeaseSpan{Lease: w.p.leaseNames[l.index], Worker: m.from, Token: l.token, Start: w.now, Open: true})
		l.open = int32(len(c.spans) - 1)
	}
	l.version++
	if c.independent {
		// Redlock's extend: every master that still holds the key
		// for this client sets it afresh, by its own clock.
		keys := c.keys[int(l.index)*len(c.up) : int(l.index+1)*len(c.up)]
		for i := range keys {
			if c.up[i] && keys[i].holder == m.from {
				keys[i].expires = c.rclk[i].local(w.now) + c.serverTTL(w, m.from)
			}
		}
	}
	at := w.now + c.serverTTL(w, m.from)
	if c.rule(w, l) == LeaderStopped {
		// Chubby's master never moves a lease timeout backwards (§2.8),
		// even when a KeepAlive comes soon after a fail-over extended it.
		at = max(at, l.expires)
	}
	c.setExpiry(w, l, at)
	c.spans[l.open].End = l.expires
	idx := w.emit(EventFields{Kind: KindExtend, Node: Coord, Peer: m.from, Token: l.token, At: l.expires, Value: int64(prev), Key: l.key})
	if c.renewToken {
		l.lastChange = idx
	}
	c.reply(w, m, message{kind: MsgRenewOK, token: l.token, ttl: c.ttl})
}

// revoke carries out an operator's revocation of worker n's session (its
// credentials): every lease n holds ends now, an entry of the log like an
// expiry, and from now on the coordinator refuses n's requests as not
// authorised. A client learns of it only when it next asks.
func (c *coordinator) revoke(w *World, n Node) {
	c.revoked |= 1 << n
	for i := range c.leases {
		l := &c.leases[i]
		if l.holder != n {
			continue
		}
		if c.independent {
			c.clearKeys(l, n)
		}
		c.end(w, l, KindExpire, 0, ReasonRevoked)
	}
}

// unauthorized answers a request from a worker whose session was revoked:
// an acquire is denied, a renewal refused, both as not authorised; a
// release has nothing left to release.
func (c *coordinator) unauthorized(w *World, l *lease, m message) {
	switch m.kind {
	case MsgAcquire:
		w.emit(EventFields{Kind: KindDeny, Node: Coord, Peer: m.from, Reason: ReasonUnauthorized, Key: l.key})
		c.reply(w, m, message{kind: MsgDeny, reason: ReasonUnauthorized})
	case MsgRenew:
		w.emit(EventFields{Kind: KindRenewReject, Node: Coord, Peer: m.from, Token: m.token, Key: l.key, Reason: ReasonUnauthorized})
		c.reply(w, m, message{kind: MsgRenewReject, token: m.token, reason: ReasonUnauthorized})
	}
}

// newToken hands l its next token: the counter's next, the index of the
// log entry that records the grant, or a lease ID the leader makes. It
// returns what the grant's event says of the token's source: the entry's
// index, or the replica that made the ID.
func (c *coordinator) newToken(l *lease) (int64, Reason) {
	l.tokens++
	switch c.tokens {
	case TokensLog:
		l.token = c.entry()
		return l.token, ReasonNone
	case TokensLeaseID:
		r := max(c.leader, 0)
		c.idgen[r]++
		l.token = memberIDs[r]*1000 + c.idgen[r]
		return int64(r + 1), ReasonLeaseID
	}
	l.token = c.nextToken
	c.nextToken++
	return 0, ReasonNone
}

// entry appends an entry to the coordinator's log and returns its index,
// when the scenario shows the log (tokens=log); 0 otherwise.
func (c *coordinator) entry() int64 {
	if c.tokens != TokensLog {
		return 0
	}
	i := c.nextToken
	c.nextToken++
	return i
}

// expireDue runs when a lease's expiry time comes; tokens is l.tokens when
// the expiry was set. Renewals since then have moved the expiry, so only
// the lease that truly ends now, with the token it had then, expires.
func (c *coordinator) expireDue(w *World, li uint8, tokens uint32) {
	l := &c.leases[li]
	if l.holder == NoNode || l.tokens != tokens || l.expires != w.now || w.writtenCoord() {
		return // a written coordinator's program ends its leases
	}
	spec := w.workers[l.holder].spec
	if spec.LeaderChange != LeaderNone && c.unavailable() != ReasonNone {
		// Expiry is the leader's act: without one, nothing expires now,
		// and the next leader applies the lease's rule (resume).
		return
	}
	c.end(w, l, KindExpire, max(c.lockDelay, spec.LockDelay), ReasonNone)
}

// end frees the lease after an expiry or a release: an entry of the log.
func (c *coordinator) end(w *World, l *lease, k Kind, lockDelay Time, why Reason) {
	idx := w.emit(EventFields{Kind: k, Node: Coord, Peer: l.holder, Token: l.token, Key: l.key, Reason: why, Value: c.entry()})
	l.lastChange = idx
	l.version++
	c.lastEnd[l.holder] = idx
	c.spans[l.open].End = w.now
	c.spans[l.open].Open = false
	l.open = -1
	l.holder = NoNode
	if lockDelay > 0 {
		l.freeAt = w.now + lockDelay
		l.freeID++
		w.schedule(item{at: l.freeAt, kind: itCoordFree, node: Coord, id: l.freeID, lease: l.index})
		return
	}
	c.wakeWaiters(w, l)
}

// wakeWaiters tells everyone waiting in line that the lease is free, as a
// watch on the lock key does. Each then asks again, and the first request
// to arrive wins; the others queue again. Asking again matters: a worker
// counts its lease from when it sent the request that won it.
func (c *coordinator) wakeWaiters(w *World, l *lease) {
	if l.holder != NoNode || w.now < l.freeAt || len(l.waiters) == 0 || c.unavailable() != ReasonNone {
		return
	}
	li := l.index
	for _, wt := range l.waiters {
		w.send(message{kind: MsgWake, from: Coord, to: wt.node, req: wt.req, lease: li})
	}
	l.waiters = l.waiters[:0]
}

func (c *coordinator) wakeAll(w *World) {
	for i := range c.leases {
		c.wakeWaiters(w, &c.leases[i])
	}
}

// holding reports whether worker n's holding that token belongs to is
// still current at the coordinator: n is the holder, token was handed to
// it since it last took the lease (a renewal may hand out newer ones), and
// the lease has not expired. The observers use it; storage in equality
// mode uses the stricter live.
func (c *coordinator) holding(li uint8, n Node, token int64, now Time) bool {
	l := &c.leases[li]
	return l.holder == n && token >= l.tenure && token <= l.token && now < l.expires
}

// live reports whether worker n holds token of lease li at the coordinator
// right now.
func (c *coordinator) live(li uint8, n Node, token int64, now Time) bool {
	l := &c.leases[li]
	return l.holder == n && l.token == token && now < l.expires
}

func (c *coordinator) setReplica(w *World, i int, up bool) {
	served := c.unavailable() == ReasonNone
	c.up[i] = up
	r := Reason(ReasonDown)
	if up {
		r = ReasonUp
	}
	w.emit(EventFields{Kind: KindReplica, Node: Coord, Peer: NoNode, Reason: r, Value: int64(i + 1)})
	if c.independent {
		if !up {
			// A Redis master without persistence comes back empty
			// (antirez's own caveat on the Redlock page).
			for li := range c.leases {
				c.keys[li*len(c.up)+i] = masterKey{holder: NoNode}
			}
		}
		return
	}
	if !up && i == c.leader {
		c.leader = -1
		c.electing = false
	}
	if c.leader < 0 && !c.electing && c.quorum() {
		c.electing = true
		c.electionID++
		w.emit(EventFields{Kind: KindElection, Node: Coord, Peer: NoNode, At: w.now + c.election})
		w.schedule(item{at: w.now + c.election, kind: itElection, node: Coord, id: c.electionID})
	}
	serves := c.unavailable() == ReasonNone
	switch {
	case served && !serves:
		c.pause(w)
	case !served && serves:
		// The quorum is back under the same leader.
		c.resume(w)
	}
	if up && c.leader >= 0 && !c.electing {
		c.wakeAll(w)
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
	// A new leader's first entry opens its term (raft's empty entry,
	// ZooKeeper's new epoch): the log, and the tokens, go on from there.
	w.emit(EventFields{Kind: KindLeader, Node: Coord, Peer: NoNode, Value: int64(c.leader + 1), Token: c.entry()})
	if c.clk != c.rclk[c.leader] {
		// The new leader measures by its own clock.
		c.clk = c.rclk[c.leader]
		c.rescheduleAll(w)
	}
	c.resume(w)
	c.wakeAll(w)
}

// setKeys tries to set l's key for n on every master that is up and has it
// free or expired, as a Redlock client does, and reports whether a
// majority of all masters now hold it for n. Without a majority the
// client removes what it set (Redlock unlocks every instance).
func (c *coordinator) setKeys(w *World, l *lease, n Node) bool {
	keys := c.keys[int(l.index)*len(c.up) : int(l.index+1)*len(c.up)]
	// Each master measures its key by its own clock: `clock coord` moves
	// every master's, `clock coord replica=N` master N's.
	got := 0
	for i := range keys {
		k := &keys[i]
		now := c.rclk[i].local(w.now)
		if c.up[i] && (k.holder == NoNode || k.expires <= now) {
			*k = masterKey{holder: n, expires: now + c.serverTTL(w, n)}
			got++
		}
	}
	if got > len(c.up)/2 && w.now >= l.freeAt {
		return true
	}
	c.clearKeys(l, n)
	return false
}

// clearKeys removes n's keys for l from every master.
func (c *coordinator) clearKeys(l *lease, n Node) {
	keys := c.keys[int(l.index)*len(c.up) : int(l.index+1)*len(c.up)]
	for i := range keys {
		if keys[i].holder == n {
			keys[i] = masterKey{holder: NoNode}
		}
	}
}
