package web

import (
	"net"
	"net/http"
	"runtime"
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

	// A student's forms (votes above all) are paid from a budget of the
	// student's own, beside their address's: behind a campus NAT a room
	// of 300 is one address, and one student flooding votes must not put
	// the room in debt. The address's budget is still charged for the
	// work done, a ceiling over all its students; the student's refusals
	// are charged to the student alone. The server tells students apart
	// by their class cookie (a cookie it did not issue names a student
	// of its own, whose work the address still pays).
	studentShare = 10 // a student's rate: the address's over this
	studentBurst = time.Second

	// Refusals are charged (RefuseCost), but never take a budget deeper
	// in debt than its ceiling: an address owes at most addrCeiling for
	// being refused, a student studentCeiling. A client at its ceiling
	// (within ceilingSlack: it refills meanwhile) is flooding: work
	// alone leaves an address far below it, as work starts only out of
	// debt (one verdict overshoots by 1.3 s at most). Its refusals close
	// the connection and, for a student or behind a trusted proxy, come
	// after refuseHold; an address at its ceiling has each new connection
	// held refuseHold before a byte of it is read (limitListener). A flood
	// then costs the server its sockets, not its cores.
	addrCeiling    = 3 * time.Second
	studentCeiling = time.Second
	ceilingSlack   = 250 * time.Millisecond
	refuseHold     = 2 * time.Second

	// readCost is what reading a request costs the server per KB (a
	// 900 KB header took 4 ms): bytes read on a connection are charged
	// to its address (limitConn), so a flood of huge headers, which
	// net/http refuses itself, is paid for too. It is charged in
	// pieces of readChargeEvery bytes.
	readCost        = 4 * time.Microsecond
	readChargeEvery = 16 << 10
)

// addrBudgets is one work budget per client address, one per client
// within it (client.go: a student or a browser, for their pages, live
// sessions and verdicts; issue 43), and one per student of a class (by
// address and class cookie) for their forms.
//
// A client's budget is rate, as an address's was before; the address's
// is the ceiling over all its clients, ceil (Config.RoomWork: a lecture
// room behind one NAT), so that one student's Submit or page never makes
// a classmate's frames wait, while a script that makes up clients still
// gets no more than a room's share of the server.
type addrBudgets struct {
	mu       sync.Mutex
	rate     float64
	burst    time.Duration
	ceil     float64 // the address's rate; rate when 0
	m        map[string]*budget.Work
	clients  map[string]*budget.Work
	students map[string]*budget.Work
}

func newAddrBudgets(rate float64, burst time.Duration) *addrBudgets {
	return &addrBudgets{rate: rate, burst: burst, m: map[string]*budget.Work{}, clients: map[string]*budget.Work{}, students: map[string]*budget.Work{}}
}

// client is the budget of one client of an address (clientKey; "" for
// its requests without a cookie), within the address's: one piece of its
// work at a time, at rate.
func (a *addrBudgets) client(addr, key string) *budget.Work {
	room := a.get(addr)
	a.mu.Lock()
	defer a.mu.Unlock()
	k := addr + " " + key
	if b, ok := a.clients[k]; ok {
		return b
	}
	if len(a.clients) >= maxAddrBudgets {
		now := time.Now()
		for k, b := range a.clients {
			if b.Idle(now) {
				delete(a.clients, k)
			}
		}
	}
	b := budget.NewTurns(a.rate, a.burst).Under(room)
	a.clients[k] = b
	return b
}

// student is the budget of the student a class cookie names, seen from
// an address (the same cookie from another address is another budget:
// a copied cookie cannot spend a student's budget from elsewhere).
func (a *addrBudgets) student(addr, cookie string) *budget.Work {
	a.mu.Lock()
	defer a.mu.Unlock()
	key := addr + " " + cookie
	if b, ok := a.students[key]; ok {
		return b
	}
	if len(a.students) >= maxAddrBudgets {
		now := time.Now()
		for k, b := range a.students {
			if b.Idle(now) {
				delete(a.students, k)
			}
		}
		if len(a.students) >= maxAddrBudgets {
			// None idle: a flood of made-up cookies. Their work is
			// still their address's.
			a.students = map[string]*budget.Work{}
		}
	}
	b := budget.New(a.rate/studentShare, studentBurst)
	a.students[key] = b
	return b
}

// over reports whether addr is at its ceiling.
func (a *addrBudgets) over(addr string) bool {
	a.mu.Lock()
	b := a.m[addr]
	a.mu.Unlock()
	return atCeiling(b, addrCeiling)
}

// atCeiling reports whether b owes its ceiling, or near it.
func atCeiling(b *budget.Work, ceiling time.Duration) bool {
	return b != nil && b.Owes() >= ceiling-ceilingSlack
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
	// The ceiling holds no turns: each client has its own (client).
	b := budget.New(a.ceiling(), a.burst)
	a.m[addr] = b
	return b
}

// ceiling is the address's rate: ceil, and never less than a client's.
func (a *addrBudgets) ceiling() float64 { return max(a.ceil, a.rate) }

// DefaultRoomWork is the work all the clients of one address may make
// the server do together, in cores (Config.RoomWork): half the server's
// cores, and at least one. A lecture room behind one campus NAT is one
// address; a server of its own for the room may give it every core.
func DefaultRoomWork() float64 { return max(1, float64(runtime.GOMAXPROCS(0))/2) }

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
