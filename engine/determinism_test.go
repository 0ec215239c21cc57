package engine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The design's first promise: same scenario + seed + command list ⇒ same
// events, byte for byte. Permalinks and lab answers depend on it, so these
// tests build worlds twice and compare everything they recorded.

// testScenario is a scenario as a scenario file writes it.
type testScenario struct {
	name    string
	opts    []string // key=value, as Scenario.Set reads them
	workers []string // worker lines, as ParseWorker reads them
}

var testScenarios = []testScenario{
	{"monthly-report", []string{"ttl=30s", "first-token=33", "fencing=off"}, []string{
		"W1: acquire; work 25s; send report; release",
		"W2 start=1s: acquire; work 25s; send report; release",
	}},
	{"renewers", []string{"ttl=10s", "fencing=on", "delay=2ms"}, []string{
		"W1 renew=3s: acquire; work 20s; write data; release; repeat",
		"W2 renew=3s start=500ms: acquire; work 20s; write data; release; repeat",
		"W3 renew=3s start=1s: acquire; work 20s; write data; release; repeat",
	}},
	{"jitter-loss", []string{"ttl=10s", "fencing=on", "delay=5ms", "jitter=20ms", "loss=0.2", "seed=7"}, []string{
		"W1 renew=3s timeout=1s: acquire retry=1s; work 5s; write data; release; repeat",
		"W2 renew=3s timeout=1s belief=receive start=100ms: acquire retry=1s; work 5s; check; write data; release; repeat",
		"W3 renew=2s timeout=500ms stop-at-expiry=on start=200ms: acquire retry=700ms; work 3s; send mail; release; repeat",
	}},
	{"failover", []string{"ttl=8s", "replicas=5", "election=2s", "service=10ms", "lock-delay=2s", "renew-token=on", "jitter=50ms", "loss=0.1", "seed=42", "storage=equality"}, []string{
		"W1 renew=2s timeout=1s: acquire; work 4s; write x; release; repeat",
		"W2 renew=2s timeout=1s skew=300ms drift=1.02: acquire; work 4s; write x; release; repeat",
	}},
	{"cas-no-ttl", []string{"ttl=0", "storage=cas", "jitter=10ms", "seed=3"}, []string{
		"W1: acquire; read; work 2s; write row; release; sleep 1s; repeat",
		"W2 start=1s: acquire retry=500ms; read; work 1s; write row; release; sleep 2s; repeat",
	}},
	{"idempotent-clocks", []string{"ttl=5s", "storage=idempotent", "delay=20ms", "jitter=30ms", "seed=11"}, []string{
		"W1 renew=2s drift=1.5 token=off: acquire; work 6s; send pay; release; repeat",
		"W2 renew=1s skew=-2s belief=receive: acquire; work 3s; send pay; write log; release; repeat",
		"W3 renew=4s drift=+5000ppm stop-at-expiry=on: acquire retry=2s; work 1s; check; send pay; release; repeat",
	}},
	{"log-tokens", []string{"ttl=8s", "tokens=log", "replicas=5", "election=1s", "renew-token=on", "storage=fencing", "delay=4ms", "jitter=6ms", "seed=9"}, []string{
		"W1 renew=2s: acquire; work 3s; write x; release; repeat",
		"W2 renew=2s start=400ms: acquire retry=1s; work 2s; write x; release; sleep 1s; repeat",
	}},
	{"parts-rename", []string{"ttl=6s", "storage=rename", "delay=3ms", "jitter=5ms", "seed=5"}, []string{
		"W1 renew=2s: acquire; write f parts=3 each=1s; release; repeat",
		"W2 renew=2s start=300ms: acquire; write f parts=2 each=1s commit=rename; release; sleep 1s; repeat",
		"W3 start=600ms: acquire retry=1s; work 2s; write f commit=rename; release; repeat",
	}},
}

func (ts testScenario) build(t testing.TB, seed uint64) Scenario {
	t.Helper()
	sc := scenarioOf(t, ts.opts, ts.workers...)
	if seed != 0 {
		sc.Seed = seed
	}
	return sc
}

// fixedCommands exercises every command kind on a scenario's first worker.
var fixedCommands = []string{
	"until 2s",
	"step",
	"step",
	"freeze W1 for=12s",
	"advance 5s",
	"link coord W2 delay=300ms loss=0.3",
	"clock W2 skew=+1s rate=1.1",
	"advance 20s",
	"partition W1",
	"advance 7s",
	"heal",
	"freeze W1 on=acquired",
	"advance 30s",
	"thaw W1",
	"replica 1 down",
	"advance 3s",
	"replica 2 down",
	"advance 10s",
	"replica 1 up",
	"fencing off",
	"advance 15s",
	"crash W1",
	"advance 4s",
	"restart W1",
	"clock W1 jump=-2s",
	"storage fencing",
	"until 3m",
	"reset",
	"advance 45s",
	"freeze W2",
	"advance 1m",
	"step",
}

// run is one session: the full event history (across resets), its trace
// and the error of every command.
type run struct {
	w      *World
	events []Event // every event recorded, resets included, copied out
	trace  string
}

// play builds a world and applies the commands as text.
func play(t testing.TB, sc Scenario, cmds []string) run {
	t.Helper()
	w, err := New(sc)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	var r run
	r.w = w
	var b strings.Builder
	for _, c := range cmds {
		r.apply(&b, c, func() error { return w.Do(c) })
	}
	r.trace = b.String()
	return r
}

// apply runs one command and appends what it recorded to the history.
func (r *run) apply(b *strings.Builder, label string, do func() error) error {
	w := r.w
	before := len(w.Events())
	err := do()
	fmt.Fprintf(b, "> %s\n", label)
	if err != nil {
		fmt.Fprintf(b, "error: %v\n", err)
	}
	evs := w.Events()
	start := before
	if err == nil && isReset(label) {
		start = 0 // a reset starts a new log
	}
	for _, e := range evs[start:] {
		b.WriteString(w.Names().Format(e))
		b.WriteByte('\n')
	}
	r.events = append(r.events, evs[start:]...)
	return err
}

func isReset(label string) bool {
	c, err := ParseCommand(label)
	return err == nil && c.Kind == CmdReset
}

func TestDeterminismSameInputsSameLog(t *testing.T) {
	for _, ts := range testScenarios {
		for _, seed := range []uint64{0, 1, 99, 1 << 40} {
			sc := ts.build(t, seed)
			a := play(t, sc, fixedCommands)
			b := play(t, sc, fixedCommands)
			if len(a.events) < 50 {
				t.Errorf("%s seed=%d: only %d events; the command list should make things happen", ts.name, seed, len(a.events))
			}
			if a.trace != b.trace {
				t.Errorf("%s seed=%d: traces differ:\n%s", ts.name, seed, firstDiff(a.trace, b.trace))
				continue
			}
			if !reflect.DeepEqual(a.events, b.events) {
				t.Errorf("%s seed=%d: traces agree but raw events differ", ts.name, seed)
			}
			if !reflect.DeepEqual(a.w.Snapshot(), b.w.Snapshot()) {
				t.Errorf("%s seed=%d: final snapshots differ", ts.name, seed)
			}
		}
	}
}

// TestDeterminismSeedMatters: with jitter or loss, the seed must change the
// run; otherwise the seed is not wired to the randomness at all.
func TestDeterminismSeedMatters(t *testing.T) {
	differs := 0
	for _, ts := range testScenarios {
		sc := ts.build(t, 0)
		if sc.Jitter == 0 && sc.LossPPM == 0 {
			// No randomness (once the commands set no link loss either):
			// the seed must not matter at all.
			var cmds []string
			for _, c := range fixedCommands {
				if !strings.Contains(c, "loss=") {
					cmds = append(cmds, c)
				}
			}
			a := play(t, ts.build(t, 1), cmds)
			b := play(t, ts.build(t, 2), cmds)
			if a.trace != b.trace {
				t.Errorf("%s has no jitter or loss, yet seeds 1 and 2 differ:\n%s", ts.name, firstDiff(a.trace, b.trace))
			}
			continue
		}
		a := play(t, ts.build(t, 1), fixedCommands)
		b := play(t, ts.build(t, 2), fixedCommands)
		if a.trace != b.trace {
			differs++
		} else {
			t.Logf("%s: seeds 1 and 2 give the same trace", ts.name)
		}
	}
	if differs == 0 {
		t.Errorf("no scenario with jitter or loss changed its log when the seed changed")
	}
}

// TestDeterminismReplay rebuilds a session from w.Commands(), as a permalink
// does: applied as values, and written out with String and parsed back.
func TestDeterminismReplay(t *testing.T) {
	for _, ts := range testScenarios {
		sc := ts.build(t, 5)
		orig := play(t, sc, fixedCommands)
		cmds := append([]Command(nil), orig.w.Commands()...)
		if len(cmds) == 0 {
			t.Fatalf("%s: no commands recorded", ts.name)
		}

		// As values.
		w, err := New(sc)
		if err != nil {
			t.Fatal(err)
		}
		re := run{w: w}
		var b strings.Builder
		for _, c := range cmds {
			if err := re.apply(&b, c.String(), func() error { return w.Apply(c) }); err != nil {
				t.Errorf("%s: replaying %q: %v", ts.name, c, err)
			}
		}
		checkSame(t, ts.name+" replay", orig, re)
		if !reflect.DeepEqual(w.Commands(), cmds) {
			t.Errorf("%s: replayed world's command list differs", ts.name)
		}

		// As text: every command must survive String → ParseCommand.
		var text []string
		for _, c := range cmds {
			p, err := ParseCommand(c.String())
			if err != nil {
				t.Errorf("%s: %q does not parse back: %v", ts.name, c.String(), err)
				continue
			}
			if p != c {
				t.Errorf("%s: %q parses back as %+v, was %+v", ts.name, c.String(), p, c)
			}
			text = append(text, c.String())
		}
		checkSame(t, ts.name+" text replay", orig, play(t, sc, text))
	}
}

func checkSame(t *testing.T, what string, a, b run) {
	t.Helper()
	if !reflect.DeepEqual(a.events, b.events) {
		var ta, tb strings.Builder
		for _, e := range a.events {
			ta.WriteString(a.w.Names().Format(e) + "\n")
		}
		for _, e := range b.events {
			tb.WriteString(b.w.Names().Format(e) + "\n")
		}
		t.Errorf("%s: event logs differ (%d vs %d events):\n%s", what, len(a.events), len(b.events), firstDiff(ta.String(), tb.String()))
	}
	if a.w.Now() != b.w.Now() {
		t.Errorf("%s: now %s vs %s", what, a.w.Now(), b.w.Now())
	}
}

// TestDeterminismRandomCommands drives every scenario with many random
// command lists, each played twice.
func TestDeterminismRandomCommands(t *testing.T) {
	iters := 150
	if testing.Short() {
		iters = 30
	}
	rnd := rand.New(rand.NewPCG(2024, 7))
	var events, errs, total int
	for i := range iters {
		ts := testScenarios[i%len(testScenarios)]
		sc := ts.build(t, rnd.Uint64())
		w, err := New(sc)
		if err != nil {
			t.Fatal(err)
		}
		g := cmdGen{pick: func(n int) int { return rnd.IntN(n) }}
		var cmds []string
		n := 5 + rnd.IntN(25)
		// The generator looks at the world (its clock and names), so the
		// list is made while playing it once; then it is played twice more.
		for range n {
			c := g.next(w)
			cmds = append(cmds, c)
			if w.Do(c) != nil {
				errs++
			}
			total++
		}
		a := play(t, sc, cmds)
		b := play(t, sc, cmds)
		if a.trace != b.trace || !reflect.DeepEqual(a.events, b.events) {
			t.Fatalf("iteration %d (%s, seed %d): logs differ for commands %q:\n%s", i, ts.name, sc.Seed, cmds, firstDiff(a.trace, b.trace))
		}
		if !reflect.DeepEqual(a.w.Events(), w.Events()) {
			t.Fatalf("iteration %d (%s): the generating run and its replay differ", i, ts.name)
		}
		events += len(a.events)
	}
	t.Logf("%d runs, %d commands (%d refused), %d events", iters, total, errs, events)
	if errs == 0 || errs == total || events < iters*20 {
		t.Errorf("the generator should make both good and bad commands that make things happen")
	}
}

// firstDiff shows the first line where two traces part.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  first:  %s\n  second: %s", i+1, x, y)
		}
	}
	return "(no difference)"
}

// cmdGen makes commands from a source of choices: seeded randomness in the
// determinism test, fuzz bytes in the fuzz target. It deliberately makes
// bad commands too: unknown names, zero and negative durations, huge values.
type cmdGen struct {
	pick func(n int) int // a number in [0, n)
}

func (g cmdGen) of(xs ...string) string { return xs[g.pick(len(xs))] }

var genDurations = []string{
	"1ms", "10ms", "250ms", "1s", "1.5s", "3s", "5s", "10s", "30s", "2m", "1h",
	"0s", "0", "-3s", "30", "1e3s", "25h", "9999999h", "1.0001s", "never", "", "s",
}

// name picks a worker of the world, often, or something that is not one.
func (g cmdGen) name(w *World) string {
	ns := w.Names().Nodes
	if g.pick(6) > 0 && len(ns) > 0 {
		return ns[g.pick(len(ns))]
	}
	return g.of("W9", "coord", "storage", "all", "", "w1", "W1W1W1W1W1W1W1W1W1")
}

// node picks any node name, a worker more often.
func (g cmdGen) node(w *World) string {
	if g.pick(3) == 0 {
		return g.of("coord", "storage")
	}
	return g.name(w)
}

func (g cmdGen) dur() string { return genDurations[g.pick(len(genDurations))] }

// smallDur is a sensible step of time, so that runs move forward.
func (g cmdGen) smallDur() string {
	return g.of("100ms", "500ms", "1s", "2s", "3s", "5s", "7s", "10s", "20s", "45s")
}

func (g cmdGen) next(w *World) string {
	switch g.pick(24) {
	case 0, 1, 2, 3:
		return "advance " + g.smallDur()
	case 4:
		return "advance " + g.dur()
	case 5, 6:
		return "step"
	case 7:
		if g.pick(3) == 0 {
			return "until " + g.dur()
		}
		d, err := ParseTime(g.smallDur())
		if err != nil {
			panic(err)
		}
		return "until " + (w.Now() + d).String()
	case 8, 9:
		s := "freeze " + g.name(w)
		if g.pick(2) == 0 {
			s += " for=" + g.of(g.smallDur(), g.dur())
		}
		if g.pick(3) == 0 {
			s += " on=" + g.of("check", "work", "acquired", "write", "")
		}
		return s
	case 10:
		return "thaw " + g.name(w)
	case 11:
		return "crash " + g.name(w)
	case 12:
		return "restart " + g.name(w)
	case 13:
		return "fencing " + g.of("on", "off", "maybe")
	case 14:
		return "storage " + g.of("none", "fencing", "equality", "cas", "idempotent", "rename", "paper")
	case 15:
		if g.pick(2) == 0 {
			return "partition " + g.node(w)
		}
		return "partition " + g.node(w) + " " + g.node(w)
	case 16:
		switch g.pick(3) {
		case 0:
			return "heal"
		case 1:
			return "heal " + g.node(w)
		}
		return "heal " + g.node(w) + " " + g.node(w)
	case 17:
		s := "link " + g.node(w) + " " + g.node(w)
		if g.pick(2) == 0 {
			s = "link " + g.node(w) + "->" + g.node(w)
		}
		if g.pick(3) > 0 {
			s += " delay=" + g.of("0s", "5ms", "100ms", "2s", g.dur())
		}
		if g.pick(3) > 0 {
			s += " loss=" + g.of("0", "0.1", "0.5", "1", "25%", "1.5", "-0.1", "x")
		}
		return s
	case 18:
		s := "clock " + g.name(w)
		switch g.pick(4) {
		case 0:
			s += " skew=" + g.of("+1s", "-1s", "+500ms", "0", g.dur(), "-"+g.dur())
		case 1:
			s += " jump=" + g.of("+5s", "-5s", "+30s", "-59m", g.dur(), "-"+g.dur())
		case 2:
			s += " rate=" + g.of("1.5", "0.5", "1", "+200ppm", "-999999ppm", "0", "100", "1000", "0.0009")
		}
		return s
	case 19:
		return "replica " + g.of("0", "1", "2", "3", "4", "5", "6", "x") + " " + g.of("down", "up", "sideways")
	case 20:
		return "reset"
	case 21:
		return g.of("", "dance", "advance", "step now", "link W1", "clock W1", "heal a b c", "until -1s", "freeze", "replica 1")
	case 22:
		if g.pick(3) == 0 {
			return "revoke " + g.name(w)
		}
		return "policy " + g.name(w) + " auth=" + g.of("definitive", "transient", "maybe")
	}
	return "advance " + g.smallDur()
}
