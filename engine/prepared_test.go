package engine

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// TestPreparedWorldsAgreeWithNew: worlds built from one Prepared, on
// several goroutines at once, run exactly as worlds New builds from the
// scenario, and changing the scenario after Prepare changes none of them.
// Run with -race, the goroutines also show that a world only reads what it
// shares.
func TestPreparedWorldsAgreeWithNew(t *testing.T) {
	ts := testScenarios[2] // jitter-loss: the seed decides what happens
	sc := ts.build(t, 0)
	p, err := Prepare(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64][]Event{}
	cmds := []string{"advance 5s", "freeze W1 for=3s", "storage cas", "until 40s", "reset", "advance 12s"}
	run := func(w *World) error {
		for _, c := range cmds {
			if err := w.Do(c); err != nil {
				return fmt.Errorf("%s: %w", c, err)
			}
		}
		return nil
	}
	for seed := uint64(1); seed <= 8; seed++ {
		s := sc
		s.Seed = seed
		w, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := run(w); err != nil {
			t.Fatal(err)
		}
		want[seed] = slices.Clone(w.Events())
	}
	// The caller's scenario is its own: changing it now changes no world.
	sc.Workers[0].Name = "changed"
	sc.Workers[0].Program[0] = Op{Kind: OpSleep, Arg: Hour}
	sc.TTL = Hour

	var wg sync.WaitGroup
	errs := make([]error, 4)
	for g := range 4 {
		wg.Go(func() {
			var w *World
			for seed := uint64(g + 1); seed <= 8; seed += 4 {
				w = p.NewIn(w, seed) // the second world reuses the first's arrays
				if err := run(w); err != nil {
					errs[g] = err
					return
				}
				if got := w.Events(); !slices.Equal(got, want[seed]) {
					errs[g] = fmt.Errorf("seed %d: %d events, New's world %d", seed, len(got), len(want[seed]))
					return
				}
				if w.Scenario().Seed != seed || w.Names().Nodes[0] != "W1" {
					errs[g] = fmt.Errorf("seed %d: the world says seed %d, first worker %q", seed, w.Scenario().Seed, w.Names().Nodes[0])
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestResetReusesTheWorld: a reset puts the actors in their starting state
// in the arrays the world has grown, and a world built in another's
// arrays (NewIn) reuses them too, so a session that starts again, a
// refused command's replay and a challenge's runs allocate nothing once
// the arrays are large enough.
func TestResetReusesTheWorld(t *testing.T) {
	sc := testScenarios[1].build(t, 3) // renewers: grants, spans, beliefs, ledger
	p, err := Prepare(sc)
	if err != nil {
		t.Fatal(err)
	}
	w := p.New(3)
	again := func() {
		if err := w.Apply(Command{Kind: CmdReset}); err != nil {
			t.Fatal(err)
		}
		if err := w.Apply(Command{Kind: CmdAdvance, Dur: 2 * Minute}); err != nil {
			t.Fatal(err)
		}
	}
	again()
	if n := testing.AllocsPerRun(20, again); n != 0 {
		t.Errorf("reset and a 2m run allocate %v times, want 0", n)
	}
	if n := testing.AllocsPerRun(20, func() {
		w = p.NewIn(w, 3)
		if err := w.Apply(Command{Kind: CmdAdvance, Dur: 2 * Minute}); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("a world built in another's arrays and a 2m run allocate %v times, want 0", n)
	}
}
