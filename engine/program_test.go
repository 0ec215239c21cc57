package engine

import (
	"errors"
	"testing"
)

// goWorker is a written worker in Go, for the engine's own tests: it
// acquires, writes every second with the token it was given, and renews
// one second before the lease ends by its count from the answer.
type goWorker struct {
	token  int64
	writes int64
	fail   bool // fail at the next timer, after asking to write
}

type goLogic struct{ fail bool }

func (l goLogic) Start() Program { return &goWorker{fail: l.fail} }

func (g *goWorker) Handle(m Moment) ([]Action, error) {
	switch m.Kind {
	case MomentStart:
		return []Action{{Kind: ActAcquire, Line: 1}}, nil
	case MomentGranted, MomentRenewed:
		g.token = m.Token
		return []Action{{Kind: ActSetTimer, Timer: "renew", At: m.Now + m.TTL - Second, Line: 2}, {Kind: ActSetTimer, Timer: "work", At: m.Now + Second, Line: 3}}, nil
	case MomentTimer:
		if m.Timer == "renew" {
			return []Action{{Kind: ActRenew, Token: g.token, Line: 4}}, nil
		}
		if g.fail {
			return nil, errors.New("boom")
		}
		g.writes++
		return []Action{{Kind: ActWrite, Key: "data", Token: g.token, Line: 5}, {Kind: ActSetTimer, Timer: "work", At: m.Now + Second, Line: 6}}, nil
	}
	return nil, nil
}

func (g *goWorker) Fork() Program { c := *g; return &c }
func (g *goWorker) Hash() uint64  { return uint64(g.token)<<32 ^ uint64(g.writes) }

func goWorld(t *testing.T, l Logic) *World {
	t.Helper()
	sc := Scenario{Seed: 5, TTL: 10 * Second, Delay: 100 * Millisecond, Jitter: 30 * Millisecond}
	for _, line := range []string{"W1: acquire; write data", "S start=1s: acquire retry=2s; work 1s; write data; repeat"} {
		ws, err := ParseWorker(line)
		if err != nil {
			t.Fatal(err)
		}
		sc.Workers = append(sc.Workers, ws)
	}
	sc.Workers[0].Logic = l
	w, err := New(sc)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// A fork of a world with a written worker goes on exactly as the world
// does, and changing the fork's program changes nothing in the parent: the
// program forks with the world, and its state is in StateHash.
func TestProgramForksWithTheWorld(t *testing.T) {
	w := goWorld(t, goLogic{})
	if err := w.Do("until 7s"); err != nil {
		t.Fatal(err)
	}
	f := w.forkInto(nil)
	if f.StateHash() != w.StateHash() {
		t.Fatal("a fork hashes unlike its world")
	}
	for _, x := range []*World{w, f} {
		if err := x.Do("until 20s"); err != nil {
			t.Fatal(err)
		}
	}
	if f.StateHash() != w.StateHash() {
		t.Fatal("a fork and its world part ways under the same commands")
	}
	n := len(f.Events())
	if n == 0 || len(w.Events()) <= n {
		t.Fatalf("events: world %d, fork %d", len(w.Events()), n)
	}
	for i := range n {
		// Log indexes (Ref, Ref2) differ: the fork's log starts empty.
		a, b := f.Events()[i], w.Events()[len(w.Events())-n+i]
		if a.Kind != b.Kind || a.Node != b.Node || a.T != b.T || a.Token != b.Token {
			t.Fatalf("the fork's event %d differs from the world's: %v, %v", i, a, b)
		}
	}
	before := w.StateHash()
	f.workers[0].brain.p.(*goWorker).writes += 100
	if f.StateHash() == before {
		t.Fatal("the program's state is not in StateHash")
	}
	if w.StateHash() != before || w.workers[0].brain.p.(*goWorker).writes >= 100 {
		t.Fatal("changing the fork's program changed the world's")
	}
	// A crash and a restart start a new program: the worker forgets.
	if err := w.Do("crash W1"); err != nil {
		t.Fatal(err)
	}
	if err := w.Do("restart W1"); err != nil {
		t.Fatal(err)
	}
	if err := w.Advance(Millisecond); err != nil {
		t.Fatal(err)
	}
	if g := w.workers[0].brain.p.(*goWorker); g.writes != 0 || g.token != 0 {
		t.Fatalf("after a restart the program remembers %+v", g)
	}
}

// A handler that fails takes none of its actions, stops the worker and is
// recorded; actions the world cannot do are refused as a whole.
func TestProgramFaults(t *testing.T) {
	w := goWorld(t, goLogic{fail: true})
	if err := w.Do("until 20s"); err != nil {
		t.Fatal(err)
	}
	fs := w.ProgramFaults()
	if len(fs) != 1 || fs[0].Moment != MomentTimer || w.log[fs[0].Event].Kind != KindDone {
		t.Fatalf("faults %+v", fs)
	}
	for _, e := range w.Events() {
		if e.Kind == KindWrite && e.Node == 0 {
			t.Fatal("a failing handler's worker wrote")
		}
	}
	w = goWorld(t, goLogic{})
	wk := &w.workers[0]
	wk.brain = &brain{p: &goWorker{}}
	for _, tc := range []struct {
		acts []Action
		code string
	}{
		{[]Action{{Kind: ActWrite, Key: "nope"}}, "key"},
		{[]Action{{Kind: ActWrite, Key: "lock"}}, "key"},
		{[]Action{{Kind: ActRenew, Tag: -1}}, "tag"},
		{[]Action{{Kind: ActSetTimer, Timer: "a", At: -1}}, "at"},
		{[]Action{{Kind: ActSetTimer, Timer: "a"}, {Kind: ActSetTimer, Timer: "b"}, {Kind: ActSetTimer, Timer: "c"}, {Kind: ActSetTimer, Timer: "d"}, {Kind: ActSetTimer, Timer: "e"}}, "timers"},
	} {
		var ae *ActionError
		if err := w.checkActions(wk, tc.acts); !errors.As(err, &ae) || ae.Code != tc.code {
			t.Errorf("%+v: %v, want %s", tc.acts, err, tc.code)
		}
	}
	if wk.brain.timers != [ProgramTimers]string{} {
		t.Fatal("checking actions set timers")
	}
}

// A written worker that takes a refusal of its token as a hiccup and
// writes with it again fails its judgement at that second write: the
// refusal told it the lease was gone. The first late write is not it.
func TestProgramWroteAfterRejection(t *testing.T) {
	w := goWorld(t, goLogic{})
	for _, c := range []string{"storage fencing", "until 3s"} {
		if err := w.Do(c); err != nil {
			t.Fatal(err)
		}
	}
	if i := w.wroteAfterRejection(0); i >= 0 {
		t.Fatalf("a write at %d judged as after a rejection before any rejection", i)
	}
	for _, c := range []string{"freeze W1 for=15s", "until 30s"} {
		if err := w.Do(c); err != nil {
			t.Fatal(err)
		}
	}
	i := w.wroteAfterRejection(0)
	if i < 0 {
		t.Fatal("W1 wrote on with its refused token, and nothing says so")
	}
	evs := w.Events()
	rejected := -1
	for j := range i {
		if e := evs[j]; e.Kind == KindReject && e.Peer() == 0 && e.Reason() == ReasonStaleToken {
			rejected = j
			break
		}
	}
	if e := evs[i]; e.Kind != KindWrite || e.Node != 0 || rejected < 0 || e.Token > evs[rejected].Token {
		t.Fatalf("decided by event %d %+v, the refusal at %d", i, e, rejected)
	}
	run := Run{Survive: false, Event: -1}
	if !w.judgeProgram(0, &run, 0) || run.Event != i {
		t.Fatalf("judgeProgram: %+v, want event %d", run, i)
	}
}

// A challenge that names its harm fails a run only on that harm: the
// written worker's late write (acted-after-expiry) fails it with every
// violation counted, and not when only stale writes count and none landed.
func TestChallengeHarm(t *testing.T) {
	sc := Scenario{Seed: 5, TTL: 10 * Second, Delay: 100 * Millisecond, Storage: StorageFencing}
	for _, line := range []string{"W1: acquire; write data", "S start=1s: acquire; write data; work 1s; repeat"} {
		ws, err := ParseWorker(line)
		if err != nil {
			t.Fatal(err)
		}
		sc.Workers = append(sc.Workers, ws)
	}
	sc.Workers[0].Logic = goLogic{}
	run := Run{Survive: false, Event: -1, Commands: []Command{
		{Kind: CmdUntil, At: 3 * Second}, {Kind: CmdFreeze, A: "W1", Dur: 15 * Second}, {Kind: CmdUntil, At: 40 * Second},
	}}
	for _, c := range []struct {
		harm []Reason
		fail bool
	}{{nil, true}, {[]Reason{ViolationActedAfterExpiry}, true}, {[]Reason{ViolationLostUpdate}, false}} {
		ch := Challenge{Scenario: sc, Holder: "W1", Harm: c.harm}
		r := run
		w, err := ch.Play(&r)
		if err != nil {
			t.Fatal(err)
		}
		late := false
		for _, e := range w.Events() {
			late = late || (e.Kind == KindViolation && e.Reason() == ViolationActedAfterExpiry)
		}
		if !late {
			t.Fatal("the schedule made no late write to judge")
		}
		if r.Failed && r.Safety != c.fail {
			t.Errorf("harm %v: failed on safety %v, want %v", c.harm, r.Safety, c.fail)
		}
		if !c.fail && r.Safety {
			t.Errorf("harm %v: a late write failed the run", c.harm)
		}
		if c.fail && !r.Failed {
			t.Errorf("harm %v: the late write passed", c.harm)
		}
	}
}
