package web

import (
	"net"
	"net/http"
	"sync"
	"time"

	"leaselab/budget"
)

// Work budgets (package budget counts them): how much work each live
// session and each client address may make the server do, and which pages
// pay. The live sessions spend theirs (package live); heavy pages spend
// their address's (heavy, guard.go).

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

// addrBudgets is one work budget per client address.
type addrBudgets struct {
	mu    sync.Mutex
	rate  float64
	burst time.Duration
	m     map[string]*budget.Work
}

func newAddrBudgets(rate float64, burst time.Duration) *addrBudgets {
	return &addrBudgets{rate: rate, burst: burst, m: map[string]*budget.Work{}}
}

func (a *addrBudgets) get(addr string) *budget.Work {
	a.mu.Lock()
	defer a.mu.Unlock()
	if b, ok := a.m[addr]; ok {
		return b
	}
	if len(a.m) >= maxAddrBudgets {
		now := time.Now()
		for k, b := range a.m {
			if b.Idle(now) {
				delete(a.m, k)
			}
		}
	}
	b := budget.NewTurns(a.rate, a.burst)
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
