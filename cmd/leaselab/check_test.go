package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"leaselab/content"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// checkSummary is the ok line check prints for lessons, labs and
// questions, with no problem.
func checkSummary(lessons, labCount, questions int) string {
	return fmt.Sprintf("ok: %d lessons, %d labs, %d questions run, 0 warning(s)", lessons, labCount, questions)
}

// TestCheckContent: check passes the embedded course, every program lab
// proved by search. The same check of a folder is
// TestExportChecksLikeTheEmbeddedCourse's (the course exported, its
// program labs left out) and TestNewProgramLabPassesCheck's (a program
// lab in a folder); the course's own source folder is
// TestGoRunCheckContent's.
func TestCheckContent(t *testing.T) {
	t.Parallel()
	c, err := embeddedCourse()
	if err != nil {
		t.Fatal(err)
	}
	questions := 0
	for _, l := range c.Labs {
		questions += len(l.Questions)
	}
	want := checkSummary(len(c.Lessons), len(c.Labs), questions)
	code, out, errs := runCLI("check")
	if code != 0 || errs != "" || !strings.Contains(out, want) {
		t.Errorf("check: exit %d, want %q\nstdout:\n%s\nstderr:\n%s", code, want, out, errs)
	}
}

// TestGoRunCheckContent is the command as a reader types it, on a small
// course: the whole course's check is TestCheckContent's, in process.
func TestGoRunCheckContent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	small, _ := filepath.Abs(smallCourse(t))
	cmd := exec.Command(gobin, "run", "./cmd/leaselab", "check", small)
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "leaselab check: ok") {
		t.Fatalf("go run ./cmd/leaselab check %s: %v\n%s", small, err, out)
	}
}

// TestCheckAnswersW1W2 checks the first seed's exercise through the CLI:
// -v prints the choice the engine's run makes true and its evidence. It
// reads the course's own w1-w2 and monthly-report from a copy without the
// program labs (smallCourse), which check would spend seconds proving.
func TestCheckAnswersW1W2(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI("check", "-v", "-lang", "en", smallCourse(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"w1-w2 storage-checks: rejected holds: W1's write with token 7 is rejected\n",
		"the storage rejects file from W1 with token 7 (stale token: 7 < 8)\n",
		"w1-w2 storage-blind: overwrites holds: W1's write with token 7 is accepted after W2's\n",
		"the storage accepts file from W1 with token 7 (highest: 8)\n",
		"w1-w2 check-first: writes-anyway holds: W1's check passes and W1 acts after its lease expired\n",
		"W1 checks its lease: still valid as far as it knows (until 15s)\n",
		"monthly-report no-fencing: twice holds: the report is sent twice\n",
		"monthly-report with-fencing: stale-rejected holds:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check -v lacks %q; got:\n%s", want, out)
		}
	}
}

// copyContent writes the embedded course to a temporary directory.
func copyContent(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := fs.WalkDir(content.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(content.FS, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// smallCourse is copyContent without the course's program labs
// (withoutProgramLabs).
func smallCourse(t *testing.T) string {
	t.Helper()
	dir := copyContent(t)
	withoutProgramLabs(t, dir)
	return dir
}

// withoutProgramLabs takes the course's program labs (those with a
// reference.star) out of the course in dir, and returns their ids: check
// proves each of them by searching every schedule of its reference and
// its starting program, seconds of work apiece, which tests of check's
// flags, reports and suggestions do not need. Every other lab, lesson and
// file is left as it is, and course.yaml is the course's own file with
// those labs taken out of its lists.
func withoutProgramLabs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	programs, err := fs.Glob(content.FS, "labs/*/reference.star")
	if err != nil || len(programs) == 0 {
		t.Fatalf("no program labs in the course (%v): there is nothing to leave out", err)
	}
	drop := map[string]bool{}
	for _, p := range programs {
		id := strings.Split(p, "/")[1]
		drop[id] = true
		if err := os.RemoveAll(filepath.Join(dir, "labs", id)); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "course.yaml")
	lines := strings.Split(string(mustRead(t, file)), "\n")
	removed := 0
	for i, line := range lines {
		head, list, ok := strings.Cut(line, "labs: [")
		if !ok || strings.TrimSpace(head) != "" || !strings.HasSuffix(list, "]") {
			continue
		}
		var keep []string
		for _, id := range strings.Split(strings.TrimSuffix(list, "]"), ", ") {
			if drop[id] {
				removed++
			} else {
				keep = append(keep, id)
			}
		}
		lines[i] = head + "labs: [" + strings.Join(keep, ", ") + "]"
	}
	if removed != len(drop) {
		t.Fatalf("course.yaml lists %d of the %d program labs in one-line lists", removed, len(drop))
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return drop
}

func edit(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s lacks %q", file, old)
	}
	if err := os.WriteFile(file, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckReportsProblems, on the course without its program labs
// (smallCourse): the labs it breaks are not program labs.
func TestCheckReportsProblems(t *testing.T) {
	dir := smallCourse(t)
	lab := filepath.Join(dir, "labs", "w1-w2", "lab.yaml")
	edit(t, lab, "holds: not W1 writes file", "holds: W1 writes file")            // two choices hold
	edit(t, lab, "holds: W1's write is rejected", "holds: W1's write is rejectd") // bad predicate
	src, _ := os.ReadFile(lab)
	lineOf := func(s string) int { return strings.Count(string(src[:bytes.Index(src, []byte(s))]), "\n") + 1 }
	if err := os.Remove(filepath.Join(dir, "labs", "monthly-report", "en.md")); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("check", dir)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{
		fmt.Sprintf("%s:%d:9: question storage-checks", lab, lineOf("- id: storage-checks")) + ": 2 choices hold in the engine's run (rejected, silent); exactly one must\n",
		fmt.Sprintf("%s:%d:30: predicate", lab, lineOf("W1's write is rejectd")) + ": expected \"accepted\" or \"rejected\", got \"rejectd\"\n",
		filepath.Join(dir, "labs", "monthly-report", "en.md") + ": warning: missing English translation of lab monthly-report",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("check's stderr lacks %q; got:\n%s", want, errs)
		}
	}
	if !strings.Contains(errs, "2 error(s), 1 warning(s)") || strings.Contains(out, "error") {
		t.Errorf("stdout: %s\nstderr: %s", out, errs)
	}
	// In Indonesian: each problem in the lecturer's words, at the same
	// place; the author's own words (ids, the predicate's) as written.
	_, _, errs = runCLI("check", "--lang", "id", dir)
	for _, want := range []string{
		fmt.Sprintf("%s:%d:9: pertanyaan storage-checks", lab, lineOf("- id: storage-checks")) + ": 2 pilihan berlaku di simulasi mesin (rejected, silent); harus tepat satu\n",
		fmt.Sprintf("%s:%d:30: predikat", lab, lineOf("W1's write is rejectd")) + ": seharusnya \"accepted\" atau \"rejected\", tertulis \"rejectd\"\n",
		filepath.Join(dir, "labs", "monthly-report", "en.md") + ": peringatan: terjemahan bahasa Inggris untuk lab monthly-report tidak ada; pembaca melihat versi bahasa Indonesia",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("check --lang id's stderr lacks %q; got:\n%s", want, errs)
		}
	}

	// Warnings alone pass.
	dir = smallCourse(t)
	if err := os.Remove(filepath.Join(dir, "lessons", "renewal", "en.md")); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI("check", dir); code != 0 || !strings.Contains(errs, "warning: missing English translation of lesson renewal") || !strings.Contains(out, "ok:") {
		t.Errorf("a missing translation: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

func TestCheckBadArguments(t *testing.T) {
	if code, _, errs := runCLI("check", "/no/such/dir"); code != 2 || !strings.Contains(errs, "not a folder") {
		t.Errorf("missing dir: exit %d %s", code, errs)
	}
	if code, _, _ := runCLI("check", "a", "b"); code != 2 {
		t.Errorf("two dirs: exit %d", code)
	}
	if code, _, errs := runCLI("check", t.TempDir()); code != 1 || !strings.Contains(errs, "1 error(s)") {
		t.Errorf("empty dir: exit %d %s", code, errs)
	}
}
