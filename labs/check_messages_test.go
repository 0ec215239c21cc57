package labs

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// lineOf is the 1-based line of the first s in a file of m.
func lineOf(t *testing.T, m fstest.MapFS, file, s string) int {
	t.Helper()
	src := string(m[file].Data)
	i := strings.Index(src, s)
	if i < 0 {
		t.Fatalf("%q not in %s", s, file)
	}
	return strings.Count(src[:i], "\n") + 1
}

// problemIndex is the index in ps of the first problem in file at line
// whose message holds msg, or -1.
func problemIndex(ps Problems, file string, line int, msg string) int {
	return slices.IndexFunc(ps, func(p Problem) bool {
		return p.File == file && (line == 0 || p.Line == line) && strings.Contains(p.Msg, msg)
	})
}

func loadProblems(t *testing.T, m fstest.MapFS, wantErr bool) Problems {
	t.Helper()
	c, err := loadCopy(m)
	var ps Problems
	switch {
	case wantErr && !errors.As(err, &ps):
		t.Fatalf("Load = %v, want errors", err)
	case !wantErr && err != nil:
		t.Fatalf("Load: %v", err)
	case !wantErr:
		ps = c.Problems
	}
	return ps
}

// TestCheckStripsBOM: a UTF-8 byte order mark, as some editors save, is
// not part of any file's text.
func TestCheckStripsBOM(t *testing.T) {
	m := courseCopy(t)
	for _, f := range []string{"course.yaml", "labs/w1-w2/lab.yaml", "labs/w1-w2/id.md", "labs/w1-w2/en.md", "lessons/leases/id.md"} {
		m[f] = &fstest.MapFile{Data: append([]byte("\ufeff"), m[f].Data...)}
	}
	if ps := loadProblems(t, m, false); len(ps) > 0 {
		t.Errorf("files with a BOM: %v", ps)
	}
	if _, err := LoadLabFile("lab.yaml", m["labs/w1-w2/lab.yaml"].Data); err != nil {
		t.Errorf("LoadLabFile with a BOM: %v", err)
	}
}

// TestCheckNamesMisspeltHeadings: a heading that is nearly a keyword is
// named, with the keyword meant, and what it would have held missing is
// listed after it, not before.
func TestCheckNamesMisspeltHeadings(t *testing.T) {
	t.Parallel()
	const id, en = "labs/w1-w2/id.md", "labs/w1-w2/en.md"
	for _, tc := range []struct {
		file, old, new string
		cause          string // message at the new heading's line
		knockOn        string // a message that follows from it, or ""
	}{
		{id, "### Pilihan silent\n", "### Piihan silent\n", `unknown heading "### Piihan silent": did you mean "### Pilihan silent" (Pilihan/Choice)?`, `no text for choice silent (add "### Pilihan silent")`},
		{en, "### Explanation\nThe storage", "### Explantion\nThe storage", `did you mean "### Explanation" (Pembahasan/Explanation)?`, `question storage-checks has no "### Explanation"`},
		// A misspelt hint in id.md leaves the hint count unknown, rather
		// than telling every translation it has one hint too many.
		{id, "### Petunjuk\nToken", "### petunjk\nToken", `did you mean "### petunjuk" (Petunjuk/Hint)?`, ""},
		{id, "## Pertanyaan storage-blind", "## Pertanyan storage-blind", `did you mean "## Pertanyaan storage-blind" (Pertanyaan/Question)?`, "no section for question storage-blind"},
		{id, "### Pilihan silent\n", "## Pilihan silent\n", `"## Pilihan silent": a choice heading is written ### Pilihan silent`, "no text for choice silent"},
		// A heading without its space, or with the wrong number of hashes,
		// is a paragraph to Markdown: named at its line, with what it meant.
		{id, "## Pertanyaan storage-blind", "##Pertanyaan storage-blind", `"##Pertanyaan storage-blind" is not a heading (no space after ##): did you mean "## Pertanyaan storage-blind"?`, "no section for question storage-blind"},
		{en, "### Explanation\nThe storage", "###Explanation\nThe storage", `"###Explanation" is not a heading (no space after ###): did you mean "### Explanation"?`, `question storage-checks has no "### Explanation"`},
		{id, "### Pilihan silent\n", "###Piihan silent\n", `did you mean "### Pilihan silent"?`, `no text for choice silent`},
		{id, "## Pertanyaan storage-blind", "# Pertanyaan storage-blind", `"# Pertanyaan storage-blind" is not a heading (a question heading has 2 hashes, not 1): did you mean "## Pertanyaan storage-blind"?`, "no section for question storage-blind"},
		{id, "### Pilihan silent\n", "####Pilihan silent\n", `(no space after the hashes, and a choice heading has 3): did you mean "### Pilihan silent"?`, `no text for choice silent`},
	} {
		t.Run(tc.new, func(t *testing.T) {
			m := courseCopy(t)
			replaceIn(t, m, tc.file, tc.old, tc.new)
			ps := loadProblems(t, m, true)
			line := lineOf(t, m, tc.file, strings.TrimSpace(tc.new))
			cause := problemIndex(ps, tc.file, line, tc.cause)
			if cause < 0 {
				t.Fatalf("want %s:%d: %q; got:\n%v", tc.file, line, tc.cause, ps)
			}
			if tc.knockOn == "" {
				if len(ps) != 1 {
					t.Errorf("want the cause alone; got:\n%v", ps)
				}
				return
			}
			k := problemIndex(ps, tc.file, 0, tc.knockOn)
			switch {
			case k < 0:
				t.Errorf("no knock-on %q; got:\n%v", tc.knockOn, ps)
			case k < cause:
				t.Errorf("the knock-on is listed before its cause:\n%v", ps)
			case !strings.Contains(ps[k].Msg, fmt.Sprintf("see the unknown heading at %s:%d", tc.file, line)):
				t.Errorf("the knock-on does not point to its cause: %s", ps[k])
			}
		})
	}
	// A heading that is near no keyword is prose, as before.
	m := courseCopy(t)
	replaceIn(t, m, "labs/w1-w2/en.md", "## Question storage-checks", "## Background\n\nSome words.\n\n## Question storage-checks")
	if ps := loadProblems(t, m, false); len(ps) > 0 {
		t.Errorf("a prose heading: %v", ps)
	}
}

// TestCheckIndonesianHeadings: id.md may use the Indonesian keywords, and
// English ones too; the same lab loads either way.
func TestCheckIndonesianHeadings(t *testing.T) {
	m := courseCopy(t)
	src := string(m["labs/w1-w2/id.md"].Data)
	for _, h := range []string{"## Pertanyaan ", "### Pilihan ", "### Petunjuk", "### Pembahasan", "## Tugas "} {
		if !strings.Contains(src, "\n"+h) {
			t.Fatalf("id.md does not use %q", h)
		}
	}
	if ps := loadProblems(t, m, false); len(ps) > 0 {
		t.Fatalf("the course: %v", ps)
	}
	en := strings.NewReplacer("## Pertanyaan ", "## Question ", "### Pilihan ", "### Choice ", "### Petunjuk", "### Hint", "### Pembahasan", "### Explanation", "## Tugas ", "## Goal ").Replace(src)
	m["labs/w1-w2/id.md"] = &fstest.MapFile{Data: []byte(en)}
	if ps := loadProblems(t, m, false); len(ps) > 0 {
		t.Errorf("English keywords in id.md: %v", ps)
	}
}

// TestCheckWarnsOnEmptyEvidence: when the choice that holds is a "not …"
// predicate, no event shows it, and {{evidence}} would render nothing.
func TestCheckWarnsOnEmptyEvidence(t *testing.T) {
	m := courseCopy(t)
	const lab = "labs/w1-w2/lab.yaml"
	// W1 frozen for good: it never writes, so "silent" holds.
	replaceIn(t, m, lab, "    answer: rejected\n    variant:\n      storage: fencing\n    run:\n      - until 4s\n      - freeze W1 for=25s\n",
		"    answer: silent\n    variant:\n      storage: fencing\n    run:\n      - until 4s\n      - freeze W1\n")
	ps := loadProblems(t, m, false)
	for _, file := range []string{"labs/w1-w2/id.md", "labs/w1-w2/en.md"} {
		heading := map[string]string{"labs/w1-w2/id.md": "\n### Pembahasan\n", "labs/w1-w2/en.md": "\n### Explanation\n"}[file]
		line := lineOf(t, m, file, heading) + 1
		i := problemIndex(ps, file, line, `question storage-checks: {{evidence}} renders nothing: the choice that holds, silent ("not W1 writes file")`)
		if i < 0 || !ps[i].Warning {
			t.Errorf("want a warning at %s:%d; got:\n%v", file, line, ps)
		}
	}
}

// TestCheckPointsToTheRun: when no choice holds, check says how to see
// the run.
func TestCheckPointsToTheRun(t *testing.T) {
	m := courseCopy(t)
	replaceIn(t, m, "labs/w1-w2/lab.yaml", "holds: W1's write with token 7 is rejected", "holds: W1's write with token 9 is rejected")
	ps := loadProblems(t, m, true)
	i := problemIndex(ps, "labs/w1-w2/lab.yaml", lineOf(t, m, "labs/w1-w2/lab.yaml", "- id: storage-checks"), "no choice holds in the engine's run; exactly one must (the run ends at 30s with violations acted-after-expiry). See the run: leaselab run labs/w1-w2/lab.yaml --question storage-checks")
	if i < 0 {
		t.Fatalf("got:\n%v", ps)
	}
	// In Indonesian the run's end is a moment in the course's words, not
	// a Go duration.
	if id := ps[i].In("id"); !strings.Contains(id, "simulasi berakhir pada detik ke-30;") || strings.Contains(id, "30s") {
		t.Errorf("in Indonesian: %s", id)
	}
}

// TestHintsFromTheMarkdown: without hints: in lab.yaml, id.md's count is
// the one every translation must give.
func TestHintsFromTheMarkdown(t *testing.T) {
	m := courseCopy(t)
	const lab = "labs/w1-w2/lab.yaml"
	if strings.Contains(string(m[lab].Data), "hints:") {
		t.Fatal("the course's lab.yaml says hints:; the Markdown counts them")
	}
	if ps := loadProblems(t, m, false); len(ps) > 0 {
		t.Fatalf("without hints: %v", ps)
	}
	replaceIn(t, m, "labs/w1-w2/en.md", "### Hint\nWhen W1", "When W1")
	ps := loadProblems(t, m, false)
	line := lineOf(t, m, "labs/w1-w2/en.md", "## Question storage-blind")
	if i := problemIndex(ps, "labs/w1-w2/en.md", line, "question storage-blind has 0 hints here, id.md has 1"); i < 0 || !ps[i].Warning {
		t.Errorf("got:\n%v", ps)
	}
	// A lab.yaml that still says hints: N is held to it.
	m = courseCopy(t)
	replaceIn(t, m, lab, "  - id: storage-blind\n", "  - id: storage-blind\n    hints: 3\n")
	ps = loadProblems(t, m, true)
	if problemIndex(ps, "labs/w1-w2/id.md", 0, "question storage-blind has 1 hints here, lab.yaml says hints: 3") < 0 {
		t.Errorf("got:\n%v", ps)
	}
}

// TestCheckListsABrokenCourseFileFirst: when course.yaml does not load,
// what follows from it (labs in no lesson, lessons not listed, links to
// lessons) comes after its error and says so.
func TestCheckListsABrokenCourseFileFirst(t *testing.T) {
	m := courseCopy(t)
	replaceIn(t, m, "course.yaml", "lessons:\n", "lessons: [\n")
	ps := loadProblems(t, m, true)
	if len(ps) < 5 || ps[0].File != "course.yaml" || !strings.Contains(ps[0].Msg, "YAML:") {
		t.Fatalf("the course file's error is not first:\n%v", ps)
	}
	for _, p := range ps[1:] {
		if !strings.Contains(p.Msg, "(follows from the error at course.yaml:") {
			t.Errorf("not marked as following from course.yaml: %s", p)
		}
	}
}
