package web

import (
	"bytes"
	"leaselab/live"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// syncBuffer is a log that the server's goroutines may write concurrently.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// closeCode reads until the server closes the connection and returns the
// close frame's code and text; -1 when it just hung up.
func closeCode(t *testing.T, conn *websocket.Conn) (int, string) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			if ce, ok := err.(*websocket.CloseError); ok {
				return ce.Code, ce.Text
			}
			return -1, err.Error()
		}
	}
}

func rawDial(t *testing.T, base, path string, h http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	conn, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+path, h)
	if err == nil {
		t.Cleanup(func() { conn.Close() })
	}
	return conn, resp, err
}

// TestLiveLabBadInput sends a live server garbage, unknown commands, bad
// arguments, an oversize message and a flood. Each is answered with an
// error or ends its own connection cleanly; a bystander's session keeps
// working throughout, and nothing panics.
func TestLiveLabBadInput(t *testing.T) {
	var log syncBuffer
	s, ts := newTestServer(t, Config{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	bystander := dialLab(t, ts.URL, "/en/labs/w1-w2/ws")
	stillWorks := func(after string) {
		t.Helper()
		if r := bystander.call(live.ClientMsg{Type: "do", Cmd: "advance 1s"}); r.Type != "ack" {
			t.Fatalf("after %s the bystander's command got %s %s", after, r.Type, r.Error)
		}
	}

	c := dialLab(t, ts.URL, "/en/labs/w1-w2/ws")
	for _, frame := range []struct {
		kind int
		data string
	}{
		{websocket.TextMessage, "{not json"},
		{websocket.TextMessage, ""},
		{websocket.TextMessage, "null"},
		{websocket.TextMessage, `[1,2,3]`},
		{websocket.TextMessage, `{"id":"seven","type":"do"}`},
		{websocket.TextMessage, "\xff\xfe\x00garbage"},
		{websocket.BinaryMessage, "\x00\x01\x02\x03"},
	} {
		if err := c.conn.WriteMessage(frame.kind, []byte(frame.data)); err != nil {
			t.Fatal(err)
		}
		if m := c.next(); m.Type != "error" || m.Error == "" {
			t.Errorf("frame %q: %+v, want an error", frame.data, m)
		}
	}
	stillWorks("garbage frames")

	for _, bad := range []live.ClientMsg{
		{Type: "dance"},
		{Type: ""},
		{Type: "do", Cmd: ""},
		{Type: "do", Cmd: "explode W1"},
		{Type: "do", Cmd: "freeze W9"},
		{Type: "do", Cmd: "freeze"},
		{Type: "do", Cmd: "advance -5s"},
		{Type: "do", Cmd: "advance banana"},
		{Type: "do", Cmd: "advance 99999999999999999999h"},
		{Type: "do", Cmd: "link W1 W2 delay=-1s loss=2"},
		{Type: "do", Cmd: "clock W1 rate=0"},
		{Type: "do", Cmd: "replica 99 down"},
		{Type: "do", Cmd: "until 11m"},
		{Type: "do", Cmd: strings.Repeat("advance 1s ", 30)},
		{Type: "play", Speed: -3},
		{Type: "pause"},
		{Type: "answer", Question: "storage-checks", Choice: "no-such-choice"},
		{Type: "challenge", Values: map[string]string{"renew-margin": "banana"}},
	} {
		m := c.call(bad)
		if bad.Type == "play" || bad.Type == "pause" {
			continue // a bad speed keeps the last one; both are acks
		}
		if m.Type != "error" || m.Error == "" {
			t.Errorf("%+v: got %s, want an error", bad, m.Type)
		}
	}
	// The world's bounds are errors too, and say what to do.
	if m := c.call(live.ClientMsg{Type: "do", Cmd: "advance 11m"}); m.Type != "error" || !strings.Contains(m.Error, "reset") {
		t.Errorf("past the virtual time limit: %+v", m)
	}
	c.do("advance 1s") // and the session still works
	stillWorks("unknown commands and bad arguments")

	// An oversize message ends that connection with "message too big".
	big := dialLab(t, ts.URL, "/en/labs/w1-w2/ws")
	big.conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"do","cmd":"`+strings.Repeat("x", live.MaxMessageSize)+`"}`))
	if code, text := closeCode(t, big.conn); code != websocket.CloseMessageTooBig {
		t.Errorf("oversize message: close %d %q, want %d", code, text, websocket.CloseMessageTooBig)
	}
	stillWorks("an oversize message")

	// A flood gets answers up to the rate, errors past it (as many as fit
	// beside the answers) and then a clean close.
	flood := dialLab(t, ts.URL, "/en/labs/w1-w2/ws")
	go func() {
		for range 2000 {
			if flood.conn.WriteMessage(websocket.TextMessage, []byte(`{"id":1,"type":"do","cmd":"step"}`)) != nil {
				return
			}
		}
	}()
	var acks, refused int
	flood.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		var m wireMsg
		if err := flood.conn.ReadJSON(&m); err != nil {
			ce, ok := err.(*websocket.CloseError)
			if !ok || ce.Code != websocket.ClosePolicyViolation {
				t.Errorf("flood ended with %v, want a policy-violation close; slow %d rate %d; %s", err, s.metrics.errors[indexOf(errorKinds, live.ErrSlow)].Load(), s.metrics.errors[indexOf(errorKinds, live.ErrRate)].Load(), log.String())
			}
			break
		}
		switch {
		case m.Type == "error" && strings.Contains(m.Error, "too many"):
			refused++
		case m.Type == "ack" || m.Type == "error":
			acks++
		}
	}
	if acks == 0 || acks > live.MsgBurst+live.MsgRate*10 {
		t.Errorf("flood: %d answered, %d refused", acks, refused)
	}
	stillWorks("a flood")

	if strings.Contains(log.String(), "panic") || s.metrics.errors[indexOf(errorKinds, live.ErrPanic)].Load() != 0 {
		t.Errorf("a panic was logged:\n%s", log.String())
	}
	_, body, _ := get(t, ts.URL+"/metrics")
	for _, want := range []string{`leaselab_errors_total{kind="size"} 1`, `leaselab_errors_total{kind="rate"}`, `leaselab_errors_total{kind="message"} 9`, `leaselab_sessions_total 4`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// TestLiveLabPanicEndsNothingElse makes a message panic while it is
// handled: the session answers with an error and goes on with its world
// rebuilt, another session does not notice, and the panic is logged.
func TestLiveLabPanicEndsNothingElse(t *testing.T) {
	var log syncBuffer
	s, ts := newTestServer(t, Config{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	s.live.BeforeHandle = func(m live.ClientMsg) {
		if m.Cmd == "step" {
			panic("a bug")
		}
	}
	other := dialLab(t, ts.URL, "/en/labs/w1-w2/ws")
	c := dialLab(t, ts.URL, "/en/labs/w1-w2/ws")
	c.do("advance 3s")
	if m := c.call(live.ClientMsg{Type: "do", Cmd: "step"}); m.Type != "error" || !strings.Contains(m.Error, "internal error") {
		t.Errorf("panic: %+v", m)
	}
	if r := c.do("advance 1s"); r.Now != "4s" {
		t.Errorf("after the panic the world is at %s, want 4s", r.Now)
	}
	other.do("advance 1s")
	if !strings.Contains(log.String(), "live lab panicked") || !strings.Contains(log.String(), "a bug") {
		t.Errorf("panic not logged:\n%s", log.String())
	}
}

// TestLiveLabLimits: another site's page, a full server.
func TestLiveLabLimits(t *testing.T) {
	_, ts := newTestServer(t, Config{MaxSessions: 2})

	_, resp, err := rawDial(t, ts.URL, "/en/labs/w1-w2/ws", http.Header{"Origin": {"http://elsewhere.example"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("another origin: %v %v, want 403", err, resp)
	}
	if _, _, err := rawDial(t, ts.URL, "/en/labs/w1-w2/ws", http.Header{"Origin": {ts.URL}}); err != nil {
		t.Errorf("same origin refused: %v", err)
	}

	dialLab(t, ts.URL, "/en/labs/w1-w2/ws")
	// The first session above counts too; it is still open.
	conn, _, err := rawDial(t, ts.URL, "/en/labs/w1-w2/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	if code, text := closeCode(t, conn); code != websocket.CloseTryAgainLater || !strings.Contains(text, "full") {
		t.Errorf("past MaxSessions: close %d %q, want %d", code, text, websocket.CloseTryAgainLater)
	}
	status, body, h := get(t, ts.URL+"/en/labs/w1-w2")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "The server is full") || h.Get("Retry-After") == "" {
		t.Errorf("lab page when full: %d, Retry-After %q", status, h.Get("Retry-After"))
	}
}

// Silence closes a session with the idle code, pings notwithstanding; a
// message keeps it open. The session's clock is the test's: the minutes
// pass without a wait.
func TestLiveLabIdleTimeout(t *testing.T) {
	clock := live.NewManualClock()
	const idle = 10 * time.Minute
	_, ts := newTestServer(t, Config{IdleTimeout: idle, Clock: clock})
	c := dialLab(t, ts.URL, "/en/labs/w1-w2/ws")
	// advance moves the clock on once the session's keep timer is set,
	// as it is from the first frame on and after each run of keep.
	advance := func(d time.Duration) {
		t.Helper()
		for clock.Waiting() == 0 {
			runtime.Gosched()
		}
		clock.Advance(d)
	}
	advance(idle - time.Second) // pings fall due; the session is not idle yet
	if r := c.do("advance 1s"); r.Type != "ack" {
		t.Fatalf("a message a second before the idle timeout: %s %s", r.Type, r.Error)
	}
	advance(idle - time.Second) // counted from the message
	if r := c.do("advance 1s"); r.Type != "ack" {
		t.Fatalf("a message after pings only: %s %s", r.Type, r.Error)
	}
	advance(idle)
	if code, _ := closeCode(t, c.conn); code != live.CloseIdle {
		t.Errorf("idle session: close %d, want %d", code, live.CloseIdle)
	}
}
