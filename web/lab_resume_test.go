package web

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// view is what a page shows of a live lab: each target's content after the
// ops so far, applied as the script applies them.
type view struct {
	parts map[string]string
	query string
}

func (v *view) apply(m wireMsg) {
	if v.parts == nil {
		v.parts = map[string]string{}
	}
	for _, o := range m.Ops {
		if o.Op == "append" {
			v.parts[o.Target] += o.HTML
		} else {
			v.parts[o.Target] = o.HTML
		}
	}
	if m.Query != "" {
		v.query = m.Query
	}
}

// student drives a lab as the page's script does: it keeps the session's
// query from every message and connects with it.
type student struct {
	t    *testing.T
	c    *wsClient
	view view
}

func (s *student) connect(base string) {
	s.t.Helper()
	path := "/en/labs/w1-w2/ws"
	if s.view.query != "" {
		path += "?" + s.view.query
	}
	s.c = dialLab(s.t, base, path)
	// dialLab read the first frame, which rebuilds the page's view.
	s.view.apply(s.c.first)
}

func (s *student) do(cmds ...string) {
	s.t.Helper()
	for _, cmd := range cmds {
		s.view.apply(s.c.do(cmd))
	}
}

var (
	labBefore = []string{"fencing on", "until 4s", "freeze W1", "advance 18s"}
	labAfter  = []string{"thaw W1", "advance 1s", "step", "crash W2", "advance 3s"}
)

// reference is the world of a student whose connection never dropped.
func reference(t *testing.T) view {
	_, ts := newTestServer(t, Config{})
	s := &student{t: t}
	s.connect(ts.URL)
	s.do(labBefore...)
	s.do(labAfter...)
	return s.opened(ts.URL)
}

// opened is what a page opened afresh at the student's session shows:
// every part, drawn whole by its first frame. (The answers to a paused
// page's commands bring what changed, to parts within these, which view
// does not follow.)
func (s *student) opened(base string) view {
	s.t.Helper()
	c := dialLab(s.t, base, "/en/labs/w1-w2/ws?"+s.view.query)
	var v view
	v.apply(c.first)
	return v
}

func sameWorld(t *testing.T, got, want view) {
	t.Helper()
	if got.query != want.query {
		t.Errorf("session %q, want %q", got.query, want.query)
	}
	for _, target := range []string{"events", "diagram", "status", "session"} {
		if got.parts[target] != want.parts[target] {
			t.Errorf("%s differs from the unbroken run's:\n got %.300s\nwant %.300s", target, got.parts[target], want.parts[target])
		}
	}
	if !strings.Contains(got.parts["events"], "stale token") {
		t.Error("the lab's story (a rejected stale write) is not in the events")
	}
}

// TestLiveLabSurvivesDroppedSocket cuts the websocket mid-lab; the student
// reconnects with the session's query and carries on in the same world.
func TestLiveLabSurvivesDroppedSocket(t *testing.T) {
	want := reference(t)
	_, ts := newTestServer(t, Config{})
	s := &student{t: t}
	s.connect(ts.URL)
	s.do(labBefore...)
	s.c.conn.UnderlyingConn().Close() // the Wi-Fi drops: no close frame
	s.connect(ts.URL)
	s.do(labAfter...)
	sameWorld(t, s.opened(ts.URL), want)
}

// TestLiveLabSurvivesServerRestart stops the server mid-lab and starts a
// new one, which has never seen the student: the query rebuilds the world.
func TestLiveLabSurvivesServerRestart(t *testing.T) {
	t.Parallel()
	want := reference(t)
	first, err := New(sharedCourse(Config{}))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(first)
	s := &student{t: t}
	s.connect(ts.URL)
	s.do(labBefore...)
	first.Close()
	ts.Close()

	_, ts2 := newTestServer(t, Config{})
	s.connect(ts2.URL)
	s.do(labAfter...)
	sameWorld(t, s.opened(ts2.URL), want)
}
