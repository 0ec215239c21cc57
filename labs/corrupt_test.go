package labs

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"leaselab/catalog"
)

// corruptCase breaks a copy of the real content one way, and names the
// problem Load must report.
type corruptCase struct {
	name      string
	file      string // the file changed
	old, new  string // "" new with old "" deletes the file
	at        string // text in the changed file on the line the problem names; "" for the whole file
	col       int    // 0: any column
	msg       string
	wantFile  string // when the problem is reported in another file
	warning   bool
	problemAt string // file whose line holds `at`, when not file
}

// corruptCases are the ways TestCorruptContent breaks the content.
func corruptCases() []corruptCase {
	const (
		w1w2    = "labs/w1-w2/lab.yaml"
		w1w2id  = "labs/w1-w2/id.md"
		w1w2en  = "labs/w1-w2/en.md"
		monthly = "labs/monthly-report/lab.yaml"
		leases  = "lessons/leases/id.md"
	)
	return []corruptCase{
		{name: "bad YAML", file: w1w2, old: "  ttl: 15s\n", new: "  ttl: \"15s\n", at: "ttl: \"15s", col: 8, msg: "YAML: could not find end character of double-quoted text"},
		{name: "tab in YAML", file: monthly, old: "  first-token: 33", new: "\tfirst-token: 33", at: "\tfirst-token", col: 1, msg: "YAML: found character"},
		{name: "unknown scenario option", file: w1w2, old: "  first-token: 7", new: "  first-tokn: 7", at: "first-tokn", col: 3, msg: `unknown scenario option "first-tokn"`},
		{name: "bad worker program", file: w1w2, old: "W1: acquire; work 5s;", new: "W1: acquire; wrk 5s;", at: "wrk 5s", msg: `unknown step "wrk"`},
		{name: "unknown worker in a variant", file: w1w2, old: "        W1: acquire; work 5s; check;", new: "        W3: acquire; work 5s; check;", at: "W3: acquire", col: 9, msg: `unknown worker "W3"`},
		{name: "unknown worker in a predicate", file: w1w2, old: "holds: W1's write with token 7 is rejected", new: "holds: W3's write with token 7 is rejected", at: "W3's write", col: 16, msg: `unknown worker "W3"`},
		{name: "unknown worker in a quoted predicate", file: w1w2, old: "holds: W1's write with token 7 is rejected", new: "holds: \"W1's write with token 7 is rejected by W3\"", at: "is rejected by W3", col: 53, msg: `unexpected "by"`},
		{name: "unknown worker in a command", file: w1w2, old: "      - freeze W1 for=25s\n", new: "      - freeze W9 for=25s\n", at: "freeze W9", col: 9, msg: `no worker called "W9"`},
		{name: "unknown command", file: monthly, old: "      - until 90s", new: "      - untill 90s", at: "untill 90s", msg: `unknown command "untill": did you mean "until"?`},
		// An authoring error says what to do: the word meant, or what fits.
		{name: "misspelt command", file: w1w2, old: "      - freeze W1 for=25s\n", new: "      - frezze W1 for=25s\n", at: "frezze W1", col: 9, msg: `unknown command "frezze": did you mean "freeze"?`},
		{name: "no such command", file: w1w2, old: "      - freeze W1 for=25s\n", new: "      - pause W1 for=25s\n", at: "pause W1", col: 9, msg: `unknown command "pause": a command starts with one of advance, step, until, freeze`},
		{name: "misspelt worker option", file: w1w2, old: "    W2 start=1s:", new: "    W2 strat=1s:", at: "W2 strat=1s", col: 5, msg: `unknown worker option "strat": did you mean "start"?`},
		{name: "misspelt key", file: w1w2, old: "horizon: 40s", new: "horizn: 40s", at: "horizn", col: 1, msg: `unknown key "horizn" in a lab file: did you mean "horizon"?`},
		{name: "misspelt scenario option", file: w1w2, old: "  first-token: 7", new: "  first-tokn: 7", at: "first-tokn", col: 3, msg: `did you mean "first-token"?`},
		{name: "indent that lines up with nothing", file: w1w2, old: "    W2 start=1s:", new: "   W2 start=1s:", at: "   W2 start=1s", col: 4, msg: "line 13 is indented 3 spaces, which lines up with nothing above it: a key or a list item starts exactly where the ones beside it do, here at 4 (as line 12), 2 (as line 11), 0 (as line 7)"},
		{name: "indent deeper than its key", file: w1w2, old: "  storage: none\n  workers:", new: "   storage: none\n  workers:", at: "first-token: 7", col: 16, msg: `line 10 is indented deeper (3 spaces) than the key "first-token" above it (2), so it was read as more of that key's value ("7 storage"); a key beside "first-token" starts at 2 spaces`},
		{name: "predicate does not parse", file: monthly, old: "holds: the report is sent twice\n      - id: w2-waits", new: "holds: the report is sent thrice\n      - id: w2-waits", at: "sent thrice", col: 35, msg: "expected how often"},
		{name: "two choices hold", file: w1w2, old: "holds: not W1 writes file", new: "holds: W1 writes file", at: "- id: storage-checks", col: 9, msg: "2 choices hold in the engine's run (rejected, silent)"},
		{name: "no choice holds", file: w1w2, old: "holds: W1's write with token 7 is rejected", new: "holds: W1's write with token 9 is rejected", at: "- id: storage-checks", col: 9, msg: "no choice holds"},
		{name: "duplicate lab id", file: monthly, old: "id: monthly-report", new: "id: w1-w2", wantFile: w1w2, at: "id: w1-w2", col: 5, msg: `duplicate lab id "w1-w2": labs/monthly-report/lab.yaml has it too`},
		{name: "duplicate choice id", file: w1w2, old: "      - id: silent", new: "      - id: rejected", at: "- id: rejected\n        holds: not W1", col: 13, msg: `duplicate choice id "rejected"`},
		{name: "unknown lab in the course", file: "course.yaml", old: "[monthly-report,", new: "[monthly-reprot,", at: "monthly-reprot", col: 12, msg: `unknown lab "monthly-reprot"`},
		{name: "broken link in a lesson", file: leases, old: "(lab:lock-vs-lease)", new: "(lab:lock-vs-leas)", at: "lab:lock-vs-leas", msg: `broken link: no lab "lock-vs-leas"`},
		{name: "unknown lesson link in a lab", file: w1w2en, old: "(lesson:failure-modes)", new: "(lesson:leasing)", at: "lesson:leasing", msg: `broken link: no lesson "leasing"`},
		{name: "missing translation file", file: w1w2en, old: "", new: "", at: "", msg: "missing English translation of lab w1-w2", warning: true},
		{name: "missing default language file", file: w1w2id, old: "", new: "", at: "", msg: "missing file: lab w1-w2 needs its Indonesian words"},
		{name: "missing lesson file", file: leases, old: "", new: "", wantFile: "course.yaml", at: "id: leases", col: 9, msg: "lesson leases: missing file lessons/leases/id.md"},
		{name: "missing choice text", file: w1w2id, old: "### Pilihan silent\nW1 tidak menulis sama sekali.\n\n### Petunjuk\nToken", new: "### Petunjuk\nToken", at: "## Pertanyaan storage-checks", col: 15, msg: "no text for choice silent"},
		{name: "missing English hint", file: w1w2en, old: "### Hint\nWhen W1", new: "When W1", at: "## Question storage-blind", col: 13, msg: "has 0 hints here, id.md has 1", warning: true},
		{name: "unknown question in the words", file: w1w2id, old: "## Pertanyaan storage-blind", new: "## Pertanyaan storage-blnd", at: "storage-blnd", msg: `unknown question "storage-blnd"`},
		{name: "goal already holds", file: w1w2, old: "    holds: W1's write with token 7 is rejected\n    proof:", new: "    holds: W2 gets token 8\n    proof:", at: "- id: reject-stale", col: 9, msg: "goal reject-stale already holds when nobody touches the world"},
		{name: "goal proof does not reach it", file: monthly, old: "      - fencing on\n", new: "", at: "- id: reject-stale", col: 9, msg: "goal reject-stale: its proof run does not reach it"},
		{name: "lab in no lesson", file: "course.yaml", old: "labs: [monthly-report, ", new: "labs: [", wantFile: monthly, problemAt: monthly, at: "id: monthly-report", col: 5, msg: "lab monthly-report is in no lesson"},
		{name: "front matter YAML", file: w1w2en, old: "title: W1, W2, and token 7 against 8", new: "title: [W1", at: "title: [W1", msg: "YAML:"},
		{name: "misspelt heading", file: w1w2id, old: "### Pilihan silent\n", new: "### Piihan silent\n", at: "### Piihan silent", msg: `unknown heading "### Piihan silent": did you mean "### Pilihan silent" (Pilihan/Choice)?`},
		{name: "heading without its space", file: w1w2id, old: "## Pertanyaan storage-blind", new: "##Pertanyaan storage-blind", at: "##Pertanyaan storage-blind", msg: `is not a heading (no space after ##)`},
	}
}

// TestCorruptContent breaks copies of the real content files one way at a
// time and checks that Load names the right file and line and says what
// is wrong.
//
// Each problem is also read in Indonesian (issue 45): it keeps its place,
// and says nothing in English but the author's own ids; In("en") is its
// String. (One Load a case for both: each Load checks the whole course.)
func TestCorruptContent(t *testing.T) {
	t.Parallel()
	ids := courseIDs(t, courseCopy(t))
	for _, tt := range corruptCases() {
		t.Run(tt.name, func(t *testing.T) {
			m := courseCopy(t)
			if tt.old == "" && tt.new == "" {
				delete(m, tt.file)
			} else {
				replaceIn(t, m, tt.file, tt.old, tt.new)
			}
			c, err := loadCopy(m)
			var ps Problems
			if tt.warning {
				if err != nil {
					t.Fatalf("a warning became an error: %v", err)
				}
				ps = c.Problems
			} else if !errors.As(err, &ps) {
				t.Fatalf("Load = %v, want a Problems error", err)
			}
			wantFile := tt.file
			if tt.wantFile != "" {
				wantFile = tt.wantFile
			}
			wantLine := 0
			if tt.at != "" {
				src := string(m[cmpOr(tt.problemAt, wantFile)].Data)
				i := strings.Index(src, tt.at)
				if i < 0 {
					t.Fatalf("%q not in %s", tt.at, wantFile)
				}
				wantLine = strings.Count(src[:i], "\n") + 1
			}
			inIndonesian(t, ps, ids)
			for _, p := range ps {
				if p.File == wantFile && p.Line == wantLine && (tt.col == 0 || p.Col == tt.col) && strings.Contains(p.Msg, tt.msg) && p.Warning == tt.warning {
					return
				}
			}
			t.Errorf("want %s:%d:%d: %q (warning %v); got:\n%v", wantFile, wantLine, tt.col, tt.msg, tt.warning, ps)
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// inIndonesian checks each problem as the Indonesian reader gets it: its
// place first, no English but the author's ids, and In("en") its String.
func inIndonesian(t *testing.T, ps Problems, ids []string) {
	t.Helper()
	for _, p := range ps {
		id := p.In("id")
		place := p.File
		if p.Line > 0 {
			place = fmt.Sprintf("%s:%d:%d", p.File, p.Line, max(p.Col, 1))
		}
		if !strings.HasPrefix(id, place+": ") {
			t.Errorf("%q lost its place %s", id, place)
		}
		if words := catalog.Untranslated("id", authorsOut(id, ids)); len(words) > 0 {
			t.Errorf("English %q in\n\t%s\n\t(en: %s)", words, id, p.String())
		}
		if p.In("en") != p.String() {
			t.Errorf("In(en) %q is not String %q", p.In("en"), p.String())
		}
	}
}
