package web

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestHEADAnswersLikeGET: every page and probe answers HEAD with GET's
// status and headers and no body, as uptime monitors expect.
func TestHEADAnswersLikeGET(t *testing.T) {
	s, ts := newTestServer(t, Config{})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, path := range []string{
		"/", "/en", "/en/", "/id/lessons/leases", "/en/labs/w1-w2", "/en/labs/w1-w2/at?do=until+4s",
		"/en/labs/w1-w2/diagram.svg", "/en/labs/w1-w2/whatif?vs=advance+1s&vs-at=1s", "/healthz", "/metrics",
		s.assets.URL("app.css"), "/en/labs/nope",
	} {
		var resp [2]*http.Response
		var body [2][]byte
		for i, method := range []string{"GET", "HEAD"} {
			req, _ := http.NewRequest(method, ts.URL+path, nil)
			r, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body[i], _ = io.ReadAll(r.Body)
			r.Body.Close()
			resp[i] = r
		}
		if resp[1].StatusCode != resp[0].StatusCode || resp[1].Header.Get("Content-Type") != resp[0].Header.Get("Content-Type") || resp[1].Header.Get("Location") != resp[0].Header.Get("Location") {
			t.Errorf("HEAD %s: %d %q, GET: %d %q", path, resp[1].StatusCode, resp[1].Header.Get("Content-Type"), resp[0].StatusCode, resp[0].Header.Get("Content-Type"))
		}
		if len(body[1]) != 0 {
			t.Errorf("HEAD %s sent a body of %d bytes", path, len(body[1]))
		}
	}
}

// TestProbesAtTheRootUnderABasePath: with a base path, /healthz and
// /metrics answer at the root too (and under the base), and a request
// outside the base path is not found, counted and in the access log.
func TestProbesAtTheRootUnderABasePath(t *testing.T) {
	var buf syncBuffer
	_, ts := newTestServer(t, Config{BasePath: "/leaselab", AccessLog: true, Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
	for _, path := range []string{"/healthz", "/metrics", "/leaselab/healthz", "/leaselab/metrics"} {
		if code, body, _ := get(t, ts.URL+path); code != 200 || body == "" {
			t.Errorf("GET %s: %d", path, code)
		}
	}
	if code, _, _ := get(t, ts.URL+"/elsewhere/page"); code != http.StatusNotFound {
		t.Errorf("outside the base path: %d, want 404", code)
	}
	if code, _, _ := get(t, ts.URL+"/en/"); code != http.StatusNotFound {
		t.Errorf("a page without the base path: %d, want 404", code)
	}
	_, metrics, _ := get(t, ts.URL+"/metrics")
	if !strings.Contains(metrics, `leaselab_http_requests_total{route="unmatched",code="404"} 2`) {
		t.Errorf("requests outside the base path are not counted:\n%s", metrics)
	}
	logged := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(buf.String()))
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == "request" {
			p, _ := rec["path"].(string)
			logged[p], _ = rec["status"].(float64)
		}
	}
	for path, status := range map[string]float64{"/elsewhere/page": 404, "/en/": 404, "/healthz": 200, "/leaselab/healthz": 200} {
		if logged[path] != status {
			t.Errorf("access log: %s logged with status %v, want %v (log: %v)", path, logged[path], status, logged)
		}
	}
}

// TestRefusalsLoggedOncePerMinute: each kind of refusal is counted in
// /metrics every time and logged once a minute, the line carrying how many
// there were.
func TestRefusalsLoggedOncePerMinute(t *testing.T) {
	var buf syncBuffer
	_, ts := newTestServer(t, Config{PublicURL: "http://leases.example.edu", Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
	for range 5 {
		if got := reqAt(t, ts.URL, "rebound.evil.example", nil); got != http.StatusMisdirectedRequest {
			t.Fatalf("another host: %d", got)
		}
	}
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/en/labs/w1-w2/ws"
	for range 3 {
		h := http.Header{"Origin": {"http://evil.example"}, "Host": {"leases.example.edu"}}
		if _, resp, err := websocket.DefaultDialer.Dial(u, h); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("another site's page: %v", err)
		}
	}
	lines := map[string][]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(buf.String()))
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) == nil && strings.HasPrefix(rec["msg"].(string), "refused") {
			lines[rec["reason"].(string)] = append(lines[rec["reason"].(string)], rec)
		}
	}
	for _, reason := range []string{errHost, errOrigin} {
		if len(lines[reason]) != 1 || lines[reason][0]["count"] != 1.0 {
			t.Errorf("%s refusals: log lines %v, want one with count 1", reason, lines[reason])
		}
	}
	r, _ := http.NewRequest("GET", ts.URL+"/metrics", nil)
	r.Host = "leases.example.edu"
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`leaselab_errors_total{kind="host"} 5`, `leaselab_errors_total{kind="origin"} 3`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	// A minute on, the next line counts all that came since the last.
	var buf2 syncBuffer
	s := &Server{log: slog.New(slog.NewJSONHandler(&buf2, nil)), metrics: newMetrics()}
	s.refused(errConns, "test")
	s.refused(errConns, "test")
	s.refusals.mu.Lock()
	s.refusals.last[errConns] = s.refusals.last[errConns].Add(-refusalLogEvery)
	s.refusals.mu.Unlock()
	s.refused(errConns, "test")
	var counts []float64
	sc = bufio.NewScanner(strings.NewReader(buf2.String()))
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) == nil {
			counts = append(counts, rec["count"].(float64))
		}
	}
	if len(counts) != 2 || counts[0] != 1 || counts[1] != 2 {
		t.Errorf("log line counts %v, want [1 2]", counts)
	}
}

// TestMetricsHandler: on its own address /metrics answers any host name,
// and the site then has none.
func TestMetricsHandler(t *testing.T) {
	s, ts := newTestServer(t, Config{PublicURL: "http://leases.example.edu", MetricsElsewhere: true})
	if got := reqPathAt(t, ts.URL, "/metrics", "leases.example.edu", nil); got != http.StatusNotFound {
		t.Errorf("the site's /metrics with MetricsElsewhere: %d, want 404", got)
	}
	ms := httptest.NewServer(s.MetricsHandler())
	defer ms.Close()
	for _, path := range []string{"/metrics", "/healthz"} {
		if got := reqPathAt(t, ms.URL, path, "10.1.2.3:9090", nil); got != http.StatusOK {
			t.Errorf("metrics address %s: %d, want 200", path, got)
		}
	}
	if code, body, _ := get(t, ms.URL+"/metrics"); code != 200 || !strings.Contains(body, "leaselab_sessions_open") {
		t.Errorf("metrics address: %d %q", code, body)
	}
}

// TestTrustedProxyIsNotCappedPerAddress: the per-address connection cap
// binds a client, not a trusted proxy that carries every student.
func TestTrustedProxyIsNotCappedPerAddress(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		cfg := Config{}
		if trusted {
			cfg.TrustedProxies = LoopbackProxies
		}
		s, err := New(sharedCourse(cfg))
		if err != nil {
			t.Fatal(err)
		}
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		lln := s.LimitListener(ln, ConnLimits{PerAddr: 2, Total: 100})
		hs := s.HTTPServer()
		go hs.Serve(lln)
		var conns []net.Conn
		refused := 0
		for range 5 {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
			io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
			line, _ := bufio.NewReader(c).ReadString('\n')
			if strings.Contains(line, "503") {
				refused++
			}
		}
		if want := map[bool]int{false: 3, true: 0}[trusted]; refused != want {
			t.Errorf("trusted %v: %d of 5 connections refused, want %d", trusted, refused, want)
		}
		for _, c := range conns {
			c.Close()
		}
		hs.Close()
		s.Close()
	}
}

// TestAcceptLanguageIsBounded: a huge Accept-Language costs what a normal
// one does (read to a bounded prefix, allocating nothing), and a header
// field larger than a browser sends is refused with 431 before any page
// work.
func TestAcceptLanguageIsBounded(t *testing.T) {
	normal := "fr-FR,fr;q=0.9,en;q=0.8"
	huge := strings.Repeat("xx-YY;q=0.5, ", 70_000) + "en"
	for _, h := range []string{normal, huge, huge[:maxAcceptLanguage+7]} {
		if a := testing.AllocsPerRun(20, func() { preferredLang(h) }); a != 0 {
			t.Errorf("preferredLang of %d bytes allocates %v times", len(h), a)
		}
	}
	if got := preferredLang(huge); got != "id" {
		t.Errorf("an entry past the bound was read: %q", got)
	}
	// Past maxLangPrefs entries nothing more is read either.
	if got := preferredLang(strings.Repeat("de,", maxLangPrefs) + "en"); got != "id" {
		t.Errorf("an entry past the %d read: %q", maxLangPrefs, got)
	}
	if got := preferredLang(strings.Repeat("de,", maxLangPrefs-1) + "en"); got != "en" {
		t.Errorf("the last entry within the bound: %q", got)
	}

	_, ts := newTestServer(t, Config{})
	for _, tc := range []struct {
		name string
		h    http.Header
		want int
	}{
		{"a normal header", http.Header{"Accept-Language": {normal}}, http.StatusFound},
		{"a 900 KB Accept-Language", http.Header{"Accept-Language": {huge}}, http.StatusRequestHeaderFieldsTooLarge},
		{"one field just under the bound", http.Header{"Accept-Language": {strings.Repeat("e", maxHeaderField-1)}}, http.StatusFound},
		{"many fields together", http.Header{"X-A": {strings.Repeat("a", 15000)}, "X-B": {strings.Repeat("b", 15000)}, "X-C": {strings.Repeat("c", 15000)}, "X-D": {strings.Repeat("d", 15000)}, "X-E": {strings.Repeat("e", 15000)}}, http.StatusRequestHeaderFieldsTooLarge},
	} {
		req, _ := http.NewRequest("GET", ts.URL+"/", nil)
		for k, v := range tc.h {
			req.Header[k] = v
		}
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
	// A link with many commands in its URL still fits.
	if code, _, _ := get(t, ts.URL+"/en/labs/w1-w2/at?do="+strings.Repeat("advance+1ms&do=", 1500)+"advance+1ms"); code != http.StatusOK {
		t.Errorf("a long link: %d", code)
	}
}

// TestClientSessionsCappedBehindAProxy: behind a trusted proxy the
// listener cannot count a student's connections, so their live sessions
// are capped by the address the proxy forwarded; other students still get
// in, and a closed session gives its place back.
func TestClientSessionsCappedBehindAProxy(t *testing.T) {
	s, ts := newTestServer(t, Config{TrustedProxies: LoopbackProxies, MaxClientSessions: 2})
	from := func(addr string) http.Header { return http.Header{"X-Forwarded-For": {addr}} }
	first, _, err := rawDial(t, ts.URL, "/en/labs/w1-w2/ws", from("198.51.100.1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rawDial(t, ts.URL, "/en/labs/w1-w2/ws", from("198.51.100.1")); err != nil {
		t.Fatal(err)
	}
	third, _, err := rawDial(t, ts.URL, "/en/labs/w1-w2/ws", from("198.51.100.1"))
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := closeCode(t, third); code != websocket.CloseTryAgainLater {
		t.Errorf("a third session of one student: close %d, want %d", code, websocket.CloseTryAgainLater)
	}
	other := dialLabWith(t, ts.URL, from("198.51.100.2"))
	if other.Type != "frame" {
		t.Errorf("another student: first message %q, want a frame", other.Type)
	}
	first.Close()
	eventually(t, "the closed session's place given back", func() bool {
		s.clients.mu.Lock()
		defer s.clients.mu.Unlock()
		return s.clients.n["198.51.100.1"] == 1
	})
	again := dialLabWith(t, ts.URL, from("198.51.100.1"))
	if again.Type != "frame" {
		t.Errorf("after a close: first message %q, want a frame", again.Type)
	}
}

// dialLabWith opens w1-w2's live lab with headers h and gives its first
// message.
func dialLabWith(t *testing.T, base string, h http.Header) wireMsg {
	t.Helper()
	conn, _, err := rawDial(t, base, "/en/labs/w1-w2/ws", h)
	if err != nil {
		t.Fatal(err)
	}
	var m wireMsg
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := conn.ReadJSON(&m); err != nil {
		t.Fatalf("first message: %v", err)
	}
	return m
}
