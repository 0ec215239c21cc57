package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"leaselab/labs"
)

// searchCmd tries every fault schedule within a lab's search bounds and
// prints the verdict.
func searchCmd(args []string, stdout, stderr io.Writer) int {
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
	faults := fl.Int("faults", 0, "the most faults in a schedule, 1 to 3 (default: the lab's)")
	var sets stringList
	fl.Var(&sets, "set", "NAME=VALUE: a scenario or policy option to change (repeatable)")
	workers := fl.Int("workers", 0, "goroutines to search on (default: every core)")
	format := newOneOf("text", "text", "json", "stream")
	fl.Var(format, "format", "output: text, json, or stream (JSON lines: progress, then the result)")
	dir := fl.String("content", "", "find LAB in the course in folder `DIR` instead of the embedded one")
	embedded := fl.Bool("embedded", false, "find LAB in the embedded course, even when a file of that name is here")
	bg := fl.Bool("background", false, "run at the lowest CPU priority, so that everything else on the machine comes first")
	lang := newOneOf(labs.DefaultLang, labs.Langs...)
	fl.Var(lang, "lang", "the language of the permalink and the harm's sentence")
	pos, code, ok := fl.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	switch {
	case len(pos) == 0:
		return usageError(stderr, "search", "which lab? give a lab id or a lab.yaml")
	case len(pos) > 1:
		return usageError(stderr, "search", "takes one lab, got %q and %q", pos[0], pos[1])
	}
	lab, err := searchLab(pos[0], *dir, *embedded)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab search: %v\n", err)
		return 1
	}
	if *bg {
		if err := background(); err != nil {
			fmt.Fprintf(stderr, "leaselab search: --background: %v (searching at normal priority)\n", err)
		}
	}
	opt := labs.SearchOptions{Faults: *faults, Set: sets, Workers: *workers}
	enc := json.NewEncoder(stdout)
	if format.val == "stream" {
		opt.Progress = func(p labs.SearchProgress) {
			_ = enc.Encode(labs.SearchLine{Progress: &p, CPU: cpuTime()}) // a reader gone away reads no more
		}
	}
	start := time.Now()
	v, err := lab.RunSearch(opt)
	elapsed := time.Since(start)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab search: %s: %v\n", lab.ID, err)
		return 1
	}
	if format.val == "stream" {
		if err := enc.Encode(labs.SearchLine{Result: labs.StreamResultOf(v.SearchResult), CPU: cpuTime()}); err != nil {
			return 1
		}
		return 0
	}
	out := searchReport{
		Lab: lab.ID, Design: v.Design, Faults: v.Bounds.Faults, Horizon: v.Bounds.Horizon.String(),
		Schedules: v.Schedules, States: v.States, Pruned: v.Pruned, Broken: v.Broken, Moments: v.Moments,
		Seconds: elapsed.Seconds(), TooLarge: v.TooLarge,
	}
	for _, k := range v.Bounds.Kinds {
		out.Kinds = append(out.Kinds, string(k.Name))
	}
	if br := v.Shortest; br != nil {
		s := &searchBreak{Harm: br.Harm.Reason().String(), At: br.Harm.T.String(), Sentence: v.World.Names().Describe(br.Harm)}
		for _, f := range br.Faults {
			s.Faults = append(s.Faults, f.String())
		}
		for _, c := range br.Commands {
			s.Commands = append(s.Commands, c.String())
		}
		if v.Query != "" {
			s.Permalink = "/" + lang.val + "/labs/" + lab.ID + "/at?" + v.Query
		}
		out.Shortest = s
	}
	if format.val == "json" {
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
}

type searchBreak struct {
	Faults    []string `json:"faults"`
	Harm      string   `json:"harm"`
	At        string   `json:"at"`
	Sentence  string   `json:"sentence"`
	Commands  []string `json:"commands"`
	Permalink string   `json:"permalink,omitempty"`
}

func (r searchReport) write(w io.Writer) {
	design := "its own design"
	if r.Design != "" {
		design = r.Design
	}
	fmt.Fprintf(w, "lab %s, %s: up to %d %s of %s, each run to %s\n", r.Lab, design, r.Faults, plural(r.Faults, "fault", "faults"), strings.Join(r.Kinds, ", "), r.Horizon)
	fmt.Fprintf(w, "%d schedules decided (%d broke it), %d first-fault moments, %d distinct states kept, %d branches cut at a state seen before, in %.2fs\n",
		r.Schedules, r.Broken, r.Moments, r.States, r.Pruned, r.Seconds)
	switch {
	case r.TooLarge:
		fmt.Fprintln(w, "bounds too large: the search stopped at its cap of states; give fewer kinds, sizes or faults")
	case r.Shortest == nil:
		fmt.Fprintf(w, "no schedule within these bounds breaks it\n")
	default:
		s := r.Shortest
		fmt.Fprintf(w, "shortest breaking schedule: %s\n", strings.Join(s.Faults, ", "))
		fmt.Fprintf(w, "harm at %s: %s\n", s.At, s.Sentence)
		fmt.Fprintln(w, "commands:")
		for _, c := range s.Commands {
			fmt.Fprintf(w, "  %s\n", c)
		}
		if s.Permalink != "" {
			fmt.Fprintf(w, "permalink: %s\n", s.Permalink)
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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
