package main

import (
	"encoding/json"
	"strings"
	"testing"
)

var w1w2Freeze = []string{"run", "w1-w2", "--do", "until 4s", "--do", "freeze W1 for=25s", "--do", "until 30s"}

// TestRunVs forks W1/W2 at 4 s with fencing switched on in B: the first
// difference is W1's stale write at 29 s, accepted in A, rejected in B.
func TestRunVs(t *testing.T) {
	code, out, errs := runCLI(append(w1w2Freeze, "--vs", "fencing on", "--vs-at", "4s", "--lang", "en")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		// With --lang, both runs' lines are sentences, as run --lang prints a trace.
		"A #38      29s  the storage accepts file from W1 with token 7 (highest: 8)",
		"B #39      29s  the storage rejects file from W1 with token 7 (stale token: 7 < 8)",
		"At 29s the runs part: in A, the storage accepts file from W1 with token 7",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCLI(append(w1w2Freeze, "--vs", "fencing on", "--vs-at", "4s", "--format", "json")...)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var got struct {
		A, B struct {
			Events []struct {
				Kind, Actor, Peer, Outcome string
				T                          int64
			}
		}
		First *struct{ A, B int } `json:"first_difference"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.First == nil {
		t.Fatal("no first difference")
	}
	a, b := got.A.Events[got.First.A], got.B.Events[got.First.B]
	if a.Outcome != "accepted" || b.Outcome != "rejected" || a.Peer != "W1" || a.T != 29000 || b.T != 29000 {
		t.Errorf("first difference A %+v, B %+v", a, b)
	}
	code, out, errs = runCLI(append(w1w2Freeze, "--vs", "fencing on", "--vs-at", "4s", "--format", "svg")...)
	if code != 0 || !strings.HasPrefix(out, "<?xml") || strings.Count(out, `class="diagram"`) != 2 {
		t.Errorf("svg: exit %d, %d diagrams: %s", code, strings.Count(out, `class="diagram"`), errs)
	}
}

// TestRunVsLabels: both runs are labelled in the chosen language, in text
// and in the SVG.
func TestRunVsLabels(t *testing.T) {
	for lang, want := range map[string][]string{
		"en": {"A: until 4s; freeze W1 for=25s; until 30s\n", "B: the same, with \"fencing on\" from 4s\n"},
		"id": {"A: until 4s; freeze W1 for=25s; until 30s\n", "B: sama, dengan \"fencing on\" mulai detik ke-4\n"},
	} {
		code, out, errs := runCLI(append(w1w2Freeze, "--vs", "fencing on", "--vs-at", "4s", "--lang", lang)...)
		for _, w := range want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("--lang %s: exit %d, output lacks %q:\n%s%s", lang, code, w, out, errs)
			}
		}
		_, svg, _ := runCLI(append(w1w2Freeze, "--vs", "fencing on", "--vs-at", "4s", "--lang", lang, "--format", "svg")...)
		label := map[string]string{"en": "B: fencing on from 4s", "id": "B: fencing on mulai detik ke-4"}[lang]
		if !strings.Contains(svg, label) {
			t.Errorf("--lang %s: the SVG lacks the label %q", lang, label)
		}
	}
	if _, out, _ := runCLI("run", "w1-w2", "--vs", "fencing on", "--lang", "id"); !strings.Contains(out, "A: lab seperti saat mulai\n") {
		t.Errorf("no commands, in Indonesian:\n%s", out)
	}
}

func TestRunVsRefuses(t *testing.T) {
	for _, args := range [][]string{
		{"run", "w1-w2", "--vs-at", "4s"},
		{"run", "w1-w2", "--vs", "advance 3s"},
		{"run", "w1-w2", "--vs", "fly away"},
		{"run", "w1-w2", "--vs", "fencing on", "--vs-at", "soon"},
		{"run", "w1-w2", "--vs", "fencing on", "--question", "storage-checks"},
	} {
		if code, _, errs := runCLI(args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, %q; want 2 with a reason", args, code, errs)
		}
	}
	// A fork later than the run reaches is an error, not a panic.
	if code, _, errs := runCLI("run", "w1-w2", "--do", "until 4s", "--vs", "fencing on", "--vs-at", "9s"); code != 1 || !strings.Contains(errs, "has not reached 9s") {
		t.Errorf("fork in the future: exit %d, %q", code, errs)
	}
}
