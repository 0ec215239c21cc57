package labs

import (
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"leaselab/content"
)

// linkCourse is a small course of three lessons and one lab with a goal
// and a question, for the link checks: each case changes one text.
func linkCourse() fstest.MapFS {
	lab := `id: crash
scenario:
  ttl: 10s
  workers:
    W1: acquire; work 30s; write ledger; release
    W2 start=1s: acquire; write ledger; release
horizon: 40s
questions:
  - id: after-crash
    answer: takes-over
    run: [until 2s, crash W1, until 30s]
    choices:
      - id: takes-over
        holds: W2 gets token 2 and W2's write is accepted
      - id: stuck
        holds: not W2 acquires the lease
goals:
  - id: stale-rejected
    holds: W1's write with token 1 is rejected
    proof: [fencing on, until 40s]
`
	words := func(title, q, c1, c2, g string) string {
		return "---\ntitle: " + title + "\n---\n" + title + ".\n\n## " + q + " after-crash\n\n" + title + "?\n\n### " + c1 + " takes-over\nW2.\n\n### " + c1 + " stuck\nW1.\n\n### " + c2 + "\n{{evidence}}\n\n## " + g + " stale-rejected\n\n" + title + ".\n"
	}
	lesson := func(title, body string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\ntitle: " + title + "\n---\n" + body + "\n")}
	}
	return fstest.MapFS{
		"course.yaml":         {Data: []byte("lessons:\n  - id: one\n    labs: [crash]\n  - id: two\n  - id: three\n")},
		"lessons/one/id.md":   lesson("Satu", "Lihat [lab crash](lab:crash)."),
		"lessons/one/en.md":   lesson("One", "See [the crash lab](lab:crash)."),
		"lessons/two/id.md":   lesson("Dua", "Teks."),
		"lessons/two/en.md":   lesson("Two", "Text."),
		"lessons/three/id.md": lesson("Tiga", "Teks."),
		"lessons/three/en.md": lesson("Three", "Text."),
		"labs/crash/lab.yaml": {Data: []byte(lab)},
		"labs/crash/id.md":    {Data: []byte(words("Pemegang yang crash", "Pertanyaan", "Pilihan", "Pembahasan", "Tugas"))},
		"labs/crash/en.md":    {Data: []byte(words("A holder that crashes", "Question", "Choice", "Explanation", "Goal"))},
	}
}

// TestCheckLinks: a link to a lab's goal or question reaches its anchor on
// the lab's page; a link to what does not exist, a lesson named by its
// place, and a lab or goal named without a link are errors at the word.
func TestCheckLinks(t *testing.T) {
	t.Parallel()
	m := linkCourse()
	if _, err := loadCopy(m); err != nil {
		t.Fatalf("the small course: %v", err)
	}

	m["lessons/two/id.md"] = &fstest.MapFile{Data: []byte("---\ntitle: Dua\n---\nMainkan [tugas itu](lab:crash#stale-rejected) dan\n[pertanyaannya](lab:crash#after-crash).\n")}
	c, err := loadCopy(m)
	if err != nil {
		t.Fatalf("links to a goal and a question: %v", err)
	}
	html := string(c.Lesson("two").HTML("id"))
	for _, want := range []string{`href="/id/labs/crash#goal-stale-rejected"`, `href="/id/labs/crash#q-after-crash"`} {
		if !strings.Contains(html, want) {
			t.Errorf("lesson two has no %s: %s", want, html)
		}
	}

	const two = "lessons/two/id.md"
	for _, tc := range []struct{ body, msg string }{
		{"Lihat [tugas](lab:crash#nope).", `lab crash has no goal or question "nope" (stale-rejected, after-crash)`},
		{"Lihat [lab](lab:nope#x).", `no lab "nope"`},
		{"Lihat [pelajaran](lesson:one#x).", "a lesson link takes no #part"},
		{"Lihat [pelajaran pertama](lesson:one).", `the link [pelajaran pertama] says a lesson's place, not the lesson: name what lesson one teaches ("Satu")`},
		{"Lihat [pelajaran\nsebelumnya](lesson:three).", "the link [pelajaran sebelumnya] says the previous lesson, but lesson:three is not (that is lesson:one)"},
		{"Lihat [pelajaran berikutnya](lesson:one).", "says the next lesson, but lesson:one is not (that is lesson:three)"},
		{"Ini belum bisa dimainkan di lab pemegang yang crash.", `names lab crash ("pemegang yang crash") without a link`},
		{"Tugas `stale-rejected` memainkannya.", "quotes goal stale-rejected of lab crash without a link: write [...](lab:crash#stale-rejected)"},
		{"Lab `crash` memainkannya.", "quotes lab crash's id without a link"},
	} {
		m[two] = &fstest.MapFile{Data: []byte("---\ntitle: Dua\n---\nTeks.\n\n" + tc.body + "\n")}
		ps := loadProblems(t, m, true)
		if i := problemIndex(ps, two, 6, tc.msg); i < 0 || ps[i].Col < 1 {
			t.Errorf("%q: want %q at %s:6, got %v", tc.body, tc.msg, two, ps)
		}
	}

	// The right neighbours are fine, and so is a name with its link.
	for _, body := range []string{
		"Lihat [pelajaran sebelumnya](lesson:one) dan [pelajaran berikutnya](lesson:three).",
		"Lihat [lab pemegang yang crash](lab:crash): lab pemegang yang crash.",
		"Tugas [`stale-rejected`](lab:crash#stale-rejected).",
	} {
		m[two] = &fstest.MapFile{Data: []byte("---\ntitle: Dua\n---\n" + body + "\n")}
		if _, err := loadCopy(m); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// TestNamedLabsIsTheExpression: namedLabs finds what namedLabRE finds,
// in crafted words and in every Markdown file of the course.
func TestNamedLabsIsTheExpression(t *testing.T) {
	texts := []string{"", "lab", "lab ", "lab x", "Lab  x.", "the lab clock assumptions, then", "xlab y", "_lab y", "élab y", "(lab y)", "LAB\n\nnext line",
		"lab .", "lab\t\n x", "a lab lab b", "lablab c", "lab: x", "labs x", "la b", "lAb é; z", "9lab x", "-lab x\nlab y"}
	err := fs.WalkDir(content.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".md") {
			b, err := fs.ReadFile(content.FS, p)
			texts = append(texts, string(b))
			return err
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, s := range texts {
		got, want := namedLabs(s), namedLabRE.FindAllStringSubmatchIndex(s, -1)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%.60q: %v, the expression %v", s, got, want)
		}
		found += len(want)
	}
	if found < 100 {
		t.Errorf("only %d matches: the comparison reads too little", found)
	}
}
