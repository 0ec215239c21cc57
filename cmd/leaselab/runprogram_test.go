package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"leaselab/content"
)

// leaselab run LAB --program FILE --judge: the starting program of
// write-idempotency-key fails with the line that accepted the same
// effect twice, in Indonesian; the reference passes; a program with a
// syntax error is refused with its line, before anything runs. The lab
// is the course's cheapest to judge (its reference and start take 30 ms
// of CPU; write-renewal's, 0.9 s, are leaselab check's in
// TestCheckContent).
func TestRunJudgesAProgram(t *testing.T) {
	t.Parallel()
	const lab = "write-idempotency-key"
	dir := filepath.Join("..", "..", "content", "labs", lab)
	var out, errb bytes.Buffer
	if code := runCmd([]string{lab, "--program", filepath.Join(dir, "start.star"), "--judge"}, &out, &errb); code != 1 {
		t.Fatalf("start: exit %d, %s %s", code, out.String(), errb.String())
	}
	if s := out.String(); !strings.Contains(s, "Belum lulus") || !strings.Contains(s, "Kode yang bertindak: baris 13.") || !strings.Contains(s, "s.accept()") {
		t.Fatalf("start's verdict:\n%s", s)
	}
	out.Reset()
	if code := runCmd([]string{lab, "--program", filepath.Join(dir, "reference.star"), "--judge", "--lang", "en"}, &out, &errb); code != 0 {
		t.Fatalf("reference: exit %d, %s %s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "Passed: 200 schedules") {
		t.Fatalf("reference's verdict: %s", out.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.star")
	if err := os.WriteFile(bad, []byte("def on_start(w, ev):\n    w.acquire(\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := runCmd([]string{lab, "--program", bad}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "baris 3, kolom 1") {
		t.Fatalf("syntax error: exit %d, %q", code, errb.String())
	}
}

// leaselab new lab ID --kind program writes a program lab that check
// passes as it stands: its reference proved, its start broken.
func TestNewProgramLabPassesCheck(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "mine")
	for _, args := range [][]string{
		{"new", "lesson", "intro", dir},
		{"new", "lab", "my-loop", "--kind", "program", dir},
	} {
		if code, _, errs := runCLI(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	for _, f := range []string{"lab.yaml", "start.star", "reference.star", "id.md", "en.md"} {
		if _, err := os.Stat(filepath.Join(dir, "labs", "my-loop", f)); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runCLI("check", dir)
	if code != 0 || errs != "" || !strings.Contains(out, "ok: 1 lessons, 1 labs") {
		t.Errorf("check of the new course: exit %d\n%s%s", code, out, errs)
	}
	// No course lab's solution, or its comments, goes into a new lab.
	ref, _ := os.ReadFile(filepath.Join(dir, "labs", "my-loop", "reference.star"))
	for _, id := range []string{"write-renewal", "write-fenced-writer", "write-one-loop"} {
		course, _ := fs.ReadFile(content.FS, "labs/"+id+"/reference.star")
		if len(course) == 0 || string(course) == string(ref) {
			t.Errorf("the new lab's reference is %s's", id)
		}
	}
	if y, _ := os.ReadFile(filepath.Join(dir, "labs", "my-loop", "lab.yaml")); strings.Contains(string(y), "Issue") {
		t.Errorf("the new lab.yaml keeps a course lab's internal comment:\n%s", y)
	}
	// A broken reference: check says so and how to replay the schedule
	// that breaks it, and that command shows the harm.
	labDir := filepath.Join(dir, "labs", "my-loop")
	start, _ := os.ReadFile(filepath.Join(labDir, "start.star"))
	if err := os.WriteFile(filepath.Join(labDir, "reference.star"), start, 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, errs = runCLI("check", dir)
	m := regexp.MustCompile(`replay it: leaselab run (\S+) --program (\S+) --schedule (\d+)`).FindStringSubmatch(out + errs)
	if m == nil {
		t.Fatalf("check of a broken reference names no replay:\n%s%s", out, errs)
	}
	code, out, errs = runCLI("run", filepath.Join(dir, m[1]), "--program", filepath.Join(dir, m[2]), "--schedule", m[3], "--lang", "en")
	if code != 0 || !strings.Contains(out, "VIOLATION") {
		t.Errorf("the replay shows no harm: exit %d\n%s%s", code, out, errs)
	}
	if code, _, _ := runCLI("new", "lesson", "x", "--kind", "program", dir); code != 2 {
		t.Errorf("--kind with a lesson: exit %d, want a usage error", code)
	}
}
