package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"leaselab/catalog"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/program"
)

// withProgram is lab with the program in file as its written worker. What
// is wrong with the program is said in the catalog's words, with its line.
func withProgram(lab *labs.Lab, file, lang string, stderr io.Writer) (*labs.Lab, error) {
	if lang == "" {
		lang = labs.DefaultLang
	}
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab run: %s\n", sayErr(lang, err))
		return nil, err
	}
	l, err := lab.WithProgram(string(src))
	if err != nil {
		fmt.Fprintf(stderr, "leaselab run: %s: %s\n", file, program.Describe(err, lang))
		return nil, err
	}
	return l, nil
}

// judgeProgram plays the lab's schedules against the program and prints
// the verdict in the student's language: passed, or the failing schedule,
// its deciding event and the line of the program that acted.
func judgeProgram(lab *labs.Lab, file, lang string, stdout, stderr io.Writer) int {
	if lang == "" {
		lang = labs.DefaultLang
	}
	src, _ := os.ReadFile(file) // withProgram read it already
	start := time.Now()
	v, err := lab.Program().Judge(string(src), 0)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab run: %s\n", sayErr(lang, err))
		return 1
	}
	took := time.Since(start)
	if v.Compile != nil {
		fmt.Fprintf(stdout, catalog.T(lang, "program.verdict.compile")+"\n", program.Describe(v.Compile, lang))
		return 1
	}
	if v.SearchCut {
		defer fmt.Fprintf(stdout, catalog.T(lang, "program.verdict.cut")+"\n", labs.SearchCalls)
	}
	code := 1
	switch {
	case v.TooSlow:
		fmt.Fprintf(stdout, catalog.T(lang, "program.verdict.slow")+"\n", string(catalog.AppendNumber(nil, lang, strconv.AppendInt(nil, labs.JudgementSteps, 10))))
		if v.Line > 0 {
			fmt.Fprintf(stdout, catalog.T(lang, "program.verdict.hot")+"\n", v.Line)
		}
	case v.Pass:
		fmt.Fprintf(stdout, catalog.T(lang, lab.Program().TextKey("program.verdict.pass"))+"\n", v.Runs)
		if v.Search != nil {
			fmt.Fprintf(stdout, catalog.T(lang, "program.verdict.searched")+"\n", v.Search.Schedules, v.Search.Bounds.Faults)
		}
		sayBeyond(stdout, v, lang)
		code = 0
	default:
		why, _ := v.Why()
		sayFailingSchedule(stdout, v, why, lang)
		sayWhyFailed(stdout, lab, v, why, lang)
		sayActingLine(stdout, v, string(src), lang)
	}
	fmt.Fprintf(stderr, "(%s)\n", took.Round(time.Millisecond))
	return code
}

// sayBeyond prints, after a pass, the schedule beyond the lab's bounds
// that breaks the program all the same: what no program can do.
func sayBeyond(stdout io.Writer, v *labs.ProgramVerdict, lang string) {
	b := v.Beyond
	if b == nil || b.Shortest == nil {
		return
	}
	sh := b.Shortest
	fmt.Fprintf(stdout, catalog.T(lang, "program.verdict.beyond")+"\n", len(sh.Faults), catalog.MomentText(lang, sh.Harm.T))
	for _, f := range sh.Faults {
		fmt.Fprintf(stdout, "  %s\n", labs.FaultText(lang, f))
	}
	fmt.Fprintf(stdout, "  %s\n", labs.DescribeEvent(sh.Harm, b.World.Names(), lang))
}

// sayFailingSchedule prints the schedule the program fails on: the
// search's shortest, or the judgement's counterexample, with its faults.
func sayFailingSchedule(stdout io.Writer, v *labs.ProgramVerdict, why engine.Event, lang string) {
	if v.Searched() {
		sh := v.Search.Shortest
		fmt.Fprintf(stdout, catalog.T(lang, "program.verdict.search")+"\n", len(sh.Faults), catalog.MomentText(lang, why.T))
		for _, f := range sh.Faults {
			fmt.Fprintf(stdout, "  %s\n", labs.FaultText(lang, f))
		}
		return
	}
	ce := v.Counterexample
	if v.Faulted() {
		fmt.Fprintf(stdout, catalog.T(lang, "program.verdict.faulted")+"\n", catalog.MomentText(lang, why.T), ce.Index+1)
	} else {
		fmt.Fprintf(stdout, catalog.T(lang, "program.verdict.fail")+"\n", ce.Index+1, catalog.MomentText(lang, why.T))
	}
	for _, f := range v.FaultsBefore().Counterexample.Faults {
		fmt.Fprintf(stdout, "  %s, %s: %s\n", catalog.MomentText(lang, f.At), catalog.T(lang, "fault."+string(f.Kind)), faultCommands(f))
	}
}

// sayWhyFailed prints what went wrong at the deciding event: the
// program's fault, the harm, a write after a rejection, or too little work.
func sayWhyFailed(stdout io.Writer, lab *labs.Lab, v *labs.ProgramVerdict, why engine.Event, lang string) {
	switch {
	case v.Fault != nil:
		fmt.Fprintf(stdout, catalog.T(lang, "program.verdict.fault")+"\n", program.Describe(v.Fault.Err, lang))
	case why.Kind == engine.KindViolation:
		fmt.Fprintf(stdout, catalog.T(lang, "violation."+why.Reason().String())+"\n", v.World.Names().Of(why.Peer()), fmt.Sprint(why.Token))
	case v.WroteAfterRejection():
		fmt.Fprintf(stdout, catalog.T(lang, "program.verdict.rejected")+"\n", lab.Program().Worker, fmt.Sprint(why.Token))
	default:
		if share, want, short := v.WorkShort(lab.Program()); short {
			fmt.Fprintf(stdout, catalog.T(lang, "program.verdict.work")+"\n", lab.Program().Worker, share, want)
		} else {
			fmt.Fprintln(stdout, catalog.T(lang, lab.Program().TextKey("program.verdict.survive")))
		}
	}
}

// sayActingLine prints the line of the program that acted, when the
// verdict names one, quoted from src.
func sayActingLine(stdout io.Writer, v *labs.ProgramVerdict, src, lang string) {
	if v.Line <= 0 {
		return
	}
	key := "program.verdict.line"
	if v.Faulted() {
		key = "program.verdict.failedline"
	}
	fmt.Fprintf(stdout, catalog.T(lang, key)+"\n", v.Line)
	quoteLine(stdout, src, v.Line)
	if c := v.CauseText(lang, v.Cause.Name); c != "" {
		fmt.Fprintln(stdout, c)
		quoteLine(stdout, src, v.Cause.Line)
	}
}

// quoteLine prints line of src, numbered.
func quoteLine(stdout io.Writer, src string, line int32) {
	if lines := strings.Split(src, "\n"); line > 0 && int(line) <= len(lines) {
		fmt.Fprintf(stdout, "  %d | %s\n", line, strings.TrimRight(lines[line-1], " \t\r"))
	}
}

func faultCommands(f engine.Fault) string {
	var parts []string
	for _, c := range f.Cmds {
		parts = append(parts, c.String())
	}
	return strings.Join(parts, "; ")
}
