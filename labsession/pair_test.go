package labsession

import (
	"errors"
	"net/url"
	"testing"

	"leaselab/engine"
)

// w1w2Fork is W1 frozen at 4s for 25s and run to 30s, with B taking
// fencing on at 4s.
func w1w2Fork() url.Values {
	return url.Values{"do": {"until 4s", "freeze W1 for=25s", "until 30s"}, "vs": {"fencing on"}, "vs-at": {"4s"}}
}

// A pair moves both runs on together, keeps its difference, writes a
// query that rebuilds it exactly, and refuses what is not time without
// changing anything.
func TestPairMovesBothRuns(t *testing.T) {
	lab := courseLab(t, "w1-w2")
	p, refused, err := OpenPair(lab, w1w2Fork())
	if err != nil || refused != nil {
		t.Fatal(err, refused)
	}
	d0, found := p.Difference()
	if !found || d0.A < 0 || p.A().Events()[d0.A].T != 29*engine.Second {
		t.Fatalf("first difference %+v (found %v), want W1's write at 29s", d0, found)
	}
	for _, cmd := range []string{"advance 5s", "advance 1s", "until 40s"} {
		before := p.A().Now()
		if err := p.Do(cmd); err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if p.A().Now() != p.B().Now() || p.A().Now() <= before {
			t.Errorf("%s: A at %s, B at %s (from %s): both must move on together", cmd, p.A().Now(), p.B().Now(), before)
		}
		if d, _ := p.Difference(); d != d0 {
			t.Errorf("%s: the first difference moved from %+v to %+v", cmd, d0, d)
		}
	}
	// A step moves A to its next event and B to the same time.
	early, _, err := OpenPair(lab, url.Values{"do": {"until 4s"}, "vs": {"fencing on"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := early.Do("step"); err != nil || early.A().Now() != early.B().Now() || early.A().Now() <= 4*engine.Second {
		t.Errorf("step: %v; A at %s, B at %s", err, early.A().Now(), early.B().Now())
	}
	q, err := url.ParseQuery(p.Query())
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := OpenPair(lab, q)
	if err != nil {
		t.Fatal(err)
	}
	if !eventsEqual(again.A().Events(), p.A().Events()) || !eventsEqual(again.B().Events(), p.B().Events()) {
		t.Errorf("the query %q does not rebuild the pair", p.Query())
	}

	query, nA, nB := p.Query(), len(p.A().Events()), len(p.B().Events())
	for _, cmd := range []string{"fencing off", "freeze W2", "reset", "storage none"} {
		err := p.Do(cmd)
		var fe *ForkError
		if !errors.As(err, &fe) || fe.Key() != "whatif.timeonly" {
			t.Errorf("%s: %v, want refused as not a time command", cmd, err)
		}
		if p.Query() != query || len(p.A().Events()) != nA || len(p.B().Events()) != nB {
			t.Errorf("%s: a refused command changed the pair", cmd)
		}
	}
	// Past the session's cap of virtual time: refused, nothing changed.
	var le *LimitError
	if err := p.Do("advance 20m"); !errors.As(err, &le) {
		t.Errorf("advance 20m: %v, want the time cap", err)
	}
	if p.Query() != query || len(p.B().Events()) != nB {
		t.Error("a command over the cap changed the pair")
	}
}

func TestOpenPairRefusesBadForks(t *testing.T) {
	lab := courseLab(t, "w1-w2")
	for _, tt := range []struct {
		vs, at, key string
	}{
		{"", "", "whatif.bad"},
		{"frobnicate", "", "whatif.bad"},
		{"advance 5s", "", "whatif.bad"},
		{"fencing on", "banana", "whatif.badat"},
		{"fencing on", "-3s", "whatif.badat"},
		{"fencing on", "40s", "whatif.later"},
		{"freeze W1 for=3s", "", "whatif.notoffered"},
	} {
		q := url.Values{"do": {"until 4s"}, "vs": {tt.vs}, "vs-at": {tt.at}}
		_, _, err := OpenPair(lab, q)
		var fe *ForkError
		if !errors.As(err, &fe) || fe.Key() != tt.key {
			t.Errorf("vs=%q vs-at=%q: %v, want %s", tt.vs, tt.at, err, tt.key)
		}
	}
}

func eventsEqual(a, b []engine.Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
