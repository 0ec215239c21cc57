package web

import (
	"sync"
	"time"
)

// testClock is a Clock a test moves by hand (Advance): what waits on it
// runs when the test says the time has come, and no test sleeps for it.
type testClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*testTimer
}

func newTestClock() *testClock { return &testClock{now: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &testTimer{c: c, f: f, at: c.now.Add(d), set: true}
	c.timers = append(c.timers, t)
	return t
}

// Advance moves the time on by d and runs, each in its own goroutine as
// time.AfterFunc does, the timers that ran out.
func (c *testClock) Advance(d time.Duration) {
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

// waiting is how many timers are set.
func (c *testClock) waiting() int {
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

type testTimer struct {
	c   *testClock
	f   func()
	at  time.Time
	set bool
}

func (t *testTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.set
	t.set = false
	return was
}

func (t *testTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.set
	t.at, t.set = t.c.now.Add(d), true
	return was
}
