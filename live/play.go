package live

import (
	"context"
	"sync"
	"time"
)

// Play mode. Every playing session is due a frame each playTick; a few
// player goroutines shared by the whole server draw them, one fewer than
// the cores (at least one), in the order they fall due. A playing session
// so holds no goroutine and no timer of its own, and a student's command
// always finds a core the play frames leave free: under load the frames
// come late, or a tick passes without one, rather than the answers.
//
// A frame moves its world on by the play time since the session's last
// frame times its speed, so virtual time keeps its pace however many
// ticks passed without a frame.

// playEntry is a session's next frame.
type playEntry struct {
	due time.Time // when the frame is due
	l   *Conn
	// gen is the session's play generation (live.playGen) when the entry
	// was made: a pause, or a play that started again, makes it stale.
	gen uint64
}

// Players is the queue of frames due, a min-heap by due time, and the
// goroutines that draw them (Run).
type Players struct {
	clock Clock
	mu    sync.Mutex
	q     []playEntry
	wake  chan struct{} // a frame fell due sooner than the players wait for, or one fell due
}

// NewPlayers is an empty queue whose players wait on c.
func NewPlayers(c Clock) *Players { return &Players{clock: c, wake: make(chan struct{}, 1)} }

// Run is one player: it draws each session's play frame as it falls due,
// until ctx ends. A server runs one fewer than its cores (at least one).
func (p *Players) Run(ctx context.Context) { p.run(ctx, func(e playEntry) { e.l.playFrame(e) }) }

// add queues a frame.
func (p *Players) add(e playEntry) {
	p.mu.Lock()
	first := p.push(e) == 0
	p.mu.Unlock()
	if first {
		p.signal()
	}
}

// signal wakes one waiting player, if one waits.
func (p *Players) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// run is one player: it draws each frame as it falls due until ctx ends.
func (p *Players) run(ctx context.Context, draw func(playEntry)) {
	t := p.clock.AfterFunc(time.Hour, p.signal)
	t.Stop()
	for {
		e, ok := p.next(ctx, t)
		if !ok {
			return
		}
		draw(e)
	}
}

// next waits for the first frame due, on the player's timer t, which
// wakes a player when it runs out.
func (p *Players) next(ctx context.Context, t Timer) (playEntry, bool) {
	for {
		p.mu.Lock()
		now := p.clock.Now()
		if len(p.q) > 0 && !p.q[0].due.After(now) {
			e := p.pop()
			more := len(p.q) > 0 && !p.q[0].due.After(now)
			p.mu.Unlock()
			if more {
				p.signal() // another idle player may take the next one
			}
			return e, true
		}
		wait := time.Duration(-1)
		if len(p.q) > 0 {
			wait = p.q[0].due.Sub(now)
		}
		p.mu.Unlock()
		if wait >= 0 {
			t.Reset(wait)
		}
		select {
		case <-ctx.Done():
			t.Stop()
			return playEntry{}, false
		case <-p.wake:
		}
		t.Stop()
	}
}

// Queued is how many frames are queued, stale ones included.
func (p *Players) Queued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.q)
}

// push adds e to the heap and returns where it went: 0 is first.
func (p *Players) push(e playEntry) int {
	p.q = append(p.q, e)
	i := len(p.q) - 1
	for i > 0 {
		up := (i - 1) / 2
		if !p.q[i].due.Before(p.q[up].due) {
			break
		}
		p.q[i], p.q[up] = p.q[up], p.q[i]
		i = up
	}
	return i
}

func (p *Players) pop() playEntry {
	top := p.q[0]
	n := len(p.q) - 1
	p.q[0] = p.q[n]
	p.q[n] = playEntry{} // the session is not kept by a slot past the end
	p.q = p.q[:n]
	for i := 0; ; {
		m, l, r := i, 2*i+1, 2*i+2
		if l < n && p.q[l].due.Before(p.q[m].due) {
			m = l
		}
		if r < n && p.q[r].due.Before(p.q[m].due) {
			m = r
		}
		if m == i {
			break
		}
		p.q[i], p.q[m] = p.q[m], p.q[i]
		i = m
	}
	return top
}
