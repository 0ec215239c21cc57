// Command testsummary writes what a quiet `go test` writes, from the
// `go test -json` on its standard input, and one closing line. It writes
// each package's ok or FAIL line and the whole output of every test that
// failed, then:
//
//	12 packages, 640 tests passed, 3 skipped, 0 failed in 84.2 s
//
// Tests count subtests too. The time is from the start of this command,
// which starts with the go test it reads. It exits 1 when a test or a
// package failed, or when the input ended without a package's result.
//
//	set -o pipefail; go test -json ./... | go run ./cmd/testsummary
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// summary is what the events added up to.
type summary struct {
	packages, passed, skipped, failed int
	pkgFailed                         bool
	// output is each running test's output, kept until it passes (then
	// dropped) or fails (then written).
	output map[[2]string][]string
}

func main() {
	start := time.Now()
	s, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	fmt.Printf("%d packages, %d tests passed, %d skipped, %d failed in %.1f s\n",
		s.packages, s.passed, s.skipped, s.failed, time.Since(start).Seconds())
	if s.failed > 0 || s.pkgFailed {
		os.Exit(1)
	}
}

// summarize reads the events of r and writes to w what a quiet go test
// writes. A line that is not an event is written as it is (go test writes
// build errors so).
func summarize(r io.Reader, w io.Writer) (*summary, error) {
	s := &summary{output: map[[2]string][]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text())
			continue
		}
		s.add(e, w)
	}
	return s, sc.Err()
}

func (s *summary) add(e event, w io.Writer) {
	key := [2]string{e.Package, e.Test}
	switch {
	case e.Test == "" && e.Action == "output":
		// The package's own lines: ok, FAIL, a skipped package's note,
		// what TestMain wrote; not the PASS a verbose run adds.
		if e.Output != "PASS\n" {
			fmt.Fprint(w, e.Output)
		}
	case e.Test == "":
		switch e.Action {
		case "pass", "skip":
			s.packages++
		case "fail":
			s.packages++
			s.pkgFailed = true
		}
	case e.Action == "output":
		if !strings.HasPrefix(e.Output, "=== ") { // RUN, PAUSE, CONT: a verbose run's
			s.output[key] = append(s.output[key], e.Output)
		}
	case e.Action == "pass":
		s.passed++
		delete(s.output, key)
	case e.Action == "skip":
		s.skipped++
		delete(s.output, key)
	case e.Action == "fail":
		s.failed++
		for _, line := range s.output[key] {
			fmt.Fprint(w, line)
		}
		delete(s.output, key)
	}
}
