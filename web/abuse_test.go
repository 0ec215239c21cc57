package web

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"leaselab/labsession"
	"leaselab/live"
)

// TestReplayCannotGrowTheSession: a session opened with 2,000 commands
// answers 25 replays without growing: its command list stays the same
// length, and the server's heap grows by less than 20 MB. (Replay once
// re-added every command to the list, so each replay replayed all the
// ones before: a hundred 34-byte messages took the heap to over a
// gigabyte, and the first replay already doubled the list.)
func TestReplayCannotGrowTheSession(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	q := url.Values{"seed": {"1"}}
	q.Add("do", "fencing on")
	for i := 1; len(q["do"]) < labsession.MaxCommands; i++ {
		q.Add("do", []string{"crash W2", "restart W2", "advance 100ms"}[i%3])
	}
	c := dialLab(t, ts.URL, "/en/labs/w1-w2/ws?"+q.Encode())
	n0 := strings.Count(c.first.Query, "do=")
	if n0 < labsession.MaxCommands-10 {
		t.Fatalf("the session opened with %d commands, want about %d", n0, labsession.MaxCommands)
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	var last wireMsg
	const replays = 25
	for i := range replays {
		last = c.call(live.ClientMsg{Type: "replay"})
		if last.Type != "ack" {
			t.Fatalf("replay %d: %s %s", i+1, last.Type, last.Error)
		}
	}
	grew := int64(heap()) - int64(before)
	t.Logf("%d replays of a %d-command session: heap %+.1f MB; the query went from %d to %d commands",
		replays, n0, float64(grew)/(1<<20), n0, strings.Count(last.Query, "do="))
	if n := strings.Count(last.Query, "do="); n > n0+1 {
		t.Errorf("after %d replays the session holds %d commands; it opened with %d", replays, n, n0)
	}
	if grew > 20<<20 {
		t.Errorf("%d replays grew the heap by %.1f MB", replays, float64(grew)/(1<<20))
	}
	// What the session holds, a reconnect rebuilds: the same world.
	again := dialLab(t, ts.URL, "/en/labs/w1-w2/ws?"+last.Query)
	if again.first.Now != last.Now || opHTML(again.first, "events") != opHTML(last, "events") {
		t.Errorf("a reconnect with the session's query shows another world (now %s, want %s)", again.first.Now, last.Now)
	}
}

// TestOrigins: a live lab is accepted only from a page of this site.
func TestOrigins(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	u, _ := url.Parse(ts.URL)
	host := u.Host // 127.0.0.1:port
	for _, origin := range []string{
		"null",                                  // a sandboxed iframe on any site
		"file://",                               // a page opened from disk
		"file:///home/student/evil.html",        //
		"data:text/html,hi",                     //
		"http://",                               // empty host
		"http://evil.example@" + host,           // userinfo
		"http://" + host + "@evil.example",      // userinfo the other way
		"http://evil.example",                   // another site
		"http://" + strings.Split(host, ":")[0], // this host, another port
		"https://" + host + ".evil.example",     // a suffix trick
		"ws://" + host,                          // not a page
		"http://" + host + "/some/page",         // not an origin
		"javascript:alert(1)",                   //
		"http://evil.example, http://" + host,   // two in one
	} {
		_, resp, err := rawDial(t, ts.URL, "/en/labs/w1-w2/ws", http.Header{"Origin": {origin}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("Origin %q: %v %v, want 403", origin, err, resp)
		}
	}
	// Refused before the session is rebuilt: a query that cannot be
	// replayed still gets the origin's 403, not the replay's 400.
	if _, resp, err := rawDial(t, ts.URL, "/en/labs/w1-w2/ws?seed=x", http.Header{"Origin": {"http://evil.example"}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("another site with a bad query: %v %v, want 403 before any replay", err, resp)
	}
	// Two Origin headers.
	if _, resp, err := rawDial(t, ts.URL, "/en/labs/w1-w2/ws", http.Header{"Origin": {"http://" + host, "http://evil.example"}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("two Origin headers: %v, want 403", err)
	}
	// Same site: directly, with the default port spelled out or not.
	for _, origin := range []string{"http://" + host, "http://" + strings.ToUpper(host)} {
		if _, _, err := rawDial(t, ts.URL, "/en/labs/w1-w2/ws", http.Header{"Origin": {origin}}); err != nil {
			t.Errorf("same site %q refused: %v", origin, err)
		}
	}
	// Behind a proxy that keeps its own Host and forwards the site's name:
	// believed from a trusted proxy (here the test client, on loopback),
	// and from nobody else.
	_, proxied := newTestServer(t, Config{TrustedProxies: LoopbackProxies})
	for _, tc := range []struct {
		origin string
		h      http.Header
	}{
		{"https://leases.example.edu", http.Header{"X-Forwarded-Host": {"leases.example.edu"}}},
		{"https://leases.example.edu", http.Header{"X-Forwarded-Host": {"leases.example.edu:443"}}},
		{"http://leases.example.edu:8080", http.Header{"X-Forwarded-Host": {"leases.example.edu:8080, inner.example"}}},
		{"https://leases.example.edu", http.Header{"Forwarded": {`for=203.0.113.9;host=leases.example.edu;proto=https`}}},
		{"http://leases.example.edu:8080", http.Header{"Forwarded": {`for="[2001:db8::1]:77";host="leases.example.edu:8080", for=10.0.0.1`}}},
	} {
		h := http.Header{"Origin": {tc.origin}}
		for k, v := range tc.h {
			h[k] = v
		}
		if _, _, err := rawDial(t, proxied.URL, "/en/labs/w1-w2/ws", h); err != nil {
			t.Errorf("same site through a trusted proxy %q %v refused: %v", tc.origin, tc.h, err)
		}
		if _, resp, err := rawDial(t, ts.URL, "/en/labs/w1-w2/ws", h); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("%q %v from an untrusted peer: %v %v, want 403", tc.origin, tc.h, err, resp)
		}
	}
	// Without a browser (no Origin) is accepted: it cannot ride a student's
	// cookies or network position.
	if _, _, err := rawDial(t, ts.URL, "/en/labs/w1-w2/ws", nil); err != nil {
		t.Errorf("no Origin: %v", err)
	}
}

// TestPublicURLRefusesOtherHosts: with a public URL, a page reached by
// another name (DNS rebinding: an attacker's name pointed at this server)
// is refused, page and socket alike; behind a trusted proxy
// X-Forwarded-Host names the site, and from anyone else it changes nothing.
func TestPublicURLRefusesOtherHosts(t *testing.T) {
	_, ts := newTestServer(t, Config{PublicURL: "https://leases.example.edu"})
	_, proxied := newTestServer(t, Config{PublicURL: "https://leases.example.edu", TrustedProxies: LoopbackProxies})
	req := func(host string, h http.Header) int { return reqAt(t, ts.URL, host, h) }
	if got := req("rebound.evil.example:80", nil); got != http.StatusMisdirectedRequest {
		t.Errorf("Host rebound.evil.example: %d, want 421", got)
	}
	if got := req("leases.example.edu", nil); got != http.StatusOK {
		t.Errorf("Host leases.example.edu: %d, want 200", got)
	}
	if got := reqAt(t, proxied.URL, "127.0.0.1:9", http.Header{"X-Forwarded-Host": {"leases.example.edu"}}); got != http.StatusOK {
		t.Errorf("behind a trusted proxy: %d, want 200", got)
	}
	// A DNS-rebinding page cannot claim the site's name itself.
	if got := req("rebound.evil.example", http.Header{"X-Forwarded-Host": {"leases.example.edu"}}); got != http.StatusMisdirectedRequest {
		t.Errorf("X-Forwarded-Host from an untrusted peer: %d, want 421", got)
	}
	if got := req("rebound.evil.example", http.Header{"Forwarded": {"host=leases.example.edu"}}); got != http.StatusMisdirectedRequest {
		t.Errorf("Forwarded host= from an untrusted peer: %d, want 421", got)
	}
	// /metrics follows the same rule as pages; /healthz answers any name.
	for path, want := range map[string]int{"/metrics": http.StatusMisdirectedRequest, "/healthz": http.StatusOK} {
		if got := reqPathAt(t, ts.URL, path, "rebound.evil.example", nil); got != want {
			t.Errorf("%s for another host: %d, want %d", path, got, want)
		}
	}
	if got := reqPathAt(t, ts.URL, "/metrics", "leases.example.edu", nil); got != http.StatusOK {
		t.Errorf("/metrics for the site's name: %d, want 200", got)
	}
	u, _ := url.Parse(ts.URL)
	d := websocket.Dialer{}
	wsURL := "ws://" + u.Host + "/en/labs/w1-w2/ws"
	if _, resp, err := d.Dial(wsURL, http.Header{"Origin": {"http://rebound.evil.example"}, "Host": {"rebound.evil.example"}}); err == nil || resp == nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("a rebound socket: %v, want 421", err)
	}
	if _, resp, err := d.Dial(wsURL, http.Header{"Origin": {"http://rebound.evil.example"}, "Host": {"rebound.evil.example"}, "X-Forwarded-Host": {"127.0.0.1:" + u.Port()}}); err == nil || resp == nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("a rebound socket claiming the server's own address: %v, want 421", err)
	}
	if _, err := New(Config{PublicURL: "leases.example.edu"}); err == nil {
		t.Error("a public URL without a scheme was accepted")
	}
}

// reqAt asks base for a lab page under the Host host, with headers h, and
// gives the status.
func reqAt(t *testing.T, base, host string, h http.Header) int {
	return reqPathAt(t, base, "/en/labs/w1-w2", host, h)
}

func reqPathAt(t *testing.T, base, path, host string, h http.Header) int {
	t.Helper()
	r, _ := http.NewRequest("GET", base+path, nil)
	r.Host = host
	for k, v := range h {
		r.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestHugeCommandNotEchoed: a command of half a megabyte in a link is
// refused and named in a line, not copied whole into the page.
func TestHugeCommandNotEchoed(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	huge := strings.Repeat("A", 500_000)
	status, body, _ := get(t, ts.URL+"/en/labs/w1-w2?do=advance+1s&do="+huge)
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	if strings.Contains(body, strings.Repeat("A", 1000)) || len(body) > 200_000 {
		t.Errorf("the page (%d bytes) echoes the huge command", len(body))
	}
	status, body, _ = get(t, ts.URL+"/en/labs/w1-w2?q="+huge+"&choice=x")
	if status != http.StatusOK || strings.Contains(body, strings.Repeat("A", 1000)) {
		t.Errorf("a huge question id: status %d, page %d bytes", status, len(body))
	}
}

// dialFrom dials addr from the local address from (a loopback address
// other than 127.0.0.1 stands for another client).
func dialFrom(from string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second, Control: bindLater}
	return d.DialContext
}

// TestIdleConnectionsCannotStarveStudents: thousands of idle connections
// from one address, none of which sends a byte, leave a new student (from
// another address) able to open a lab page and get its live frame. The
// server holds only its per-address cap of them; the rest get the
// refusal page or are closed.
//
// The figure is 20,000 connections. The test process holds both
// ends, and its file limit (RLIMIT_NOFILE) may be lower than that: then it
// opens as many as the limit leaves room for and says so.
func TestIdleConnectionsCannotStarveStudents(t *testing.T) {
	if testing.Short() {
		t.Skip("opens thousands of connections")
	}
	want := 20_000
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err == nil && rl.Cur < rl.Max {
		rl.Cur = rl.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
		syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl)
	}
	lim := ConnLimits{PerAddr: 512, Total: 4096}
	n := want
	if room := int(rl.Cur) - lim.Total - 512; room < n {
		n = room
		t.Logf("the file limit is %d: opening %d idle connections instead of %d", rl.Cur, n, want)
	}
	s, err := New(sharedCourse(Config{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer()
	go hs.Serve(s.LimitListener(ln, lim))
	t.Cleanup(func() { hs.Close() })
	addr := ln.Addr().String()

	idle := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range idle {
			c.Close()
		}
	})
	// Four dialers at once: the test runs alone (it holds most of the
	// process's files), and one dialer would leave a core idle.
	dial := dialFrom("127.0.0.1")
	var mu sync.Mutex
	var wg sync.WaitGroup
	var failed error
	for w := range 4 {
		wg.Go(func() {
			for range n/4 + min(1, max(0, n%4-w)) {
				c, err := dial(context.Background(), "tcp", addr)
				mu.Lock()
				if err != nil {
					failed = fmt.Errorf("after %d idle connections: %w", len(idle), err)
				} else {
					idle = append(idle, c)
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if failed != nil {
		t.Fatal(failed)
	}

	start := time.Now()
	student := &http.Client{Transport: &http.Transport{DialContext: dialFrom("127.0.0.2")}, Timeout: 10 * time.Second}
	resp, err := student.Get("http://" + addr + "/en/labs/w1-w2")
	if err != nil {
		t.Fatalf("a new student's lab page: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `id="lab"`) {
		t.Fatalf("a new student's lab page: %d", resp.StatusCode)
	}
	d := websocket.Dialer{NetDialContext: dialFrom("127.0.0.2"), HandshakeTimeout: 10 * time.Second}
	conn, _, err := d.Dial("ws://"+addr+"/en/labs/w1-w2/ws", nil)
	if err != nil {
		t.Fatalf("a new student's live lab: %v", err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var m wireMsg
	if err := conn.ReadJSON(&m); err != nil || m.Type != "frame" {
		t.Fatalf("a new student's first frame: %v %s", err, m.Type)
	}
	// Timing is reported, not asserted (a loaded test machine is not the
	// measure); the bar is one second.
	t.Logf("with %d idle connections from one address, a new student had the lab page and the first live frame in %s", n, time.Since(start).Round(time.Millisecond))

}

// TestConnectionCapPage: past its cap, an address gets a page that says
// the server is full, in both languages, and its held connections still
// work; another address is not affected.
func TestConnectionCapPage(t *testing.T) {
	s, err := New(sharedCourse(Config{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer()
	go hs.Serve(s.LimitListener(ln, ConnLimits{PerAddr: 2, Total: 100}))
	t.Cleanup(func() { hs.Close() })
	addr := ln.Addr().String()
	dial := dialFrom("127.0.0.1")
	for range 2 {
		c, err := dial(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	c, err := dial(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /en/ HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, _ := io.ReadAll(c)
	for _, want := range []string{"503 Service Unavailable", "Retry-After:", "Server sedang penuh", "The server is full"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("past the per-address cap the answer lacks %q: %.300q", want, got)
		}
	}
	other := &http.Client{Transport: &http.Transport{DialContext: dialFrom("127.0.0.2")}, Timeout: 10 * time.Second}
	resp, err := other.Get("http://" + addr + "/en/")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("another address: %v", err)
	}
	resp.Body.Close()
	if !strings.Contains(metricsText(s), `leaselab_errors_total{kind="conns"} 1`) {
		t.Errorf("the refused connection is not counted:\n%s", metricsText(s))
	}
}

func metricsText(s *Server) string {
	var b strings.Builder
	s.metrics.write(&b)
	return b.String()
}

// TestInternalKindsCannotBeSent: the reader's own kinds, refused and
// invalid, are unknown types when a client sends them: not counted as over
// the rate, and their text not echoed as an error.
func TestInternalKindsCannotBeSent(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	c := dialLab(t, ts.URL, "/en/labs/w1-w2/ws")
	for _, typ := range []string{"refused", "invalid"} {
		r := c.call(live.ClientMsg{Type: typ, Cmd: "<b>echo me</b>"})
		if r.Type != "error" || !strings.Contains(r.Error, "unknown message type") || strings.Contains(r.Error, "echo me") {
			t.Errorf("a client's %q: %s %q", typ, r.Type, r.Error)
		}
	}
	c.do("advance 1s")
}
