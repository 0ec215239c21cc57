package program

import (
	"testing"

	"leaselab/engine"
)

// An action's cause (issue 49's chain): the value its handler checked,
// set last, with the line that set it and when; else the timer that ran
// it; else the value it used. A value changed in a way the runtime does
// not follow (a method) loses its line rather than keep a wrong one; a
// coordinator's restart keeps only its stable values' lines. Only a
// traced run notes them: a judgement's schedules and search run without.
func TestActionCauses(t *testing.T) {
	src := `def on_start(w, ev):
    w.state["token"] = 7
    w.set_timer("work", w.now + 1000)

def on_granted(w, ev):
    w.state["until"] = w.now + ev.ttl
    w.state["token"] = ev.token

def on_renewed(w, ev):
    w.state.update(until = 0)

def on_timer(w, ev):
    if w.now < w.state.get("until", 0):
        w.write("data", w.state["token"])
    else:
        w.write("data", w.state.get("token"))
    w.set_timer("work", w.now + 1000)
`
	c := mustCompile(t, src)
	r := c.Traced().Start()
	step := func(m engine.Moment) []engine.Action {
		t.Helper()
		acts, err := r.Handle(m)
		if err != nil {
			t.Fatal(err)
		}
		return acts
	}
	if acts, _ := c.Start().Handle(engine.Moment{Kind: engine.MomentStart, At: 100}); acts[0].Cause != (engine.Cause{}) {
		t.Errorf("an untraced run noted a cause: %+v", acts[0].Cause)
	}
	step(engine.Moment{Kind: engine.MomentStart, At: 100})
	// Before any grant: until is not kept, the timer ran the write.
	acts := step(engine.Moment{Kind: engine.MomentTimer, Timer: "work", Now: -1, At: 1100})
	if got := acts[0].Cause; got != (engine.Cause{Kind: engine.CauseTimer, Name: "work", Line: 3, Col: 16, At: 100}) {
		t.Errorf("the timer's write: cause %+v", got)
	}
	step(engine.Moment{Kind: engine.MomentGranted, Token: 2, TTL: 10_000, Now: 1500, At: 1500})
	acts = step(engine.Moment{Kind: engine.MomentTimer, Timer: "work", Now: 2000, At: 2100})
	want := engine.Cause{Kind: engine.CauseChecked, Name: `w.state["until"]`, Line: 6, Col: 13, At: 1500}
	if got := acts[0].Cause; got != want {
		t.Errorf("the checked write: cause %+v, want %+v", got, want)
	}
	// The timer set again at line 17: the next write's timer line.
	step(engine.Moment{Kind: engine.MomentRenewed, At: 2500})
	acts = step(engine.Moment{Kind: engine.MomentTimer, Timer: "work", Now: 3000, At: 3100})
	if got := acts[0].Cause; got.Kind != engine.CauseTimer || got.Line != 17 || got.At != 2100 {
		t.Errorf("until changed by a method: cause %+v, want the timer's line 17", got)
	}
}

// A storage's decision goes by the value it used; a coordinator's
// restart forgets its state's lines and keeps its stable state's.
func TestSideCauses(t *testing.T) {
	s := mustSide(t, "def on_write(s, ev):\n    h = s.state.get(\"h\", 0)\n    s.state[\"h\"] = max(h, ev.token)\n    if ev.token < h:\n        s.reject(\"stale-token\")\n    else:\n        s.accept()\n")
	r := s.Traced().Start()
	if _, err := r.Handle(engine.Moment{Kind: engine.MomentWrite, Token: 5, At: 700}); err != nil {
		t.Fatal(err)
	}
	acts, err := r.Handle(engine.Moment{Kind: engine.MomentWrite, Token: 3, At: 900})
	if err != nil || acts[0].Cause.Kind != engine.CauseUsed || acts[0].Cause.Name != `s.state["h"]` || acts[0].Cause.Line != 3 || acts[0].Cause.At != 700 {
		t.Fatalf("the storage's refusal: %+v %v", acts, err)
	}
	c, err := CompileSide(`def on_start(c, ev):
    pass

def on_acquire(c, ev):
    t = c.state.get("next", 1) + c.stable.get("base", 0)
    c.state["next"] = t + 1
    c.stable["base"] = 0
    c.grant(t, 1000)
`, engine.SideCoord, nil, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	run := c.Traced().Start()
	if _, err := run.Handle(engine.Moment{Kind: engine.MomentAcquire, Worker: "W1", At: 100}); err != nil {
		t.Fatal(err)
	}
	acts, err = run.(engine.Restarter).Restart().Handle(engine.Moment{Kind: engine.MomentAcquire, Worker: "W1", At: 5000})
	if err != nil || acts[0].Cause.Name != `c.stable["base"]` || acts[0].Cause.Line != 7 || acts[0].Cause.At != 100 {
		t.Fatalf("after a restart: %+v %v", acts, err)
	}
}

// Noting what a program keeps costs it no steps: a handler that reads,
// checks and sets w.state takes as many steps as the same handler
// through an alias, which the rewrite does not route through _kept.
func TestKeptCostsNoSteps(t *testing.T) {
	steps := func(src string, traced bool) uint64 {
		t.Helper()
		c := mustCompile(t, src)
		p := c.Start()
		if traced {
			p = c.Traced().Start()
		}
		r := p.(*run)
		if _, err := r.Handle(engine.Moment{Kind: engine.MomentStart}); err != nil {
			t.Fatal(err)
		}
		return r.steps
	}
	alias := "def on_start(w, ev):\n    d = w.state\n    x = d.get('a', 0)\n    if d.get(ev.kind):\n        x = d['b']\n    d['c'] = x\n    d[ev.kind] = 1\n"
	kept := "def on_start(w, ev):\n    d = w.state\n    x = w.state.get('a', 0)\n    if w.state.get(ev.kind):\n        x = w.state['b']\n    w.state['c'] = x\n    w.state[ev.kind] = 1\n"
	want := steps(alias, false)
	for _, traced := range []bool{false, true} {
		if got := steps(kept, traced); got != want {
			t.Errorf("traced %v: %d steps, want %d as through an alias", traced, got, want)
		}
	}
}
