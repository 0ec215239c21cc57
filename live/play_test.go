package live

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"leaselab/budget"
	"leaselab/engine"
	"leaselab/labsession"
)

// The players draw frames in the order they fall due, whatever the order
// they were queued in.
func TestPlayersDrawInDueOrder(t *testing.T) {
	clock := NewManualClock()
	p := NewPlayers(clock)
	base := clock.Now().Add(-time.Hour) // all due already
	r := rand.New(rand.NewPCG(1, 2))
	var want []time.Time
	for i := range 200 {
		due := base.Add(time.Duration(r.IntN(1000)) * time.Millisecond)
		want = append(want, due)
		p.add(playEntry{due: due, gen: uint64(i)})
	}
	slices.SortFunc(want, func(a, b time.Time) int { return a.Compare(b) })
	ctx, cancel := context.WithCancel(context.Background())
	var got []time.Time
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.run(ctx, func(e playEntry) {
			if got = append(got, e.due); len(got) == len(want) {
				cancel()
			}
		})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("the player did not draw 200 frames that were all due")
	}
	if !slices.Equal(got, want) {
		t.Errorf("drawn out of order: %v", got[:10])
	}
	if p.Queued() != 0 {
		t.Errorf("%d left queued", p.Queued())
	}
}

// playingForTest is a session in play mode whose frames stay in its queue
// to the client: it has no connection, and its writer counts as running.
func playingForTest(t *testing.T, cfg *Config, speed float64, start time.Time) *Conn {
	t.Helper()
	lab := testCourse(t).Lab("w1-w2")
	sess, err := labsession.New(lab, 1)
	if err != nil {
		t.Fatal(err)
	}
	l := &Conn{cfg: cfg, lab: lab, lang: "en", sess: sess, runs: labRun{sess}, shown: -1, out: make(chan *outMsg, sendQueue), writing: true,
		work: budget.New(0.25, 2*time.Second), addr: budget.New(1, 2*time.Second)} // a session's default budget, its address four times it
	l.mu.Lock()
	l.startPlay(start, speed)
	l.mu.Unlock()
	return l
}

// A frame moves the world on by the play time since the last frame times
// the speed: ticks that passed without a frame (the players were behind,
// or the session was busy) are owed, so virtual time keeps its pace. A
// frame of an earlier play, after a pause, is dropped.
func TestPlayFrameOwesTheTicksThatPassed(t *testing.T) {
	cfg := testConfig()                        // its players' queue no player runs: the test draws
	start := cfg.Clock.Now().Add(-time.Minute) // every frame below is late: none waits
	l := playingForTest(t, cfg, 5, start)
	gen := l.playGen
	frame := func(ticks int) {
		t.Helper()
		l.playFrame(playEntry{due: start.Add(time.Duration(ticks) * playTick), l: l, gen: gen})
	}
	now := func() engine.Time {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.sess.World().Now()
	}
	frame(1)
	if got := now(); got != engine.Second {
		t.Fatalf("after one tick at speed 5: %s, want 1s", got)
	}
	// The session is busy for the next two ticks: they pass.
	l.mu.Lock()
	frame(2)
	frame(3)
	l.mu.Unlock()
	if got := now(); got != engine.Second {
		t.Fatalf("a busy session moved on: %s", got)
	}
	frame(4)
	if got := now(); got != 4*engine.Second {
		t.Fatalf("after four ticks, two of them passed: %s, want 4s", got)
	}
	if n := len(l.out); n != 2 {
		t.Errorf("%d frames queued to the client, want 2", n)
	}
	// Paused: a frame still queued for the players changes nothing.
	l.mu.Lock()
	l.stopPlay()
	l.mu.Unlock()
	frame(5)
	if got := now(); got != 4*engine.Second {
		t.Errorf("a paused session moved on: %s", got)
	}
	// Playing again starts a new generation: the old entries are stale.
	l.mu.Lock()
	l.startPlay(start.Add(5*playTick), 5)
	l.mu.Unlock()
	frame(6)
	if got := now(); got != 4*engine.Second {
		t.Errorf("a stale frame moved the world: %s", got)
	}
	gen = l.playGen
	frame(6)
	if got := now(); got != 5*engine.Second {
		t.Errorf("after playing again for a tick: %s, want 5s", got)
	}
}

// A player waits for the next frame on the clock, not on a fixed tick: a
// frame due later is drawn once the clock reaches it, and not before.
func TestPlayersWaitForTheClock(t *testing.T) {
	clock := NewManualClock()
	p := NewPlayers(clock)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	drawn := make(chan time.Time, 2)
	go p.run(ctx, func(e playEntry) { drawn <- e.due })
	due := clock.Now().Add(time.Second)
	p.add(playEntry{due: due})
	for clock.Waiting() == 0 { // the player has gone to wait for it
		runtime.Gosched()
	}
	select {
	case d := <-drawn:
		t.Fatalf("a frame due at %s was drawn at %s", d, clock.Now())
	default:
	}
	clock.Advance(999 * time.Millisecond)
	select {
	case d := <-drawn:
		t.Fatalf("a frame due at %s was drawn a millisecond early", d)
	default:
	}
	clock.Advance(time.Millisecond)
	select {
	case d := <-drawn:
		if !d.Equal(due) {
			t.Errorf("drew the frame due at %s, want %s", d, due)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the frame that fell due was not drawn")
	}
}

// A page that asks for play frames further apart (the play message's
// every) gets its next frame that much later, within playTick and
// maxEvery; asking nothing keeps the last pace.
func TestPlayFramesAsFarApartAsThePageAsks(t *testing.T) {
	cfg := testConfig()
	start := cfg.Clock.Now().Add(time.Hour) // no frame below is late
	l := playingForTest(t, cfg, 1, start)
	for _, c := range []struct {
		every float64 // seconds, as the page sends it
		want  time.Duration
	}{{0.6, 600 * time.Millisecond}, {0.05, playTick}, {5, maxEvery}, {0, maxEvery}, {0.2, playTick}} {
		l.pace(c.every)
		cfg.Players.mu.Lock()
		cfg.Players.q = nil
		cfg.Players.mu.Unlock()
		l.playFrame(playEntry{due: start, l: l, gen: l.playGen})
		if n := cfg.Players.Queued(); n != 1 {
			t.Fatalf("every=%g: %d frames queued, want 1", c.every, n)
		}
		if got := cfg.Players.q[0].due.Sub(start); got != c.want {
			t.Errorf("every=%g: the next frame is due %s later, want %s", c.every, got, c.want)
		}
	}
}

// While the page's event list is closed (play's rows false), play frames
// bring it no rows; the play that opens it, or the pause, brings every
// row they left out, once.
func TestClosedListGetsNoRowsWhilePlaying(t *testing.T) {
	cfg := testConfig()
	start := cfg.Clock.Now().Add(-time.Minute)
	l := playingForTest(t, cfg, 5, start)
	tick := 0
	frames := func(n int) (rows int) {
		t.Helper()
		for range n {
			tick++
			l.playFrame(playEntry{due: start.Add(time.Duration(tick) * playTick), l: l, gen: l.playGen})
		}
		return takeRows(t, l)
	}
	say := func(msg string) int {
		t.Helper()
		l.mu.Lock()
		l.receive(decodeClientMsg([]byte(msg)))
		l.mu.Unlock()
		return takeRows(t, l)
	}
	events := func() int {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.sess.World().Events())
	}
	if n := frames(1); n != 1 {
		t.Fatalf("the first frame has %d row ops, want the whole list", n)
	}
	if n := say(`{"id":1,"type":"play","rows":false}`); n != 0 {
		t.Errorf("closing the list brought %d row ops", n)
	}
	before := events()
	if n := frames(6); n != 0 {
		t.Errorf("frames to a closed list brought %d row ops", n)
	}
	if events() == before {
		t.Fatal("the world made no events: the test shows nothing")
	}
	if n := say(`{"id":2,"type":"play","rows":true}`); n != 1 {
		t.Errorf("opening the list while playing brought %d row ops, want 1", n)
	}
	if l.shown != events() {
		t.Errorf("the page's list has %d rows, the world %d events", l.shown, events())
	}
	say(`{"id":3,"type":"play","rows":false}`)
	before = events()
	frames(6)
	if events() == before {
		t.Fatal("the world made no events: the test shows nothing")
	}
	if n := say(`{"id":4,"type":"pause"}`); n != 1 {
		t.Errorf("pausing brought %d row ops, want 1", n)
	}
	if n := say(`{"id":5,"type":"pause"}`); n != 0 {
		t.Errorf("pausing again brought %d row ops, want none", n)
	}
	if l.shown != events() {
		t.Errorf("the page's list has %d rows, the world %d events", l.shown, events())
	}
}

// takeRows empties l's queue to the client and counts the ops in it that
// put rows into the event list.
func takeRows(t *testing.T, l *Conn) (n int) {
	t.Helper()
	for {
		select {
		case o := <-l.out:
			var m struct{ Ops [][]string }
			if err := json.Unmarshal(o.b, &m); err != nil {
				t.Fatalf("%s: %v", o.b, err)
			}
			for _, op := range m.Ops {
				if op[1] == "events" || strings.HasPrefix(op[1], "events-") {
					n++
				}
			}
		default:
			return n
		}
	}
}
