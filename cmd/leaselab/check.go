package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"leaselab/catalog"
	"leaselab/content"
	"leaselab/labs"
)

// checkCmd validates course content: every file, every scenario, every
// question run in the engine. It prints one line per problem as
// file:line:col: message on stderr, and fails when any is an error; its ok
// summary goes to stdout, where scripts read results.
func checkCmd(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("check", "leaselab check [DIR] [-v] [-lang id|en]", `
Validates the course in DIR (default: the embedded course): every file,
every scenario, every question run in the engine. Prints one line per
problem as file:line:col: message on stderr and exits 1 when any is an
error; otherwise prints its ok summary on stdout.`)
	verbose := fl.Bool("v", false, "for every question, print the choice the engine's run makes true and the events that show it")
	lang := newOneOf(labs.DefaultLang, labs.Langs...)
	fl.Var(lang, "lang", "language of the problems, the summary and -v's event sentences (id or en; default: Indonesian when LC_ALL, LC_MESSAGES or LANG is, else English)")
	pos, code, ok := fl.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return fl.fail(stderr, "takes one folder, got %d arguments", len(pos))
	}
	fsys, prefix := content.FS, ""
	if len(pos) == 1 {
		dir := pos[0]
		st, err := os.Stat(dir)
		if err != nil || !st.IsDir() {
			fmt.Fprintf(stderr, "leaselab check: %s\n", sayMsg(readerLang(fl.given("lang"), lang.val, "en"), "%s is not a folder", dir))
			return 2
		}
		fsys, prefix = os.DirFS(dir), dir
	}
	c, err := labs.LoadWith(fsys, labs.Options{Root: prefix})
	problems := c.Problems
	var ps labs.Problems
	if errors.As(err, &ps) {
		problems = ps
	} else if err != nil {
		fmt.Fprintf(stderr, "leaselab check: %s\n", catalog.MessageError(readerLang(fl.given("lang"), lang.val, "en"), err))
		return 1
	}
	if c != nil {
		// Claims proved by searching every schedule: check's alone. The
		// searches' heap is a few MB of short-lived worlds, so at the
		// default GOGC the collector ran every few MB and took a tenth of
		// check's CPU: unless GOGC is set, it runs a quarter as often
		// (about 80 MB at most instead of 27).
		if os.Getenv("GOGC") == "" {
			defer debug.SetGCPercent(debug.SetGCPercent(400))
		}
		problems = append(problems, c.ProveSearches(0)...)
	}
	// Each problem in the reader's language (English unless --lang or
	// the locale says Indonesian), its place as it is.
	said := readerLang(fl.given("lang"), lang.val, "en")
	for _, p := range problems {
		if prefix != "" {
			p.File = filepath.Join(prefix, filepath.FromSlash(p.File))
		}
		fmt.Fprintln(stderr, p.In(said))
	}
	nerr := problems.Errors()
	if nerr > 0 {
		fmt.Fprintln(stderr, "leaselab check: "+say(said, "cli.check.failed", catalog.Int(int64(nerr)), catalog.Int(int64(len(problems)-nerr))))
		return 1
	}
	questions := 0
	for _, l := range c.Labs {
		questions += len(l.Questions)
		if *verbose {
			printAnswers(stdout, l, lang.val)
		}
	}
	fmt.Fprintln(stdout, "leaselab check: "+say(said, "cli.check.ok", catalog.Int(int64(len(c.Lessons))), catalog.Int(int64(len(c.Labs))), catalog.Int(int64(questions)), catalog.Int(int64(len(problems)))))
	return 0
}

// printAnswers shows, for each of a lab's questions, which choice holds
// in the engine's run and the events that decided it.
func printAnswers(out io.Writer, l *labs.Lab, lang string) {
	for _, q := range l.Questions {
		w, holds, evidence, err := q.RunQuestion()
		if err != nil {
			fmt.Fprintf(out, "%s %s: %v\n", l.ID, q.ID, err)
			continue
		}
		for i, ch := range holds {
			fmt.Fprintf(out, "%s %s: %s holds: %s\n", l.ID, q.ID, ch.ID, ch.Predicate())
			for _, ix := range evidence[i] {
				e := w.Events()[ix]
				fmt.Fprintf(out, "    #%-3d %7s  %s\n", ix, e.T, labs.DescribeEvent(e, w.Names(), lang))
			}
		}
	}
}
