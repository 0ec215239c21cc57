package web

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestJudgeQueueTakesTurns: judgements wait in turn by address and,
// within an address, by student, each student's newest program once. Room
// A's three students submit before room B's two; with one judgement at a
// time the first of A runs and the rest wait A, B, A, B; a student of A
// who submits a new program while the old one waits goes to the back of
// A's line instead of its place, once. (The judgements are held, so the
// places are the queue's, however fast the machine judges.)
func TestJudgeQueueTakesTurns(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	q := s.judging
	q.gate = make(chan struct{}) // never opened: the server's end stops them
	q.slots = 1
	lab := s.course.get().course.Lab("write-renewal")
	submit := func(addr, student string, n int) {
		t.Helper()
		ctx := context.WithValue(context.Background(), heavyKey{}, &heavyWork{addr: addr, key: student})
		text := lab.Program().Start + fmt.Sprintf("# %s %d\n", student, n)
		go q.judge(ctx, lab, text)
		for range 1000 { // until it is queued: arrivals in order
			q.mu.Lock()
			_, ok := q.jobs[judgeKey{addr + " " + student, lab, text}]
			q.mu.Unlock()
			if ok {
				return
			}
			time.Sleep(time.Millisecond)
		}
		t.Fatalf("%s of %s never queued", student, addr)
	}
	places := func() map[string]judgePlace {
		q.mu.Lock()
		defer q.mu.Unlock()
		out := map[string]judgePlace{}
		for k, j := range q.jobs {
			out[k.client] = *q.placeOf(j)
		}
		return out
	}
	submit("A", "a1", 1)
	submit("A", "a2", 1)
	submit("A", "a3", 1)
	submit("B", "b1", 1)
	submit("B", "b2", 1)
	want := map[string]judgePlace{"A a1": {0, 5, ""}, "A a2": {2, 5, ""}, "B b1": {3, 5, ""}, "A a3": {4, 5, ""}, "B b2": {5, 5, ""}}
	if got := places(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("places %v, want %v", got, want)
	}
	// a2 sends a newer program: it replaces the one waiting, at the back
	// of A's line.
	submit("A", "a2", 2)
	want = map[string]judgePlace{"A a1": {0, 5, ""}, "A a3": {2, 5, ""}, "B b1": {3, 5, ""}, "A a2": {4, 5, ""}, "B b2": {5, 5, ""}}
	if got := places(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after a2's newer program: places %v, want %v", got, want)
	}
}
