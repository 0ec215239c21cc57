package program

import (
	"errors"
	"strings"
	"testing"

	"leaselab/engine"
)

func mustCompile(t *testing.T, src string) *Compiled {
	t.Helper()
	c, err := Compile(src, nil, DefaultLimits)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return c
}

func wantCode(t *testing.T, err error, code string, line int32) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want a program error %s", err, code)
	}
	if e.Code != code || (line > 0 && e.Line != line) {
		t.Fatalf("got %s at %d:%d (%v), want %s at line %d", e.Code, e.Line, e.Col, e, code, line)
	}
	return e
}

// What a program may not be: each refused at compile time, with its line.
func TestCompileRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, src, code string
		line            int32
	}{
		{"syntax", "def on_start(w, ev):\n    w.acquire(\n", "syntax", 3},
		{"no start", "def on_timer(w, ev):\n    pass\n", "handler-start", 0},
		{"handler shape", "def on_start(w):\n    pass\n", "handler-shape", 0},
		{"load", "load(\"x.star\", \"y\")\ndef on_start(w, ev):\n    pass\n", "load", 1},
		{"while", "def on_start(w, ev):\n    while True:\n        pass\n", "syntax", 2},
		{"join", "def on_start(w, ev):\n    x = \",\".join([\"a\"])\n", "method", 2},
		{"augmented call", "def f():\n    return {}\ndef on_start(w, ev):\n    f()[\"a\"] += 1\n", "augmented", 4},
		{"top-level loop", "x = [1 for i in range(100000)]\ndef on_start(w, ev):\n    pass\n", "size-value", 1},
		{"too long", "#" + strings.Repeat("x", DefaultLimits.Source) + "\ndef on_start(w, ev):\n    pass\n", "size-source", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.src, nil, DefaultLimits)
			wantCode(t, err, tc.code, tc.line)
		})
	}
}

// Recursion is refused when it happens, with the line that recursed.
func TestRecursionRefused(t *testing.T) {
	c := mustCompile(t, "def f(n):\n    return f(n)\ndef on_start(w, ev):\n    f(1)\n")
	_, err := c.Start().Handle(engine.Moment{Kind: engine.MomentStart})
	e := wantCode(t, err, "runtime", 2)
	if !strings.Contains(e.Detail, "recursive") {
		t.Fatalf("detail %q", e.Detail)
	}
}

// Hostile handlers are stopped by the limits, at their line, and leave
// the program as it was before the call.
func TestHostileHandlers(t *testing.T) {
	for _, tc := range []struct {
		name, body, code string
		line             int32
	}{
		{"endless loop", "    for i in range(4000):\n        for j in range(4000):\n            w.state[\"n\"] = j\n", "steps-call", 0},
		{"doubling string", "    s = \"x\"\n    for i in range(40):\n        s = s + s\n", "size-value", 7},
		{"repeat list", "    x = [0] * 100000000\n", "size-value", 5},
		{"repeat string", "    x = 100000000 * \"ab\"\n", "size-value", 5},
		{"shift", "    x = 1 << 100000\n", "size-value", 5},
		{"augmented doubling", "    s = [1]\n    for i in range(40):\n        s += s\n", "size-value", 7},
		{"big range", "    x = list(range(100000000))\n", "size-value", 5},
		{"big int", "    x = 1\n    for i in range(400):\n        x = x * 1000\n", "size-value", 7},
		{"state holds a function", "    w.state[\"f\"] = len\n", "state-data", 0},
		{"state too big", "    for i in range(5):\n        w.state[i] = \"x\" * 4000\n", "size-value", 0},
		{"runtime error", "    x = w.state[\"missing\"]\n", "runtime", 5},
		{"wrong action", "    w.write(1, 2)\n", "runtime", 5},
		{"too many actions", "    for i in range(100):\n        w.acquire()\n", "actions", 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "def on_start(w, ev):\n    w.state[\"ok\"] = 1\n\ndef on_timer(w, ev):\n    w.state[\"ok\"] = 2\n" + tc.body
			src = strings.Replace(src, "def on_timer(w, ev):\n    w.state[\"ok\"] = 2\n", "def on_timer(w, ev):\n", 1)
			c := mustCompile(t, src)
			r := c.Start()
			if _, err := r.Handle(engine.Moment{Kind: engine.MomentStart}); err != nil {
				t.Fatal(err)
			}
			before := r.Hash()
			acts, err := r.Handle(engine.Moment{Kind: engine.MomentTimer, Timer: "t"})
			wantCode(t, err, tc.code, tc.line)
			if acts != nil || r.Hash() != before {
				t.Fatalf("a failing handler changed the program: %v, hash %x → %x", acts, before, r.Hash())
			}
			if d := Describe(err, "id"); d == "" || strings.Contains(d, "??") {
				t.Fatalf("Indonesian words: %q", d)
			}
		})
	}
}

// The per-run step limit ends a program that spends a little too much at
// every moment.
func TestStepsPerRun(t *testing.T) {
	lim := DefaultLimits
	lim.StepsPerRun = 3 * lim.StepsPerCall
	c, err := Compile("def on_start(w, ev):\n    pass\ndef on_timer(w, ev):\n    for i in range(400):\n        w.state[\"n\"] = i\n", nil, lim)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Start()
	var last error
	for range 10 {
		if _, last = r.Handle(engine.Moment{Kind: engine.MomentTimer}); last != nil {
			break
		}
	}
	wantCode(t, last, "steps-run", 0)
}

// Actions carry the line and column that asked for them; a program
// returns its actions in order, with their arguments.
func TestActionsCarryTheirLine(t *testing.T) {
	c := mustCompile(t, "def on_start(w, ev):\n    w.acquire()\n    w.set_timer(\"work\", w.now + SECOND)\n    w.renew(7, tag=3)\n")
	acts, err := c.Start().Handle(engine.Moment{Kind: engine.MomentStart, Now: 500})
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.Action{
		{Kind: engine.ActAcquire, Line: 2, Col: 14},
		{Kind: engine.ActSetTimer, Timer: "work", At: 1500, Line: 3, Col: 16},
		{Kind: engine.ActRenew, Token: 7, Tag: 3, Line: 4, Col: 12},
	}
	if len(acts) != len(want) {
		t.Fatalf("actions %+v", acts)
	}
	for i := range want {
		if acts[i] != want[i] {
			t.Errorf("action %d: %+v, want %+v", i, acts[i], want[i])
		}
	}
}

// A lab may allow only some actions.
func TestActionsAllowed(t *testing.T) {
	c, err := Compile("def on_start(w, ev):\n    w.stop()\n", []string{"acquire"}, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Start().Handle(engine.Moment{Kind: engine.MomentStart})
	e := wantCode(t, err, "action-denied", 2)
	if d := Describe(e, "en"); !strings.Contains(d, "line 2, column") || !strings.Contains(d, "w.stop") {
		t.Fatalf("English words: %q", d)
	}
	if d := Describe(e, "id"); !strings.Contains(d, "baris 2, kolom") {
		t.Fatalf("Indonesian words: %q", d)
	}
	if _, err := Compile("def on_start(w, ev):\n    pass\n", []string{"fly"}, DefaultLimits); err == nil {
		t.Fatal("an unknown action allowed")
	}
}

// A fork is independent of its parent, and the hash follows the state.
func TestForkAndHash(t *testing.T) {
	c := mustCompile(t, "def on_start(w, ev):\n    w.state[\"n\"] = 0\ndef on_timer(w, ev):\n    w.state[\"n\"] += 1\n")
	a := c.Start()
	if _, err := a.Handle(engine.Moment{Kind: engine.MomentStart}); err != nil {
		t.Fatal(err)
	}
	b := a.Fork()
	if a.Hash() != b.Hash() {
		t.Fatal("a fork hashes differently from its parent")
	}
	if _, err := b.Handle(engine.Moment{Kind: engine.MomentTimer}); err != nil {
		t.Fatal(err)
	}
	if a.Hash() == b.Hash() {
		t.Fatal("the hash does not follow the state")
	}
	if _, err := a.Handle(engine.Moment{Kind: engine.MomentTimer}); err != nil {
		t.Fatal(err)
	}
	if a.Hash() != b.Hash() {
		t.Fatal("the same moments from the same state give different states")
	}
}

const naive = `def on_start(w, ev):
    w.acquire()

def on_denied(w, ev):
    w.set_timer("retry", w.now + SECOND)

def on_granted(w, ev):
    w.state["token"] = ev.token
    w.set_timer("renew", w.now + ev.ttl - SECOND)
    w.set_timer("work", w.now + SECOND)

def on_renewed(w, ev):
    w.set_timer("renew", w.now + ev.ttl - SECOND)

def on_timer(w, ev):
    if ev.timer == "retry":
        w.acquire()
    elif ev.timer == "renew":
        w.renew(w.state["token"])
    else:
        w.write("data", w.state["token"])
        w.set_timer("work", w.now + SECOND)
`

func programWorld(t testing.TB, c *Compiled, seed uint64) *engine.World {
	t.Helper()
	sc := engine.Scenario{Seed: seed, TTL: 10 * engine.Second, Delay: 100 * engine.Millisecond, Jitter: 50 * engine.Millisecond}
	for _, line := range []string{"W1: acquire; write data", "S start=1s: acquire retry=2s; work 1s; write data; repeat"} {
		ws, err := engine.ParseWorker(line)
		if err != nil {
			t.Fatal(err)
		}
		sc.Workers = append(sc.Workers, ws)
	}
	sc.Workers[0].Logic = c
	w, err := engine.New(sc)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// Same program, seed and commands: the same events, and the same state
// hash, in two worlds; the events the program caused point at its lines.
func TestProgramWorldIsDeterministic(t *testing.T) {
	c := mustCompile(t, naive)
	run := func() *engine.World {
		w := programWorld(t, c, 7)
		for _, cmd := range []string{"until 5s", "freeze W1 for=12s", "until 30s"} {
			if err := w.Do(cmd); err != nil {
				t.Fatal(err)
			}
		}
		return w
	}
	a, b := run(), run()
	if len(a.Events()) < 20 || len(a.Events()) != len(b.Events()) {
		t.Fatalf("%d and %d events", len(a.Events()), len(b.Events()))
	}
	for i := range a.Events() {
		if a.Events()[i] != b.Events()[i] {
			t.Fatalf("event %d differs", i)
		}
	}
	if a.StateHash() != b.StateHash() {
		t.Fatal("same runs, different hashes")
	}
	acted := false
	writes := 0
	for i, e := range a.Events() {
		if e.Kind == engine.KindWrite && e.Node == 0 {
			writes++
			if line, _ := a.ProgramLine(i); line != 21 {
				t.Fatalf("write event %d: line %d, want 21", i, line)
			}
		}
		if e.Kind == engine.KindViolation && e.Reason() == engine.ViolationActedAfterExpiry {
			acted = true
		}
	}
	if writes < 3 || !acted {
		t.Fatalf("%d writes, acted after expiry %v: the naive worker should write and be caught after the pause", writes, acted)
	}
	if len(a.ProgramFaults()) != 0 {
		t.Fatalf("faults: %+v", a.ProgramFaults())
	}
}

// A renewal refused because the worker's session was revoked reaches
// on_renew_failed as "unauthorized", and an acquire after the revocation
// on_denied as "unauthorized": a program can tell a definitive refusal
// from the others. Here it asks again on hearing it, and stops when the
// acquire is refused too; any other reason would leave it running.
func TestProgramHearsNotAuthorised(t *testing.T) {
	c := mustCompile(t, `
def on_start(w, ev):
    w.acquire()

def on_granted(w, ev):
    w.state["token"] = ev.token
    w.set_timer("renew", w.now + SECOND)

def on_renewed(w, ev):
    w.set_timer("renew", w.now + SECOND)

def on_renew_failed(w, ev):
    if ev.reason == "unauthorized":
        w.acquire()

def on_denied(w, ev):
    if ev.reason == "unauthorized":
        w.stop()

def on_timer(w, ev):
    w.renew(w.state["token"])
`)
	w := programWorld(t, c, 1)
	for _, cmd := range []string{"until 3s", "revoke W1", "until 8s"} {
		if err := w.Do(cmd); err != nil {
			t.Fatal(err)
		}
	}
	if fs := w.ProgramFaults(); len(fs) != 0 {
		t.Fatalf("faults: %+v", fs)
	}
	var rejected, done engine.Time = -1, -1
	for _, e := range w.Events() {
		switch {
		case e.Kind == engine.KindRenewReject && e.Peer() == 0 && e.Reason() == engine.ReasonUnauthorized && rejected < 0:
			rejected = e.T
		case e.Kind == engine.KindDone && e.Node == 0:
			done = e.T
		}
	}
	if rejected < 3*engine.Second || done < rejected {
		t.Errorf("W1's renewal refused as not authorised at %s, its program stopped at %s: it did not hear \"unauthorized\" twice", rejected, done)
	}
}

// A handler that fails stops its worker and records the fault, with no
// action of that moment taken.
func TestFaultStopsTheWorker(t *testing.T) {
	c := mustCompile(t, "def on_start(w, ev):\n    w.acquire()\ndef on_granted(w, ev):\n    w.write(\"data\", ev.token)\n    x = w.state[\"nope\"]\n")
	w := programWorld(t, c, 1)
	if err := w.Do("until 5s"); err != nil {
		t.Fatal(err)
	}
	fs := w.ProgramFaults()
	if len(fs) != 1 || fs[0].Moment != engine.MomentGranted {
		t.Fatalf("faults %+v", fs)
	}
	for _, e := range w.Events() {
		if e.Kind == engine.KindWrite && e.Node == 0 {
			t.Fatal("the failing handler's write was carried out")
		}
	}
	if d := Describe(fs[0].Err, "en"); !strings.Contains(d, "line 5") || !strings.Contains(d, "on_granted") {
		t.Fatalf("%q", d)
	}
}
