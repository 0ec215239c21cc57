package web

import (
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"leaselab/class"
)

// smallSendBuffers gives every connection the server accepts the smallest
// send buffer the kernel allows, so that a client that does not read
// fills it after a few bars rather than a few megabytes.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(1)
	}
	return c, err
}

// neverReads opens a student's class bar stream on a connection that
// never reads a byte, with the smallest receive buffer the kernel allows.
func neverReads(t *testing.T, c *client) net.Conn {
	t.Helper()
	u, _ := url.Parse(c.base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.(*net.TCPConn).SetReadBuffer(1)
	var cookies []string
	for _, ck := range c.http.Jar.Cookies(u) {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	fmt.Fprintf(conn, "GET /en/class/events HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nCookie: %s\r\n\r\n", u.Host, strings.Join(cookies, "; "))
	return conn
}

// TestClassFeedSlowReaders: twenty event streams that never read (real
// connections whose buffers fill) delay no other student's bar: each
// change reaches a reading stream and a lab socket, and the streams that
// fell behind are dropped. A write to a stream may wait an hour here, so
// a feed that waited on a stalled stream before the next listener would
// hold every change for that hour; the bound on each change (the read's
// 10 s) is only there so that such a feed fails rather than hangs.
func TestClassFeedSlowReaders(t *testing.T) {
	svc, err := class.Open(context.Background(), class.Config{Data: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	s, err := New(sharedCourse(Config{Classes: svc, SessionWork: 1000, AddrWork: 1000}))
	if err != nil {
		t.Fatal(err)
	}
	s.feeds.wait = time.Hour
	ts := httptest.NewUnstartedServer(s)
	ts.Listener = smallSendBuffers{ts.Listener}
	ts.Start()
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	base := ts.URL

	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "en", "Slow readers")
	openVote(teacher, teach, "w1-w2", "storage-checks")
	onLab, onHome := newClient(t, base), newClient(t, base)
	onLab.post("/en/join", url.Values{"code": {code}})
	onHome.post("/en/join", url.Values{"code": {code}})
	ws := dialAs(t, onLab, "/en/labs/w1-w2/ws")
	stream := barEvents(t, onHome)
	<-stream
	const stalled = 20
	for range stalled {
		st := newClient(t, base)
		st.post("/en/join", url.Values{"code": {code}})
		neverReads(t, st)
	}
	cl, err := svc.ByCode(context.Background(), code)
	if err != nil {
		t.Fatal(err)
	}
	streams := func() int {
		s.feeds.mu.Lock()
		f := s.feeds.m[cl.ID]
		s.feeds.mu.Unlock()
		if f == nil {
			return 0
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.streams)
	}
	for streams() < 1+stalled {
		time.Sleep(10 * time.Millisecond) // the stalled streams' requests are on their way
	}

	// Counts shown, hidden, shown...: each is a change of every bar. The
	// stalled streams' buffers fill within a few dozen kilobytes (about
	// 18 changes of a 1 KB bar here), and they are dropped once they are a
	// bar behind; every change reaches the readers meanwhile. Four more
	// changes after the last stalled stream went show that the readers go
	// on getting them.
	const maxChanges = 80
	bar, changes, after := 0, 0, 0
	for i := 0; i < maxChanges && after < 4; i++ {
		show := i%2 == 0
		act := map[bool]string{true: "/show", false: "/hide"}[show]
		teacher.post(teach+act, url.Values{"round": {"1"}})
		m := ws.nextClass()
		if got := strings.Contains(m.HTML, `class="cb-counts"`); got != show {
			t.Fatalf("change %d (%s): the lab socket's bar shows the counts: %v", i, act, got)
		}
		select {
		case ev, ok := <-stream:
			if !ok {
				t.Fatalf("change %d: the reading stream ended", i)
			}
			if got := strings.Contains(ev, `class="cb-counts"`); got != show {
				t.Fatalf("change %d (%s): the reading stream's bar shows the counts: %v", i, act, got)
			}
			bar = len(ev)
		case <-time.After(10 * time.Second):
			t.Fatalf("change %d (%s): the reading stream got no bar", i, act)
		}
		changes++
		if streams() == 1 {
			after++
		}
	}
	left := streams()
	t.Logf("a bar of %d bytes; %d changes, %d of them after the stalled streams were dropped; streams left in the feed: %d", bar, changes, after, left)
	if left != 1 {
		t.Errorf("%d streams left in the class's feed after %d changes, want the reading one only: the %d that never read were not dropped (their buffers never filled?)", left, changes, stalled)
	}
}
