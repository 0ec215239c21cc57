package labs

import (
	"errors"
	"io/fs"
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"leaselab/content"
	"leaselab/engine"
)

// courseCopy copies the embedded course into a map that a test may change.
func courseCopy(t testing.TB) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(content.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(content.FS, p)
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// loadCopy is Load of a copy of the course that a test changed: the
// design challenge's and the measured exercise's verdicts, which a load
// plays in the engine, are shared with every other copy whose lab.yaml of
// that lab is the same (Options.judged).
func loadCopy(m fs.FS) (*Course, error) { return LoadWith(m, Options{judged: &copiesJudged}) }

var copiesJudged judgedLabs

// sharedCourse is the embedded course, loaded once for the tests that
// only read it: a load runs every question and goal in the engine.
// TestContentLoads loads it itself.
var sharedCourse struct {
	once sync.Once
	c    *Course
	err  error
}

// SharedCourse is Load(content.FS) for this package's tests, the
// external ones (package labs_test) too; it is loaded once, and a Course
// is only read once loaded.
func SharedCourse(t testing.TB) *Course {
	t.Helper()
	sharedCourse.once.Do(func() { sharedCourse.c, sharedCourse.err = Load(content.FS) })
	if sharedCourse.err != nil {
		t.Fatalf("the embedded course: %v", sharedCourse.err)
	}
	return sharedCourse.c
}

func TestContentLoads(t *testing.T) {
	c, err := Load(content.FS)
	if err != nil {
		t.Fatalf("the embedded course has errors:\n%v", err)
	}
	for _, p := range c.Problems {
		t.Errorf("warning in the embedded course: %s", p)
	}
	if got := c.Lesson("leases"); got == nil || strings.Join(got.Labs, ",") != "monthly-report,lock-vs-lease,leader-failover,flapping,write-coordinator-tokens" {
		t.Fatalf("lesson leases links %v, want monthly-report, lock-vs-lease, leader-failover, flapping and write-coordinator-tokens", got)
	}
	for _, l := range c.Labs {
		if l.Lesson == "" || c.Lesson(l.Lesson) == nil {
			t.Errorf("lab %s has no lesson", l.ID)
		}
		for _, lang := range Langs {
			if l.Title(lang) == l.ID || l.HTML(lang) == "" {
				t.Errorf("lab %s has no %s title or prose", l.ID, lang)
			}
		}
	}
	if c.Lab("w1-w2").Title("id") == c.Lab("w1-w2").Title("en") {
		t.Errorf("the English title is the Indonesian one")
	}
	if h := string(c.Lesson("leases").HTML("en")); !strings.Contains(h, `href="/en/labs/monthly-report"`) {
		t.Errorf("lesson links are not rewritten to lab URLs:\n%s", h)
	}
}

// TestW1W2Answers checks each question of the first seed's exercise
// through the API: which choice the engine's run makes true, and that the
// verdict quotes the events that decided it.
func TestW1W2Answers(t *testing.T) {
	c := SharedCourse(t)
	lab := c.Lab("w1-w2")
	tests := []struct {
		question, right string
		evidence        string // an English evidence line that must be quoted
	}{
		{"storage-checks", "rejected", "the storage rejects file from W1 with token 7 (stale token: 7 < 8)"},
		{"storage-blind", "overwrites", "the storage accepts file from W1 with token 7 (highest: 8)"},
		{"check-first", "writes-anyway", "WARNING: W1 acted with token 7 after its lease expired at the coordinator"},
	}
	for _, tt := range tests {
		q := lab.Question(tt.question)
		if q == nil {
			t.Fatalf("no question %s", tt.question)
		}
		for _, ch := range q.Choices {
			v, err := lab.CheckQuestion(tt.question, ch.ID, "en")
			if err != nil {
				t.Fatalf("%s/%s: %v", tt.question, ch.ID, err)
			}
			if v.Right != tt.right || v.Correct != (ch.ID == tt.right) {
				t.Errorf("%s/%s: right=%s correct=%v, want right=%s", tt.question, ch.ID, v.Right, v.Correct, tt.right)
			}
			var lines []string
			for _, e := range v.Evidence {
				lines = append(lines, e.Text)
				if v.World.Events()[e.Index] != e.Event {
					t.Errorf("%s: evidence #%d is not the run's event", tt.question, e.Index)
				}
			}
			if !strings.Contains(strings.Join(lines, "\n"), tt.evidence) {
				t.Errorf("%s: evidence\n  %s\nlacks %q", tt.question, strings.Join(lines, "\n  "), tt.evidence)
			}
		}
		id, _ := lab.CheckQuestion(tt.question, tt.right, "id")
		en, _ := lab.CheckQuestion(tt.question, tt.right, "en")
		if !strings.HasPrefix(id.Summary, "Benar") || !strings.HasPrefix(en.Summary, "Right") {
			t.Errorf("%s: summaries %q / %q are not in the student's language", tt.question, id.Summary, en.Summary)
		}
		if x := string(q.Explanation("en")); !strings.Contains(x, strings.ReplaceAll(tt.evidence, "<", "&lt;")) {
			t.Errorf("%s: the explanation does not quote the engine's evidence:\n%s", tt.question, x)
		}
	}
	if _, err := lab.CheckQuestion("storage-checks", "nope", "en"); err == nil {
		t.Error("an unknown choice is not an error")
	}
}

// TestVariantDecides changes a question's variant and sees another choice
// become right: no answer is stored, the engine decides.
func TestVariantDecides(t *testing.T) {
	for _, tt := range []struct {
		lab, file, old, new, question, right string
	}{
		{"w1-w2", "labs/w1-w2/lab.yaml", "    variant:\n      storage: fencing\n", "    variant:\n      storage: none\n", "storage-checks", "overwrites"},
		{"w1-w2", "labs/w1-w2/lab.yaml", "    variant:\n      storage: none\n    run:", "    variant:\n      storage: fencing\n    run:", "storage-blind", "rejected"},
		{"monthly-report", "labs/monthly-report/lab.yaml", "    variant:\n      storage: fencing\n", "    variant:\n      storage: none\n", "with-fencing", "twice"},
	} {
		m := courseCopy(t)
		replaceIn(t, m, tt.file, tt.old, tt.new)
		// The pinned answer no longer holds: check says so, naming both.
		_, err := loadCopy(m)
		if err == nil || !strings.Contains(err.Error(), "question "+tt.question+": answer: ") || !strings.Contains(err.Error(), "choice "+tt.right+" holds") {
			t.Fatalf("%s: a variant that makes another choice hold is not refused against its pin: %v", tt.question, err)
		}
		// With the pin moved, the engine's run decides for the new choice.
		pin := regexp.MustCompile(`(- id: ` + tt.question + `\n(?:\s*#.*\n)*\s+answer: )\S+`)
		m[tt.file] = &fstest.MapFile{Data: pin.ReplaceAll(m[tt.file].Data, []byte("${1}"+tt.right))}
		c, err := loadCopy(m)
		if err != nil {
			t.Fatalf("%s: %v", tt.question, err)
		}
		v, err := c.Lab(tt.lab).CheckQuestion(tt.question, tt.right, "en")
		if err != nil {
			t.Fatal(err)
		}
		if !v.Correct || v.Right != tt.right {
			t.Errorf("%s with the variant changed: right=%s, want %s", tt.question, v.Right, tt.right)
		}
	}
}

func replaceIn(t testing.TB, m fstest.MapFS, file, old, new string) {
	t.Helper()
	f := m[file]
	if f == nil {
		t.Fatalf("no file %s", file)
	}
	s := string(f.Data)
	if !strings.Contains(s, old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	m[file] = &fstest.MapFile{Data: []byte(strings.Replace(s, old, new, 1))}
}

func TestGoal(t *testing.T) {
	c := SharedCourse(t)
	lab := c.Lab("monthly-report")
	w, err := lab.NewWorld(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"until 20s", "freeze W1 for=40s", "until 90s"} {
		if err := w.Do(cmd); err != nil {
			t.Fatal(err)
		}
	}
	v, err := lab.CheckGoal("reject-stale", w, "en")
	if err != nil || v.Correct {
		t.Fatalf("without fencing the goal is reached: %+v %v", v, err)
	}
	if err := w.Do("reset"); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"fencing on", "until 20s", "freeze W1 for=40s", "until 61s"} {
		if err := w.Do(cmd); err != nil {
			t.Fatal(err)
		}
	}
	v, err = lab.CheckGoal("reject-stale", w, "id")
	if err != nil || !v.Correct || len(v.Evidence) == 0 {
		t.Fatalf("with fencing the goal is not reached: %+v %v", v, err)
	}
	var texts []string
	for _, e := range v.Evidence {
		texts = append(texts, e.Text)
	}
	if !strings.Contains(strings.Join(texts, "\n"), "penyimpanan menolak laporan dari W1 dengan token 33 (token usang: 33 < 34)") {
		t.Errorf("evidence %q", texts)
	}
}

// TestPredicates evaluates predicates on the monthly-report story without
// and with fencing.
func TestPredicates(t *testing.T) {
	run := func(storage string) *engine.World {
		sc := engine.Scenario{TTL: 30 * engine.Second, FirstToken: 33}
		if err := sc.Set("storage", storage); err != nil {
			t.Fatal(err)
		}
		for _, l := range []string{"W1: acquire; work 25s; send report; release", "W2 start=1s: acquire; work 25s; send report; release"} {
			ws, err := engine.ParseWorker(l)
			if err != nil {
				t.Fatal(err)
			}
			sc.Workers = append(sc.Workers, ws)
		}
		w, err := engine.New(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{"until 20s", "freeze W1 for=40s", "until 61s"} {
			if err := w.Do(c); err != nil {
				t.Fatal(err)
			}
		}
		return w
	}
	none, fencing := run("none"), run("fencing")
	tests := []struct {
		pred          string
		none, fencing bool
	}{
		{"the report is sent twice", true, false},
		{"the report is sent once", false, true},
		{"the report is sent at least once", true, true},
		{"the report is rejected once", false, true},
		{"the report is sent 2 times", true, false},
		{"W1's send of report with token 33 is rejected", false, true},
		{"W1's send with token 33 is rejected because stale-token", false, true},
		{"W1's write is rejected because duplicate", false, false},
		{"W1's write is accepted after W2's", true, false},
		{"W1's write is accepted before W2's", false, false},
		{"W2's write is accepted before W1's write is rejected", false, true},
		{"W1 acts after its lease expired", true, true},
		{"W1 sends report with token 33", true, true},
		{"W1 writes", false, false},
		{"W2 acquires the lease with token 34", true, true},
		{"W2 gets token 34", true, true},
		{"W1 gets token 35", false, true},
		{"W1 loses the lease because rejected", false, true},
		{"W1's lease expires with token 33", true, true},
		{"violation double-effect by W1", true, false},
		{"violation stale-write", true, false},
		{"no violation split-brain", true, true},
		{"no violations", false, false},
		{"not (the report is sent twice or W1 gets token 35)", false, false},
		{"W2 gets token 34 and not violation double-effect", false, true},
		{"The report is sent twice", true, false},
		{"W1’s write is accepted", true, false},
		{"W2 acquires the lease within 1s after W1's lease expires", true, true},
		{"W2's write is accepted within 1s after W1's lease expires", false, false},
		{"W2's send is accepted within 30s after W1's lease expires", true, true},
		{"W1's lease expires within 30s before W2's send is accepted", true, true},
		{"W1 crashes", false, false},
	}
	for _, tt := range tests {
		p, err := CompilePredicate(tt.pred, []string{"W1", "W2"})
		if err != nil {
			t.Errorf("%q: %v", tt.pred, err)
			continue
		}
		if got, _ := p.Eval(none.Events(), none.Names()); got != tt.none {
			t.Errorf("%q without fencing = %v, want %v", tt.pred, got, tt.none)
		}
		if got, ev := p.Eval(fencing.Events(), fencing.Names()); got != tt.fencing {
			t.Errorf("%q with fencing = %v, want %v", tt.pred, got, tt.fencing)
		} else if got && len(ev) == 0 && !strings.HasPrefix(tt.pred, "no") && !strings.Contains(tt.pred, "not") {
			t.Errorf("%q holds with no evidence", tt.pred)
		}
	}
}

func TestPredicateErrors(t *testing.T) {
	tests := []struct {
		pred string
		at   string // the text the error points at
		msg  string
	}{
		{"W3's write is rejected", "W3", "unknown worker \"W3\""},
		{"W1's write is rejectd", "rejectd", "expected \"accepted\" or \"rejected\""},
		{"W1's write with token seven is rejected", "seven", "expected a number"},
		{"W1's write is rejected because tired", "tired", "unknown reason"},
		{"violation double-trouble", "double-trouble", "unknown violation"},
		{"the report is sent thrice", "thrice", "how often"},
		{"(W1 writes", "", "expected \")\""},
		{"W1 writes and", "", "expected a worker name"},
		{"W1 flies", "flies", "after W1 expected"},
		{"W1 writes file W2", "W2", "unexpected \"W2\""},
		{"", "", "empty predicate"},
		{"W1's' write", "'", "apostrophe"},
		{"W1 writes within 5s", "", "expected \"after\" or \"before\""},
		{"W1 writes within soon after W2 writes", "soon", "expected a duration"},
	}
	for _, tt := range tests {
		_, err := CompilePredicate(tt.pred, []string{"W1", "W2"})
		var pe *PredicateError
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v is not a PredicateError", tt.pred, err)
			continue
		}
		want := len(tt.pred)
		if tt.at != "" {
			want = strings.LastIndex(tt.pred, tt.at)
		}
		if pe.Offset != want || !strings.Contains(pe.Msg, tt.msg) {
			t.Errorf("%q: error at %d %q, want at %d containing %q", tt.pred, pe.Offset, pe.Msg, want, tt.msg)
		}
	}
}

func TestDescribeEventCoversEveryKind(t *testing.T) {
	names := engine.Names{Nodes: []string{"W1", "W2"}, Keys: []string{"", "file"}}
	for k := engine.Kind(1); k.String() != "kind("+itoa(int(k))+")"; k++ {
		f := engine.EventFields{Kind: k, Node: 0, Peer: 1, Token: 7, Key: 1, Ref: -1, Ref2: -1}
		if k == engine.KindViolation {
			f.Reason = engine.ViolationStaleWrite
		}
		e := f.Event()
		id, en := DescribeEvent(e, names, "id"), DescribeEvent(e, names, "en")
		if id == "" || en == "" || (id == en && k != engine.KindStart) || id == names.Describe(e) {
			t.Errorf("%s: id %q, en %q", k, id, en)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestMain runs the tests with the collector at GOGC 400 unless the
// environment sets GOGC: most of this package's CPU is searches and
// judgements, whose heap is a few MB of short-lived worlds, and at the
// default the collector ran every few MB and took a tenth of it (as
// leaselab check does for its searches, cmd/leaselab/check.go).
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}

// loadCopy's shared verdicts are each lab file's own: a copy whose
// measured exercise cannot run (a pause that leaves no margin in the
// lease) says so after a copy that runs was loaded, and before one again.
func TestLoadCopySharesOnlyTheSameFile(t *testing.T) {
	t.Parallel()
	const file = "labs/p99-margin/lab.yaml"
	starting := func(m fs.FS) bool {
		t.Helper()
		c, err := loadCopy(m)
		var ps Problems
		if !errors.As(err, &ps) {
			ps = c.Problems
		}
		for _, p := range ps {
			if p.File == file && strings.Contains(p.Msg, "measured: the starting figures") {
				return true
			}
		}
		return false
	}
	broken := courseCopy(t)
	replaceIn(t, broken, file, "    pause: 800ms\n", "    pause: 9s\n")
	for i, m := range []fstest.MapFS{courseCopy(t), broken, courseCopy(t)} {
		if got, want := starting(m), i == 1; got != want {
			t.Errorf("load %d: the starting figures' problem %v, want %v", i, got, want)
		}
	}
}
