package web

import (
	"bufio"
	"bytes"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"
)

// liveGoroutines counts the goroutines now running each of the live
// connection's loops: its reader, its writer and play mode's ticker.
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
			case strings.Contains(line, "web.(*live).read+"):
				read += n
			case strings.Contains(line, "web.(*live).write+"):
				write += n
			case strings.Contains(line, "web.(*live).play+"):
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
// with what they are if they never get there.
func waitGoroutines(t *testing.T, read, write, play int) {
	t.Helper()
	var r, w, p int
	for range 200 {
		if r, w, p = liveGoroutines(t); r == read && w == write && p == play {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("live goroutines: %d readers, %d writers, %d players; want %d, %d, %d", r, w, p, read, write, play)
}

// An idle connection (open, answered, not playing) holds one goroutine,
// its reader: the writer runs only while a message waits to go out, and
// play mode's ticker only while the session plays. A classroom is mostly
// idle connections, so this is most of what it costs (leaselab load
// --idle measures the memory).
func TestIdleSessionHoldsOnlyItsReader(t *testing.T) {
	_, ts := newTestServer(t, Config{})
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

	// Play mode runs a ticker for the playing session only; the frames it
	// queues bring a writer up now and then.
	if r := cs[1].call(clientMsg{Type: "play", Speed: 5}); r.Type != "ack" {
		t.Fatalf("play: %s %s", r.Type, r.Error)
	}
	for {
		if m := cs[1].next(); m.Type == "frame" {
			break
		}
	}
	if _, _, p := liveGoroutines(t); p != 1 {
		t.Fatalf("%d play goroutines while one session plays, want 1", p)
	}
	if r := cs[1].call(clientMsg{Type: "pause"}); r.Type != "ack" {
		t.Fatalf("pause: %s %s", r.Type, r.Error)
	}
	waitGoroutines(t, n, 0, 0)

	// A closed connection leaves nothing behind.
	for _, c := range cs {
		c.conn.Close()
	}
	waitGoroutines(t, 0, 0, 0)
}
