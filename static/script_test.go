package static

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestPageScript runs the page script's unit tests (testdata/*.test.js)
// under Node's test runner, with the small DOM testdata/package.json
// names (a dev-only dependency: `npm ci` in static/testdata, as .ci/run
// does, installs it; nothing of it is embedded). Without node or the
// installed modules it skips and says why, unless
// LEASELAB_BROWSER_TESTS=required (CI), where it fails instead.
func TestPageScript(t *testing.T) {
	missing := func(why string) {
		t.Helper()
		if os.Getenv("LEASELAB_BROWSER_TESTS") == "required" {
			t.Fatal(why + " (LEASELAB_BROWSER_TESTS=required)")
		}
		t.Skip(why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node not found: the page script's unit tests need Node 20 or later")
		return
	}
	out, err := exec.Command(node, "--version").Output()
	major, _ := strconv.Atoi(regexp.MustCompile(`^v(\d+)`).FindStringSubmatch(string(out) + "v0")[1])
	if err != nil || major < 20 {
		missing("node " + strings.TrimSpace(string(out)) + ": the page script's unit tests need Node 20 or later")
		return
	}
	if _, err := os.Stat(filepath.Join("testdata", "node_modules", "linkedom")); err != nil {
		missing("the page script's unit tests need their DOM: run `npm ci` in static/testdata")
		return
	}
	tests, _ := filepath.Glob(filepath.Join("testdata", "*.test.js"))
	if len(tests) == 0 {
		t.Fatal("no testdata/*.test.js")
	}
	for i, f := range tests {
		tests[i] = filepath.Base(f)
	}
	cmd := exec.Command(node, append([]string{"--test"}, tests...)...)
	cmd.Dir = "testdata"
	cmd.Env = append(os.Environ(), "NODE_NO_WARNINGS=1")
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	summary := regexp.MustCompile(`(?m)^# (tests|pass|fail) \d+$`).FindAll(out, -1)
	t.Logf("node --test %s: %s", strings.Join(tests, " "), strings.ReplaceAll(string(bytes.Join(summary, []byte(", "))), "# ", ""))
	if !regexp.MustCompile(`(?m)^# pass [1-9]`).Match(out) {
		t.Fatalf("node --test passed no test:\n%s", out)
	}
}
