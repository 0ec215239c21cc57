package budget

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCrowdOneAtATime: with a hold longer than the test, 50 pieces of
// crowd work started together never run two at once, and each one's
// error comes back to its caller.
func TestCrowdOneAtATime(t *testing.T) {
	defer func(h time.Duration) { crowdHold = h }(crowdHold)
	crowdHold = time.Hour
	var running, most atomic.Int32
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = Crowd(func() error {
				n := running.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(100 * time.Microsecond)
				running.Add(-1)
				if i%2 == 1 {
					return errors.New("odd")
				}
				return nil
			})
		}()
	}
	wg.Wait()
	if m := most.Load(); m != 1 {
		t.Errorf("%d pieces of crowd work ran at once, want 1", m)
	}
	for i, err := range errs {
		if (err != nil) != (i%2 == 1) {
			t.Errorf("piece %d returned %v", i, err)
		}
	}
}

// TestCrowdStuckLetsOthersGo: a piece that does not finish (a write to a
// full socket) holds the others up for the hold only.
func TestCrowdStuckLetsOthersGo(t *testing.T) {
	defer func(h time.Duration) { crowdHold = h }(crowdHold)
	crowdHold = time.Millisecond
	stuck, started := make(chan struct{}), make(chan struct{})
	go Crowd(func() error {
		close(started)
		<-stuck
		return nil
	})
	<-started
	done := make(chan struct{})
	go func() {
		for range 3 {
			Crowd(func() error { return nil })
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("crowd work waited a minute behind a piece that never ends")
	}
	close(stuck)
}
