package engine

// Renewal: when a holder renews, how it retries, and what it believes while
// it does. The second seed is the specification: a planned renewal point
// before expiry, bounded attempts that fit in the time left, error classes,
// an explicit status (renewed, uncertain, lost), generation-tagged answers,
// and a new token published together with its expiry.

// renewal is a worker's renewal state.
type renewal struct {
	loops     [2]renewLoop
	gen       uint32 // generation of the lease state: bumped by every accepted change
	uncertain bool   // an attempt failed and no success has come since
	gaveUp    bool   // no further attempt will be made in this cycle
	attempts  int    // attempts in the current cycle
	delay     Time   // the next retry delay (grows with backoff)
	pending   int64  // split publish: a token waiting to be published
}

type renewLoop struct {
	inflight bool
	req      uint32
	sent     Time // local
	gen      uint32
}

func (r *renewal) loopOf(req uint32) int {
	for i := range r.loops {
		if r.loops[i].inflight && r.loops[i].req == req {
			return i
		}
	}
	return -1
}

func (r *renewal) startCycle(wk *worker) {
	r.gen++
	r.uncertain, r.gaveUp = false, false
	r.attempts = 0
	r.delay = wk.spec.Renew.Retry
}

func (r *renewal) stop(wk *worker) {
	for i := range r.loops {
		r.loops[i].inflight = false
		wk.clearTimer(slotRenew + timerSlot(i))
		wk.clearTimer(slotRenewTimeout + timerSlot(i))
	}
	wk.clearTimer(slotPublish)
	r.pending = 0
	r.uncertain, r.gaveUp = false, false
}

// beliefEnd is where a worker puts its deadline for a lease counted from
// base: the TTL, or the policy's shorter give-up time (Kubernetes'
// RenewDeadline).
func (wk *worker) beliefEnd(base, ttl Time) Time {
	if ttl == 0 {
		return Never
	}
	d := ttl
	if g := wk.spec.Renew.GiveUp; g > 0 && g < d {
		d = g
	}
	return base + d
}

// renews reports whether the worker has a renewal policy at all.
func (wk *worker) renews() bool {
	p := &wk.spec.Renew
	return p.Every > 0 || p.Margin > 0
}

// planRenewal schedules loop's next renewal after a grant or a success at
// local time now: a fixed period later, or when Margin of the believed
// lease is left; jitter moves it earlier by up to Jitter of the wait. The
// duplicate loop, when there is one, starts half a period out of phase and
// then keeps its own schedule: nothing ties the two together.
func (w *World) planRenewal(wk *worker, now Time, loop int) {
	p := &wk.spec.Renew
	if !wk.renews() || wk.believedEnd == Never {
		return
	}
	next := now + wk.renewEvery()
	if p.Every == 0 {
		next = max(now, wk.believedEnd-p.Margin)
	}
	if j := w.jitterOf(wk); j > 0 {
		next -= Time(w.rnd.upTo(int64(next-now) * j / 1000))
	}
	w.setTimer(wk, slotRenew+timerSlot(loop), next)
}

// startRenewals plans the first renewal of every loop after a grant.
func (w *World) startRenewals(wk *worker, now Time) {
	w.planRenewal(wk, now, 0)
	if wk.loopCount() > 1 && wk.timers[slotRenew].on {
		w.setTimer(wk, slotRenew1, now+(wk.timers[slotRenew].local-now)/2)
	}
}

// loopCount is how many renewal loops wk runs: a policy command's, else
// its own.
func (wk *worker) loopCount() int {
	if wk.loops > 0 {
		return int(wk.loops)
	}
	return wk.spec.Renew.Loops
}

// anyGeneration reports whether wk takes answers meant for an older
// generation: a policy command's choice, else its own.
func (wk *worker) anyGeneration() bool {
	if wk.anyGen >= 0 {
		return wk.anyGen == 1
	}
	return wk.spec.Renew.AnyGen
}

// publishGap is how long after a renewal's new expiry wk publishes its
// new token: a policy command's, else its own (0: both at once).
func (wk *worker) publishGap() Time {
	if wk.pubGap >= 0 {
		return wk.pubGap
	}
	return wk.spec.Renew.SplitPublish
}

// authTransient reports whether wk takes a renewal refused as not
// authorised for a transient error: a policy command's choice, else its
// own (auth-error).
func (wk *worker) authTransient() bool {
	if wk.auth >= 0 {
		return wk.auth == 1
	}
	return wk.spec.AuthTransient
}

// stopsAtExpiry reports whether wk drops its lease and stops its work when
// its own deadline passes: a policy command's choice, else its own.
func (wk *worker) stopsAtExpiry() bool {
	if wk.cancel >= 0 {
		return wk.cancel == 1
	}
	return wk.spec.StopAtExpiry
}

// renewEvery is wk's renewal period: a policy command's, else its own (0:
// it renews by a margin instead).
func (wk *worker) renewEvery() Time {
	if wk.every >= 0 {
		return wk.every
	}
	return wk.spec.Renew.Every
}

// setPolicy carries out a policy command: a second renewal loop starts
// half a period after the first's next renewal (a duplicate, as after a
// restart), or stops; answers' generations are checked or not.
func (w *World) setPolicy(wk *worker, c Command) {
	switch {
	case c.Loops > 0:
		wk.loops = int8(c.Loops)
		now := wk.clk.local(w.now)
		if c.Loops > 1 && wk.holds && wk.timers[slotRenew].on && !wk.timers[slotRenew1].on {
			w.setTimer(wk, slotRenew1, now+(wk.timers[slotRenew].local-now)/2)
		}
		if c.Loops == 1 {
			wk.clearTimer(slotRenew1)
		}
	case c.Gen == GenIgnore:
		wk.anyGen = 1
	case c.Gen == GenCheck:
		wk.anyGen = 0
	case c.Cancel == CancelOn:
		// A holder that cancels from now on: its deadline timer is set,
		// and one already past ends the lease at once.
		wk.cancel = 1
		if wk.holds && wk.believedEnd != Never {
			w.setTimer(wk, slotDeadline, max(wk.believedEnd, wk.clk.local(w.now)))
		}
	case c.Cancel == CancelOff:
		wk.cancel = 0
		wk.clearTimer(slotDeadline)
	case c.Auth == AuthDefinitive:
		wk.auth = 0
	case c.Auth == AuthTransient:
		wk.auth = 1
	case c.RenewEvery:
		// From the next grant or success on; a renewal planned later than
		// one period from now comes forward to it.
		wk.every = c.Dur
		now := wk.clk.local(w.now)
		if t := wk.timers[slotRenew]; wk.holds && t.on && t.local > now+c.Dur {
			w.setTimer(wk, slotRenew, now+c.Dur)
		}
	default:
		wk.pubGap = c.Dur
	}
}

// attemptBudget is how long one attempt may take.
func (wk *worker) attemptBudget() Time {
	p := &wk.spec.Renew
	switch {
	case p.Attempt > 0:
		return p.Attempt
	case wk.spec.Timeout > 0:
		return wk.spec.Timeout
	case wk.renewEvery() > 0:
		return wk.renewEvery()
	}
	return p.Margin
}

// renewAttempt sends one renewal from loop, if the policy allows one now.
func (w *World) renewAttempt(wk *worker, loop int) {
	r := &wk.renewal
	l := &r.loops[loop]
	if !wk.holds || l.inflight || r.gaveUp {
		return
	}
	p := &wk.spec.Renew
	now := wk.clk.local(w.now)
	budget := wk.attemptBudget()
	if !p.PastDeadline && !wk.jeopardy && now+budget > wk.believedEnd+wk.spec.Grace {
		// No attempt can finish before the deadline: stop trying, stay
		// uncertain, and let the deadline end it. In jeopardy (suspended)
		// the client tries to the end of its grace: an answer that comes
		// in time saves the session, and the deadline ends it otherwise.
		w.giveUp(wk, ReasonNoTime)
		return
	}
	if p.Tries > 0 && r.attempts >= p.Tries {
		w.giveUp(wk, ReasonTries)
		return
	}
	r.attempts++
	wk.req++
	*l = renewLoop{inflight: true, req: wk.req, sent: now, gen: r.gen}
	w.send(message{kind: MsgRenew, from: wk.id, to: Coord, token: wk.token, req: wk.req, gen: r.gen, lease: wk.lease})
	w.setTimer(wk, slotRenewTimeout+timerSlot(loop), now+budget)
}

func (w *World) giveUp(wk *worker, why Reason) {
	r := &wk.renewal
	r.gaveUp = true
	w.emit(EventFields{Kind: KindGiveUp, Node: wk.id, Peer: NoNode, Reason: why, Token: wk.token, At: wk.believedEnd, Gen: r.gen})
	end := wk.believedEnd
	if wk.jeopardy {
		// In jeopardy (or suspended) the holder lets go when its grace
		// ends, not when it stops trying: the deadline timer does it.
		end += wk.spec.Grace
	}
	if wk.clk.local(w.now) >= end && wk.stopsAtExpiry() {
		w.lose(wk, ReasonDeadline)
	}
}

// renewError handles a failed attempt: a definitive answer ends the lease
// at once; a transient one leaves the status uncertain and retries if the
// time left allows.
func (w *World) renewError(wk *worker, loop int, why Reason) {
	r := &wk.renewal
	r.loops[loop].inflight = false
	wk.clearTimer(slotRenewTimeout + timerSlot(loop))
	// An answer that says the lease is not this holder's, or that its
	// credentials no longer hold, cannot be retried into a success; a
	// holder that takes "not authorised" as transient (a generic retry
	// policy) retries it until its deadline, acting all the while.
	definitive := why == ReasonNotHolder || why == ReasonStaleGen || why == ReasonUnauthorized && !wk.authTransient()
	var class int64
	if definitive {
		class = 1
	}
	now := wk.clk.local(w.now)
	w.emit(EventFields{Kind: KindRenewError, Node: wk.id, Peer: NoNode, Reason: why, Value: class, Token: wk.token, Gen: r.loops[loop].gen})
	if !wk.holds {
		return
	}
	if definitive {
		lost := ReasonNotHolder
		if why == ReasonUnauthorized {
			lost = why
		}
		w.lose(wk, lost)
		return
	}
	if wk.spec.LoseOnError {
		w.lose(wk, why)
		return
	}
	if !r.uncertain {
		r.uncertain = true
		// In jeopardy (suspended) the holder has said so already, in
		// stronger words.
		if !wk.jeopardy {
			w.emit(EventFields{Kind: KindUncertain, Node: wk.id, Peer: NoNode, Reason: why, Token: wk.token, At: wk.believedEnd, Value: int64(wk.believedEnd - now), Gen: r.gen})
		}
	}
	p := &wk.spec.Renew
	if wk.renews() {
		d := r.delay
		if d <= 0 {
			d = wk.attemptBudget()
		}
		if j := w.jitterOf(wk); j > 0 {
			d += Time(w.rnd.upTo(int64(d) * j / 1000))
		}
		if p.Backoff > 1000 {
			r.delay = r.delay * Time(p.Backoff) / 1000
			if p.RetryMax > 0 && r.delay > p.RetryMax {
				r.delay = p.RetryMax
			}
		}
		w.setTimer(wk, slotRenew+timerSlot(loop), now+d)
	}
	if p.PastDeadline && now >= wk.believedEnd && wk.stopsAtExpiry() && r.gaveUp {
		w.lose(wk, ReasonDeadline)
	}
}

// renewOK handles a successful renewal. The answer carries the generation
// of the state that sent it; a stale one is dropped unless the policy is
// the unsafe one that lets it roll the state back.
func (w *World) renewOK(wk *worker, m message) {
	r := &wk.renewal
	loop := r.loopOf(m.req)
	if loop < 0 {
		return // the attempt timed out already
	}
	l := r.loops[loop]
	r.loops[loop].inflight = false
	wk.clearTimer(slotRenewTimeout + timerSlot(loop))
	if !wk.holds {
		return
	}
	if m.gen != r.gen && !wk.anyGeneration() {
		w.emit(EventFields{Kind: KindStaleReply, Node: wk.id, Peer: NoNode, Token: m.token, Gen: m.gen, Value: int64(r.gen)})
		return
	}
	now := wk.clk.local(w.now)
	base := w.beliefBase(wk, m, l.sent, now)
	prev := wk.believedEnd
	remaining := prev - now
	wk.jeopardy = false
	wk.believedEnd = wk.beliefEnd(base, m.ttl)
	r.startCycle(wk)
	if m.token != wk.token {
		if split := wk.publishGap(); split > 0 {
			// The unsafe partial update: the new expiry is visible now,
			// the new token only later.
			r.pending = m.token
			w.setTimer(wk, slotPublish, now+split)
		} else {
			wk.token = m.token
		}
	}
	idx := w.emit(EventFields{Kind: KindRenewed, Node: wk.id, Peer: NoNode, Token: wk.token, At: wk.believedEnd, Prev: prev, Value: int64(remaining), Gen: r.gen, Key: w.p.leaseKeys[wk.lease]})
	wk.acquiredEv = idx
	if wk.belief >= 0 {
		b := &w.beliefs[wk.belief]
		b.Token, b.Local = wk.token, wk.believedEnd
		b.Until = wk.clk.trueAt(wk.believedEnd, w.now)
	}
	if wk.stopsAtExpiry() && wk.believedEnd != Never {
		w.setTimer(wk, slotDeadline, wk.believedEnd)
	}
	w.observeBelief(wk)
	w.planRenewal(wk, now, loop)
	if wk.refused {
		wk.refused = false
		w.next(wk)
	}
}

func (w *World) publishToken(wk *worker) {
	r := &wk.renewal
	if !wk.holds || r.pending == 0 {
		return
	}
	wk.token, r.pending = r.pending, 0
	w.emit(EventFields{Kind: KindPublish, Node: wk.id, Peer: NoNode, Token: wk.token, Gen: r.gen})
}

// hidesExpiry reports whether the worker treats an uncertain lease as
// still held: the generic retry policy that ignores the deadline does, as
// long as it has retries left. The seed's warning: treating uncertainty as
// success breaks the lease contract.
func (wk *worker) hidesExpiry() bool {
	return wk.spec.Renew.PastDeadline && wk.renews() && !wk.renewal.gaveUp
}

// deadline runs when the worker's own clock reaches its believed end. A
// holder stops here — unless its generic retry policy ignores deadlines and
// an attempt is still in flight or planned.
func (w *World) deadline(wk *worker) {
	if !wk.holds {
		return
	}
	if wk.hidesExpiry() {
		return
	}
	if g := wk.spec.Grace; g > 0 && !wk.jeopardy && wk.renews() {
		// Chubby's jeopardy: the local lease is over, so the holder no
		// longer trusts its lock, but the session may yet be saved: keep
		// trying for the grace period.
		wk.jeopardy = true
		why := ReasonJeopardy
		if wk.spec.Preset == "zookeeper" {
			// The same state under ZooKeeper's name: Disconnected,
			// Curator's SUSPENDED.
			why = ReasonSuspended
		}
		w.emit(EventFields{Kind: KindUncertain, Node: wk.id, Peer: NoNode, Reason: why, Token: wk.token, At: wk.believedEnd + g, Value: int64(g), Gen: wk.renewal.gen})
		wk.renewal.gaveUp = false
		if !wk.renewal.loops[0].inflight && !wk.timers[slotRenew].on {
			w.renewAttempt(wk, 0)
		}
		w.setTimer(wk, slotDeadline, wk.believedEnd+g)
		return
	}
	w.lose(wk, ReasonDeadline)
}

// jitterOf is the renewal jitter wk uses now, in thousandths: what a
// jitter command set, else its own.
func (w *World) jitterOf(wk *worker) int64 {
	if w.jitter >= 0 {
		return w.jitter
	}
	return wk.spec.Renew.Jitter
}
