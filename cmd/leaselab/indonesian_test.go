package main

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"leaselab/catalog"
	"leaselab/labs"
)

// TestRunSpeaksIndonesian: `leaselab run LAB --lang id` of every lab,
// to its horizon, through each question's run and each goal's proof,
// holds no word catalog.Untranslated finds, and writes each event's
// moment as the course does (catalog.TimeSlips: "detik ke-4,5"). The real-systems labs are held to it too:
// the trace's sentences are the catalog's, not theirs.
func TestRunSpeaksIndonesian(t *testing.T) {
	course, err := embeddedCourse()
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{} // the lines TimeSlips has read
	for _, lab := range course.Labs {
		runs := [][]string{{"run", lab.ID, "--lang", "id"}}
		for _, q := range lab.Questions {
			runs = append(runs, []string{"run", lab.ID, "--lang", "id", "--question", q.ID})
		}
		// Each goal's proof: what the page's own controls make happen.
		for _, g := range lab.Goals {
			args := []string{"run", lab.ID, "--lang", "id"}
			for _, c := range g.Proof() {
				args = append(args, "--do", c)
			}
			if len(args) > 4 {
				runs = append(runs, args)
			}
		}
		for _, args := range runs {
			code, out, errs := runCLI(args...)
			if code != 0 {
				t.Errorf("%v: exit %d: %s", args, code, errs)
				continue
			}
			if words := catalog.Untranslated("id", out); len(words) > 0 {
				t.Errorf("%v: English in the trace: %q", args, words)
			}
			// TimeSlips finds a slip within a line, so each line is read
			// once, in the first run that prints it: a lab's runs print
			// the same events up to where they part (its question's and
			// goals' runs start as its own run does).
			if slips := catalog.TimeSlips("id", unreadLines(out, read)); len(slips) > 0 {
				t.Errorf("%v: a time not in the course's words: %v", args, slips[:min(len(slips), 5)])
			}
		}
	}
}

// cliEnglish are English words the command line printed before it spoke
// the reader's language, beyond catalog.Untranslated's: the trace's own
// words, the English summaries and the flags' complaints.
var cliEnglish = regexp.MustCompile(`(?i)\b(send|recv|grant|acquire|acquired|coord|extend|lost|violation|warning|harm|schedules|decided|commands|permalink|shortest|breaking|join|code|instructor|link|private|whoever|lessons|questions|warnings|errors|design|same|faults?|moments|branches|kept|ok|accept|reject|highest|from|unknown|flags?|needs|value|want|usage|takes|got|goes|give|arguments?|which|such)\b|\b(token|highest|proof)=`)

// cliProse is what a reader reads in out as words: without the lab's and
// its questions' ids, the commands given (syntax), quoted commands and
// flags ("…", «…»), paths and links.
func cliProse(out string, lab *labs.Lab, syntax ...string) string {
	out = regexp.MustCompile(`"[^"\n]*"|«[^»\n]*»|\S*/\S*`).ReplaceAllString(out, " ")
	for _, s := range syntax {
		out = strings.ReplaceAll(out, s, " ")
	}
	if lab != nil {
		out = strings.ReplaceAll(out, lab.ID, " ")
		for _, q := range lab.Questions {
			out = strings.ReplaceAll(out, q.ID, " ")
		}
	}
	return out
}

// englishIn is the English words a reader finds in text, and the times
// it writes otherwise than the course does ("pada 1 dtk", "30s": a
// moment is "detik ke-1").
func englishIn(text string) []string {
	out := append(catalog.Untranslated("id", text), cliEnglish.FindAllString(text, -1)...)
	for _, s := range catalog.TimeSlips("id", text) {
		out = append(out, s.String())
	}
	return out
}

// smallerSearch is what TestCommandLineSpeaksIndonesian gives a lab's
// search whose own bounds are seconds of CPU: renew-policy's two faults
// decide a million schedules before one breaks the starting policy (8 s
// of one core). With one fault, a policy that retries past its deadline
// breaks within the first few hundred, and the search says the same
// things in the same words: the test reads the language, not the proof.
var smallerSearch = map[string][]string{
	"renew-policy": {"--faults", "1", "--set", "retry-past-deadline=on"},
}

// programSearch is what TestCommandLineSpeaksIndonesian gives the search
// of a lab with a written worker: one fault. At the lab's own two, the
// starting program's search decides tens of thousands of schedules (2.3
// CPU-s for the course's program labs, 0.9 of them write-fenced-writer's)
// to print the same lines with other numbers; within one fault most of
// them break. The lab's own bounds are proved by leaselab check
// (TestCheckContent) and judged in labs.
var programSearch = []string{"--faults", "1"}

// TestCommandLineSpeaksIndonesian: with --lang id, what leaselab search
// (every lab with bounds, smallerSearch's within smaller ones, a written
// worker's within programSearch's), run --vs
// (every lab), check's summary and class new print holds no English word
// outside command syntax, ids and links.
func TestCommandLineSpeaksIndonesian(t *testing.T) {
	t.Parallel()
	smallerSearch := maps.Clone(smallerSearch)
	defer func() {
		if len(smallerSearch) > 0 {
			t.Errorf("smallerSearch names labs the course has not, or that have no search: %v", slices.Collect(maps.Keys(smallerSearch)))
		}
	}()
	course, err := embeddedCourse()
	if err != nil {
		t.Fatal(err)
	}
	// Whether some program lab's search within programSearch printed a
	// break: its words are to be read.
	programBroke := false
	defer func() {
		if !programBroke {
			t.Errorf("no program lab's search within %v breaks: the break's words go unread", programSearch)
		}
	}()
	for _, lab := range course.Labs {
		if lab.Search() == nil {
			// A lab without bounds says so, in Indonesian.
			code, _, errs := runCLI("search", lab.ID, "--lang", "id")
			said := strings.ReplaceAll(errs, "leaselab search:", " ")
			if words := englishIn(cliProse(said, lab)); code == 0 || len(words) > 0 {
				t.Errorf("search %s --lang id: exit %d, English %q in\n%s", lab.ID, code, words, errs)
			}
		}
		if lab.Search() != nil {
			smaller, cut := smallerSearch[lab.ID]
			delete(smallerSearch, lab.ID)
			if !cut && lab.Program() != nil {
				smaller = programSearch
			}
			code, out, errs := runCLI(append([]string{"search", lab.ID, "--lang", "id"}, smaller...)...)
			if code != 0 {
				t.Errorf("search %s %v: exit %d: %s", lab.ID, smaller, code, errs)
			}
			if cut && !strings.Contains(out, "jadwal terpendek") {
				t.Errorf("search %s %v breaks nothing: the break's words go unread\n%s", lab.ID, smaller, out)
			}
			if lab.Program() != nil && strings.Contains(out, "jadwal terpendek") {
				programBroke = true
			}
			var syntax []string // the --set options the design line names, and the commands
			for _, a := range smaller {
				if strings.Contains(a, "=") {
					syntax = append(syntax, a)
				}
			}
			for _, line := range strings.Split(out, "\n") {
				if c, ok := strings.CutPrefix(line, "  "); ok {
					syntax = append(syntax, strings.Fields(c)...)
				}
			}
			if words := englishIn(cliProse(out, lab, syntax...)); len(words) > 0 {
				t.Errorf("search %s --lang id: English %q in\n%s", lab.ID, words, out)
			}
		}
		args := []string{"run", lab.ID, "--lang", "id", "--vs", "fencing on", "--vs-at", "0s"}
		code, out, errs := runCLI(args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
		if words := englishIn(cliProse(out, lab)); len(words) > 0 {
			t.Errorf("%v: English %q in\n%s", args, words, out)
		}
	}
	code, out, errs := runCLI("check", "--lang", "id", smallCourse(t))
	if code != 0 || len(englishIn(strings.TrimPrefix(out, "leaselab check:"))) > 0 {
		t.Errorf("check --lang id: exit %d: %s%s", code, out, errs)
	}
	code, out, errs = runCLI("class", "new", "--data", t.TempDir(), "--name", "Kelas A", "--lang", "id")
	if code != 0 || len(englishIn(cliProse(out, nil))) > 0 || !strings.Contains(out, "kode kelas:") {
		t.Errorf("class new --lang id: exit %d: %s%s", code, out, errs)
	}
}

// TestIndonesianLocaleIsTheDefault: an Indonesian locale (LANG) makes
// --lang id the default, for a mistake in the flags as well; --lang wins
// over it.
func TestIndonesianLocaleIsTheDefault(t *testing.T) {
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_MESSAGES", "")
	t.Setenv("LANG", "id_ID.UTF-8")
	if _, out, _ := runCLI("search", "break-fencing"); !strings.Contains(out, "jadwal terpendek") {
		t.Errorf("search under LANG=id_ID.UTF-8:\n%s", out)
	}
	if _, out, _ := runCLI("search", "break-fencing", "--lang", "en"); !strings.Contains(out, "shortest breaking schedule") {
		t.Errorf("search --lang en under LANG=id_ID.UTF-8:\n%s", out)
	}
	// A mistake in the flags too, in a command without --lang as well;
	// --lang en wins.
	for args, want := range map[[3]string]string{
		{"serve", "--bogus", ""}:              "opsi «--bogus» tidak dikenal",
		{"run", "w1-w2", "--bogus"}:           "opsi «--bogus» tidak dikenal",
		{"run", "--lang", "en"}:               "which lab?",
		{"search", "break-fencing", "--seed"}: "opsi «--seed» tidak dikenal",
	} {
		var a []string
		for _, s := range args {
			if s != "" {
				a = append(a, s)
			}
		}
		if code, _, errs := runCLI(a...); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("%v under LANG=id_ID.UTF-8: exit %d, want %q in\n%s", a, code, want, errs)
		}
	}
}

// TestCommandLineErrorsSpeakIndonesian: what run, search, check and
// class new say with --lang id when the lab, a command, a time, a file, a
// flag or its value given is wrong holds no English word outside what the reader typed (quoted), ids and
// paths; a misspelt program says the interpreter's words only as the
// quoted detail.
func TestCommandLineErrorsSpeakIndonesian(t *testing.T) {
	course, err := embeddedCourse()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range course.Labs {
		ids = append(ids, l.ID)
	}
	prog := t.TempDir() + "/program.star"
	if err := os.WriteFile(prog, []byte("def on_start(w, ev):\n    w.acquire(\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "no-such-lab", "--lang", "id"},
		{"search", "no-such-lab", "--lang", "id"},
		{"search", "w1-w2", "--lang", "id"},
		{"run", "w1-w2", "--lang", "id", "--question", "no-such-question"},
		{"run", "w1-w2", "--lang", "id", "--do", "frezze W1"},
		{"run", "w1-w2", "--lang", "id", "--vs", "frezze W1"},
		{"run", "w1-w2", "--lang", "id", "--do", "frezze W1", "--vs", "fencing on"},
		{"run", "w1-w2", "--lang", "id", "--vs", "fencing on", "--vs-at", "soon"},
		{"run", "w1-w2", "--lang", "id", "--vs", "fencing on", "--vs-at", "999s"},
		{"run", "write-one-loop", "--lang", "id", "--program", t.TempDir() + "/none.star"},
		{"run", "write-one-loop", "--lang", "id", "--program", prog},
		{"check", t.TempDir() + "/none", "--lang", "id"},
		// Flags: one it does not know, one without its value, a value of
		// the wrong form, arguments that do not fit.
		{"run", "w1-w2", "--lang", "id", "--bogus"},
		{"run", "w1-w2", "--lang", "id", "--seed"},
		{"run", "w1-w2", "--lang=id", "--seed", "abc"},
		{"run", "w1-w2", "--lang", "id", "--format", "pdf"},
		{"run", "w1-w2", "--lang", "id", "--vs-at", "3s"},
		{"run", "w1-w2", "w1-w2", "--lang", "id"},
		{"search", "--lang", "id"},
		{"search", "break-fencing", "--lang", "id", "--workers", "many"},
		{"class", "new", "--lang", "id", "--name"},
		{"class", "new", "--lang", "id", "--base-url", "nowhere"},
		{"check", "--lang", "id", "--verbose"},
		{"check", "a", "b", "--lang", "id"},
	} {
		code, out, errs := runCLI(args...)
		if code == 0 {
			t.Errorf("%v: exit 0: %s", args, out)
		}
		// "leaselab search:" names the command: syntax.
		said := strings.ReplaceAll(errs, "leaselab "+args[0]+":", " ")
		if words := englishIn(cliProse(said, nil, ids...)); len(words) > 0 {
			t.Errorf("%v: English %q in\n%s", args, words, errs)
		}
	}
}

// unreadLines is text's lines that are not in read, each once, in the
// order they first come; it adds them to read.
func unreadLines(text string, read map[string]bool) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		if !read[line] {
			read[line] = true
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
