package labs_test

import (
	"io/fs"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"leaselab/content"
	"leaselab/engine"
	"leaselab/labs"
)

// programLab loads a program lab and its reference.
func programLab(t testing.TB, id string) (*labs.ProgramSpec, string) {
	t.Helper()
	course := labs.SharedCourse(t)
	lab := course.Lab(id)
	if lab == nil || lab.Program() == nil {
		t.Fatalf("no program lab %s", id)
	}
	ref, err := fs.ReadFile(content.FS, "labs/"+id+"/reference.star")
	if err != nil {
		t.Fatal(err)
	}
	return lab.Program(), string(ref)
}

// programLabs lists the course's program labs, in the course's order.
func programLabs(t testing.TB) []string {
	t.Helper()
	var ids []string
	for _, l := range labs.SharedCourse(t).Labs {
		if l.Program() != nil {
			ids = append(ids, l.ID)
		}
	}
	if len(ids) < 4 {
		t.Fatalf("program labs: %v", ids)
	}
	return ids
}

// acting is what the line a verdict points at must hold, for the side a
// lab's program writes: a worker's write, a storage's decision, a
// coordinator's grant.
func acting(p *labs.ProgramSpec) []string {
	switch p.Side {
	case engine.SideStorage:
		return []string{"s.accept(", "s.reject("}
	case engine.SideCoord:
		return []string{"c.grant(", "c.extend("}
	}
	return []string{"w.write("}
}

// judged is p.Judge(src, 1), judged once in the test process for each
// program a test asks about: the engine is pure, so a second judgement
// would decide the same verdict, and several tests read the verdicts of
// the same programs (a reference or a starting program takes 0.5-1.1 s
// of a core). Tests only read the verdict.
func judged(t testing.TB, p *labs.ProgramSpec, src string) *labs.ProgramVerdict {
	t.Helper()
	type result struct {
		once sync.Once
		v    *labs.ProgramVerdict
		err  error
	}
	r, _ := judgedPrograms.LoadOrStore(judgedKey{p, src}, &result{})
	res := r.(*result)
	res.once.Do(func() { res.v, res.err = p.Judge(src, 1) })
	if res.err != nil {
		t.Fatalf("judge: %v", res.err)
	}
	return res.v
}

type judgedKey struct {
	p   *labs.ProgramSpec
	src string
}

var judgedPrograms sync.Map

// Every program lab: its reference passes the random schedules and the
// bounded search; its starting program is broken by the search's
// shortest schedule, and the verdict points at a line that acts (a
// worker's write, a storage's decision).
func TestProgramLabsProveAndBreak(t *testing.T) {
	t.Parallel()
	for _, id := range programLabs(t) {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			p, ref := programLab(t, id)
			good := judged(t, p, ref)
			if good.Compile != nil {
				t.Fatalf("reference: %v", good.Compile)
			}
			if !good.Pass || good.Search == nil || good.Search.Schedules == 0 || good.Searched() {
				t.Fatalf("reference: pass %v, search %+v", good.Pass, good.Search)
			}
			bad := judged(t, p, p.Start)
			if bad.Compile != nil {
				t.Fatalf("start: %v", bad.Compile)
			}
			if bad.Pass || !bad.Searched() {
				t.Fatalf("start: pass %v, searched %v", bad.Pass, bad.Searched())
			}
			why, ok := bad.Why()
			if !ok || why.Kind != engine.KindViolation || why != bad.Search.Shortest.Harm {
				t.Fatalf("start decided by %+v (%v), want the search's harm %+v", why, ok, bad.Search.Shortest.Harm)
			}
			line := strings.Split(p.Start, "\n")[max(bad.Line, 1)-1]
			if bad.Line == 0 || !slices.ContainsFunc(acting(p), func(a string) bool { return strings.Contains(line, a) }) {
				t.Fatalf("the verdict points at line %d %q, want one of %q", bad.Line, line, acting(p))
			}
			t.Logf("%s: start broken by %d fault(s), %s at %s, line %d; random: %d of %d runs fail",
				id, len(bad.Search.Shortest.Faults), why.Reason(), why.T, bad.Line, bad.SafetyFailures+bad.LivenessFailures, bad.Runs)
		})
	}
}

// The fenced writer's starting program ignores a refusal and writes again
// with the refused token: some random schedule is decided by that write,
// which the storage refuses again (no violation: the rule decides it).
func TestFencedWriterWroteAfterRejection(t *testing.T) {
	t.Parallel()
	p, _ := programLab(t, "write-fenced-writer")
	ce := judged(t, p, p.Start).Counterexample
	if ce == nil {
		t.Fatal("no random schedule breaks the starting program")
	}
	t.Logf("random counterexample: run %d, %s %s at %s", ce.Index, ce.Why.Kind, ce.Why.Reason(), ce.Why.T)
}

// A program that acts every millisecond would take the search millions of
// schedules of thousands of calls: the search is skipped, and the random
// schedules judge it alone, in about the time they take for any program.
func TestProgramSearchCutForTimerStorm(t *testing.T) {
	t.Parallel()
	p, _ := programLab(t, "write-renewal")
	storm := "def on_start(w, ev):\n    w.acquire()\ndef on_granted(w, ev):\n    w.state['n'] = 0\n    w.set_timer('t', w.now + 1)\ndef on_timer(w, ev):\n    w.state['n'] = w.state['n'] + 1\n    if w.state['n'] < 1000:\n        w.write('data', 1)\n        w.set_timer('t', w.now + 1)\n"
	start := time.Now()
	v, err := p.Judge(storm, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !v.SearchCut || v.Search != nil || v.Runs != p.Runs() {
		t.Fatalf("cut %v, search %v, %d runs", v.SearchCut, v.Search, v.Runs)
	}
	t.Logf("judged in %s", time.Since(start))
}

// Judging a program as Submit does, on one core: the lab's 200 random
// schedules and its bounded search, for each written-worker lab's
// reference (which passes both, so every schedule is played to its end)
// and starting program. The figures go in the closing note.
//
//	go test ./labs -run '^$' -bench JudgeProgramLabs -benchtime 3x
func BenchmarkJudgeProgramLabs(b *testing.B) {
	for _, id := range programLabs(b) {
		p, ref := programLab(b, id)
		for _, c := range []struct{ name, src string }{{"reference", ref}, {"start", p.Start}} {
			b.Run(id+"/"+c.name, func(b *testing.B) {
				schedules := 0
				cpu0 := cpuTime()
				for b.Loop() {
					v, err := p.Judge(c.src, 1)
					if err != nil {
						b.Fatal(err)
					}
					schedules = v.Runs
					if v.Search != nil {
						schedules += v.Search.Schedules
					}
				}
				b.ReportMetric(float64(schedules), "schedules")
				// This machine's cores are shared: the process's CPU time says
				// what a judgement costs better than the wall clock does.
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
