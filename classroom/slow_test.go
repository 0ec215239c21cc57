package classroom

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"leaselab/class"
	"leaselab/live"
)

// fakePages draws a bar that says whether the class's last round shows
// its counts, padded to about a kilobyte like a real bar.
type fakePages struct{ svc *class.Service }

func (p fakePages) Bar(ctx context.Context, lang, code string) (Bar, bool) {
	cl, err := p.svc.ByCode(ctx, code)
	if err != nil {
		return Bar{}, false
	}
	rs, err := p.svc.Rounds(ctx, cl.ID)
	if err != nil {
		return Bar{Class: cl.ID, Down: true, HTML: "down"}, true
	}
	shown := len(rs) > 0 && rs[len(rs)-1].Round.Shown
	html := "<aside>" + lang + " hidden" + strings.Repeat(".", 1000) + "</aside>"
	if shown {
		html = `<aside class="cb-counts">` + lang + strings.Repeat(".", 1000) + "</aside>"
	}
	return Bar{Class: cl.ID, HTML: html, Counts: shown}, true
}

func (fakePages) Voted(lang string, choices []string, choice string) string { return "kept " + choice }

func (fakePages) Refused(lang, code string, err error) error { return err }

// testRoom is a room over a class store of its own, with one class and
// its first round open.
func testRoom(t *testing.T, wait time.Duration) (*Room, *class.Service, class.Class) {
	t.Helper()
	svc, err := class.Open(context.Background(), class.Config{Data: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		svc.Close()
	})
	cl, _, err := svc.Create(ctx, "Feed", "en")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.OpenRound(ctx, cl.ID, "w1-w2", "q", []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	r := New(Config{Classes: svc, Pages: fakePages{svc}, Clock: live.WallClock{}, Done: ctx, WriteWait: wait})
	return r, svc, cl
}

// pipe is a TCP connection on this machine: the server's end, which a
// stream writes, and the client's.
func pipe(t *testing.T, small bool) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if small {
		// The smallest buffers the kernel allows: a client that does not
		// read fills them after a few bars rather than a few megabytes.
		server.(*net.TCPConn).SetWriteBuffer(1)
		client.(*net.TCPConn).SetReadBuffer(1)
	}
	t.Cleanup(func() {
		server.Close()
		client.Close()
	})
	return server, client
}

// events reads a stream's events' data as they come.
func events(conn net.Conn) <-chan string {
	out := make(chan string, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(conn)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		var data strings.Builder
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				data.WriteString(d + "\n")
			} else if sc.Text() == "" && data.Len() > 0 {
				out <- data.String()
				data.Reset()
			}
		}
	}()
	return out
}

// TestSlowReaders: twenty event streams that never read (real
// connections whose buffers fill) delay no other student's bar: each
// change reaches a reading stream, and the streams that fell behind are
// dropped. A write to a stream may wait an hour here, so a feed that
// waited on a stalled stream before the next listener would hold every
// change for that hour; the bound on each change (the read's 10 s) is
// only there so that such a feed fails rather than hangs. The feed
// sends a change every 10 ms rather than every Throttle: the streams fall
// behind after the same number of changes (two dozen), not the same time.
func TestSlowReaders(t *testing.T) {
	r, svc, cl := testRoom(t, time.Hour)
	r.cfg.throttle = 10 * time.Millisecond // before any feed runs
	ctx := context.Background()
	server, client := pipe(t, false)
	r.FollowBar(r.Mark(cl.ID, cl.Code), server, "en", BarStart("first"))
	stream := events(client)
	if first := <-stream; first != "first\n" {
		t.Fatalf("the stream began with %q", first)
	}
	const stalled = 20
	for range stalled {
		server, _ := pipe(t, true)
		r.FollowBar(r.Mark(cl.ID, cl.Code), server, "en", BarStart("first"))
	}
	f := r.feed(cl.ID, cl.Code)
	streams := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.streams)
	}
	if n := streams(); n != 1+stalled {
		t.Fatalf("%d streams in the feed, want %d", n, 1+stalled)
	}

	// Counts shown, hidden, shown...: each is a change of every bar. The
	// stalled streams' buffers fill within a few dozen kilobytes, and
	// they are dropped once they are a bar behind; every change reaches
	// the reader meanwhile. Four more changes after the last stalled
	// stream went show that the reader goes on getting them.
	const maxChanges = 80
	changes, after := 0, 0
	for i := 0; i < maxChanges && after < 4; i++ {
		show := i%2 == 0
		if err := svc.ShowCounts(ctx, cl.ID, 1, show); err != nil {
			t.Fatal(err)
		}
		select {
		case ev, ok := <-stream:
			if !ok {
				t.Fatalf("change %d: the reading stream ended", i)
			}
			if got := strings.Contains(ev, `class="cb-counts"`); got != show {
				t.Fatalf("change %d: the reading stream's bar shows the counts: %v", i, got)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("change %d: the reading stream got no bar", i)
		}
		changes++
		if streams() == 1 {
			after++
		}
	}
	left := streams()
	t.Logf("%d changes, %d of them after the stalled streams were dropped; streams left in the feed: %d", changes, after, left)
	if left != 1 {
		t.Errorf("%d streams left in the class's feed after %d changes, want the reading one only: the %d that never read were not dropped (their buffers never filled?)", left, changes, stalled)
	}
}
