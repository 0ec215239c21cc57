package main

import (
	"bytes"
	"encoding/json"
	"leaselab/labs"
	"leaselab/labsession"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunText(t *testing.T) {
	code, out, errs := runCLI("run", "monthly-report", "--do", "until 20s", "--do", "freeze W1 for=40s", "--do", "until 90s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"#13      30s  coord   expire W1 token=33\n",
		"#38      60s  storage accept report from W1 token=33 highest=34\n",
		"#40      60s  -       VIOLATION double-effect W1 token=33 proof=#38,#26\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
}

// TestRunJSON checks the W1/W2 exercise's first question through the CLI
// as JSON lines: W1's write with token 7 is rejected.
func TestRunJSON(t *testing.T) {
	code, out, errs := runCLI("run", "w1-w2", "--question", "storage-checks", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rejected bool
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i, err, line)
		}
		for _, k := range []string{"t", "kind", "actor"} {
			if _, ok := e[k]; !ok {
				t.Fatalf("line %d lacks %q: %s", i, k, line)
			}
		}
		if e["kind"] == "reject" && e["peer"] == "W1" && e["token"] == 7.0 && e["outcome"] == "rejected" && e["reason"] == "stale-token" && e["t"] == 29000.0 {
			rejected = true
		}
	}
	if !rejected {
		t.Errorf("no rejected write of W1 with token 7 at 29s in:\n%s", out)
	}
}

func TestRunFileAndSentences(t *testing.T) {
	file := filepath.Join("..", "..", "content", "labs", "w1-w2", "lab.yaml")
	code, out, errs := runCLI("run", file, "--lang", "en", "--seed", "3")
	if code != 0 || !strings.Contains(out, "the coordinator grants W1 the lease with token 7 until 15s") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	// Flags first, the directory last.
	code, out, _ = runCLI("run", "--lang", "id", filepath.Dir(file))
	if code != 0 || !strings.Contains(out, "koordinator memberi W1 lease dengan token 7 sampai detik ke-15") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func TestRunSVG(t *testing.T) {
	code, out, errs := runCLI("run", "w1-w2", "--question", "storage-checks", "--format", "svg", "--lang", "en")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "<svg") || !strings.Contains(out, "</svg>") {
		t.Errorf("not an SVG document:\n%.400s", out)
	}
}

func TestRunErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", "w1-w2", "--format", "xml"}, 2, `--format="xml": want one of text, json, svg, chart`},
		{[]string{"run", "no-such-lab"}, 1, "no lab or file \"no-such-lab\" (labs: monthly-report, lock-vs-lease, "},
		{[]string{"run", "w1-w2", "--do", "freeze W9"}, 1, "no worker called \"W9\""},
		// A lab's run is its live session: what the page does not offer,
		// the CLI refuses too.
		{[]string{"run", "w1-w2", "--do", "freeze W1 for=1s"}, 1, "this lab does not offer a freeze of 1s"},
		{[]string{"run", "w1-w2", "--do", "dance"}, 1, "unknown command"},
		{[]string{"run", "w1-w2", "--question", "nope"}, 1, "has no question \"nope\""},
		{[]string{"run"}, 2, "which lab?"},
		{[]string{"run", "w1-w2", "--seed", "x"}, 2, `--seed="x": want a whole number`},
		{[]string{"run", "w1-w2", "--lang", "fr"}, 2, "want one of id, en"},
	}
	for _, tt := range tests {
		code, _, errs := runCLI(tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.msg) {
			t.Errorf("%v: exit %d, want %d; stderr:\n%s", tt.args, code, tt.code, errs)
		}
	}
}

// A lab's run is a lab session, as the live page holds it: a reset in a
// lab with setup: applies the setup again (the CLI once dropped it), and
// the trace is the session's, event for event.
func TestRunIsTheLabSession(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "..", "content", "labs", "w1-w2", "lab.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("horizon: 40s\n"), []byte("horizon: 40s\nsetup:\n  - fencing on\n"), 1)
	file := filepath.Join(dir, "lab.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	lab, err := labs.LoadLabFile(file, data)
	if err != nil {
		t.Fatal(err)
	}
	dos := []string{"until 4s", "freeze W1 for=25s", "until 30s", "reset", "until 4s", "freeze W1 for=25s", "until 30s"}
	sess, err := labsession.New(lab, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range dos {
		if err := sess.Do(c); err != nil {
			t.Fatal(err)
		}
	}
	var want bytes.Buffer
	if err := printTrace(&want, sess.World(), "text", ""); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", file}
	for _, c := range dos {
		args = append(args, "--do", c)
	}
	code, out, errs := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out != want.String() {
		t.Errorf("the CLI's trace is not the live session's:\n%s\nwant:\n%s", out, want.String())
	}
	// The log shown starts at the reset, and the setup is applied again
	// after it.
	if !strings.HasPrefix(out, "#0        0s  -       reset\n#1        0s  storage storage mode=fencing\n") {
		t.Errorf("the setup is not applied after the reset:\n%s", out)
	}
}
