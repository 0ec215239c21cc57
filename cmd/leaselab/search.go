package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"leaselab/catalog"
	"leaselab/engine"
	"leaselab/labs"
)

// searchOptions is what search's flags ask for.
type searchOptions struct {
	faults, workers int
	sets            stringList
	format, lang    *oneOf
	dir             string
	embedded, bg    bool
}

// searchCmd tries every fault schedule within a lab's search bounds and
// prints the verdict.
func searchCmd(args []string, stdout, stderr io.Writer) int {
	var o searchOptions
	fl := o.flags()
	pos, code, ok := fl.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	switch {
	case len(pos) == 0:
		return fl.fail(stderr, "which lab? give a lab id or a lab.yaml")
	case len(pos) > 1:
		return fl.fail(stderr, "takes one lab, got %q and %q", pos[0], pos[1])
	}
	textLang := readerLang(fl.given("lang"), o.lang.val, "en")
	lab, err := searchLab(pos[0], o.dir, o.embedded)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab search: %s\n", sayErr(textLang, err))
		return 1
	}
	if o.bg {
		if err := background(); err != nil {
			fmt.Fprintf(stderr, "leaselab search: --background: %v (searching at normal priority)\n", err)
		}
	}
	opt := labs.SearchOptions{Faults: o.faults, Set: o.sets, Workers: o.workers}
	enc := json.NewEncoder(stdout)
	if o.format.val == "stream" {
		opt.Progress = func(p labs.SearchProgress) {
			_ = enc.Encode(labs.SearchLine{Progress: &p, CPU: cpuTime()}) // a reader gone away reads no more
		}
	}
	start := time.Now()
	v, err := lab.RunSearch(opt)
	elapsed := time.Since(start)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab search: %s: %s\n", lab.ID, sayErr(textLang, err))
		return 1
	}
	if o.format.val == "stream" {
		if err := enc.Encode(labs.SearchLine{Result: labs.StreamResultOf(v.SearchResult), CPU: cpuTime()}); err != nil {
			return 1
		}
		return 0
	}
	pageLang := readerLang(fl.given("lang"), o.lang.val, labs.DefaultLang)
	out := newSearchReport(lab, v, elapsed, textLang, pageLang)
	if o.format.val == "json" {
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return 1
		}
	} else {
		out.write(stdout)
	}
	if v.TooLarge {
		return 1
	}
	return 0
}

// flags is search's flag set, writing into o.
func (o *searchOptions) flags() *cmdFlags {
	fl := newFlags("search", "leaselab search LAB|FILE [--faults K] [--set NAME=VALUE]... [--workers N] [--format text|json|stream] [--lang id|en] [--content DIR | --embedded] [--background]", `
Tries every fault schedule within the lab's search bounds (lab.yaml
search:) on every core, and prints how many schedules it decided, how many
states it kept, the time it took, and either that no schedule within the
bounds breaks the design or the shortest one that does (fewest faults,
then the earliest harm) as commands, with the path of the live page that
replays it. --set changes the design searched: a scenario option
(storage=fencing, ttl=20s) or, in a design challenge, a policy option
(renew-margin=3s). The counts do not depend on --workers.

--format stream prints one JSON object a line, progress as it goes and
the result at the end: what a server reads when it runs a page's search
in a process of its own, with --background (the lowest CPU priority) and
--content (the folder of the course it serves).`)
	fl.IntVar(&o.faults, "faults", 0, "the most faults in a schedule, 1 to 3 (default: the lab's)")
	fl.Var(&o.sets, "set", "NAME=VALUE: a scenario or policy option to change (repeatable)")
	fl.IntVar(&o.workers, "workers", 0, "goroutines to search on (default: every core)")
	o.format = newOneOf("text", "text", "json", "stream")
	fl.Var(o.format, "format", "output: text, json, or stream (JSON lines: progress, then the result)")
	fl.StringVar(&o.dir, "content", "", "find LAB in the course in folder `DIR` instead of the embedded one")
	fl.BoolVar(&o.embedded, "embedded", false, "find LAB in the embedded course, even when a file of that name is here")
	fl.BoolVar(&o.bg, "background", false, "run at the lowest CPU priority, so that everything else on the machine comes first")
	o.lang = newOneOf("", labs.Langs...)
	fl.Var(o.lang, "lang", "the language of the text and the permalink (default: Indonesian when LC_ALL, LC_MESSAGES or LANG is, else English text and an Indonesian permalink)")
	return fl
}

// newSearchReport is the search's verdict as leaselab search prints it:
// its text in textLang, the permalink to a page in pageLang.
func newSearchReport(lab *labs.Lab, v *labs.SearchVerdict, elapsed time.Duration, textLang, pageLang string) searchReport {
	out := searchReport{
		Lab: lab.ID, Design: v.Design, Faults: v.Bounds.Faults, Horizon: v.Bounds.Horizon.String(),
		Schedules: v.Schedules, States: v.States, Pruned: v.Pruned, Broken: v.Broken, Moments: v.Moments,
		Seconds: elapsed.Seconds(), TooLarge: v.TooLarge,
	}
	for _, k := range v.Bounds.Kinds {
		out.Kinds = append(out.Kinds, string(k.Name))
	}
	out.lang = textLang
	for _, k := range v.Bounds.Kinds {
		out.kindWords = append(out.kindWords, catalog.T(textLang, "search.kind."+string(k.Name)))
	}
	if v.Shortest != nil {
		out.Shortest = newSearchBreak(lab, v, textLang, pageLang)
	}
	return out
}

// newSearchBreak is the shortest schedule that breaks the design: its
// faults, harm and commands, in the trace's words and in textLang's.
func newSearchBreak(lab *labs.Lab, v *labs.SearchVerdict, textLang, pageLang string) *searchBreak {
	br := v.Shortest
	s := &searchBreak{Harm: br.Harm.Reason().String(), At: br.Harm.T.String(), Sentence: v.World.Names().Describe(br.Harm)}
	s.said.at, s.said.harm = s.At, s.Sentence
	if textLang != "en" {
		s.said.at = catalog.MomentText(textLang, br.Harm.T)
		s.said.harm = labs.DescribeEvent(br.Harm, v.World.Names(), textLang)
	}
	for _, f := range br.Faults {
		s.Faults = append(s.Faults, f.String())
		if textLang == "en" {
			s.said.faults = append(s.said.faults, f.String())
		} else {
			s.said.faults = append(s.said.faults, labs.FaultText(textLang, f))
		}
	}
	for _, c := range br.Commands {
		s.Commands = append(s.Commands, c.String())
		said := ""
		if textLang != "en" {
			said = string(catalog.AppendCommand(nil, textLang, c))
		}
		s.said.cmds = append(s.said.cmds, said)
	}
	if v.Query != "" {
		s.Permalink = "/" + pageLang + "/labs/" + lab.ID + "/at?" + v.Query
	}
	return s
}

// searchReport is what leaselab search prints.
type searchReport struct {
	Lab       string       `json:"lab"`
	Design    string       `json:"design,omitempty"`
	Faults    int          `json:"faults"`
	Kinds     []string     `json:"kinds"`
	Horizon   string       `json:"horizon"`
	Moments   int          `json:"moments"`
	Schedules int          `json:"schedules"`
	Broken    int          `json:"broken"`
	States    int          `json:"states"`
	Pruned    int          `json:"pruned"`
	Seconds   float64      `json:"seconds"`
	TooLarge  bool         `json:"too_large,omitempty"`
	Shortest  *searchBreak `json:"shortest,omitempty"`

	lang      string   // the text's language
	kindWords []string // Kinds in lang's words
}

type searchBreak struct {
	Faults    []string `json:"faults"`
	Harm      string   `json:"harm"`
	At        string   `json:"at"`
	Sentence  string   `json:"sentence"`
	Commands  []string `json:"commands"`
	Permalink string   `json:"permalink,omitempty"`

	// said is the text's words for the same: the faults, when and what
	// the harm is, and each command as the reader reads it ("" in English,
	// where the command is its own reading).
	said struct {
		faults   []string
		at, harm string
		cmds     []string
	}
}

func (r searchReport) write(w io.Writer) {
	l := r.lang
	design := catalog.T(l, "cli.search.own")
	if r.Design != "" {
		design = r.Design
	}
	head, horizon, took := "cli.search.head", r.Horizon, fmt.Sprintf("%.2fs", r.Seconds)
	if r.Faults == 1 {
		head = "cli.search.head.one"
	}
	kinds := strings.Join(r.Kinds, ", ")
	if l != "en" {
		kinds = strings.Join(r.kindWords, ", ")
		if d, err := engine.ParseTime(r.Horizon); err == nil {
			horizon = catalog.TimeText(l, d)
		}
		took = string(catalog.AppendNumber(nil, l, fmt.Appendf(nil, "%.2f", r.Seconds))) + " " + strings.TrimPrefix(catalog.T(l, "time.s"), "%s ")
	}
	fmt.Fprintln(w, say(l, head, catalog.Str(r.Lab), catalog.Str(design), catalog.Int(int64(r.Faults)), catalog.Str(kinds), catalog.Str(horizon)))
	fmt.Fprintln(w, say(l, "cli.search.counts", catalog.Count(int64(r.Schedules)), catalog.Count(int64(r.Broken)), catalog.Count(int64(r.Moments)), catalog.Count(int64(r.States)), catalog.Count(int64(r.Pruned)), catalog.Str(took)))
	switch {
	case r.TooLarge:
		fmt.Fprintln(w, catalog.T(l, "cli.search.toolarge"))
	case r.Shortest == nil:
		fmt.Fprintln(w, catalog.T(l, "cli.search.safe"))
	default:
		s := r.Shortest
		fmt.Fprintln(w, say(l, "cli.search.shortest", catalog.Str(strings.Join(s.said.faults, ", "))))
		fmt.Fprintln(w, say(l, "cli.search.harm", catalog.Str(s.said.at), catalog.Str(s.said.harm)))
		fmt.Fprintln(w, catalog.T(l, "cli.search.commands"))
		for i, c := range s.Commands {
			if i < len(s.said.cmds) && s.said.cmds[i] != "" {
				fmt.Fprintf(w, "  %-28s  %s\n", c, s.said.cmds[i])
				continue
			}
			fmt.Fprintf(w, "  %s\n", c)
		}
		if s.Permalink != "" {
			fmt.Fprintln(w, say(l, "cli.search.permalink", catalog.Str(s.Permalink)))
		}
	}
}

// searchLab finds the lab to search: in the course in dir when one is
// given (a server's own content folder), else as findLab does.
func searchLab(target, dir string, embedded bool) (*labs.Lab, error) {
	var c *labs.Course
	var err error
	switch {
	case dir != "":
		c, err = labs.Load(os.DirFS(dir))
	case embedded:
		c, err = embeddedCourse()
	default:
		return findLab(target)
	}
	if c == nil {
		return nil, err
	}
	if l := c.Lab(target); l != nil {
		return l, nil
	}
	return nil, fmt.Errorf("no lab %q in the course", target)
}
