package labs_test

import (
	"testing"

	"leaselab/engine"
	"leaselab/labs"
)

// The renew-policy challenge holds a policy to the tolerance the student
// states: the lesson's safe policy keeps its lease through the 1 s pause
// and 2 s partition the lab starts from, and through a 3 s pause; stated
// as 12 s, longer than the 10 s lease, the runs pause H that long and the
// policy fails on a pause longer than the 3 s that passed (H, which does
// not check before it writes, wakes and writes late).
func TestRenewPolicyStatedTolerance(t *testing.T) {
	course := labs.SharedCourse(t)
	ch := course.Lab("renew-policy").Challenge()
	safe := func(pause string) map[string]string {
		return map[string]string{
			"renew-margin": "6s", "renew-attempt": "2500ms", "renew-retry": "500ms", "renew-backoff": "1",
			"renew-give-up": "9s", "belief": "send", "stop-at-expiry": "on", "retry-past-deadline": "off",
			"survive-pause": pause,
		}
	}
	for _, tc := range []struct {
		pause string
		pass  bool
	}{{"1s", true}, {"3s", true}, {"12s", false}} {
		v, err := ch.Judge(safe(tc.pause))
		if err != nil {
			t.Fatal(err)
		}
		if v.Pass != tc.pass {
			t.Errorf("survive-pause=%s: pass=%v, want %v (%s; safety %d, liveness %d)", tc.pause, v.Pass, tc.pass, v.Policy, v.SafetyFailures, v.LivenessFailures)
			continue
		}
		if !tc.pass {
			long := false
			for _, f := range v.Counterexample.Faults {
				long = long || (f.Kind == engine.FaultPause && f.Size > 3*engine.Second)
			}
			if !long {
				t.Errorf("survive-pause=%s: the counterexample has no pause longer than 3 s: %+v", tc.pause, v.Counterexample.Faults)
			}
		}
	}
	if _, err := ch.Judge(map[string]string{"survive-pause": "1h"}); err == nil {
		t.Error("a stated pause of an hour is accepted")
	}
}

// The renew-policy challenge holds outages longer than the lease, judged on
// safety alone: a policy that retries past its deadline or does not stop at
// expiry fails there, and the safe policy the renewal lessons quote passes.
func TestRenewPolicyChallengeJudgesStopping(t *testing.T) {
	course := labs.SharedCourse(t)
	lab := course.Lab("renew-policy")
	if lab == nil || lab.Challenge() == nil {
		t.Fatal("no renew-policy challenge")
	}
	ch := lab.Challenge()
	if ch.Spec().Faults.Outage <= ch.Spec().Scenario.TTL {
		t.Fatalf("the challenge has no outage longer than its %s lease", ch.Spec().Scenario.TTL)
	}
	safe := map[string]string{
		"renew-margin": "6s", "renew-attempt": "2500ms", "renew-retry": "500ms", "renew-backoff": "1",
		"renew-give-up": "9s", "belief": "send", "stop-at-expiry": "on", "retry-past-deadline": "off",
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range safe {
			m[a] = b
		}
		m[k] = v
		return m
	}
	for _, tc := range []struct {
		name   string
		policy map[string]string
		pass   bool
	}{
		{"the safe policy of the lesson", safe, true},
		{"retry past the deadline", with("retry-past-deadline", "on"), false},
		{"no stop at expiry", with("stop-at-expiry", "off"), false},
		{"both", map[string]string{"renew-margin": "6s", "renew-attempt": "2500ms", "renew-retry": "500ms", "renew-give-up": "9s", "stop-at-expiry": "off", "retry-past-deadline": "on"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ch.Judge(tc.policy)
			if err != nil {
				t.Fatal(err)
			}
			if v.Pass != tc.pass {
				t.Fatalf("%s: pass=%v, want %v (safety failures %d, liveness %d)", v.Policy, v.Pass, tc.pass, v.SafetyFailures, v.LivenessFailures)
			}
			if tc.pass {
				return
			}
			ce := v.Counterexample
			if !ce.Safety {
				t.Fatalf("%s: the shortest failure is not a safety one: %+v", v.Policy, ce.Why)
			}
		})
	}
}
