// Package budget counts the work a session or a client address may make
// the server do, in time spent working for it, not in messages. The work
// is running the engine, rendering and writing. One message can cost a microsecond or a
// third of a second; a budget in work keeps a prankster's costliest
// messages from eating the time of every other student, and costs a
// student who clicks nothing.
//
// Work is measured as the wall time of the work on its goroutine. Under
// load that counts more than the CPU it used, so budgets tighten when the
// server is busy, which is when they matter.
//
// This package is the accounting only; how much each session and address
// may spend, and which pages pay, is the web server's policy (web/budget.go).
package budget

import (
	"sync"
	"time"
)

// Work is a token bucket of work time. A piece of work may start while
// the budget is not in debt and is charged what it cost afterwards, so one
// costly piece may take it below zero; then the next waits.
type Work struct {
	mu    sync.Mutex
	rate  float64 // seconds of work per second
	burst time.Duration
	level time.Duration // credit; below zero: debt
	spent time.Duration // all work charged, for the tests' accounting
	most  time.Duration // the largest single charge, for the same
	last  time.Time
	// turn, for an address, lets one piece of its work run at a time: a
	// budget admits work before its cost is known, and eight sessions of
	// one address starting a third of a second each at once would take
	// every core from every other student.
	turn chan struct{}
	// parent is the budget this one is within (Under): a student's within
	// their address's, the ceiling of a lecture room behind one NAT.
	parent *Work
}

// Under makes b a budget within parent and returns b (issue 43): work
// charged to b is charged to parent too (ChargeTimes charges parent the
// work's time, not its factor), and work waits while either is in debt.
// b's turn is its own: parent's rate, not its turns, bounds b, so that
// one student's page or verdict never holds up a classmate's frames.
// What a refusal costs (ChargeRefusal) stays with b.
func (b *Work) Under(parent *Work) *Work {
	b.parent = parent
	return b
}

// SlotWait is how long a piece of work waits for its address's turn
// before it is refused as busy.
const SlotWait = 5 * time.Second

// New is a budget of rate seconds of work a second, which may spend burst
// at once; it starts full.
func New(rate float64, burst time.Duration) *Work {
	return &Work{rate: rate, burst: burst, level: burst, last: time.Now()}
}

// NewTurns is New for a budget whose work runs one piece at a time (an
// address's): Take waits for the turn.
func NewTurns(rate float64, burst time.Duration) *Work {
	b := New(rate, burst)
	b.turn = make(chan struct{}, 1)
	return b
}

// Take waits up to d for the budget's turn and reports whether it got it;
// a budget without turns always has one. Give hands it back.
func (b *Work) Take(d time.Duration) bool {
	if b == nil || b.turn == nil {
		return true
	}
	select {
	case b.turn <- struct{}{}:
		return true
	default:
	}
	if d <= 0 {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case b.turn <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

// Give hands back the turn Take got.
func (b *Work) Give() {
	if b != nil && b.turn != nil {
		<-b.turn
	}
}

func (b *Work) refill(now time.Time) {
	if d := now.Sub(b.last); d > 0 {
		b.level = min(b.burst, b.level+time.Duration(float64(d)*b.rate))
	}
	b.last = now
}

// wait is how long until the budget is out of debt: 0 when work may start
// now.
func (b *Work) wait(now time.Time) time.Duration {
	b.mu.Lock()
	b.refill(now)
	var w time.Duration
	if b.level < 0 {
		w = time.Duration(float64(-b.level) / b.rate)
	}
	b.mu.Unlock()
	if b.parent != nil {
		w = max(w, b.parent.wait(now))
	}
	return w
}

// charge takes d of work from the budget, and from its parent.
func (b *Work) charge(d time.Duration) {
	b.chargeSelf(d)
	if b.parent != nil {
		b.parent.charge(d)
	}
}

// chargeSelf takes d of work from the budget alone.
func (b *Work) chargeSelf(d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(time.Now())
	b.level -= d
	b.spent += d
	b.most = max(b.most, d)
}

// chargeUpTo takes d from the budget, but not past a debt of most: a
// refusal's charge keeps a flood refused without making its debt, and so
// the wait after it, grow for as long as it lasts.
func (b *Work) chargeUpTo(d, most time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(time.Now())
	if b.level <= -most {
		return
	}
	d = min(d, b.level+most)
	b.level -= d
	b.spent += d
}

// Owes is how much work the budget is in debt, 0 when it is not.
func (b *Work) Owes() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(time.Now())
	return max(0, -b.level)
}

// Used is all the work charged to the budget so far.
func (b *Work) Used() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Largest is the largest single piece of work charged to the budget:
// with one piece at a time (NewTurns), how far past its share the work it
// admitted may have gone, however fast the machine.
func (b *Work) Largest() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.most
}

// Idle reports whether the budget owes nothing and nobody holds its turn:
// forgetting it loses nothing.
func (b *Work) Idle(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(now)
	return b.level >= b.burst && len(b.turn) == 0
}

// Busy is work refused because a budget is in debt, or its turn did not
// come in time.
type Busy struct{ Retry time.Duration }

func (e *Busy) Error() string {
	return "busy: this uses more of the server than one student may; try again in " + e.Retry.Round(100*time.Millisecond).String()
}

// Key is the catalog's text for work refused until later.
func (e *Busy) Key() string { return "err.busy" }

// Args is how long to wait.
func (e *Busy) Args() []any { return []any{e.Retry.Round(100 * time.Millisecond)} }

// Wait is the longest wait of the budgets given, as a *Busy, or nil when
// work may start now.
func Wait(budgets ...*Work) error {
	now := time.Now()
	var w time.Duration
	for _, b := range budgets {
		if b != nil {
			w = max(w, b.wait(now))
		}
	}
	if w > 0 {
		return &Busy{Retry: w}
	}
	return nil
}

// Start is Wait, then the turn of addr (nil: none) within SlotWait: nil
// when the work may start, and then the caller gives the turn back.
func Start(addr *Work, others ...*Work) error {
	err := Wait(append(others, addr)...)
	if err == nil && !addr.Take(SlotWait) {
		err = &Busy{Retry: time.Second}
	}
	return err
}

// Charge takes what the work since start cost from every budget given.
func Charge(start time.Time, budgets ...*Work) { ChargeTimes(start, 1, budgets...) }

// ChargeFixed takes d of work from every budget given: what a refusal
// costs, so that a client refused again and again pays for being answered.
func ChargeFixed(d time.Duration, budgets ...*Work) {
	for _, b := range budgets {
		if b != nil {
			b.charge(d)
		}
	}
}

// ChargeRefusal is ChargeFixed for answering a refusal, or for reading
// what will be refused: it takes d from each budget given, but never
// takes one deeper in debt than most. A client that goes on asking stays
// refused (its debt stays at most), and once it stops it waits at most
// most/rate, however long it flooded.
func ChargeRefusal(d, most time.Duration, budgets ...*Work) {
	for _, b := range budgets {
		if b != nil {
			b.chargeUpTo(d, most)
		}
	}
}

// RefuseCost is what answering a refused message or request is charged:
// about what a short answer costs to encode and write (measured: 20-60 µs),
// rounded up so that a flood of refusals drains its budget too.
const RefuseCost = 100 * time.Microsecond

// MaxWriteCharge bounds what one write is charged: past it the write waits
// on the network (a slow phone), which costs the server nothing.
const MaxWriteCharge = 2 * time.Millisecond

// VerdictFactor is what a judged design challenge is charged, in times its
// work: its 200 runs make about 70 MB of garbage, and collecting it slows
// every other session (measured: a bystander's p99 went from 1.4 to over
// 10 times its quiet value with verdicts charged at their time alone).
// A cached verdict costs next to nothing, so this hurts only new ones.
const VerdictFactor = 4

// ChargeTimes is Charge, with the work counted factor times; a budget's
// parent (Under) is charged the work's time once: the factor is what the
// student's verdict costs everyone's frames, and is the student's to pay,
// not their whole room's.
func ChargeTimes(start time.Time, factor int, budgets ...*Work) {
	d := time.Since(start)
	for _, b := range budgets {
		if b != nil {
			b.chargeSelf(d * time.Duration(factor))
			if b.parent != nil {
				b.parent.charge(d)
			}
		}
	}
}
