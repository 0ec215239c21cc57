package engine

// The observers watch every run. Each finding is a violation event that
// points at the events proving it (Ref, Ref2).

// observeAccept runs when the storage accepts a write.
func (w *World) observeAccept(m message, accept int32, ks *keyState) {
	if !w.coord.holding(m.lease, m.from, m.real, w.now) {
		end := w.leaseEnd(m.from)
		w.emit(EventFields{Kind: KindViolation, Reason: ViolationStaleWrite, Node: NoNode, Peer: m.from, Token: m.real, Ref: accept, Ref2: end, Value: w.endCause(end)})
	}
	if m.effect {
		if ks.firstSend >= 0 && !ks.doubled {
			ks.doubled = true
			w.emit(EventFields{Kind: KindViolation, Reason: ViolationDoubleEffect, Node: NoNode, Peer: m.from, Token: m.real, Ref: accept, Ref2: ks.firstSend})
		} else if ks.firstSend < 0 {
			ks.firstSend = accept
		}
		return
	}
	if m.form.part() > 0 {
		w.observePart(m, accept, &ks.parts)
		if ks.lastAccept < 0 || m.real >= ks.lastToken {
			ks.lastToken, ks.lastAccept, ks.lastValue = m.real, accept, m.value
		}
		return
	}
	if ks.lastAccept >= 0 && m.real < ks.lastToken {
		w.emit(EventFields{Kind: KindViolation, Reason: ViolationLostUpdate, Node: NoNode, Peer: m.from, Token: m.real, Ref: accept, Ref2: ks.lastAccept})
	}
	ks.lastToken, ks.lastAccept, ks.lastValue = m.real, accept, m.value
	// A write in one piece (or a rename) replaces the key whole.
	p := &ks.parts
	for i := range p.from {
		p.from[i] = NoNode
	}
	p.whole, p.wtoken, p.waccept, p.mixed = m.from, m.real, accept, false
}

// observePart runs when the storage accepts one part of a write in parts.
// The key then mixes two writes, neither's result, when an older
// holding's part lands in a key a newer holding's write holds whole (a
// stale writer's chunk inside the new holder's file), or when a part
// completes a write while an older or another tokenless write's part is
// still in the key. A newer write still in progress is not yet a mix: its
// own parts will cover what is left.
func (w *World) observePart(m message, accept int32, p *parts) {
	i := m.form.part() - 1
	p.from[i], p.token[i], p.accept[i] = m.from, m.real, accept
	mine := func(from Node, token int64) bool { return from == m.from && token == m.real }
	other := int32(-1)
	if p.whole != NoNode && !mine(p.whole, p.wtoken) && p.wtoken > m.real {
		other = p.waccept
	} else if m.form.part() == m.form.parts() {
		for j := range m.form.parts() {
			from, token, ev := p.from[j], p.token[j], p.accept[j]
			if from == NoNode {
				from, token, ev = p.whole, p.wtoken, p.waccept
			}
			if from != NoNode && !mine(from, token) && token <= m.real {
				other = ev
			}
		}
	}
	if m.form.part() == m.form.parts() {
		p.whole, p.wtoken, p.waccept = m.from, m.real, accept
	}
	if other < 0 {
		if m.form.part() == m.form.parts() {
			p.mixed = false
		}
		return
	}
	if !p.mixed {
		p.mixed = true
		w.emit(EventFields{Kind: KindViolation, Reason: ViolationMixed, Node: NoNode, Peer: m.from, Token: m.real, Ref: accept, Ref2: other})
	}
}

// observeWrite runs when a worker acts on the storage.
func (w *World) observeWrite(wk *worker, write int32) {
	if !w.coord.holding(wk.lease, wk.id, wk.token, w.now) {
		end := w.leaseEnd(wk.id)
		w.emit(EventFields{Kind: KindViolation, Reason: ViolationActedAfterExpiry, Node: NoNode, Peer: wk.id, Token: wk.token, Ref: write, Ref2: end, Value: w.endCause(end)})
	}
	if wk.holds {
		w.splitBrain(wk, write)
	}
}

// believes reports whether a worker thinks, at true time now, that it holds
// the lease: it was granted one, has not learned that it lost it, and its
// own clock says the lease has not run out. A frozen worker's clock runs on
// while it sleeps, so its belief runs out too; what it does on waking is an
// act, judged by observeWrite.
func (w *World) believes(wk *worker) bool {
	return wk.holds && !wk.crashed && wk.clk.local(w.now) < wk.believedEnd
}

// observeBelief runs whenever a worker's belief starts or grows: two
// believers at the same true time are a split brain.
func (w *World) observeBelief(wk *worker) {
	if w.believes(wk) {
		w.splitBrain(wk, wk.acquiredEv)
	}
}

// splitBrain reports every other worker that believes it holds the lease
// while wk believes or acts as holder; ev is wk's belief or act.
func (w *World) splitBrain(wk *worker, ev int32) {
	for i := range w.workers {
		o := &w.workers[i]
		if o == wk || o.lease != wk.lease || !w.believes(o) || o.token == wk.token {
			continue
		}
		pair := [2]int64{wk.token, o.token}
		if wk.token > o.token {
			pair = [2]int64{o.token, wk.token}
		}
		seen := false
		for _, p := range w.splitSeen {
			if p == pair {
				seen = true
			}
		}
		if seen {
			continue
		}
		w.splitSeen = append(w.splitSeen, pair)
		w.emit(EventFields{Kind: KindViolation, Reason: ViolationSplitBrain, Node: NoNode, Peer: wk.id, Token: wk.token, Ref: ev, Ref2: o.acquiredEv})
	}
}

// endCause is why the lease end at log index end came other than by its
// expiry, for a violation to say (Event.Cause): an operator revoked the
// session, or a Redlock master forgot the lock. 0 for an expiry, a
// release or a grant to another.
func (w *World) endCause(end int32) int64 {
	if end < 0 || int(end) >= len(w.log) {
		return 0
	}
	if e := w.log[end]; e.Kind == KindExpire {
		if r := e.Reason(); r == ReasonRevoked || r == ReasonForgotten {
			return int64(r)
		}
	}
	return 0
}

// leaseEnd is the event that ended worker n's latest lease at the
// coordinator, or the latest grant to anyone when n never lost one.
func (w *World) leaseEnd(n Node) int32 {
	if e := w.coord.lastEnd[n]; e >= 0 {
		return e
	}
	return w.coord.leases[w.workers[n].lease].lastChange
}
