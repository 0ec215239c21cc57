package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"leaselab/content"
	"leaselab/labs"
)

// checkCmd validates course content: every file, every scenario, every
// question run in the engine. It prints one line per problem as
// file:line:col: message and fails when any is an error.
func checkCmd(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("check", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: leaselab check [DIR]\n\nValidates the course in DIR (default: the embedded course) and runs every question.")
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 1 {
		fl.Usage()
		return 2
	}
	fsys, prefix := content.FS, ""
	if fl.NArg() == 1 {
		dir := fl.Arg(0)
		st, err := os.Stat(dir)
		if err != nil || !st.IsDir() {
			fmt.Fprintf(stderr, "leaselab check: %s is not a directory\n", dir)
			return 2
		}
		fsys, prefix = os.DirFS(dir), dir
	}
	c, err := labs.Load(fsys)
	problems := c.Problems
	var ps labs.Problems
	if errors.As(err, &ps) {
		problems = ps
	} else if err != nil {
		fmt.Fprintf(stderr, "leaselab check: %v\n", err)
		return 1
	}
	for _, p := range problems {
		if prefix != "" {
			p.File = filepath.Join(prefix, filepath.FromSlash(p.File))
		}
		fmt.Fprintln(stdout, p.String())
	}
	nerr := problems.Errors()
	if nerr > 0 {
		fmt.Fprintf(stderr, "leaselab check: %d error(s), %d warning(s)\n", nerr, len(problems)-nerr)
		return 1
	}
	questions := 0
	for _, l := range c.Labs {
		questions += len(l.Questions)
	}
	fmt.Fprintf(stderr, "leaselab check: ok: %d lessons, %d labs, %d questions run, %d warning(s)\n", len(c.Lessons), len(c.Labs), questions, len(problems))
	return 0
}

var _ fs.FS = content.FS
