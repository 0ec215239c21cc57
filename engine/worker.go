package engine

// clock is a worker's local clock: it read base at true time anchor and
// has run at rate parts per million since.
type clock struct {
	base   Time
	anchor Time
	rate   int64
}

func (c clock) local(t Time) Time {
	return c.base + Time(int64(t-c.anchor)*c.rate/1_000_000)
}

// trueAt is the first true time at or after now when the clock reads at
// least l.
func (c clock) trueAt(l, now Time) Time {
	if l == Never {
		return Never
	}
	if l <= c.local(now) {
		return now
	}
	d := int64(l - c.base)
	if d > 1<<40 {
		return Never
	}
	return max(now, c.anchor+Time((d*1_000_000+c.rate-1)/c.rate))
}

// changed is the clock after a clock command at true time now: set to an
// offset (skew), jumped, or running at another rate from now on.
func (c clock) changed(now Time, cmd Command) clock {
	l := c.local(now)
	if cmd.HasSkew {
		l = now + cmd.Skew
	}
	if cmd.HasJump {
		l += cmd.Jump
	}
	rate := c.rate
	if cmd.HasRate {
		rate = cmd.Rate
	}
	return clock{base: l, anchor: now, rate: rate}
}

type timerSlot uint8

const (
	slotProgram       timerSlot = iota // work, sleep, acquire retry
	slotRenew                          // the next renewal attempt of loop 0
	slotRenew1                         // ... of the duplicate loop 1
	slotDeadline                       // the local belief runs out
	slotTimeout                        // a program request went unanswered
	slotRenewTimeout                   // loop 0's attempt went unanswered
	slotRenewTimeout1                  // loop 1's attempt went unanswered
	slotPublish                        // a split update publishes its token late
	nSlots
)

type timer struct {
	local Time
	id    uint32
	on    bool
}

// worker is one worker's state. Its fields are grouped by size, the flags
// together, so that twelve of them hold little padding.
type worker struct {
	spec *WorkerSpec
	id   Node
	// lease is the index of its lease at the coordinator.
	lease    uint8
	freezeOn Kind    // freeze when this event next happens
	waiting  MsgKind // the program request in flight, or MsgNone
	// The flags. acquiring: a round of asking for the lease is on (see
	// acqSent); jeopardy: its own lease ran out and it renews within its
	// grace; refused: a work step waits for a renewal to give it enough
	// time.
	crashed, frozen, done, holds, acquiring, jeopardy, refused bool
	// What a policy command changed of its renewal, for this world:
	// loops 0 and anyGen -1 keep the worker's own.
	loops  int8
	anyGen int8
	pubGap Time // -1: its own renew-publish-gap
	every  Time // -1: its own renew period
	cancel int8 // -1: its own stop-at-expiry; 0 off, 1 on
	auth   int8 // -1: its own auth-error; 0 definitive, 1 transient

	// sub is how far a write step in parts or by rename has got: the
	// parts sent and answered, then the rename; worked: the current part's
	// work is done and the part goes out next.
	sub    uint8
	worked bool

	inc     uint32 // incarnation: bumped by crash, so old timers are ignored
	thawID  uint32
	req     uint32 // id of the latest request of any kind
	progReq uint32 // id of the program request in flight
	pc      int32  // the program step it is at
	// belief and freeze are the indexes in World.beliefs and World.freezes
	// of its open belief and freeze, -1 if none.
	belief, freeze int32
	acquiredEv     int32

	freezeFor Time
	deferred  []item // what arrived or fell due while frozen
	reqSent   Time   // local time the program request was sent
	// acqSent is when the worker first asked for the lease in this round of
	// asking. A grant may answer any of the round's requests (one that timed
	// out, say), so the only safe count starts at the first.
	acqSent Time

	// What a candidate knows of the lease record (expiry=candidate): the
	// version it last saw and when, by its own clock, it first saw it.
	seenVersion int64
	seenAt      Time

	token       int64
	believedEnd Time // local
	version     int64
	renewal     renewal

	clk    clock
	timers [nSlots]timer
	// brain is the program's state when the spec's Logic writes the
	// worker's decisions (program.go); nil otherwise.
	brain *brain
}

func (w *World) setTimer(wk *worker, s timerSlot, local Time) {
	t := &wk.timers[s]
	t.on, t.local = true, local
	t.id++
	w.schedule(item{at: wk.clk.trueAt(local, w.now), kind: itTimer, node: wk.id, slot: uint8(s), id: t.id})
}

func (wk *worker) clearTimer(s timerSlot) {
	wk.timers[s].on = false
	wk.timers[s].id++
}

func (w *World) next(wk *worker) {
	w.schedule(item{at: w.now, kind: itNext, node: wk.id, id: wk.inc})
}

func (w *World) startProgram(wk *worker) {
	if wk.spec.Logic != nil {
		w.startBrain(wk)
		return
	}
	wk.pc = 0
	wk.done = false
	wk.sub, wk.worked = 0, false
	w.emit(EventFields{Kind: KindStart, Node: wk.id, Peer: NoNode})
	w.runOp(wk)
}

// runOp performs the program step at pc.
func (w *World) runOp(wk *worker) {
	prog := wk.spec.Program
	if int(wk.pc) >= len(prog) {
		if !wk.done {
			wk.done = true
			w.emit(EventFields{Kind: KindDone, Node: wk.id, Peer: NoNode})
		}
		return
	}
	op := prog[wk.pc]
	now := wk.clk.local(w.now)
	switch op.Kind {
	case OpAcquire:
		if wk.holds {
			// Already the holder (a program that repeats): carry on.
			wk.pc++
			w.next(wk)
			return
		}
		w.request(wk, message{kind: MsgAcquire, to: Coord, wait: op.Arg == 0})
	case OpWork:
		if op.Need > 0 && (!wk.holds || wk.believedEnd-now < op.Need) {
			left := max(0, wk.believedEnd-now)
			if !wk.holds {
				left = 0
			}
			w.emit(EventFields{Kind: KindRefuse, Node: wk.id, Peer: NoNode, Value: int64(left), At: op.Need})
			if wk.holds && wk.renews() {
				wk.refused = true // try again after the next renewal
				return
			}
			w.lose(wk, ReasonNoTime)
			return
		}
		w.emit(EventFields{Kind: KindWork, Node: wk.id, Peer: NoNode, Value: int64(op.Arg)})
		w.setTimer(wk, slotProgram, now+op.Arg)
	case OpSleep:
		w.setTimer(wk, slotProgram, now+op.Arg)
	case OpCheck:
		ok := wk.holds && (now < wk.believedEnd || wk.hidesExpiry())
		r := ReasonOK
		if !ok {
			r = ReasonExpired
		}
		w.emit(EventFields{Kind: KindCheck, Node: wk.id, Peer: NoNode, Reason: r, Token: wk.token, At: wk.believedEnd})
		if !ok {
			w.lose(wk, ReasonExpired)
			return
		}
		wk.pc++
		w.next(wk)
	case OpWrite, OpSend:
		w.writeStep(wk, &op, now)
	case OpRead:
		w.request(wk, message{kind: MsgRead, to: Storage})
	case OpRelease:
		if wk.holds {
			w.send(message{kind: MsgRelease, from: wk.id, to: Coord, token: wk.token, lease: wk.lease})
			w.dropLease(wk)
		}
		wk.pc++
		w.next(wk)
	case OpRepeat:
		wk.pc = 0
		w.next(wk)
	}
}

// writeStep sends what a write or send step sends next: the write in one
// piece; or, for a write in parts (parts=N), the next part after the work
// it takes (each=D); then, for a commit by rename, the rename of the
// temporary name the parts went to.
func (w *World) writeStep(wk *worker, op *Op, now Time) {
	m := message{kind: MsgWrite, to: Storage, real: wk.token, key: w.keyOf(op.Key), value: w.valueOf(op.Value), effect: op.Kind == OpSend, version: wk.version, lease: wk.lease}
	if !wk.spec.NoToken {
		m.token = wk.token
	}
	var part uint8
	if wk.sub < max(op.Parts, 1) {
		if op.Each > 0 && !wk.worked {
			wk.worked = true
			w.emit(EventFields{Kind: KindWork, Node: wk.id, Peer: NoNode, Value: int64(op.Each)})
			w.setTimer(wk, slotProgram, now+op.Each)
			return
		}
		wk.worked = false
		if op.Parts > 0 {
			part = wk.sub + 1
		}
		m.form = newWriteForm(op.Rename, false, part, op.Parts)
	} else {
		m.form = newWriteForm(false, true, 0, 0)
	}
	f := EventFields{Kind: KindWrite, Node: wk.id, Peer: Storage, Token: m.token, Key: m.key, Effect: m.effect, Temp: m.form.temp(), Rename: m.form.rename(), Part: part}
	if part > 0 {
		f.At = Time(op.Parts)
	}
	m.ev = w.emit(f)
	w.observeWrite(wk, m.ev)
	w.request(wk, m)
}

// writeDone reports whether the write step at pc has sent everything it
// sends, once the answer to what it sent last has come: else it moves on
// to its next part, or to the rename.
func (wk *worker) writeDone() bool {
	if int(wk.pc) >= len(wk.spec.Program) {
		return true
	}
	op := &wk.spec.Program[wk.pc]
	steps := max(op.Parts, 1)
	if op.Rename {
		steps++
	}
	if wk.sub+1 < steps {
		wk.sub++
		return false
	}
	wk.sub = 0
	return true
}

// request sends a program request and waits for its answer.
func (w *World) request(wk *worker, m message) {
	wk.req++
	wk.progReq = wk.req
	m.req, m.from, m.lease = wk.req, wk.id, wk.lease
	wk.waiting = m.kind
	wk.reqSent = wk.clk.local(w.now)
	if m.kind == MsgAcquire && !wk.acquiring {
		wk.acquiring, wk.acqSent = true, wk.reqSent
	}
	w.send(m)
	if wk.spec.Timeout > 0 {
		w.setTimer(wk, slotTimeout, wk.reqSent+wk.spec.Timeout)
	}
}

func (w *World) workerTimer(wk *worker, it item) {
	t := &wk.timers[it.slot]
	if !t.on || t.id != it.id {
		return
	}
	if wk.clk.local(w.now) < t.local {
		w.schedule(item{at: wk.clk.trueAt(t.local, w.now), kind: itTimer, node: wk.id, slot: it.slot, id: t.id})
		return
	}
	t.on = false
	if wk.brain != nil {
		w.brainTimer(wk, it.slot)
		return
	}
	switch timerSlot(it.slot) {
	case slotProgram:
		if int(wk.pc) < len(wk.spec.Program) && wk.spec.Program[wk.pc].Kind != OpAcquire && !wk.worked {
			wk.pc++
		}
		w.runOp(wk)
	case slotRenew, slotRenew1:
		w.renewAttempt(wk, int(it.slot-uint8(slotRenew)))
	case slotDeadline:
		w.deadline(wk)
	case slotTimeout:
		k := wk.waiting
		wk.waiting = MsgNone
		w.emit(EventFields{Kind: KindTimeout, Node: wk.id, Peer: NoNode, Msg: k})
		w.runOp(wk)
	case slotRenewTimeout, slotRenewTimeout1:
		loop := int(it.slot - uint8(slotRenewTimeout))
		if wk.renewal.loops[loop].inflight {
			w.emit(EventFields{Kind: KindTimeout, Node: wk.id, Peer: NoNode, Msg: MsgRenew})
			w.renewError(wk, loop, ReasonTimeout)
		}
	case slotPublish:
		w.publishToken(wk)
	}
}

func (w *World) workerReceive(wk *worker, m message) {
	if wk.brain != nil {
		w.brainReceive(wk, m)
		return
	}
	switch m.kind {
	case MsgGrant:
		if wk.waiting != MsgAcquire {
			return // a late grant for an acquire the worker gave up on
		}
		w.answered(wk)
		w.acquired(wk, m)
	case MsgWake:
		if wk.waiting == MsgAcquire && m.req == wk.progReq {
			w.refusedAcquire(wk)
			w.runOp(wk)
		}
	case MsgDeny:
		if wk.waiting == MsgAcquire && m.req == wk.progReq {
			w.refusedAcquire(wk)
			if m.reason == ReasonUnauthorized {
				// Without credentials no later request can succeed:
				// the program stops here.
				wk.done = true
				w.emit(EventFields{Kind: KindDone, Node: wk.id, Peer: NoNode})
				return
			}
			if w.coord.candidate && m.version > 0 && w.judgeRecord(wk, m.version) {
				w.request(wk, message{kind: MsgAcquire, to: Coord, takeover: true, version: m.version})
				return
			}
			w.retryAcquire(wk)
		}
	case MsgUnavailable:
		if loop := wk.renewal.loopOf(m.req); loop >= 0 {
			w.renewError(wk, loop, m.reason)
		} else if wk.waiting == MsgAcquire && m.req == wk.progReq {
			w.refusedAcquire(wk)
			w.retryAcquire(wk)
		}
	case MsgRenewOK:
		w.renewOK(wk, m)
	case MsgRenewReject:
		if loop := wk.renewal.loopOf(m.req); loop >= 0 {
			why := ReasonNotHolder
			if m.reason == ReasonUnauthorized {
				why = m.reason
			}
			w.renewError(wk, loop, why)
		}
	case MsgWriteOK, MsgReadOK:
		want := MsgWrite
		if m.kind == MsgReadOK {
			want = MsgRead
		}
		if wk.waiting != want || m.req != wk.progReq {
			return
		}
		w.answered(wk)
		wk.version = m.version
		if want == MsgRead || wk.writeDone() {
			wk.pc++
		}
		w.runOp(wk)
	case MsgWriteErr:
		if wk.waiting != MsgWrite || m.req != wk.progReq {
			return
		}
		w.answered(wk)
		w.lose(wk, ReasonRejected)
	}
}

func (w *World) answered(wk *worker) {
	wk.waiting = MsgNone
	wk.clearTimer(slotTimeout)
}

// refusedAcquire handles an explicit "not now" (deny, wake, unavailable):
// no earlier request of this round can be granted any more, so the next
// request starts a new round.
func (w *World) refusedAcquire(wk *worker) {
	w.answered(wk)
	wk.acquiring = false
}

// judgeRecord is a candidate's look at the lease record (client-go's
// observedRecord and observedTime): a record it has not seen before starts
// its count now, by its own clock; one it has seen unchanged for a TTL is
// expired, and the candidate may overwrite it.
func (w *World) judgeRecord(wk *worker, version int64) bool {
	now := wk.clk.local(w.now)
	if version != wk.seenVersion {
		wk.seenVersion, wk.seenAt = version, now
		return false
	}
	return now-wk.seenAt >= w.coord.ttl
}

func (w *World) retryAcquire(wk *worker) {
	d := Second
	if int(wk.pc) < len(wk.spec.Program) && wk.spec.Program[wk.pc].Arg > 0 {
		d = wk.spec.Program[wk.pc].Arg
	}
	if j := wk.spec.AcquireJitter; j > 0 {
		d += Time(w.rnd.upTo(int64(d) * j / 1000))
	}
	w.setTimer(wk, slotProgram, wk.clk.local(w.now)+d)
}

// beliefBase is the local time wk counts a granted lease from: when it
// sent the request, when the answer m arrived (now), or the coordinator's
// clock when it answered, read as if it were wk's own (FromStamp).
func (w *World) beliefBase(wk *worker, m message, sent, now Time) Time {
	switch wk.spec.Belief {
	case FromReceive:
		return now
	case FromStamp:
		at := w.now
		if m.sent >= 0 && int(m.sent) < len(w.log) {
			at = w.log[m.sent].T
		}
		return w.coord.clk.local(at)
	}
	return sent
}

func (w *World) acquired(wk *worker, m message) {
	now := wk.clk.local(w.now)
	base := w.beliefBase(wk, m, wk.acqSent, now)
	wk.acquiring = false
	wk.holds = true
	wk.token = m.token
	wk.seenVersion = 0
	wk.jeopardy = false
	wk.believedEnd = wk.beliefEnd(base, m.ttl)
	wk.renewal.startCycle(wk)
	wk.acquiredEv = w.emit(EventFields{Kind: KindAcquired, Node: wk.id, Peer: NoNode, Token: wk.token, At: wk.believedEnd})
	w.beliefs = append(w.beliefs, BeliefSpan{Worker: wk.id, Token: wk.token, Start: w.now, Local: wk.believedEnd, Until: wk.clk.trueAt(wk.believedEnd, w.now), End: Never})
	wk.belief = int32(len(w.beliefs) - 1)
	w.observeBelief(wk)
	if wk.stopsAtExpiry() && wk.believedEnd != Never {
		w.setTimer(wk, slotDeadline, wk.believedEnd)
	}
	w.startRenewals(wk, now)
	wk.pc++
	w.next(wk)
}

// dropLease forgets the lease without a word: used by release.
func (w *World) dropLease(wk *worker) {
	wk.holds = false
	wk.jeopardy = false
	wk.renewal.stop(wk)
	wk.clearTimer(slotDeadline)
	if wk.belief >= 0 {
		w.beliefs[wk.belief].End = w.now
		wk.belief = -1
	}
}

// lose ends the worker's lease for a reason and sends its program back to
// acquire: it stops the work that needed the lease.
func (w *World) lose(wk *worker, r Reason) {
	if wk.holds {
		w.emit(EventFields{Kind: KindLost, Node: wk.id, Peer: NoNode, Token: wk.token, Reason: r})
		if r != ReasonNotHolder && r != ReasonUnauthorized {
			// Let go at the coordinator too, in case it still thinks this
			// worker holds the lease; a stale release is ignored there.
			w.send(message{kind: MsgRelease, from: wk.id, to: Coord, token: wk.token, lease: wk.lease})
		}
		w.dropLease(wk)
	}
	wk.clearTimer(slotProgram)
	wk.clearTimer(slotTimeout)
	wk.waiting = MsgNone
	wk.refused = false
	wk.sub, wk.worked = 0, false
	wk.acquiring = false
	wk.pc = 0
	for i, op := range wk.spec.Program {
		if op.Kind == OpAcquire {
			wk.pc = int32(i)
			break
		}
	}
	w.next(wk)
}

func (w *World) crashWorker(wk *worker) {
	w.emit(EventFields{Kind: KindCrash, Node: wk.id, Peer: NoNode})
	if wk.holds {
		w.dropLease(wk)
	}
	if wk.frozen {
		w.freezes[wk.freeze].End = w.now
		wk.freeze = -1
		wk.frozen = false
	}
	wk.crashed = true
	wk.freezeOn = KindNone
	for _, it := range wk.deferred {
		if it.kind == itDeliver {
			w.take(it.id) // it will never arrive
		}
	}
	wk.deferred = wk.deferred[:0]
	wk.inc++
	for s := range wk.timers {
		wk.clearTimer(timerSlot(s))
	}
	wk.waiting = MsgNone
	wk.acquiring = false
	wk.done = false
	wk.sub, wk.worked = 0, false
}

func (w *World) freezeWorker(wk *worker, d Time) {
	wk.frozen = true
	var until Time
	if d > 0 {
		until = w.now + d
		wk.thawID++
		w.schedule(item{at: until, kind: itThaw, node: wk.id, id: wk.thawID})
	}
	w.emit(EventFields{Kind: KindFreeze, Node: wk.id, Peer: NoNode, At: until})
	w.freezes = append(w.freezes, FreezeSpan{Worker: wk.id, Start: w.now, End: Never})
	wk.freeze = int32(len(w.freezes) - 1)
}

// thawWorker resumes a frozen worker. Everything that fell due while it was
// frozen happens now, in the order it would have: the worker carries on
// exactly where it stopped, with the belief it had.
func (w *World) thawWorker(wk *worker) {
	wk.frozen = false
	wk.thawID++
	w.freezes[wk.freeze].End = w.now
	wk.freeze = -1
	w.emit(EventFields{Kind: KindThaw, Node: wk.id, Peer: NoNode})
	for _, it := range wk.deferred {
		it.at = w.now
		w.schedule(it)
	}
	clear(wk.deferred)
	wk.deferred = wk.deferred[:0]
	w.resumeBrain(wk) // a written worker's write the pause held (redlock_program.go)
}

func (w *World) changeClock(wk *worker, c Command) {
	wk.clk = wk.clk.changed(w.now, c)
	w.emit(EventFields{Kind: KindClock, Node: wk.id, Peer: NoNode, At: wk.clk.local(w.now), Value: wk.clk.rate})
	for s := range wk.timers {
		t := &wk.timers[s]
		if t.on {
			t.id++
			w.schedule(item{at: wk.clk.trueAt(t.local, w.now), kind: itTimer, node: wk.id, slot: uint8(s), id: t.id})
		}
	}
	if wk.belief >= 0 {
		w.beliefs[wk.belief].Until = wk.clk.trueAt(wk.believedEnd, w.now)
	}
	w.observeBelief(wk)
}
