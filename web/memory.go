package web

import (
	"bufio"
	"leaselab/live"
	"os"
	rtmetrics "runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Memory: what live sessions may hold. A session's world at its event cap
// holds about a megabyte; one client opening hundreds of them (a permalink
// each) could hold a class's server. So every live session says what it
// holds to a ledger, which refuses a new session from an address that holds
// its share already, and any new session once the server's sessions come
// near its ceiling. Sessions already open are never dropped for it.

const (
	// maxAddrMemory is the largest share one address may hold by default:
	// 500 sessions at the event cap (released worlds) hold well under it.
	maxAddrMemory = 128 << 20
	// sessionShare is the part of the ceiling live sessions may hold; the
	// rest is for pages, caches, buffers and the collector's headroom.
	sessionShare = 0.6
	// heapShare is the heap in use, of the ceiling, past which new
	// sessions are refused whatever the ledger says.
	heapShare = 0.85
)

// memLedger counts what the live sessions hold, by client address.
type memLedger struct {
	mu      sync.Mutex
	addrs   map[string]*addrMemory // addresses with live sessions
	total   int64
	perAddr int64 // what one address may hold
	limit   int64 // what all sessions may hold: sessionShare of the ceiling
	ceiling int64 // --max-memory

	heapAt   atomic.Int64 // unix nanoseconds of the last heap reading
	heapUsed atomic.Int64
	// readHeap reads the heap in use; tests replace it.
	readHeap func() int64
}

type addrMemory struct {
	held     int64
	sessions int
}

func newMemLedger(ceiling, perAddr int64) *memLedger {
	if perAddr <= 0 {
		perAddr = min(maxAddrMemory, ceiling/4)
	}
	return &memLedger{addrs: map[string]*addrMemory{}, perAddr: perAddr, ceiling: ceiling, limit: int64(float64(ceiling) * sessionShare), readHeap: heapInUse}
}

// heapInUse is the bytes of live and not yet collected objects.
func heapInUse() int64 {
	s := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// memRefusal says why a session was not admitted: "addr" (its address holds
// its share) or "server" (the server is near its ceiling).
type memRefusal string

// admit opens a hold for a new session of addr, or says why not.
func (m *memLedger) admit(addr string) (*memHold, memRefusal) {
	if m.heapNear() {
		return nil, "server"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.addrs[addr]
	switch {
	case m.total+live.SessionOverhead > m.limit:
		return nil, "server"
	case a != nil && a.held+live.SessionOverhead > m.perAddr:
		return nil, "addr"
	}
	if a == nil {
		a = &addrMemory{}
		m.addrs[addr] = a
	}
	a.sessions++
	h := &memHold{m: m, addr: addr, a: a}
	h.setLocked(live.SessionOverhead)
	return h, ""
}

// heapNear reads the heap in use (at most once a second) and reports
// whether it is past heapShare of the ceiling.
func (m *memLedger) heapNear() bool {
	now := time.Now().UnixNano()
	if last := m.heapAt.Load(); now-last > int64(time.Second) && m.heapAt.CompareAndSwap(last, now) {
		m.heapUsed.Store(m.readHeap())
	}
	return float64(m.heapUsed.Load()) > heapShare*float64(m.ceiling)
}

// held is what every session holds, and what addr's hold.
func (m *memLedger) held(addr string) (total, ofAddr int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if a := m.addrs[addr]; a != nil {
		ofAddr = a.held
	}
	return m.total, ofAddr
}

// memHold is one session's entry in the ledger. Its owner (the session's
// goroutine of the moment, under the session's lock) sets it.
type memHold struct {
	m    *memLedger
	addr string
	a    *addrMemory
	held int64
	done bool
}

// Set says the session holds n bytes now. Changes under a page's worth are
// not worth the ledger's lock.
func (h *memHold) Set(n int) {
	if h == nil || h.done {
		return
	}
	if d := int64(n) - h.held; d > -4096 && d < 4096 {
		return
	}
	h.m.mu.Lock()
	h.setLocked(int64(n))
	h.m.mu.Unlock()
}

func (h *memHold) setLocked(n int64) {
	d := n - h.held
	h.held = n
	h.a.held += d
	h.m.total += d
}

// release ends the hold: the session has closed.
func (h *memHold) release() {
	if h == nil || h.done {
		return
	}
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	h.setLocked(0)
	h.done = true
	if h.a.sessions--; h.a.sessions == 0 {
		delete(h.m.addrs, h.addr)
	}
}

// DefaultMaxMemory is the memory ceiling a server assumes when it is not
// told one: its container's limit (cgroup v2 memory.max, or v1's
// memory.limit_in_bytes) when there is one, else half the machine's memory,
// else 1 GiB.
func DefaultMaxMemory() int64 {
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && n > 0 && n < 1<<50 { // "max", or v1's "no limit" (a huge number)
			return n
		}
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				if err == nil && kb > 0 {
					return kb << 10 / 2
				}
			}
		}
	}
	return 1 << 30
}
