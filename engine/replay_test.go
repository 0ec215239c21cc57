package engine

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

// TestRefusalReplaysTheRun: a command refused over its budget is undone by
// building the world again from its scenario and commands. The world it
// leaves must be the one a twin that never saw the refused command has:
// the same log, command list, time and snapshot, and the same future. The
// commands before each refusal change what only a replay can get right:
// the storage mode (which survives a reset), the lease length (which does
// not), cut and slowed links, a skewed clock, a freeze, a replica down,
// resets, and advances that merge into one command.
func TestRefusalReplaysTheRun(t *testing.T) {
	sc := testScenarios[1].build(t, 11) // renewers: events keep coming
	w, err := New(sc)
	if err != nil {
		t.Fatal(err)
	}
	twin, err := New(sc)
	if err != nil {
		t.Fatal(err)
	}
	refusals := 0
	// refuse applies c to w alone within a budget it cannot meet.
	refuse := func(c string, budget int) {
		t.Helper()
		cmd, err := ParseCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		log, cmds := slices.Clone(w.Events()), slices.Clone(w.Commands())
		if err := w.ApplyWithin(cmd, budget); !errors.Is(err, ErrBudget) {
			t.Fatalf("%s within %d events: err = %v, want ErrBudget", c, budget, err)
		}
		refusals++
		if !slices.Equal(w.Events(), log) || !reflect.DeepEqual(w.Commands(), cmds) {
			t.Fatalf("%s was refused but changed the log (%d → %d events) or the commands (%v → %v)", c, len(log), len(w.Events()), cmds, w.Commands())
		}
		same(t, c, w, twin)
	}
	both := func(cs ...string) {
		t.Helper()
		for _, c := range cs {
			if err := w.Do(c); err != nil {
				t.Fatalf("%s: %v", c, err)
			}
			if err := twin.Do(c); err != nil {
				t.Fatalf("twin: %s: %v", c, err)
			}
		}
	}
	both("advance 2s", "lease 6s", "advance 3s", "until 45s", "storage idempotent", "until 51s", "advance 1s")
	refuse("advance 1m", 10)
	both("partition W2", "link coord W1 delay=40ms", "clock W3 skew=700ms rate=1.1", "advance 4s")
	refuse("until 10m", 50)
	both("freeze W1 for=12s", "replica 1 down", "advance 5s", "heal", "reset")
	refuse("advance 30s", 5) // the storage mode survives the reset; the lease length does not
	if got := w.Brief().Mode; got != StorageIdempotent {
		t.Fatalf("after a reset and a refusal the storage mode is %s, want idempotent", got)
	}
	both("advance 20s", "advance 1s", "storage cas", "advance 7s")
	refuse("heal", 0)  // a command that does not move time counts too
	refuse("step", 0)  // and a step
	refuse("reset", 0) // and a reset
	refuse("advance 1h", 3)
	// Both run on: what is still to come (the queue, the random numbers)
	// shows in the events they record.
	both("advance 2m")
	same(t, "advance 2m after the refusals", w, twin)
	if refusals != 7 {
		t.Fatalf("%d refusals, want 7", refusals)
	}
}

// same fails unless a and b have the same log, commands, time and snapshot.
func same(t *testing.T, after string, a, b *World) {
	t.Helper()
	ea, eb := a.Events(), b.Events()
	if len(ea) != len(eb) || a.Now() != b.Now() {
		t.Fatalf("after %s: %d events at %s, twin %d at %s", after, len(ea), a.Now(), len(eb), b.Now())
	}
	for i := range ea {
		if ea[i] != eb[i] {
			t.Fatalf("after %s: event #%d %q, twin %q", after, i, a.Names().Format(ea[i]), b.Names().Format(eb[i]))
		}
	}
	if !reflect.DeepEqual(a.Commands(), b.Commands()) {
		t.Fatalf("after %s: commands %v, twin %v", after, a.Commands(), b.Commands())
	}
	if sa, sb := a.Snapshot(), b.Snapshot(); !reflect.DeepEqual(sa, sb) {
		t.Fatalf("after %s: snapshot %+v, twin %+v", after, sa, sb)
	}
}
