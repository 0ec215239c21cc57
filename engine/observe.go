package engine

// The observers watch every run. Each finding is a violation event that
// points at the events proving it (Ref, Ref2).

// observeAccept runs when the storage accepts a write.
func (w *World) observeAccept(m message, accept int32, ks *keyState) {
	if !w.coord.holding(m.lease, m.from, m.real, w.now) {
		w.emit(EventFields{Kind: KindViolation, Reason: ViolationStaleWrite, Node: NoNode, Peer: m.from, Token: m.real, Ref: accept, Ref2: w.leaseEnd(m.from)})
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
	if ks.lastAccept >= 0 && m.real < ks.lastToken {
		w.emit(EventFields{Kind: KindViolation, Reason: ViolationLostUpdate, Node: NoNode, Peer: m.from, Token: m.real, Ref: accept, Ref2: ks.lastAccept})
	}
	ks.lastToken, ks.lastAccept, ks.lastValue = m.real, accept, m.value
}

// observeWrite runs when a worker acts on the storage.
func (w *World) observeWrite(wk *worker, write int32) {
	if !w.coord.holding(wk.lease, wk.id, wk.token, w.now) {
		w.emit(EventFields{Kind: KindViolation, Reason: ViolationActedAfterExpiry, Node: NoNode, Peer: wk.id, Token: wk.token, Ref: write, Ref2: w.leaseEnd(wk.id)})
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

// leaseEnd is the event that ended worker n's latest lease at the
// coordinator, or the latest grant to anyone when n never lost one.
func (w *World) leaseEnd(n Node) int32 {
	if e := w.coord.lastEnd[n]; e >= 0 {
		return e
	}
	return w.coord.leases[w.workers[n].lease].lastChange
}
