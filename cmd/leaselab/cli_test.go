package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"leaselab/content"
	"leaselab/web"
)

// TestHelpListsCommands: --help, -h and help list every command with one
// line each, on stdout, exit 0.
func TestHelpListsCommands(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"-help"}} {
		code, out, errs := runCLI(args...)
		if code != 0 || errs != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
		for _, c := range commands {
			line := ""
			for _, l := range strings.Split(out, "\n") {
				if f := strings.Fields(l); len(f) > 0 && f[0] == c.name {
					line = l
				}
			}
			if line == "" || !strings.Contains(line, c.summary) {
				t.Errorf("%v: no line for %s:\n%s", args, c.name, out)
			}
		}
	}
}

// TestCommandHelp: "leaselab CMD --help", "-h" and "leaselab help CMD"
// explain CMD on stdout and exit 0.
func TestCommandHelp(t *testing.T) {
	for _, c := range commands {
		if c.name == "help" {
			continue
		}
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
			code, out, errs := runCLI(args...)
			if code != 0 || errs != "" || !strings.HasPrefix(out, "usage: leaselab ") || len(strings.Split(out, "\n")) < 4 {
				t.Errorf("%v: exit %d, stderr %q, stdout:\n%s", args, code, errs, out)
			}
		}
	}
	// Flags a command has are explained, with their variables for serve.
	_, out, _ := runCLI("serve", "--help")
	for _, want := range []string{"--addr HOST:PORT", "--content DIR", "--max-sessions N", "--idle-timeout D", "--access-log", "--log-format text|json", "--base-path /P", "--show-problems", "--trusted-proxies CIDR", "LEASELAB_MAX_SESSIONS", "default 15m;"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve --help lacks %q", want)
		}
	}
	if _, out, _ := runCLI("run", "--help"); !strings.Contains(out, "freeze") {
		t.Error("run --help does not list the commands")
	}
}

// TestUsageErrors: a mistake exits 2 and says what it was on stderr.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"check", "--nope"}, "leaselab check: unknown flag --nope"},
		{[]string{"check", "-lang", "fr"}, `--lang="fr": want one of id, en`},
		{[]string{"check", "a", "b"}, "takes one folder"},
		{[]string{"check", "/no/such/dir"}, "not a folder"},
		{[]string{"run", "w1-w2", "--seed"}, "--seed needs a value"},
		{[]string{"run", "a", "b"}, `takes one lab, got "a" and "b"`},
		{[]string{"version", "extra"}, `unexpected argument "extra"`},
		{[]string{"schema", "worker"}, `unknown schema "worker"`},
		{[]string{"export"}, "takes one folder"},
		{[]string{"new", "lab"}, "want new lab ID [DIR] or new lesson ID [DIR]"},
		{[]string{"new", "lab", "Bad_Id"}, `lab id "Bad_Id"`},
		{[]string{"new", "lesson", "x", "--lesson", "y"}, "--lesson goes with new lab"},
		{[]string{"load", "extra"}, `unexpected argument "extra"`},
		{[]string{"--nope"}, "leaselab serve: unknown flag --nope"},
	} {
		code, out, errs := runCLI(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 with %q", tc.args, code, errs, tc.msg)
		}
		if out != "" {
			t.Errorf("%v: stdout %q", tc.args, out)
		}
	}
}

// TestFlagsAfterArguments: flags may come before or after the positional
// arguments, with the same result. check reads a copy of the course
// without its program labs (smallCourse): the flags are parsed the same
// for any folder.
func TestFlagsAfterArguments(t *testing.T) {
	course := smallCourse(t)
	for _, pair := range [][2][]string{
		{{"check", "-v", "-lang", "en", course}, {"check", course, "-v", "-lang", "en"}},
		{{"run", "--format", "json", "--seed", "3", "w1-w2"}, {"run", "w1-w2", "--format", "json", "--seed", "3"}},
		{{"run", "--lang", "en", "w1-w2", "--do", "until 9s"}, {"run", "w1-w2", "--do", "until 9s", "--lang", "en"}},
		{{"schema", "course"}, {"schema", "--", "course"}},
	} {
		c1, o1, e1 := runCLI(pair[0]...)
		c2, o2, e2 := runCLI(pair[1]...)
		if c1 != 0 || c2 != 0 || o1 != o2 || o1 == "" {
			t.Errorf("%v: exit %d (%s); %v: exit %d (%s); same output: %v", pair[0], c1, e1, pair[1], c2, e2, o1 == o2)
		}
	}
	// -v after the folder really is -v: it prints the answers.
	if _, out, _ := runCLI("check", course, "-v"); !strings.Contains(out, "w1-w2 storage-checks: rejected holds") {
		t.Errorf("check DIR -v printed:\n%s", out)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, out, errs := runCLI(args...)
		if code != 0 || errs != "" || !strings.HasPrefix(out, "leaselab ") || strings.TrimSpace(out) == "leaselab dev" {
			t.Errorf("%v: exit %d %q %q", args, code, out, errs)
		}
	}
	// What a build records becomes the line.
	for _, tc := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}}, "leaselab v1.4.0 (go1.26.8)"},
		{debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-30T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, "leaselab (devel) 0123456789ab 2026-11-30T10:00:00Z modified (go1.26.8)"},
		{debug.BuildInfo{}, "leaselab (devel)"},
	} {
		if got := versionLine(buildInfoFrom(&tc.bi)); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.bi, got, tc.want)
		}
	}
	if b := buildInfoFrom(&debug.BuildInfo{Main: debug.Module{Version: "v2.0.0"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "feed"}}}); b != (web.BuildInfo{Version: "v2.0.0", Revision: "feed"}) {
		t.Errorf("build info %+v", b)
	}
}

// TestExportChecksLikeTheEmbeddedCourse: the exported folder is the
// embedded course, file for file (every file, and no other), and check
// passes the folder as it passes the embedded course. The folder's check
// leaves the program labs out (withoutProgramLabs): their proofs are
// TestCheckContent's, of the same files, and a program lab checked from
// a folder is TestNewProgramLabPassesCheck's.
func TestExportChecksLikeTheEmbeddedCourse(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "course")
	code, out, errs := runCLI("export", dir)
	if code != 0 || !strings.Contains(out, "wrote ") {
		t.Fatalf("export: exit %d %s %s", code, out, errs)
	}
	for _, f := range []string{"course.yaml", "course.schema.json", "lab.schema.json", "labs/w1-w2/lab.yaml", "lessons/leases/en.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("export lacks %s", f)
		}
	}
	files := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		rel, _ := filepath.Rel(dir, p)
		want, err := fs.ReadFile(content.FS, filepath.ToSlash(rel))
		if got := mustRead(t, p); err != nil || !bytes.Equal(got, want) {
			t.Errorf("exported %s is not the embedded course's file (%v)", rel, err)
		}
		return nil
	})
	if err != nil || !strings.Contains(out, fmt.Sprintf("wrote %d files", files)) {
		t.Errorf("export said %q; the folder holds %d files (%v)", out, files, err)
	}
	embedded := 0
	if err := fs.WalkDir(content.FS, ".", func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			embedded++
		}
		return err
	}); err != nil || embedded != files {
		t.Errorf("the folder holds %d files, the embedded course %d (%v)", files, embedded, err)
	}
	// Not over an existing course.
	if code, _, errs := runCLI("export", dir); code != 1 || !strings.Contains(errs, "not empty") {
		t.Errorf("export into a full folder: exit %d %s", code, errs)
	}
	dropped := withoutProgramLabs(t, dir)
	c, err := embeddedCourse()
	if err != nil {
		t.Fatal(err)
	}
	labCount, questions := 0, 0
	for _, l := range c.Labs {
		if !dropped[l.ID] {
			labCount++
			questions += len(l.Questions)
		}
	}
	want := checkSummary(len(c.Lessons), labCount, questions)
	if code, out, errs := runCLI("check", dir); code != 0 || errs != "" || !strings.Contains(out, want) {
		t.Errorf("check %s: exit %d, want %q\nstdout:\n%s\nstderr:\n%s", dir, code, want, out, errs)
	}
}

// TestNewLabAndLessonPassCheck: the skeletons pass check as written, in a
// new course and in a copy of the real one.
func TestNewLabAndLessonPassCheck(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mine")
	steps := [][]string{
		{"new", "lesson", "intro", dir},
		{"new", "lab", "first-lab", "--lesson", "intro", dir},
		{"new", "lesson", "more", dir},
		{"new", "lab", dir + "-ignored-not-an-id"}, // a usage error, nothing written
		{"new", "lab", "second-lab", dir},          // to the last lesson
	}
	for i, args := range steps {
		code, _, errs := runCLI(args...)
		if want := map[bool]int{true: 2, false: 0}[i == 3]; code != want {
			t.Fatalf("%v: exit %d, want %d: %s", args, code, want, errs)
		}
	}
	code, out, errs := runCLI("check", dir)
	if code != 0 || errs != "" || !strings.Contains(out, "ok: 2 lessons, 2 labs, 2 questions run, 0 warning(s)") {
		t.Errorf("check of the new course: exit %d\n%s%s", code, out, errs)
	}
	course, _ := os.ReadFile(filepath.Join(dir, "course.yaml"))
	if !strings.Contains(string(course), "- id: intro\n    labs: [first-lab]\n  - id: more\n    labs: [second-lab]\n") {
		t.Errorf("course.yaml:\n%s", course)
	}

	// In a copy of the real course (without its program labs, which
	// check takes seconds to prove: smallCourse): under the first lesson,
	// its labs rewritten as a block list with a comment, and under a
	// lesson with no labs: key at all.
	real := smallCourse(t)
	c, err := readCourse(mustRead(t, filepath.Join(real, "course.yaml")))
	if err != nil || len(c.Lessons) < 2 || len(c.Lessons[0].Labs) < 2 {
		t.Fatalf("the course: %+v %v", c, err)
	}
	first := c.Lessons[0]
	block := "labs:\n      - " + first.Labs[0] + "  # the first\n"
	for _, l := range first.Labs[1:] {
		block += "      - " + l + "\n"
	}
	edit(t, filepath.Join(real, "course.yaml"), "labs: ["+strings.Join(first.Labs, ", ")+"]\n", block)
	labsBefore := 0
	for _, l := range c.Lessons {
		labsBefore += len(l.Labs)
	}
	steps = [][]string{{"new", "lab", "extra", "--lesson", first.ID, real}}
	if noLabs := c.Lessons[len(c.Lessons)-1]; len(noLabs.Labs) == 0 {
		steps = append(steps, []string{"new", "lab", "extra-two", "--lesson", noLabs.ID, real})
	}
	for _, args := range steps {
		if code, _, errs := runCLI(args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	after, _ := readCourse(mustRead(t, filepath.Join(real, "course.yaml")))
	if got := after.Lessons[0].Labs; got[len(got)-1] != "extra" || len(got) != len(first.Labs)+1 {
		t.Errorf("lesson %s lists %v", first.ID, got)
	}
	if code, out, errs := runCLI("check", real); code != 0 || !strings.Contains(out, fmt.Sprintf(" %d labs", labsBefore+len(steps))) {
		t.Errorf("check after new lab: exit %d\n%s%s", code, out, errs)
	}
	for _, args := range [][]string{
		{"new", "lab", "extra", real},                       // exists
		{"new", "lab", "x", "--lesson", "nope", real},       // no such lesson
		{"new", "lesson", first.ID, real},                   // exists
		{"new", "lab", "x", filepath.Join(real, "missing")}, // no course there
	} {
		if code, _, errs := runCLI(args...); code != 1 || errs == "" {
			t.Errorf("%v: exit %d %q", args, code, errs)
		}
	}
}

func TestSchemaCommand(t *testing.T) {
	for args, title := range map[string]string{"": "leaselab lab.yaml", "lab": "leaselab lab.yaml", "course": "leaselab course.yaml"} {
		code, out, errs := runCLI(strings.Fields("schema " + args)...)
		var s map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &s) != nil || s["title"] != title || s["$schema"] == nil {
			t.Errorf("schema %s: exit %d %s, title %v", args, code, errs, s["title"])
		}
	}
}

// TestCheckSuggestsARunThatWorks: when no choice holds, the command check
// suggests runs the question, in a course folder and in the embedded one.
// The course is copied without its program labs (smallCourse): w1-w2 is
// not one.
func TestCheckSuggestsARunThatWorks(t *testing.T) {
	dir := smallCourse(t)
	edit(t, filepath.Join(dir, "labs", "w1-w2", "lab.yaml"), "holds: W1's write with token 7 is rejected", "holds: W1's write with token 9 is rejected")
	_, _, problems := runCLI("check", dir)
	_, cmdline, ok := strings.Cut(problems, "See the run: ")
	if !ok {
		t.Fatalf("no run suggested:\n%s", problems)
	}
	args := strings.Fields(strings.SplitN(cmdline, "\n", 2)[0])
	if args[0] != "leaselab" || args[2] != filepath.Join(dir, "labs", "w1-w2", "lab.yaml") {
		t.Fatalf("suggested %q", args)
	}
	if code, out, errs := runCLI(args[1:]...); code != 0 || !strings.Contains(out, "rejects file from W1 with token 7") {
		t.Errorf("%v: exit %d %s\n%s", args, code, errs, out)
	}
	// The embedded course's labs go by the same name.
	if code, _, errs := runCLI("run", "labs/w1-w2/lab.yaml", "--question", "storage-checks"); code != 0 {
		t.Errorf("run labs/w1-w2/lab.yaml: exit %d %s", code, errs)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
