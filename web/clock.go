package web

import "time"

// Clock is where the live code reads the time and sets its timers: when a
// message came, when a session falls idle, when a play frame is due. A
// server runs on the wall clock; a test of idle timeouts or players hands
// in its own (Config.Clock) and moves it, instead of sleeping. The
// socket's own deadlines stay on the wall clock: the network keeps it.
type Clock interface {
	Now() time.Time
	// AfterFunc runs f in its own goroutine once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a timer a Clock set: time.Timer's Stop and Reset.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// wallClock is the Clock of a server: the time package's.
type wallClock struct{}

func (wallClock) Now() time.Time                            { return time.Now() }
func (wallClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
