package engine

import (
	"errors"
	"testing"
)

// lease D changes the length of the leases the coordinator grants and
// renews from then on: W1's lease, granted at 0s, runs to 15s on the
// scenario's length and to 40s after lease 40s.
func TestLeaseCommandChangesGrantsFromThenOn(t *testing.T) {
	expiry := func(first ...string) Time {
		w := forkWorld(t, StorageFencing, "W1: acquire; work 20s; write file; release", "W2 start=1s: acquire; work 5s; write file; release")
		for _, c := range cmds(t, append(first, "until 1s", "freeze W1 for=20s", "advance 5s")...) {
			if err := w.Apply(c); err != nil {
				t.Fatalf("%v: %v", c, err)
			}
		}
		leases, _, _ := w.Spans()
		if len(leases) == 0 {
			t.Fatal("no lease granted")
		}
		return leases[0].End
	}
	if got := expiry(); got != 15*Second {
		t.Fatalf("with the scenario's 15s lease W1's lease ends at %s", got)
	}
	if got := expiry("lease 40s"); got != 40*Second {
		t.Fatalf("after lease 40s W1's lease ends at %s", got)
	}
	c, err := ParseCommand("lease 40s")
	if err != nil || c.Kind != CmdLease || c.Dur != 40*Second || c.String() != "lease 40s" {
		t.Fatalf("lease 40s reads as %+v, %v (%q)", c, err, c.String())
	}
}

// A lease length a worker's renewal margin does not fit and a length out
// of range are refused, and nothing changes.
func TestLeaseCommandRefusals(t *testing.T) {
	w := forkWorld(t, StorageNone, "W1 renew-margin=5s: acquire; work 20s; release")
	for _, src := range []string{"lease 5s", "lease 2h"} {
		n := len(w.Events())
		err := w.Do(src)
		var ce *CommandError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: %v, want a refusal", src, err)
		}
		if len(w.Events()) != n || w.coord.ttl != 15*Second {
			t.Fatalf("%s changed the world", src)
		}
	}
	ws, err := ParseWorker("W1: acquire; work 5s; release")
	if err != nil {
		t.Fatal(err)
	}
	lock, err := New(Scenario{Workers: []WorkerSpec{ws}})
	if err != nil {
		t.Fatal(err)
	}
	if err := lock.Do("lease 10s"); err == nil {
		t.Fatal("a lock's length changed")
	}
}

// lease 0s turns what is granted from then on into a lock: the holder's
// lease never expires, and the next in line never gets it.
func TestLeaseZeroIsALock(t *testing.T) {
	w := forkWorld(t, StorageNone, "W1: acquire; work 20s; release")
	if err := w.Do("lease 0s"); err != nil {
		t.Fatal(err)
	}
	if err := w.Do("until 1s"); err != nil {
		t.Fatal(err)
	}
	if err := w.Do("crash W1"); err != nil {
		t.Fatal(err)
	}
	if err := w.Do("until 1h"); err != nil {
		t.Fatal(err)
	}
	for _, e := range w.Events() {
		if e.Kind == KindExpire || e.Kind == KindRelease {
			t.Fatalf("a lock expired or was released: %s", w.Names().Format(e))
		}
	}
}
