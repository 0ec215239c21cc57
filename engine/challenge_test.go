package engine

import (
	"strings"
	"testing"
)

// designChallenge is the renew-policy challenge with the holder's policy
// given as worker options. The holder acts every second and checks its
// belief before each write; a standby with a safe policy polls for the
// lease and takes over when the holder loses it.
func designChallenge(t testing.TB, policy string) Challenge {
	t.Helper()
	sc := scenarioOf(t, []string{"ttl=10s", "delay=50ms", "fencing=off"},
		"H "+policy+": acquire; work 1s; check; write data; repeat",
		"S start=1s "+safePolicy+": acquire retry=2s; work 1s; check; write data; repeat")
	return Challenge{
		Scenario: sc,
		Holder:   "H",
		Runs:     200,
		Seed:     7,
		Faults:   FaultLimits{Spike: 2 * Second, Drop: 4 * Second, Pause: 2 * Second, Partition: 4 * Second, DriftPPM: 10_000},
		Survive:  FaultLimits{Spike: Second, Drop: 2 * Second, Pause: Second, Partition: 2 * Second, DriftPPM: 2_000},
	}
}

const safePolicy = "renew-margin=6s renew-attempt=2500ms renew-retry=500ms renew-give-up=9s stop-at-expiry=on"

func TestChallengeSafePolicyPasses(t *testing.T) {
	c := designChallenge(t, safePolicy)
	res, err := c.Judge()
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pass {
		ce := res.Counterexample
		w, _ := c.Play(ce)
		t.Fatalf("a known-safe policy failed run %d (%v) at %s: %s\nfaults: %+v\n%s", ce.Index, ce.Safety, ce.Why.T, w.Names().Format(ce.Why), ce.Faults, tail(w, ce.Event))
	}
	if res.MustSurvive < 20 || res.MustSurvive == res.Runs {
		t.Fatalf("the schedules should mix survivable and harder runs; %d of %d must be survived", res.MustSurvive, res.Runs)
	}
}

func TestChallengeUnsafePoliciesFail(t *testing.T) {
	for _, tc := range []struct {
		name, policy string
		safety       bool   // the counterexample is a safety failure
		why          string // what the deciding event says: one of these, |-separated
	}{
		{"renewing at expiry", "renew=10s renew-attempt=1s renew-give-up=9s stop-at-expiry=on", false, "lost"},
		{"retry without deadline check", "renew-margin=3s renew-attempt=1s renew-retry=1s renew-backoff=2 retry-past-deadline=on stop-at-expiry=on", true, "acted-after-expiry|stale-write"},
		{"attempt timeout longer than the margin", "renew-margin=2s renew-attempt=2500ms renew-give-up=9s stop-at-expiry=on", false, "lost"},
		{"deadline from receive time under slow answers", "renew-margin=5s renew-attempt=4s renew-retry=500ms belief=receive stop-at-expiry=on", true, "acted-after-expiry|stale-write"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := designChallenge(t, tc.policy)
			res, err := c.Judge()
			if err != nil {
				t.Fatal(err)
			}
			if res.Pass {
				t.Fatalf("policy %q passed %d runs; it should fail", tc.policy, res.Runs)
			}
			ce := res.Counterexample
			w, err := c.Play(ce)
			if err != nil {
				t.Fatal(err)
			}
			desc := w.Names().Format(ce.Why)
			matched := false
			for _, why := range strings.Split(tc.why, "|") {
				matched = matched || strings.Contains(desc, why)
			}
			if ce.Safety != tc.safety || !matched {
				t.Fatalf("counterexample run %d: safety=%v, deciding event %q; want safety=%v and %q\n%s", ce.Index, ce.Safety, desc, tc.safety, tc.why, tail(w, ce.Event))
			}
			// The verdict is the engine's, reproducible from the seed alone.
			again, _ := c.Judge()
			if again.Counterexample == nil || again.Counterexample.Index != ce.Index || again.SafetyFailures != res.SafetyFailures {
				t.Fatalf("the same seeds gave a different verdict")
			}
			t.Logf("%s: %d safety and %d liveness failures in %d runs; shortest: run %d with %d fault(s), %s", tc.name, res.SafetyFailures, res.LivenessFailures, res.Runs, ce.Index, len(ce.Faults), desc)
		})
	}
}

func tail(w *World, upto int) string {
	var b strings.Builder
	evs := w.Events()
	for i := max(0, upto-25); i <= upto && i < len(evs); i++ {
		if evs[i].Kind == KindSend || evs[i].Kind == KindRecv {
			continue
		}
		b.WriteString(w.Names().Format(evs[i]) + "\n")
	}
	return b.String()
}

// BenchmarkChallenge measures the design challenge's 200 runs.
func BenchmarkChallenge(b *testing.B) {
	c := designChallenge(b, safePolicy)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Judge(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(c.Runs)*float64(b.N)/b.Elapsed().Seconds(), "runs/s")
}

// An outage outlasts the lease: it is the only fault of its run, and the
// run is judged on safety alone.
func TestChallengeOutageOutlastsTheLease(t *testing.T) {
	c := designChallenge(t, safePolicy)
	c.Faults.Outage = 20 * Second
	c.defaults()
	outages := 0
	for i := range c.Runs {
		run := c.Schedule(i)
		for _, f := range run.Faults {
			if f.Kind != "outage" {
				continue
			}
			outages++
			if len(run.Faults) != 1 || run.Survive {
				t.Fatalf("run %d: an outage shares its run or must be survived: %+v", i, run.Faults)
			}
			if f.Size <= c.Scenario.TTL || f.At+f.Size > c.Horizon {
				t.Fatalf("run %d: outage of %s at %s: not longer than the %s lease, or past the run's end", i, f.Size, f.At, c.Scenario.TTL)
			}
		}
	}
	if outages == 0 {
		t.Fatal("no run holds an outage")
	}
	for _, bad := range []FaultLimits{{Outage: 10 * Second}, {Outage: 5 * Minute}} {
		c.Faults = bad
		if _, err := c.Judge(); err == nil {
			t.Errorf("outage %s: want an error", bad.Outage)
		}
	}
	c.Faults, c.Survive = FaultLimits{Outage: 20 * Second}, FaultLimits{Outage: 20 * Second}
	if _, err := c.Judge(); err == nil {
		t.Error("an outage to survive: want an error")
	}
}

// A world reused for run after run gives every run exactly as a new world
// would, whatever the world ran before.
func TestReuseIsNew(t *testing.T) {
	c, err := designChallenge(t, safePolicy).Ready()
	if err != nil {
		t.Fatal(err)
	}
	other := benchScenarioT(t)
	var reused *World
	for i := range 12 {
		run := c.Schedule(i)
		fresh, err := c.Play(&run)
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 && reused != nil {
			// Something else in between: another scenario, further along.
			if err := reused.Reuse(other); err != nil {
				t.Fatal(err)
			}
			if err := reused.Advance(10 * Minute); err != nil {
				t.Fatal(err)
			}
		}
		again := run
		if reused, err = c.PlayIn(reused, &again); err != nil {
			t.Fatal(err)
		}
		if a, b := trace(fresh), trace(reused); a != b {
			t.Fatalf("run %d: a reused world's trace differs from a new one's", i)
		}
		if again.Failed != run.Failed || again.Event != run.Event || again.Why != run.Why {
			t.Fatalf("run %d: reused verdict %+v, new %+v", i, again, run)
		}
		if fresh.Now() != reused.Now() || len(fresh.Commands()) != len(reused.Commands()) {
			t.Fatalf("run %d: now %s/%s, commands %d/%d", i, fresh.Now(), reused.Now(), len(fresh.Commands()), len(reused.Commands()))
		}
	}
	if err := reused.Reuse(Scenario{TTL: -1}); err == nil {
		t.Fatal("Reuse took a bad scenario")
	}
	if reused.Scenario().Workers[0].Name != "H" {
		t.Fatal("a refused Reuse changed the world")
	}
}

// Judge in one reused world and PlayRun in any order give one verdict.
func TestChallengeRunsInAnyOrder(t *testing.T) {
	c, err := designChallenge(t, "renew-margin=1s").Ready()
	if err != nil {
		t.Fatal(err)
	}
	c.Runs = 40
	want, err := c.Judge()
	if err != nil {
		t.Fatal(err)
	}
	runs := make([]Run, c.Runs)
	var w *World
	for i := c.Runs - 1; i >= 0; i-- {
		if runs[i], w, err = c.PlayRun(i, w); err != nil {
			t.Fatal(err)
		}
	}
	got := c.Tally(runs)
	if want.Pass || want.Counterexample == nil {
		t.Fatal("a thin margin passed: the test shows nothing")
	}
	if got.Pass != want.Pass || got.SafetyFailures != want.SafetyFailures || got.LivenessFailures != want.LivenessFailures ||
		got.MustSurvive != want.MustSurvive || got.Counterexample.Index != want.Counterexample.Index || got.Counterexample.Why != want.Counterexample.Why {
		t.Fatalf("backwards: %+v\nin order: %+v", got, want)
	}
}

func trace(w *World) string {
	var b strings.Builder
	for _, e := range w.Events() {
		b.WriteString(w.Names().Format(e) + "\n")
	}
	return b.String()
}

func benchScenarioT(t *testing.T) Scenario {
	var sc Scenario
	for _, kv := range []string{"ttl=10s", "fencing=on", "delay=2ms", "jitter=3ms", "seed=1"} {
		k, v, _ := strings.Cut(kv, "=")
		if err := sc.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := ParseWorker("W1 lease=other renew=3s: acquire; work 20s; write data value=x; release; repeat")
	if err != nil {
		t.Fatal(err)
	}
	sc.Workers = append(sc.Workers, ws)
	return sc
}
