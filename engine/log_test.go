package engine

import "testing"

// TestLogHoldsLittleRoom: a live session's log (below logDoubling events)
// grows by an eighth, so that it never holds much more room than events;
// a longer one doubles, so that a long run copies its log about once.
func TestLogHoldsLittleRoom(t *testing.T) {
	w, err := New(testScenarios[1].build(t, 1)) // renewers
	if err != nil {
		t.Fatal(err)
	}
	grown := 0
	for last := 0; len(w.Events()) < 3*logDoubling; {
		if err := w.Advance(Second); err != nil {
			t.Fatal(err)
		}
		n, c := len(w.Events()), cap(w.Events())
		if c != last {
			grown++
			last = c
		}
		if n < logDoubling && c > n+n/8+16+64 { // 64: the events of one second
			t.Fatalf("at %d events the log has room for %d", n, c)
		}
	}
	if grown > 50 {
		t.Errorf("the log grew %d times on its way to %d events", grown, len(w.Events()))
	}
}
