package engine

import (
	"strings"
	"testing"
)

// scenarioOf is a scenario set from options written key=value, with
// workers written as their lines.
func scenarioOf(t testing.TB, opts []string, workers ...string) Scenario {
	t.Helper()
	var sc Scenario
	for _, kv := range opts {
		k, v, _ := strings.Cut(kv, "=")
		if err := sc.Set(k, v); err != nil {
			t.Fatalf("%s: %v", kv, err)
		}
	}
	for _, line := range workers {
		ws, err := ParseWorker(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		sc.Workers = append(sc.Workers, ws)
	}
	return sc
}

// worldOf is a new world of scenarioOf(opts, workers...).
func worldOf(t testing.TB, opts []string, workers ...string) *World {
	t.Helper()
	w, err := New(scenarioOf(t, opts, workers...))
	if err != nil {
		t.Fatal(err)
	}
	return w
}
