package web

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Work budgets: what a session or a client address may make the server do,
// counted in time spent working for it (running the engine, rendering),
// not in messages. One message can cost a microsecond or a third of a
// second; a budget in work keeps a prankster's costliest messages from
// eating the time of every other student, and costs a student who clicks
// nothing.
//
// Work is measured as the wall time of the work on its goroutine. Under
// load that counts more than the CPU it used, so budgets tighten when the
// server is busy, which is when they matter.

// Defaults, in seconds of work per second of real time (a share of one
// core), and the burst a budget may spend at once.
const (
	// defaultSessionWork lets one student's session run a ten-minute
	// world (≈ 90 ms) a few times a second, far more than clicking does.
	defaultSessionWork = 0.25
	sessionBurst       = 2 * time.Second
	// defaultAddrWork is every session and heavy page of one address
	// together: a classroom behind one NAT shares it, so it is twice a
	// session's, and cached verdicts and pages cost it nothing.
	defaultAddrWork = 0.5
	addrBurst       = 5 * time.Second
	// maxAddrBudgets bounds the addresses remembered; those with a full
	// budget are forgotten first, as they owe nothing.
	maxAddrBudgets = 10_000
)

// workBudget is a token bucket of work time. A piece of work may start
// while the budget is not in debt and is charged what it cost afterwards,
// so one costly piece may take it below zero; then the next waits.
type workBudget struct {
	mu    sync.Mutex
	rate  float64 // seconds of work per second
	burst time.Duration
	level time.Duration // credit; below zero: debt
	spent time.Duration // all work charged, for the tests' accounting
	last  time.Time
	// turn, for an address, lets one piece of its work run at a time: a
	// budget admits work before its cost is known, and eight sessions of
	// one address starting a third of a second each at once would take
	// every core from every other student.
	turn chan struct{}
}

// slotWait is how long a piece of work waits for its address's turn
// before it is refused as busy.
const slotWait = 5 * time.Second

// take waits up to d for the budget's turn and reports whether it got it;
// a budget without turns always has one. give hands it back.
func (b *workBudget) take(d time.Duration) bool {
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

func (b *workBudget) give() {
	if b != nil && b.turn != nil {
		<-b.turn
	}
}

func newWorkBudget(rate float64, burst time.Duration) *workBudget {
	return &workBudget{rate: rate, burst: burst, level: burst, last: time.Now()}
}

func (b *workBudget) refill(now time.Time) {
	if d := now.Sub(b.last); d > 0 {
		b.level = min(b.burst, b.level+time.Duration(float64(d)*b.rate))
	}
	b.last = now
}

// wait is how long until the budget is out of debt: 0 when work may start
// now.
func (b *workBudget) wait(now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(now)
	if b.level >= 0 {
		return 0
	}
	return time.Duration(float64(-b.level) / b.rate)
}

// charge takes d of work from the budget.
func (b *workBudget) charge(d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(time.Now())
	b.level -= d
	b.spent += d
}

// used is all the work charged to the budget so far.
func (b *workBudget) used() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

func (b *workBudget) full(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(now)
	return b.level >= b.burst
}

// addrBudgets is one work budget per client address.
type addrBudgets struct {
	mu    sync.Mutex
	rate  float64
	burst time.Duration
	m     map[string]*workBudget
}

func newAddrBudgets(rate float64, burst time.Duration) *addrBudgets {
	return &addrBudgets{rate: rate, burst: burst, m: map[string]*workBudget{}}
}

func (a *addrBudgets) get(addr string) *workBudget {
	a.mu.Lock()
	defer a.mu.Unlock()
	if b, ok := a.m[addr]; ok {
		return b
	}
	if len(a.m) >= maxAddrBudgets {
		now := time.Now()
		for k, b := range a.m {
			if b.full(now) && len(b.turn) == 0 {
				delete(a.m, k)
			}
		}
	}
	b := newWorkBudget(a.rate, a.burst)
	b.turn = make(chan struct{}, 1)
	a.m[addr] = b
	return b
}

// clientAddr is the address a request's budgets count against: the
// peer's, or behind a trusted proxy the student's it forwarded.
func (s *Server) clientAddr(r *http.Request) string { return s.proxies.clientIP(r) }

// hostOf is an address's IP without its port.
func hostOf(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

// busyError is work refused because a budget is in debt.
type busyError struct{ retry time.Duration }

func (e *busyError) Error() string {
	return "busy: this uses more of the server than one student may; try again in " + e.retry.Round(100*time.Millisecond).String()
}

// Key is the catalog's text for work refused until later.
func (e *busyError) Key() string { return "err.busy" }

// Args is how long to wait.
func (e *busyError) Args() []any { return []any{e.retry.Round(100 * time.Millisecond)} }

// waitFor is the longest wait of the budgets given, as an error, or nil
// when work may start now.
func waitFor(budgets ...*workBudget) error {
	now := time.Now()
	var w time.Duration
	for _, b := range budgets {
		if b != nil {
			w = max(w, b.wait(now))
		}
	}
	if w > 0 {
		return &busyError{retry: w}
	}
	return nil
}

// charge takes what the work since start cost from every budget given.
func charge(start time.Time, budgets ...*workBudget) { chargeTimes(start, 1, budgets...) }

// chargeFixed takes d of work from every budget given: what a refusal
// costs, so that a client refused again and again pays for being answered.
func chargeFixed(d time.Duration, budgets ...*workBudget) {
	for _, b := range budgets {
		if b != nil {
			b.charge(d)
		}
	}
}

// refuseCost is what answering a refused message or request is charged:
// about what a short answer costs to encode and write (measured: 20-60 µs),
// rounded up so that a flood of refusals drains its budget too.
const refuseCost = 100 * time.Microsecond

// maxWriteCharge bounds what one write is charged: past it the write waits
// on the network (a slow phone), which costs the server nothing.
const maxWriteCharge = 2 * time.Millisecond

// verdictFactor is what a judged design challenge is charged, in times its
// work: its 200 runs make about 70 MB of garbage, and collecting it slows
// every other session (measured: a bystander's p99 went from 1.4 to over
// 10 times its quiet value with verdicts charged at their time alone).
// A cached verdict costs next to nothing, so this hurts only new ones.
const verdictFactor = 4

// chargeTimes is charge, with the work counted factor times.
func chargeTimes(start time.Time, factor int, budgets ...*workBudget) {
	d := time.Since(start) * time.Duration(factor)
	for _, b := range budgets {
		if b != nil {
			b.charge(d)
		}
	}
}
