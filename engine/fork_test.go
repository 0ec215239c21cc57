package engine

import (
	"reflect"
	"testing"
)

func forkWorld(t *testing.T, storage StorageMode, lines ...string) *World {
	t.Helper()
	sc := scenarioOf(t, nil, lines...)
	sc.TTL, sc.FirstToken, sc.Storage = 15*Second, 7, storage
	w, err := New(sc)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func cmds(t *testing.T, src ...string) []Command {
	t.Helper()
	var out []Command
	for _, s := range src {
		c, err := ParseCommand(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

var w1w2 = []string{"W1: acquire; work 5s; write file; release", "W2 start=1s: acquire; work 5s; write file; release"}

// pair runs A with list and B with list forked at f.
func pair(t *testing.T, list []Command, f Fork) (a, b *World) {
	t.Helper()
	p, err := NewPair(forkWorld(t, StorageNone, w1w2...), forkWorld(t, StorageNone, w1w2...), f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Replay(list); err != nil {
		t.Fatal(err)
	}
	return p.A, p.B
}

// TestForkFencing is W1/W2 forked at 4 s: fencing stays off in A and is
// switched on in B. The runs part exactly at W1's stale write: A's storage
// accepts it, B's rejects it.
func TestForkFencing(t *testing.T) {
	list := cmds(t, "advance 4s", "freeze W1 for=25s", "advance 26s")
	on, _ := ParseCommand("fencing on")
	a, b := pair(t, list, Fork{At: 4 * Second, Change: on})
	if a.Now() != b.Now() {
		t.Fatalf("the runs stand at %s and %s", a.Now(), b.Now())
	}
	d, ok := FirstDifference(a.Events(), b.Events())
	if !ok {
		t.Fatal("no difference found")
	}
	ea, eb := a.Events()[d.A], b.Events()[d.B]
	if ea.Kind != KindAccept || eb.Kind != KindReject || ea.Peer() != 0 || eb.Peer() != 0 || ea.T != eb.T || ea.T != 29*Second {
		t.Errorf("first difference: A %s, B %s; want W1's write accepted in A and rejected in B at 29s", a.Names().Format(ea), b.Names().Format(eb))
	}
	// Everything before it is the same run.
	if d.A >= len(a.Events()) || d.B < d.A {
		t.Errorf("indexes %+v", d)
	}
}

// TestForkLaterArrival: the runs differ only in when one message arrives.
func TestForkLaterArrival(t *testing.T) {
	list := cmds(t, "advance 20s")
	slow, _ := ParseCommand("link W2->storage delay=2s")
	a, b := pair(t, list, Fork{At: 3 * Second, Change: slow})
	d, ok := FirstDifference(a.Events(), b.Events())
	if !ok {
		t.Fatal("no difference found")
	}
	ea, eb := a.Events()[d.A], b.Events()[d.B]
	if ea.Kind != KindRecv || ea.Node != Storage || ea.Peer() != 1 {
		t.Errorf("A's side of the difference is %s, want the storage receiving W2's write", a.Names().Format(ea))
	}
	if eb.T <= ea.T {
		t.Errorf("B's side %s is not later than A's %s", b.Names().Format(eb), a.Names().Format(ea))
	}
	// In B the same message does arrive, 2 s later.
	found := false
	for _, e := range b.Events() {
		if e.Kind == KindRecv && e.Node == Storage && e.Peer() == 1 && e.T == ea.T+2*Second {
			found = true
		}
	}
	if !found {
		t.Error("B's storage never receives W2's write 2 s later")
	}
}

// TestForkSplitsAndReplays: a fork inside an advance splits it, lands at
// exactly its moment, and the pair replays to the same logs.
func TestForkSplitsAndReplays(t *testing.T) {
	list := cmds(t, "advance 10s", "step", "advance 3s")
	frz, _ := ParseCommand("freeze W2")
	_, b1 := pair(t, list, Fork{At: 4500, Change: frz})
	a2, b2 := pair(t, list, Fork{At: 4500, Change: frz})
	if !reflect.DeepEqual(b1.Events(), b2.Events()) {
		t.Fatal("the same fork replays differently")
	}
	var at Time = -1
	for _, e := range b1.Events() {
		if e.Kind == KindFreeze {
			at = e.T
		}
	}
	if at != 4500 {
		t.Errorf("the change landed at %s, want 4.5s", at)
	}
	if a2.Now() != b2.Now() {
		t.Errorf("A at %s, B at %s", a2.Now(), b2.Now())
	}
	// The same list with no fork is the same run: no difference.
	x, y := forkWorld(t, StorageNone, w1w2...), forkWorld(t, StorageNone, w1w2...)
	for _, c := range list {
		x.Apply(c)
		y.Apply(c)
	}
	if _, ok := FirstDifference(x.Events(), y.Events()); ok {
		t.Error("identical runs differ")
	}
}

func TestForkRefuses(t *testing.T) {
	list := cmds(t, "advance 5s")
	adv, _ := ParseCommand("advance 1s")
	if _, err := NewPair(forkWorld(t, StorageNone, w1w2...), forkWorld(t, StorageNone, w1w2...), Fork{At: Second, Change: adv}, nil); err == nil {
		t.Error("a time command as the change is accepted")
	}
	frz, _ := ParseCommand("freeze W1")
	p, _ := NewPair(forkWorld(t, StorageNone, w1w2...), forkWorld(t, StorageNone, w1w2...), Fork{At: 9 * Second, Change: frz}, nil)
	if err := p.Replay(list); err == nil {
		t.Error("a fork after the run's end is accepted")
	}
	// A change that fails in the world is an error, not a panic.
	thaw, _ := ParseCommand("thaw W1")
	p, _ = NewPair(forkWorld(t, StorageNone, w1w2...), forkWorld(t, StorageNone, w1w2...), Fork{At: Second, Change: thaw}, nil)
	if err := p.Replay(list); err == nil {
		t.Error("thawing a worker that is not frozen is accepted")
	}
}

// TestForkNowAndAfterReset: a fork at the moment the list ends lands at
// once; after a reset it lands again at the same moment of the new run.
func TestForkNowAndAfterReset(t *testing.T) {
	frz, _ := ParseCommand("freeze W1")
	a, b := pair(t, cmds(t, "advance 4s"), Fork{At: 4 * Second, Change: frz})
	freezes := func(w *World) (n int) {
		for _, e := range w.Events() {
			if e.Kind == KindFreeze {
				n++
			}
		}
		return n
	}
	if freezes(a) != 0 || freezes(b) != 1 {
		t.Fatalf("at the moment itself: A froze %d times, B %d", freezes(a), freezes(b))
	}
	_, b = pair(t, cmds(t, "advance 4s", "advance 2s", "reset", "advance 6s"), Fork{At: 4 * Second, Change: frz})
	// The log starts again at a reset: the new run froze once, at 4 s.
	if freezes(b) != 1 || b.Events()[len(b.Events())-1].T < 4*Second {
		t.Errorf("after a reset B froze %d times in the new run, want once", freezes(b))
	}
	for _, e := range b.Events() {
		if e.Kind == KindFreeze && e.T != 4*Second {
			t.Errorf("after a reset the change landed at %s, want 4s", e.T)
		}
	}
}
