package labs_test

import (
	"slices"
	"strings"
	"testing"

	"leaselab/engine"
)

// The coordinator lab's search crashes and restarts the coordinator
// (issue 49): a program that keeps the lease in c.stable but its token
// counter only in c.state (the reference with that one change) hands out
// a token again after the restart, and the search's shortest schedule,
// with the replica down, breaks it (token-reused); the reference, which
// keeps the counter in c.stable, passes (TestProgramLabsProveAndBreak).
func TestCoordinatorCounterInMemoryBroken(t *testing.T) {
	t.Parallel()
	p, ref := programLab(t, "write-coordinator-tokens")
	mem := strings.NewReplacer(`token = c.stable.get("next", 1)`, `token = c.state.get("next", 1)`, `c.stable["next"] = token + 1`, `c.state["next"] = token + 1`).Replace(ref)
	if strings.Count(mem, `c.state["next"]`) != 1 || strings.Contains(mem, `c.stable["next"]`) {
		t.Fatal("the reference changed: this test's edit no longer applies")
	}
	v := judged(t, p, mem)
	if v.Pass || !v.Searched() {
		t.Fatalf("a counter in memory: pass %v, searched %v", v.Pass, v.Searched())
	}
	sh := v.Search.Shortest
	if !slices.ContainsFunc(sh.Faults, func(f engine.SearchFault) bool { return f.Kind == engine.FaultReplica }) {
		t.Errorf("the shortest schedule %+v has no crash of the coordinator's replica", sh.Faults)
	}
	if sh.Harm.Reason() != engine.ViolationTokenReused {
		t.Errorf("decided by %s, want token-reused", sh.Harm.Reason())
	}
}
