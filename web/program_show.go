package web

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"leaselab/catalog"
	"leaselab/draw"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/program"
)

// programView is the editor of a lab where the student writes the worker,
// and the engine's verdict on what was submitted (issue 30).
type programView struct {
	Lang   string
	Text   string // the program in the editor
	Lines  int    // how many line numbers the editor shows
	Error  string // what keeps the program from running, with its line
	Judged *programVerdict
	// Compare is the program's behaviour beside the reference's, asked
	// for after it passed (never before).
	Compare *compareView
	// Queued is the Submit's place in the judgements' queue, until it is
	// judged (judge_queue.go): the page then asks again by itself.
	Queued *judgePlace
	// verdict is the engine's own verdict on a Submit (one that did not
	// compile included), which a class keeps (class_programs.go).
	verdict *labs.ProgramVerdict
}

// programVerdict is a judged program in the student's words: the
// deciding schedule's faults (the search's shortest, else the first random
// schedule that failed), the deciding event, its diagram, and the line of
// the program that acted.
type programVerdict struct {
	Lang     string
	Pass     bool
	Summary  string
	Searched string   // on a pass: what the search tried as well
	Faults   []string // the deciding schedule's faults
	Why      string   // the deciding event, with its time
	Fault    string   // the program's own failure, when that decided
	Rule     string   // a write with a refused token, when that decided
	Line     int32
	LineKey  string // what Line is: the line that acted, or that took the most steps
	LineText string
	// The line that set what the acting line went by (the verdict's
	// chain): its sentence around the value's or timer's name, the line
	// and its text.
	CauseBefore, CauseName, CauseAfter string
	CauseLine                          int32
	CauseLineText                      string
	Diagram                            *draw.Diagram
	// On a pass, what no program survives (the lab's beyond:): its
	// summary, the schedule's faults and the harm, with its time.
	Beyond       string
	BeyondFaults []string
	BeyondWhy    string
}

// programOf fills the editor from the session (the program its link
// carries, else the form's text, else the lab's starting program), says a
// program error of refused in the editor, and judges the program when
// asked. Its error is the judgement's own (the lab's), not the program's.
func (s *Server) programOf(ctx context.Context, lab *labs.Lab, progText, formText string, refused error, ask programAsk, lang string) (*programView, error) {
	p := lab.Program()
	pv := &programView{Lang: lang, Text: progText}
	if pv.Text == "" {
		pv.Text = formText
	}
	if pv.Text == "" {
		pv.Text = p.Start
	}
	pv.Lines = strings.Count(pv.Text, "\n") + 2
	var pe *program.Error
	if errors.As(refused, &pe) {
		pv.Error = program.Describe(pe, lang)
		if ask.submit {
			pv.verdict = &labs.ProgramVerdict{Compile: pe, Event: -1}
		}
	}
	if ask.submit && pv.Error == "" {
		if _, cerr := p.Compile(pv.Text); cerr != nil {
			// It does not compile: said at once, running nothing.
			pv.Error = program.Describe(cerr, lang)
			pv.verdict = &labs.ProgramVerdict{Compile: cerr, Event: -1}
			return pv, nil
		}
		// In the judgements' queue, fairly by address and student; the
		// request's context: a client that leaves stops its judgement.
		v, place, err := s.judging.judge(ctx, lab, pv.Text)
		if err == nil && place != nil {
			pv.Queued = place
			return pv, nil
		}
		if err != nil {
			return pv, err
		}
		pv.verdict = v
		pv.Judged = verdictOfProgram(v, pv.Text, p, lang)
		if v.Compile != nil {
			pv.Error, pv.Judged = program.Describe(v.Compile, lang), nil
		}
		if ask.compare && v.Pass {
			c, err := p.Compare(pv.Text, v)
			if err != nil {
				return pv, err
			}
			pv.Compare = compareOf(c, lang)
		}
	}
	return pv, nil
}

// programAsk is what a program lab's page was asked for: the verdict
// (Submit), and the comparison with the reference, which is shown only
// to a program that passed.
type programAsk struct{ submit, compare bool }

// compareView is a passing program beside the reference, in words: the
// schedule, the first event that tells them apart, or that none did.
type compareView struct {
	Same     string   // no schedule tried tells them apart
	Schedule string   // which schedule shows the difference
	Faults   []string // its faults
	Diff     string   // what each did at the first differing event
}

func compareOf(c *labs.RefComparison, lang string) *compareView {
	if c.Same {
		return &compareView{Same: fmt.Sprintf(T(lang, "program.compare.same"), c.Tried, c.Tried-1)}
	}
	v := &compareView{Schedule: T(lang, "program.compare.none"), Diff: c.Text(lang)}
	if c.Schedule >= 0 {
		v.Schedule = fmt.Sprintf(T(lang, "program.compare.schedule"), c.Schedule+1)
		v.Faults = (&challengeView{Lang: lang, Verdict: &labs.ChallengeVerdict{Result: engine.Result{Counterexample: &engine.Run{Faults: c.Faults}}}}).Faults()
	}
	return v
}

func verdictOfProgram(v *labs.ProgramVerdict, src string, p *labs.ProgramSpec, lang string) *programVerdict {
	worker := p.Worker
	out := &programVerdict{Lang: lang, Pass: v.Pass, LineKey: "program.verdict.line"}
	if v.TooSlow {
		out.Summary = fmt.Sprintf(T(lang, "program.verdict.slow"), string(catalog.AppendNumber(nil, lang, strconv.AppendInt(nil, labs.JudgementSteps, 10))))
		out.LineKey = "program.verdict.hot"
		out.setLine(v.Line, src)
		return out
	}
	if v.SearchCut {
		out.Searched = fmt.Sprintf(T(lang, "program.verdict.cut"), labs.SearchCalls)
	}
	if v.Pass {
		out.Summary = fmt.Sprintf(T(lang, p.TextKey("program.verdict.pass")), v.Runs)
		if v.Search != nil {
			out.Searched = fmt.Sprintf(T(lang, "program.verdict.searched"), v.Search.Schedules, v.Search.Bounds.Faults)
		}
		out.setBeyond(v.Beyond)
		return out
	}
	why, _ := v.Why()
	if v.Searched() {
		sh := v.Search.Shortest
		out.Summary = fmt.Sprintf(T(lang, "program.verdict.search"), len(sh.Faults), catalog.MomentText(lang, why.T))
		for _, f := range sh.Faults {
			out.Faults = append(out.Faults, labs.FaultText(lang, f))
		}
	} else {
		ce := v.Counterexample
		out.Summary = fmt.Sprintf(T(lang, "program.verdict.fail"), ce.Index+1, catalog.MomentText(lang, why.T))
		if v.Faulted() {
			out.Summary = fmt.Sprintf(T(lang, "program.verdict.faulted"), catalog.MomentText(lang, why.T), ce.Index+1)
			out.LineKey = "program.verdict.failedline"
		}
		out.Faults = (&challengeView{Lang: lang, Verdict: &labs.ChallengeVerdict{Result: v.FaultsBefore()}}).Faults()
	}
	if v.World != nil && !v.Faulted() { // a failure of its own is said below, in its words
		out.Why = catalog.MomentText(lang, why.T) + ": " + labs.DescribeEvent(why, v.World.Names(), lang)
		out.Diagram = draw.ZoomedDiagram("program", v.World, lang, map[int]bool{v.Event: true})
	}
	switch {
	case v.Fault != nil:
		out.Fault = fmt.Sprintf(T(lang, "program.verdict.fault"), program.Describe(v.Fault.Err, lang))
	case v.WroteAfterRejection():
		out.Rule = fmt.Sprintf(T(lang, "program.verdict.rejected"), worker, strconv.FormatInt(why.Token, 10))
	default:
		if share, want, short := v.WorkShort(p); short {
			out.Rule = fmt.Sprintf(T(lang, "program.verdict.work"), worker, share, want)
		}
	}
	out.setLine(v.Line, src)
	out.setCause(v, src)
	return out
}

// setCause says the line that set what the acting line went by, with
// the value's or timer's name apart (it is code).
func (v *programVerdict) setCause(pv *labs.ProgramVerdict, src string) {
	c := pv.Cause
	if c.Line <= 0 || v.Line <= 0 {
		return
	}
	before, after, _ := strings.Cut(pv.CauseText(v.Lang, "\x00"), "\x00")
	v.CauseBefore, v.CauseName, v.CauseAfter, v.CauseLine = before, c.Name, after, c.Line
	if lines := strings.Split(src, "\n"); int(c.Line) <= len(lines) {
		v.CauseLineText = strings.TrimRight(lines[c.Line-1], " \t\r")
	}
}

// setBeyond says the schedule beyond the lab's bounds that breaks a
// program that passed: what no program can do.
func (v *programVerdict) setBeyond(b *labs.SearchVerdict) {
	if b == nil || b.Shortest == nil || b.World == nil {
		return
	}
	sh := b.Shortest
	v.Beyond = fmt.Sprintf(T(v.Lang, "program.verdict.beyond"), len(sh.Faults), catalog.MomentText(v.Lang, sh.Harm.T))
	for _, f := range sh.Faults {
		v.BeyondFaults = append(v.BeyondFaults, labs.FaultText(v.Lang, f))
	}
	v.BeyondWhy = catalog.MomentText(v.Lang, sh.Harm.T) + ": " + labs.DescribeEvent(sh.Harm, b.World.Names(), v.Lang)
}

// programTitle is the heading of the program's editor: whose logic the
// student writes.
func programTitle(lang string, p *labs.ProgramSpec) string {
	if p.Side != engine.SideWorker {
		return T(lang, "program.title."+p.Side.String())
	}
	return fmt.Sprintf(T(lang, "program.title"), p.Worker)
}

// setLine shows line (when there is one) and its text in src.
func (v *programVerdict) setLine(line int32, src string) {
	if line <= 0 {
		return
	}
	v.Line = line
	if lines := strings.Split(src, "\n"); int(line) <= len(lines) {
		v.LineText = strings.TrimRight(lines[line-1], " \t\r")
	}
}

// lineNumbers is the editor's gutter: 1 to n, one a line.
func lineNumbers(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}
