package labs

import (
	"strings"
	"testing"

	"leaselab/content"
	"leaselab/engine"
)

func renewPolicy(t *testing.T) *Challenge {
	t.Helper()
	c := SharedCourse(t)
	l := c.Lab("renew-policy")
	if l == nil || l.Challenge() == nil {
		t.Fatal("the course has no renew-policy challenge")
	}
	return l.Challenge()
}

// The engine judges the student's numbers: the lab's starting policy
// fails, a policy with a real margin passes, and nothing is stored.
func TestChallengeVerdictsComeFromTheEngine(t *testing.T) {
	ch := renewPolicy(t)
	start, err := ch.Judge(nil)
	if err != nil {
		t.Fatal(err)
	}
	if start.Pass || start.World == nil || start.Counterexample == nil {
		t.Fatalf("the starting policy (%s) should fail with a counterexample; got pass=%v", start.Policy, start.Pass)
	}
	ce := start.Counterexample
	if ev := start.World.Events(); ce.Event < 0 || ce.Event >= len(ev) || ev[ce.Event] != ce.Why {
		t.Fatalf("the counterexample's deciding event is not in its replayed world")
	}
	good, err := ch.Judge(map[string]string{
		"renew-margin": "6s", "renew-attempt": "2500ms", "renew-retry": "500ms", "renew-give-up": "9s",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !good.Pass || good.World != nil {
		t.Fatalf("a policy with a 6 s margin should pass; %d safety and %d liveness failures", good.SafetyFailures, good.LivenessFailures)
	}
	if !strings.Contains(good.Policy, "renew-margin=6s") || !strings.Contains(good.Policy, "belief=send") {
		t.Fatalf("policy as played: %q", good.Policy)
	}
	unsafe, err := ch.Judge(map[string]string{
		"renew-margin": "3s", "renew-attempt": "1s", "renew-retry": "1s", "renew-backoff": "2", "retry-past-deadline": "on",
	})
	if err != nil {
		t.Fatal(err)
	}
	if unsafe.Pass || !unsafe.Counterexample.Safety {
		t.Fatalf("retrying past the deadline should fail on safety")
	}
}

func TestChallengeRefusesBadInput(t *testing.T) {
	ch := renewPolicy(t)
	for _, values := range []map[string]string{
		{"ttl": "1s"},
		{"renew-margin": "ten seconds"},
		{"renew-margin": "-3s"},
		{"belief": "sometimes"},
		{"preset": "redis"},
		{"renew-attempt": strings.Repeat("9", 40) + "s"},
	} {
		if _, err := ch.Judge(values); err == nil {
			t.Errorf("Judge(%v) accepted bad input", values)
		}
	}
	if v, err := ch.Judge(map[string]string{"preset": "kubernetes"}); err != nil || !strings.HasPrefix(v.Policy, "preset=kubernetes") {
		t.Fatalf("a preset: %v %+v", err, v)
	}
}

func TestRenewalFacts(t *testing.T) {
	var sc engine.Scenario
	sc.Set("ttl", "30s")
	sc.Set("delay", "200ms")
	ws, _ := engine.ParseWorker("W1 renew-margin=10s renew-attempt=3s renew-retry=2s stop-at-expiry=on: acquire; work 1h")
	sc.Workers = []engine.WorkerSpec{ws}
	w, err := engine.New(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"until 19.9s", "link W1->coord loss=1", "until 20.5s", "link W1->coord loss=0", "until 26s"} {
		if err := w.Do(c); err != nil {
			t.Fatal(err)
		}
	}
	for src, want := range map[string]bool{
		"W1 renews the lease":                             true,
		"W1 renews the lease after W1's renewal fails":    true,
		"W1's renewal fails because timeout":              true,
		"W1's renewal fails because not-holder":           false,
		"W1 becomes uncertain":                            true,
		"W1 gives up":                                     false,
		"W1 refuses work":                                 false,
		"W1's renewal is rolled back":                     false,
		"W1 drops a stale reply":                          false,
		"W1 renews the lease before W1 becomes uncertain": false,
	} {
		p, err := CompilePredicate(src, []string{"W1"})
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if got, _ := p.Eval(w.Events(), w.Names()); got != want {
			t.Errorf("%q = %v, want %v", src, got, want)
		}
	}
}

// The runs played on every core give the verdict the engine gives playing
// them one by one: same counts, same counterexample.
func TestChallengeOnAllCoresMatchesOneByOne(t *testing.T) {
	ch := renewPolicy(t)
	for _, values := range []map[string]string{nil, {"renew-margin": "6s", "renew-attempt": "2500ms", "renew-retry": "500ms", "renew-give-up": "9s"}, {"renew-margin": "2s"}} {
		spec, _, err := ch.withPolicy(values)
		if err != nil {
			t.Fatal(err)
		}
		want, err := spec.Judge()
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{0, 1, 3} {
			got, err := judge(spec, workers)
			if err != nil {
				t.Fatal(err)
			}
			checkSameVerdict(t, values, workers, got, want)
		}
	}
}

// checkSameVerdict fails when a verdict played on some goroutines differs
// from the one-by-one verdict.
func checkSameVerdict(t *testing.T, values map[string]string, workers int, got, want engine.Result) {
	t.Helper()
	same := got.Pass == want.Pass && got.Runs == want.Runs && got.SafetyFailures == want.SafetyFailures &&
		got.LivenessFailures == want.LivenessFailures && got.MustSurvive == want.MustSurvive &&
		(got.Counterexample == nil) == (want.Counterexample == nil)
	if same && got.Counterexample != nil {
		same = got.Counterexample.Index == want.Counterexample.Index && got.Counterexample.Why == want.Counterexample.Why
	}
	if !same {
		t.Errorf("%v on %d workers: %+v, one by one %+v", values, workers, got, want)
	}
}

// BenchmarkChallengeJudge measures a student's press of "judge" on the
// renew-policy lab: its runs on every core, and the counterexample replayed.
func BenchmarkChallengeJudge(b *testing.B) {
	c, err := Load(content.FS)
	if err != nil {
		b.Fatal(err)
	}
	ch := c.Lab("renew-policy").Challenge()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ch.Judge(nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ch.Spec().Runs)*float64(b.N)/b.Elapsed().Seconds(), "runs/s")
}
