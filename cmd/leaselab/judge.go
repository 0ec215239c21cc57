package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// backgroundEnv set to "off" keeps a search's or a judgement's process at
// normal priority (background does nothing): on a machine whose cores are
// kept busy at normal priority, a test suite beside other loads, the
// lowest priority would leave it nothing to run on, and a test of the
// process would wait on the machine's load, not on the process.
const backgroundEnv = "LEASELAB_BACKGROUND"

// judgeMemory bounds the heap of a judgement's process: the cost model
// (program/cost.go) keeps a program's values far below it, and a
// judgement of the course's references holds about 30 MB.
const judgeMemory = 512 << 20

// judgeCmd judges a written worker, read from standard input, as Submit
// does, and prints the judgement as one JSON line (labs.JudgementLine):
// what a server reads when it judges in a process of its own.
func judgeCmd(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("judge", "leaselab judge LAB [--content DIR | --embedded] [--background] < PROGRAM", `
Judges the written worker on standard input against the program lab LAB:
its random schedules and its search, within the judgement's step budget,
as the lab page's Submit does. Prints one JSON object (the counts, the
index of the deciding schedule, the search's shortest schedule, the steps
and CPU time spent): a server runs this in a process of its own, with
--background (the lowest CPU priority), and replays the deciding schedule
itself. To read a verdict, use leaselab run LAB --program FILE --judge.`)
	dir := fl.String("content", "", "find LAB in the course in folder `DIR` instead of the embedded one")
	embedded := fl.Bool("embedded", false, "find LAB in the embedded course, even when a file of that name is here")
	bg := fl.Bool("background", false, "run at the lowest CPU priority, so that everything else on the machine comes first")
	pos, code, ok := fl.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return fl.fail(stderr, "takes one program lab")
	}
	lab, err := searchLab(pos[0], *dir, *embedded)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab judge: %v\n", err)
		return 1
	}
	p := lab.Program()
	if p == nil {
		fmt.Fprintf(stderr, "leaselab judge: lab %s has no written worker\n", lab.ID)
		return 1
	}
	if *bg {
		if err := background(); err != nil {
			fmt.Fprintf(stderr, "leaselab judge: --background: %v (judging at normal priority)\n", err)
		}
	}
	debug.SetMemoryLimit(judgeMemory)
	// A judgement's heap is mostly short-lived (each handler call's copy
	// of the state, its frames and values): unless GOGC is set, the
	// collector runs a quarter as often, within judgeMemory. A judgement
	// of a course reference took a fifth less CPU (as check's, check.go).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	src, err := io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	if err != nil {
		fmt.Fprintf(stderr, "leaselab judge: %v\n", err)
		return 1
	}
	v, err := p.Judge(string(src), 1)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab judge: %s: %v\n", lab.ID, err)
		return 1
	}
	if v.Compile != nil {
		fmt.Fprintf(stderr, "leaselab judge: %s: %v\n", lab.ID, v.Compile)
		return 1
	}
	line := v.Stream()
	line.CPU = cpuTime()
	if err := json.NewEncoder(stdout).Encode(line); err != nil {
		return 1
	}
	return 0
}
