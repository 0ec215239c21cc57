package web

import (
	"errors"
	"fmt"
	"leaselab/budget"
	"leaselab/live"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// atCap is a session opened right at the event cap with one request, as a
// permalink can: renew-policy until 550 s holds about 10,000 events.
const atCap = "/id/labs/renew-policy/ws?seed=1&do=until+550s"

// openFrom opens a live session from the loopback address from and reads
// its first frame; it returns the connection, or the close error that
// refused it.
func openFrom(t testing.TB, ts string, from, path string) (*websocket.Conn, error) {
	t.Helper()
	conn, err := openQuiet(ts, from, path)
	var dialErr dialError
	if errors.As(err, &dialErr) {
		t.Fatal(err)
	}
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { conn.Close() })
	return conn, nil
}

// dialError is a session that could not even be dialled.
type dialError struct{ error }

// openQuiet is openFrom for a test's goroutines: it returns every failure
// and leaves closing the connection to its caller.
func openQuiet(ts, from, path string) (*websocket.Conn, error) {
	d := websocket.Dialer{NetDialContext: dialFrom(from), HandshakeTimeout: 10 * time.Second}
	conn, _, err := d.Dial("ws"+strings.TrimPrefix(ts, "http")+path, http.Header{"Origin": {ts}})
	if err != nil {
		return nil, dialError{fmt.Errorf("dial from %s: %w", from, err)}
	}
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	// Only the message's type is read: a frame at the cap is large, and
	// building its ops is the test's time, not the server's.
	var m struct {
		Type string `json:"type"`
	}
	if err := conn.ReadJSON(&m); err != nil {
		conn.Close()
		return nil, err
	}
	if m.Type != "frame" {
		conn.Close()
		return nil, dialError{fmt.Errorf("first message %q, want a frame", m.Type)}
	}
	conn.SetReadDeadline(time.Time{})
	return conn, nil
}

// TestCappedSessionsHoldLittle opens 100 sessions at the event cap from
// one address: each lets its world go once its first frame is out, so the
// heap grows by less than 300 KB a session, the ledger holds what it
// says, 500 such sessions (a large class's, each the same world) would
// stay within the address's share of memory, and another address still
// gets a session. (Each session replays its world to the cap, and the
// test runs alone: 100 prove per session what 500 did, in a fifth of the
// time. A session holds about 13 KB, so the heap's noise between the
// two readings is far below what 100 sessions would need to pass 300 KB.)
func TestCappedSessionsHoldLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 100 sessions at the event cap")
	}
	s, ts := newTestServer(t, Config{MaxMemory: 4 << 30})
	const n, class = 100, 500
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// Four at a time: each replays its world to the cap on the server, so
	// one at a time would leave a core idle in the suite's serial phase.
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				conn, err := openQuiet(ts.URL, "127.0.0.1", atCap)
				if err != nil {
					errs <- fmt.Errorf("session %d refused: %w", i+1, err)
					return
				}
				t.Cleanup(func() { conn.Close() })
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// The last frames' releases run after they are sent.
	time.Sleep(100 * time.Millisecond)
	runtime.GC()
	runtime.ReadMemStats(&after)
	perSession := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	total, ofAddr := s.mem.held("127.0.0.1")
	t.Logf("%d sessions at the cap: heap %d KB a session (both ends of the connections); ledger %d KB a session, %.1f MB of the address's %d MB",
		n, perSession>>10, ofAddr/n>>10, float64(ofAddr)/(1<<20), s.mem.perAddr>>20)
	if perSession > 300<<10 {
		t.Errorf("a session at the cap costs %d KB of heap, want at most 300", perSession>>10)
	}
	if ofAddr/n*class > s.mem.perAddr || ofAddr != total {
		t.Errorf("the address holds %d B for %d sessions (all sessions %d B): %d would hold more than its share, %d B", ofAddr, n, total, class, s.mem.perAddr)
	}
	if _, err := openFrom(t, ts.URL, "127.0.0.2", atCap); err != nil {
		t.Fatalf("another address is refused: %v", err)
	}
}

// TestAddressShareRefusesItsNextSession gives one address room for a few
// sessions: past it, its next session is closed with the memory reason in
// the student's language, others' sessions still open, and a closed
// session gives its room back.
func TestAddressShareRefusesItsNextSession(t *testing.T) {
	s, ts := newTestServer(t, Config{MaxMemory: 4 << 30, MaxMemoryPerAddr: 10 * live.SessionOverhead})
	var open []*websocket.Conn
	var refused error
	for range 40 {
		c, err := openFrom(t, ts.URL, "127.0.0.1", "/id/labs/w1-w2/ws")
		if err != nil {
			refused = err
			break
		}
		open = append(open, c)
	}
	if refused == nil || len(open) == 0 {
		t.Fatalf("%d sessions open, refusal %v: want some, then a refusal", len(open), refused)
	}
	ce, ok := refused.(*websocket.CloseError)
	if !ok || ce.Code != websocket.CloseTryAgainLater || ce.Text != T("id", "full.memory.addr") {
		t.Fatalf("refused with %v, want close %d %q", refused, websocket.CloseTryAgainLater, T("id", "full.memory.addr"))
	}
	if !strings.Contains(metricsText(s), `leaselab_errors_total{kind="memory"} 1`) {
		t.Error("the refusal is not counted as kind memory")
	}
	if _, err := openFrom(t, ts.URL, "127.0.0.2", "/id/labs/w1-w2/ws"); err != nil {
		t.Fatalf("another address is refused: %v", err)
	}
	open[0].Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := openFrom(t, ts.URL, "127.0.0.1", "/id/labs/w1-w2/ws"); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("a closed session's room did not come back: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMaxMemoryRefusesCleanly runs a server with room for about fifty
// sessions: they are admitted, the next is refused with the server's
// reason, and the server goes on serving pages and the sessions it holds.
// Then the heap itself nears the ceiling (as the collector would report
// it): new sessions are refused whatever the ledger says.
func TestMaxMemoryRefusesCleanly(t *testing.T) {
	ceiling := int64(float64(50*live.SessionOverhead) / sessionShare)
	s, ts := newTestServer(t, Config{MaxMemory: ceiling, MaxMemoryPerAddr: ceiling})
	heap := int64(0)
	s.mem.readHeap = func() int64 { return heap }
	var open []*websocket.Conn
	var refused error
	for i := range 200 {
		c, err := openFrom(t, ts.URL, fmt.Sprintf("127.0.0.%d", 2+i), "/en/labs/w1-w2/ws")
		if err != nil {
			refused = err
			break
		}
		open = append(open, c)
	}
	ce, ok := refused.(*websocket.CloseError)
	if !ok || ce.Code != websocket.CloseTryAgainLater || ce.Text != T("en", "full.memory.server") {
		t.Fatalf("after %d sessions: refused with %v, want close %d %q", len(open), refused, websocket.CloseTryAgainLater, T("en", "full.memory.server"))
	}
	if len(open) < 40 || len(open) > 50 {
		t.Fatalf("%d sessions admitted with room for 50", len(open))
	}
	if code, _, _ := get(t, ts.URL+"/en/"); code != http.StatusOK {
		t.Errorf("home page answers %d near the ceiling", code)
	}
	c := &wsClient{t: t, conn: open[0], seq: 1}
	if m := c.do("advance 5s"); m.Type != "ack" {
		t.Errorf("a session held before answers %q (%s)", m.Type, m.Error)
	}
	if !strings.Contains(metricsText(s), `leaselab_errors_total{kind="memory"} 1`) {
		t.Error("the refusal is not counted as kind memory")
	}
	for _, c := range open[len(open)/2:] {
		c.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := openFrom(t, ts.URL, "127.0.1.1", "/en/labs/w1-w2/ws")
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("closed sessions' room did not come back: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	heap = ceiling
	s.mem.heapAt.Store(0) // read the heap at the next admission
	if _, err := openFrom(t, ts.URL, "127.0.1.2", "/en/labs/w1-w2/ws"); err == nil {
		t.Fatal("a session admitted with the heap at the ceiling")
	}
}

// TestOneAddressStaysWithinItsShare: eight sessions and two what-if pairs
// of one address send the costliest commands (a run to the event cap and
// a reset, ten a second each) for a few seconds. All the work they cause
// — decoding, running, drawing, encoding, writing, refusing — is charged
// to the address, whose budget then holds it to its half core (plus its
// burst): the server's own accounting says so.
func TestOneAddressStaysWithinItsShare(t *testing.T) {
	// In parallel: the work it counts is its own server's accounting of
	// its own address, whatever else the process runs.
	t.Parallel()
	if testing.Short() {
		t.Skip("runs an attack for seconds")
	}
	s, ts := newTestServer(t, Config{SessionWork: defaultSessionWork, AddrWork: defaultAddrWork, MaxMemory: 4 << 30})
	const run = 4 * time.Second
	paths := []string{}
	for range 8 {
		paths = append(paths, "/en/labs/renew-policy/ws")
	}
	paths = append(paths, "/en/labs/w1-w2/whatif/ws?"+w1w2PairQuery, "/en/labs/w1-w2/whatif/ws?"+w1w2PairQuery)
	addr := s.addrBudgets.get("127.0.0.1")
	start := time.Now()
	done := make(chan int, len(paths))
	for i, p := range paths {
		conn, err := openFrom(t, ts.URL, "127.0.0.1", p)
		if err != nil {
			t.Logf("session %d refused at once: %v", i, err)
			done <- 0
			continue
		}
		go func() { // read whatever comes until the connection ends
			for {
				if _, _, err := conn.ReadMessage(); err != nil {
					return
				}
			}
		}()
		go func() {
			sent := 0
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			cmds := []string{"until 550s", "reset"}
			if strings.Contains(p, "whatif") {
				cmds = []string{"until 2m", "reset"}
			}
			for time.Since(start) < run {
				<-tick.C
				if conn.WriteJSON(live.ClientMsg{Type: "do", ID: int64(sent + 1), Cmd: cmds[sent%2]}) != nil {
					break
				}
				sent++
			}
			done <- sent
		}()
	}
	sent := 0
	for range paths {
		sent += <-done
	}
	time.Sleep(200 * time.Millisecond) // what was queued goes out
	// The share is counted in the budget's own terms, so that it holds on
	// a machine of any speed (issue 46): half a core of the time since
	// the start and its burst; the pieces of work that may start together
	// while the address owes nothing, one a session (each at most the
	// largest charged, however long the machine made it), and their
	// socket writes (at most MaxWriteCharge each); and each refusal's
	// RefuseCost. Serving every command as it came would take several
	// times all of the time since the start.
	spent, largest := addr.Used(), addr.Largest()
	elapsed := time.Since(start)
	allowed := time.Duration(defaultAddrWork*float64(elapsed)) + addrBurst +
		time.Duration(len(paths))*(largest+budget.MaxWriteCharge) + time.Duration(sent)*budget.RefuseCost
	t.Logf("%d commands sent in %s; work charged to the address %s, its share %s (half a core, its burst, and a piece of at most %s a session)",
		sent, elapsed.Round(time.Millisecond), spent.Round(time.Millisecond), allowed.Round(time.Millisecond), largest.Round(time.Millisecond))
	if spent > allowed {
		t.Errorf("the address was charged %s of work in %s: more than its share %s", spent, elapsed, allowed)
	}
	if spent < 100*time.Millisecond {
		t.Errorf("only %s charged for %d costly commands: the work is not counted", spent, sent)
	}
}
