package engine

import "testing"

// TestMessagesKeptAside: a message on its way is kept in World.msgs while
// its item holds its place; the place is freed when the message arrives or
// is lost for good, and reused. A frozen worker's messages wait with it; a
// crash loses them.
func TestMessagesKeptAside(t *testing.T) {
	w := worldOf(t, []string{"ttl=10s", "delay=500ms", "service=100ms"}, "W1: acquire; work 5s; release", "W2 start=50ms: acquire; work 5s; release")
	inFlight := func(at string, want int) {
		t.Helper()
		if msg := messagesHeld(w); msg != "" {
			t.Fatalf("at %s: %s", at, msg)
		}
		if n := len(w.msgs) - len(w.freeMsgs); n != want {
			t.Fatalf("at %s: %d messages kept aside, want %d", at, n, want)
		}
	}
	// Both acquires are on their way; at 500 ms W1's waits to be served.
	for _, step := range []struct {
		cmd  string
		want int
	}{
		{"until 400ms", 2},
		{"until 650ms", 2}, // W1's grant on its way, W2's acquire being served
		{"freeze W1", 2},   // the grant arrives at 1.1 s and waits with W1
		{"until 2s", 1},    // W2 is queued: only W1's grant is kept
		{"crash W1", 0},    // and it is lost with W1's memory
		{"restart W1", 0},  // W1 asks again at once
		{"until 2.1s", 1},  // its acquire is on its way
		{"until 20s", 0},   // everything has arrived
	} {
		if err := w.Do(step.cmd); err != nil {
			t.Fatalf("%s: %v", step.cmd, err)
		}
		inFlight(step.cmd, step.want)
	}
	if len(w.msgs) > 3 {
		t.Errorf("msgs grew to %d places for at most 2 messages in flight at once: places are not reused", len(w.msgs))
	}
}
