package labs

import (
	"errors"
	"strings"
	"testing"

	"leaselab/engine"
)

// TestControlsAllow reads a lab's controls and checks what its page offers
// against commands a student might send.
func TestControlsAllow(t *testing.T) {
	m := courseCopy(t)
	replaceIn(t, m, "labs/w1-w2/lab.yaml", "horizon: 40s\n", `horizon: 40s
controls:
  freeze: {for: [25s], on: [check]}
  cut: [coord]
  storage: [cas, idempotent, fencing]
  link: {to: [storage], delay: [10s], loss: [50%]}
  clock: {jump: [-10s], rate: [0.5]}
  until: [30s]
`)
	c, err := loadCopy(m)
	if err != nil {
		t.Fatal(err)
	}
	lab := c.Lab("w1-w2")
	for _, tt := range []struct {
		cmd  string
		want bool
	}{
		{"advance 3s", true}, {"until 17s", true}, {"step", true}, {"reset", true},
		{"freeze W1", true}, {"freeze W1 for=25s", true}, {"freeze W2 on=check for=25s", true},
		{"freeze W1 for=5s", false}, {"freeze W1 on=work", false}, {"thaw W1", true},
		{"partition W1 coord", true}, {"partition coord W1", true}, {"partition W1", false}, {"partition W1 storage", false}, {"heal", true},
		{"storage cas", true}, {"storage idempotent", true}, {"storage equality", false}, {"fencing on", true}, {"fencing off", false},
		{"link W1 storage delay=10s", true}, {"link W1->storage delay=10s", true}, {"link W1 storage loss=50%", true},
		{"link W1 storage delay=5s", false}, {"link W1 coord delay=10s", false},
		{"clock W1 jump=-10s", true}, {"clock W1 rate=0.5", true}, {"clock W1 rate=1", true}, {"clock W1 jump=10s", false}, {"clock W1 skew=3s", false},
		{"crash W1", false}, {"restart W1", false}, {"replica 1 down", false},
	} {
		cmd, err := engine.ParseCommand(tt.cmd)
		if err != nil {
			t.Fatalf("%s: %v", tt.cmd, err)
		}
		if got := lab.Allows(cmd); got != tt.want {
			t.Errorf("Allows(%q) = %v, want %v (%v)", tt.cmd, got, tt.want, lab.Refusal(cmd))
		}
	}
	if got := lab.Controls().Until; len(got) != 1 || got[0] != 30*engine.Second {
		t.Errorf("until buttons = %v", got)
	}
}

// TestLinkControlWorkers: a link control that names its workers offers
// their links only, both ways, and nobody else's.
func TestLinkControlWorkers(t *testing.T) {
	c := SharedCourse(t)
	lab := c.Lab("margin-budget")
	for _, tt := range []struct {
		cmd  string
		want bool
	}{
		{"link H->coord dns=400ms", true}, {"link H->coord proxy=600ms", true},
		{"link A->coord dns=400ms", false}, {"link S->coord connect=300ms", false},
	} {
		cmd, err := engine.ParseCommand(tt.cmd)
		if err != nil {
			t.Fatalf("%s: %v", tt.cmd, err)
		}
		if got := lab.Allows(cmd); got != tt.want {
			t.Errorf("Allows(%q) = %v, want %v (%v)", tt.cmd, got, tt.want, lab.Refusal(cmd))
		}
	}
}

// TestDefaultControls: a lab without controls: offers what the page always did.
func TestDefaultControls(t *testing.T) {
	c := SharedCourse(t)
	lab := c.Lab("renew-policy")
	if lab.controls != nil {
		t.Skip("renew-policy declares its controls now")
	}
	for _, s := range []string{"freeze W1 for=25s", "crash W1", "partition W1", "fencing on", "heal"} {
		cmd, _ := engine.ParseCommand(s)
		var no *NotOfferedError
		if err := lab.Refusal(cmd); errors.As(err, &no) {
			// Only a missing worker may refuse, never the default set.
			t.Errorf("default controls refuse %q: %v", s, err)
		}
	}
}

// TestControlsErrors: bad controls and unreachable goals are content errors
// at file:line:col.
func TestControlsErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ controls, want string }{
		{"controls:\n  fly:\n", `labs/w1-w2/lab.yaml:16:3: unknown key "fly" in controls`},
		{"controls:\n  cut: [sideways]\n", `labs/w1-w2/lab.yaml:16:9: controls.cut: want everyone, coord, storage or copies, not "sideways"`},
		{"controls:\n  freeze: [soon]\n", `labs/w1-w2/lab.yaml:16:12: controls.freeze: "soon": want a duration`},
		{"controls:\n  storage: [paper]\n", `labs/w1-w2/lab.yaml:16:13: controls.storage:`},
		{"controls:\n  link: {delay: [1s]}\n", `controls.link needs to:`},
		{"controls:\n  clock: {rate: [fast]}\n", `controls.clock.rate:`},
		{"controls:\n  link: {to: [coord], delay: [1s], workers: [W9]}\n", `controls.link.workers: "W9" is not a worker of the scenario (W1, W2)`},
		{"controls:\n  lease: [soon]\n", `controls.lease: "soon": want a duration`},
		{"controls:\n  lease: [2h]\n", `controls.lease: 2h: lease: a lease lasts at most an hour (0s: a lock that never expires)`},
		// The goal's proof needs fencing on and a 25 s freeze: a page with
		// only a 5 s freeze cannot reach it.
		{"controls:\n  freeze: [5s]\n", `goal reject-stale proof: "fencing on": this lab does not offer the storage mode fencing`},
		{"controls:\n  freeze: [5s]\n  fencing:\n", `goal reject-stale proof: "freeze W1 for=25s": this lab does not offer a freeze of 25s`},
	} {
		m := courseCopy(t)
		replaceIn(t, m, "labs/w1-w2/lab.yaml", "horizon: 40s\n", "horizon: 40s\n"+tt.controls)
		_, err := loadCopy(m)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("controls %q: got %v\nwant %q", tt.controls, err, tt.want)
		}
	}
}

// TestHarmPredicate: the same value written twice is no harm; a holder's
// own older result over a newer one is.
func TestHarmPredicate(t *testing.T) {
	for _, tt := range []struct {
		write string
		harm  bool
	}{{"write thumb value=v1", false}, {"write thumb", true}} {
		sc := engine.Scenario{TTL: 10 * engine.Second}
		for _, line := range []string{"W1: acquire; work 5s; " + tt.write + "; release", "W2 start=1s: acquire; work 1s; " + tt.write + "; release"} {
			ws, err := engine.ParseWorker(line)
			if err != nil {
				t.Fatal(err)
			}
			sc.Workers = append(sc.Workers, ws)
		}
		w, err := engine.New(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{"until 2s", "freeze W1 for=20s", "until 23s"} {
			if err := w.Do(c); err != nil {
				t.Fatal(err)
			}
		}
		for src, want := range map[string]bool{"harm": tt.harm, "no harm": !tt.harm, "harm by W1": tt.harm, "harm by W2": false, "W1 acts after its lease expired": true} {
			p, err := CompilePredicate(src, []string{"W1", "W2"})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := p.Eval(w.Events(), w.Names()); got != want {
				t.Errorf("%s: %q = %v, want %v", tt.write, src, got, want)
			}
		}
	}
}

// Every kind of the engine's command table says how a lab offers it.
func TestEveryCommandCanBeOffered(t *testing.T) {
	for _, k := range engine.Commands() {
		if offered[k] == nil {
			t.Errorf("labs do not say how they offer %q commands", k.Word())
		}
	}
	if len(offered) != len(engine.Commands()) {
		t.Errorf("labs offer %d kinds of command, the engine has %d", len(offered), len(engine.Commands()))
	}
}
