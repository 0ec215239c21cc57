package web

import (
	"testing"
)

// TestFirstFrameToAPageThatHasIt: a page's first connection says it shows
// what its address draws (have=1), and its first frame carries the
// session's query and time and no copy of the page; the frames after it
// change the page from there, as they do after a whole first frame.
func TestFirstFrameToAPageThatHasIt(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	const path = "/id/labs/w1-w2/ws?seed=1&do=fencing+on&do=advance+3s"
	whole := dialLab(t, ts.URL, path)
	have := dialLab(t, ts.URL, path+"&have=1")
	if len(whole.first.Ops) == 0 {
		t.Fatal("without have=1 the first frame brings no page")
	}
	if len(have.first.Ops) != 0 {
		t.Errorf("with have=1 the first frame has %d ops, want none", len(have.first.Ops))
	}
	if have.first.Query != whole.first.Query || have.first.Now != whole.first.Now || have.first.Query == "" {
		t.Errorf("with have=1 the first frame says %q at %q, without %q at %q", have.first.Query, have.first.Now, whole.first.Query, whole.first.Now)
	}
	// The next command's frame is the same either way: the server did
	// not count on ops it never sent.
	a, b := whole.do("freeze W1"), have.do("freeze W1")
	if a.Type != "ack" || b.Type != "ack" || len(a.Ops) != len(b.Ops) {
		t.Fatalf("freeze W1: %s with %d ops after a whole first frame, %s with %d after have=1", a.Type, len(a.Ops), b.Type, len(b.Ops))
	}
	for i := range a.Ops {
		if a.Ops[i] != b.Ops[i] {
			t.Errorf("op %d differs: %+v after a whole first frame, %+v after have=1", i, a.Ops[i], b.Ops[i])
		}
	}
}
