package budget

import (
	"sync"
	"time"
)

// A class does things in crowds: a lecture room's votes are answered in
// bursts (one store batch answers a hundred sockets), a class's bar goes
// to every student at once, and every dashboard draws again when a vote
// is told. Done each on a goroutine of its own, such a crowd makes as
// many goroutines ready together, and a playing student's command, ready
// behind them, waits for them all: the second of a vote showed stalls of
// 20-30 ms in the commands of 2,000 playing sessions beside it. Crowd
// lets one piece of such work run at a time while the others wait parked,
// so a command's goroutine finds a core. A piece that does not finish
// within crowdHold (a slow client whose socket is full, a store busy)
// lets the next one go: one student's slow network holds the others up
// for no longer than that.
var crowdSlot = make(chan struct{}, 1)

// crowdHold is how long one piece of a crowd's work holds the others
// (a variable for the tests).
var crowdHold = 2 * time.Millisecond

// Crowd runs work once no other crowd work runs, or once the one running
// has had crowdHold, and returns its error.
func Crowd(work func() error) error {
	crowdSlot <- struct{}{}
	var once sync.Once
	release := func() { once.Do(func() { <-crowdSlot }) }
	t := time.AfterFunc(crowdHold, release)
	err := work()
	t.Stop()
	release()
	return err
}
