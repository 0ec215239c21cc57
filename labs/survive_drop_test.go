package labs_test

import (
	"slices"
	"testing"

	"leaselab/engine"
)

// A program that gives up at its first failed renewal fails write-renewal
// (issue 49): it counts its deadline from when it asked and writes
// safely, but it never asks again for a renewal that got no answer, so a
// renewal lost on the way (a drop of up to 1 s, which the lab asks it to
// survive) ends its work. Before the lab's schedules held lost messages
// it passed: no survivable fault ever failed a renewal.
func TestGivingUpAtTheFirstFailedRenewalFails(t *testing.T) {
	t.Parallel()
	p, _ := programLab(t, "write-renewal")
	giveUp := `MARGIN = 3 * SECOND
def on_start(w, ev):
    w.state["sent"] = w.now
    w.acquire()

def on_denied(w, ev):
    w.set_timer("retry", w.now + SECOND)

def on_granted(w, ev):
    hold(w, ev)
    w.set_timer("work", w.now + SECOND)

def hold(w, ev):
    w.state["token"] = ev.token
    w.state["until"] = w.state["sent"] + ev.ttl
    w.set_timer("renew", w.state["until"] - MARGIN)

def on_renewed(w, ev):
    hold(w, ev)

def on_renew_failed(w, ev):
    w.stop()

def on_timer(w, ev):
    if ev.timer == "retry":
        w.state["sent"] = w.now
        w.acquire()
    elif ev.timer == "renew":
        w.state["sent"] = w.now
        w.renew(w.state["token"])
    elif ev.timer == "work":
        if w.now + SECOND // 2 < w.state["until"]:
            w.write("data", w.state["token"])
            w.set_timer("work", w.now + SECOND)
        else:
            w.stop()
`
	v := judged(t, p, giveUp)
	if v.Pass || v.SafetyFailures > 0 || v.LivenessFailures == 0 {
		t.Fatalf("pass %v, %d safety and %d liveness failures: want it to fail on keeping working alone", v.Pass, v.SafetyFailures, v.LivenessFailures)
	}
	ce := v.Counterexample
	if ce == nil || !ce.Survive || !slices.ContainsFunc(ce.Faults, func(f engine.Fault) bool { return f.Kind == engine.FaultDrop }) {
		t.Fatalf("decided by %+v: want a schedule it had to survive, with messages lost", ce)
	}
}
