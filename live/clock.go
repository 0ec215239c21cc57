package live

import (
	"sync"
	"time"
)

// ManualClock is a Clock moved by hand (Advance): what waits on it runs
// when its owner says the time has come. Tests of idle timeouts and
// players use it, so that no test sleeps.
type ManualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
}

// NewManualClock is a ManualClock at a fixed moment.
func NewManualClock() *ManualClock {
	return &ManualClock{now: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)}
}

// Now is the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc sets a timer that runs f once the clock has moved d on.
func (c *ManualClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{c: c, f: f, at: c.now.Add(d), set: true}
	c.timers = append(c.timers, t)
	return t
}

// Advance moves the time on by d and runs, each in its own goroutine as
// time.AfterFunc does, the timers that ran out.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	for _, t := range c.timers {
		if t.set && !t.at.After(c.now) {
			t.set = false
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		go f()
	}
}

// Waiting is how many timers are set.
func (c *ManualClock) Waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if t.set {
			n++
		}
	}
	return n
}

type manualTimer struct {
	c   *ManualClock
	f   func()
	at  time.Time
	set bool
}

func (t *manualTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.set
	t.set = false
	return was
}

func (t *manualTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.set
	t.at, t.set = t.c.now.Add(d), true
	return was
}
