package labs_test

import (
	"io/fs"
	"strings"
	"testing"

	"leaselab/content"
	"leaselab/engine"
	"leaselab/labs"
)

func writeRenewal(t *testing.T) (*labs.ProgramSpec, string) {
	t.Helper()
	course := labs.SharedCourse(t)
	lab := course.Lab("write-renewal")
	if lab == nil || lab.Program() == nil {
		t.Fatal("no write-renewal program lab")
	}
	ref, err := fs.ReadFile(content.FS, "labs/write-renewal/reference.star")
	if err != nil {
		t.Fatal(err)
	}
	return lab.Program(), string(ref)
}

// The reference renewal loop passes every schedule and keeps working
// through the ones it must survive; the starting program is broken, and
// the verdict points at its line that wrote too late.
func TestWriteRenewalReferenceAndStart(t *testing.T) {
	t.Parallel()
	p, ref := writeRenewal(t)
	good := judged(t, p, ref)
	if good.Compile != nil {
		t.Fatalf("reference: %v", good.Compile)
	}
	if !good.Pass || good.Runs != p.Runs() || good.MustSurvive == 0 {
		t.Fatalf("reference: pass %v, %d runs, %d to survive, counterexample %+v", good.Pass, good.Runs, good.MustSurvive, good.Counterexample)
	}
	bad := judged(t, p, p.Start)
	if bad.Compile != nil {
		t.Fatalf("start: %v", bad.Compile)
	}
	if bad.Pass || !bad.Counterexample.Safety {
		t.Fatalf("start: pass %v, counterexample %+v", bad.Pass, bad.Counterexample)
	}
	why := bad.Counterexample.Why
	if why.Kind != engine.KindViolation || (why.Reason() != engine.ViolationActedAfterExpiry && why.Reason() != engine.ViolationStaleWrite) {
		t.Fatalf("start fails on %s %s, want a write without the lease", why.Kind, why.Reason())
	}
	line := strings.Split(p.Start, "\n")[bad.Line-1]
	if !strings.Contains(line, "w.write(") {
		t.Fatalf("the verdict points at line %d %q, want the write", bad.Line, line)
	}
}

// A program that fails at run time fails the lab with its line, and one
// that does not compile gets a verdict, not an error.
func TestWriteRenewalProgramErrors(t *testing.T) {
	p, _ := writeRenewal(t)
	v, err := p.Judge("def on_start(w, ev):\n    w.acquire(\n", 1)
	if err != nil || v.Compile == nil {
		t.Fatalf("syntax error: %v %+v", err, v)
	}
	v, err = p.Judge("def on_start(w, ev):\n    w.acquire()\n\ndef on_granted(w, ev):\n    w.write(\"data\", w.state[\"token\"])\n", 1)
	if err != nil || v.Compile != nil || v.Pass || v.Fault == nil {
		t.Fatalf("runtime error: %v %+v", err, v)
	}
	if v.Line != 5 {
		t.Fatalf("runtime error at line %d, want 5", v.Line)
	}
}

// Judging a program against the lab's 200 schedules, on one core, as the
// server does. The figure goes in the closing note.
func BenchmarkJudgeProgram(b *testing.B) {
	course, err := labs.Load(content.FS)
	if err != nil {
		b.Fatal(err)
	}
	p := course.Lab("write-renewal").Program()
	ref, _ := fs.ReadFile(content.FS, "labs/write-renewal/reference.star")
	for b.Loop() {
		if _, err := p.Judge(string(ref), 1); err != nil {
			b.Fatal(err)
		}
	}
}
