package web

import (
	"bufio"
	"bytes"
	"fmt"
	"leaselab/live"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"
)

// liveGoroutines counts the goroutines now running each of the live
// connection's loops, its reader and its writer, and the goroutines that
// draw play frames for a session of their own (there should be none: the
// server's players draw them all).
func liveGoroutines(t *testing.T) (read, write, play int) {
	t.Helper()
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		t.Fatal(err)
	}
	// debug=1 groups identical stacks: "N @ addrs", then one "#" line per frame.
	for _, block := range strings.Split(b.String(), "\n\n") {
		sc := bufio.NewScanner(strings.NewReader(block))
		n := 0
		for sc.Scan() {
			line := sc.Text()
			if f, _, ok := strings.Cut(line, " @ "); ok && n == 0 {
				n, _ = strconv.Atoi(f)
				continue
			}
			switch {
			case strings.Contains(line, "live.(*Conn).read+"):
				read += n
			case strings.Contains(line, "live.(*Conn).write+"):
				write += n
			case strings.Contains(line, "live.(*Conn).play+"), strings.Contains(line, "live.(*Conn).playFrame+") && !strings.Contains(block, "live.(*Players).run"):
				play += n
			default:
				continue
			}
			break
		}
	}
	return read, write, play
}

// waitGoroutines waits until the live goroutines are as wanted, and fails
// with what they are if they never get there (in 30 s, eventually's
// guard against a hang: on a busy machine a goroutine ends late, not
// never).
func waitGoroutines(t *testing.T, read, write, play int) {
	t.Helper()
	var r, w, p int
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(25 * time.Millisecond) {
		if r, w, p = liveGoroutines(t); r == read && w == write && p == play {
			return
		}
	}
	t.Fatalf("live goroutines: %d readers, %d writers, %d players; want %d, %d, %d", r, w, p, read, write, play)
}

// An idle connection (open, answered, not playing) holds one goroutine,
// its reader: the writer runs only while a message waits to go out. A
// playing one holds nothing more than its place in the players' queue.
// A classroom is mostly idle connections, so this is most of what it
// costs (leaselab load --idle measures the memory).
func TestIdleSessionHoldsOnlyItsReader(t *testing.T) {
	srv, ts := newTestServer(t, Config{})
	// waitQueued waits until the players' queue holds want frames.
	waitQueued := func(want int) {
		t.Helper()
		eventually(t, fmt.Sprintf("%d play frames queued", want), func() bool { return srv.live.Players.Queued() == want })
	}
	const n = 5
	var cs []*wsClient
	for range n {
		cs = append(cs, dialLab(t, ts.URL, "/en/labs/w1-w2/ws"))
	}
	waitGoroutines(t, n, 0, 0)

	// A command wakes a writer for its answer, which ends once sent.
	if r := cs[0].do("advance 1s"); r.Type != "ack" {
		t.Fatalf("advance: %s %s", r.Type, r.Error)
	}
	waitGoroutines(t, n, 0, 0)

	// A playing session has its next frame queued for the players, and no
	// goroutine of its own; the frames bring a writer up now and then.
	if r := cs[1].call(live.ClientMsg{Type: "play", Speed: 5}); r.Type != "ack" {
		t.Fatalf("play: %s %s", r.Type, r.Error)
	}
	for range 3 {
		for m := cs[1].next(); m.Type != "frame"; m = cs[1].next() {
		}
	}
	waitQueued(1) // (0 while a player draws it)
	if _, _, p := liveGoroutines(t); p != 0 {
		t.Fatalf("%d play goroutines of a session's own, want 0", p)
	}
	if r := cs[1].call(live.ClientMsg{Type: "pause"}); r.Type != "ack" {
		t.Fatalf("pause: %s %s", r.Type, r.Error)
	}
	waitGoroutines(t, n, 0, 0)
	waitQueued(0) // the paused session's frame was dropped when it fell due

	// Playing again, then closing, leaves nothing queued either.
	if r := cs[2].call(live.ClientMsg{Type: "play", Speed: 5}); r.Type != "ack" {
		t.Fatalf("play: %s %s", r.Type, r.Error)
	}
	for m := cs[2].next(); m.Type != "frame"; m = cs[2].next() {
	}

	// A closed connection leaves nothing behind.
	for _, c := range cs {
		c.conn.Close()
	}
	waitGoroutines(t, 0, 0, 0)
	waitQueued(0)
}
