package labs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"leaselab/catalog"
	"leaselab/engine"
	"leaselab/program"
)

// ProgramSpec is a lab where the student writes one side's decisions
// (issue 30: a worker's; issue 49: the storage's): which side, the worker
// the faults fall on (the written one, when the side is a worker), the
// actions its program may take, the starting program the student sees,
// and the reference solution the engine proves (kept in the lab folder,
// never shown). A program is judged like a design challenge: the engine
// plays seeded fault schedules against it.
type ProgramSpec struct {
	Side    engine.Side
	Worker  string
	Actions []string // allowed actions by name; nil: all
	Start   string   // the starting program's text

	lab       *Lab
	at        pos
	startFile string
	refFile   string
	reference string
	spec      engine.Challenge
	beyond    *SearchSpec // bounds no program survives, searched after a pass
}

var programKeys = []string{"side", "worker", "actions", "start", "reference", "harm", "runs", "seed", "horizon", "faults", "survive", "beyond"}

// Program returns the lab's written worker, or nil.
func (l *Lab) Program() *ProgramSpec { return l.program }

// ProgramVerdict is the engine's judgement of one program.
type ProgramVerdict struct {
	engine.Result
	// Compile is what keeps the program from running at all (a
	// *program.Error); the rest is empty then.
	Compile error
	// World is the counterexample replayed, nil on a pass.
	World *engine.World
	// Fault is the program's own failure in the counterexample, if that
	// decided it.
	Fault *engine.ProgramFault
	// Line and Col are the program's code that acted in the deciding
	// event (0 when no line of the program caused it).
	Line, Col int32
	// Cause is the line that set what that code went by (the value it
	// checked, the timer that ran it), when the program's runtime knows
	// it and it is another line: the verdict's chain (issue 49).
	Cause engine.Cause
	// Beyond is, on a pass, the search beyond the lab's bounds (its
	// program's beyond:) that no program survives: its shortest schedule
	// shows what the lab's design cannot do. Nil when the lab has none.
	Beyond *SearchVerdict
	// Search is the bounded search's verdict on the program, when the lab
	// has search: bounds; nil otherwise. When it found a breaking
	// schedule, that schedule decides (World and Event are its replay):
	// within the bounds it is the shortest there is.
	Search *SearchVerdict
	// Event is the deciding event's index in World, -1 on a pass.
	Event int
	// SearchCut reports a search stopped before its end: the program makes
	// more moments than a judgement tries, and the random schedules alone
	// decided.
	SearchCut bool
	// Spent is the steps the program took in the whole judgement; TooSlow
	// reports that they reached JudgementSteps, which stops a judgement at
	// once: the program is judged too slow, whatever the schedules played
	// so far showed, and Line is the line that took the most steps.
	Spent   uint64
	TooSlow bool

	worker string
	side   engine.Side
}

// Faulted reports that the program's own failure (an error, a runaway)
// decided the verdict: it leads what the student reads.
func (v *ProgramVerdict) Faulted() bool { return v.Fault != nil && !v.Searched() }

// FaultsBefore is the deciding random schedule with only the faults that
// began by the deciding event: a fault that comes after it played no part.
func (v *ProgramVerdict) FaultsBefore() engine.Result {
	res := v.Result
	if ce := res.Counterexample; ce != nil {
		cp := *ce
		cp.Faults = nil
		for _, f := range ce.Faults {
			if f.At <= ce.Why.T {
				cp.Faults = append(cp.Faults, f)
			}
		}
		res.Counterexample = &cp
	}
	return res
}

// WorkShort reports a verdict decided by too little work: the share of
// seconds in which the written worker wrote in the deciding run, and the
// share the lab asks for (survive work).
func (v *ProgramVerdict) WorkShort(p *ProgramSpec) (share, want int, ok bool) {
	want = p.spec.Survive.Work
	ce := v.Counterexample
	if want == 0 || p.Side != engine.SideWorker || v.World == nil || ce == nil || !ce.Survive || v.Searched() || v.Fault != nil {
		return 0, want, false
	}
	holder, found := v.World.Worker(p.Worker)
	if !found {
		return 0, want, false
	}
	share, before := v.World.WorkShare(holder)
	return share, want, share < want && before == v.Event
}

// Searched reports whether the search's shortest schedule decided the
// verdict (rather than one of the random schedules).
func (v *ProgramVerdict) Searched() bool { return v.Search != nil && v.Search.Shortest != nil }

func parseProgramSpec(r *report, l *Lab, y ynode) *ProgramSpec {
	kvs, ok := y.mapping(r, "program")
	if !ok {
		return nil
	}
	knownKeys(r, kvs, "program", programKeys...)
	p := &ProgramSpec{lab: l, at: y.pos()}
	p.spec.Scenario = l.scenario
	if p.Side, ok = readSide(r, kvs); !ok {
		return nil
	}
	good := true
	for _, e := range kvs {
		switch e.key {
		case "worker":
			s, _ := e.val.str(r, "worker")
			if !slices.Contains(workerNames(l.scenario), s) {
				r.errorf(e.val.pos(), "worker %q is not a worker of the scenario (%s)", s, strings.Join(workerNames(l.scenario), ", "))
				good = false
			}
			p.Worker, p.spec.Holder = s, s
		case "actions":
			items, _ := e.val.seq(r, "actions")
			p.Actions = []string{}
			for _, it := range items {
				s, _ := it.str(r, "an action")
				if !slices.ContainsFunc(p.Side.Actions(), func(k engine.ActionKind) bool { return k.String() == s }) {
					r.errorf(it.pos(), "actions: %q is not an action of the %s (%s)", s, p.Side, actionNames(p.Side))
					good = false
				}
				p.Actions = append(p.Actions, s)
			}
		case "start", "reference":
			s, _ := e.val.str(r, e.key)
			if s == "" || strings.ContainsAny(s, "/\\") || !strings.HasSuffix(s, ".star") {
				r.errorf(e.val.pos(), "%s: want a file name in the lab's folder ending in .star", e.key)
				good = false
			}
			if e.key == "start" {
				p.startFile = s
			} else {
				p.refFile = s
			}
		case "harm":
			items, _ := e.val.seq(r, "program harm")
			p.spec.Harm = []engine.Reason{}
			for _, it := range items {
				s, _ := it.str(r, "a harm")
				reason, ok := engine.ParseReason(s)
				if !ok || !reason.IsViolation() {
					r.errorf(it.pos(), "program harm %q: want a violation (stale-write, double-effect, acted-after-expiry, split-brain, lost-update)", s)
					good = false
					continue
				}
				p.spec.Harm = append(p.spec.Harm, reason)
			}
		case "runs", "seed", "horizon", "faults", "survive":
			good = readSchedules(r, l, e, &p.spec) && good
		case "beyond":
			p.beyond = parseSearch(r, l, e.val)
			good = p.beyond != nil && good
		}
	}
	switch {
	case !good:
		return nil
	case p.Worker == "":
		r.errorf(p.at, "program needs worker: the worker the student writes")
		return nil
	case p.startFile == "" || p.refFile == "":
		r.errorf(p.at, "program needs start: and reference: the starting program and the solution, files in the lab's folder")
		return nil
	case p.spec.Faults == (engine.FaultLimits{}):
		r.errorf(p.at, "program needs faults: at least one of spike, drop, pause, partition, drift, outage")
		return nil
	}
	return p
}

// TextKey is the catalog key of one of a verdict's texts for the lab's
// side: key.storage when the catalog has that text (a storage passes on
// other grounds than a worker), else key itself.
func (p *ProgramSpec) TextKey(key string) string {
	if p.Side == engine.SideWorker {
		return key
	}
	if _, ok := catalog.Lookup(DefaultLang, key+"."+p.Side.String()); ok {
		return key + "." + p.Side.String()
	}
	return key
}

// readSide reads program's side: (the default) worker, or storage. The
// other keys read by it.
func readSide(r *report, kvs []kv) (engine.Side, bool) {
	for _, e := range kvs {
		if e.key != "side" {
			continue
		}
		s, _ := e.val.str(r, "side")
		side, ok := engine.ParseSide(s)
		if !ok {
			r.errorf(e.val.pos(), "side %q: want one of %s", s, strings.Join(engine.SideNames(), ", "))
		}
		return side, ok
	}
	return engine.SideWorker, true
}

// actionNames lists a side's actions, for a message.
func actionNames(side engine.Side) string {
	var names []string
	for _, k := range side.Actions() {
		names = append(names, k.String())
	}
	return strings.Join(names, ", ")
}

// readFiles reads the starting program and the reference from the lab's
// folder.
func (p *ProgramSpec) readFiles(r *report, fsys fs.FS, dir string) bool {
	ok := true
	for _, f := range []struct {
		name string
		dst  *string
	}{{p.startFile, &p.Start}, {p.refFile, &p.reference}} {
		data, err := readContent(fsys, path.Join(dir, f.name))
		if err != nil {
			r.errorf(p.at, "program: %s: %v", f.name, unwrapPathErr(err))
			ok = false
			continue
		}
		*f.dst = string(data)
	}
	return ok
}

// Compile checks a program for this lab: its side, its actions, its
// limits.
func (p *ProgramSpec) Compile(src string) (*program.Compiled, error) {
	return program.CompileSide(src, p.Side, p.Actions, program.DefaultLimits)
}

// Scenario is the lab's scenario with the program deciding for its side:
// the worker's logic, the storage's or the coordinator's.
func (p *ProgramSpec) Scenario(c engine.Logic) engine.Scenario {
	return p.withLogic(copyScenario(p.lab.scenario), c)
}

// withLogic is sc (a copy of the caller's) with c deciding for the
// program's side.
func (p *ProgramSpec) withLogic(sc engine.Scenario, c engine.Logic) engine.Scenario {
	switch p.Side {
	case engine.SideStorage:
		sc.Sides.Storage = c
		return sc
	case engine.SideCoord:
		sc.Sides.Coord = c
		return sc
	}
	for i := range sc.Workers {
		if sc.Workers[i].Name == p.Worker {
			sc.Workers[i].Logic = c
		}
	}
	return sc
}

// Judge compiles the program and plays the lab's schedules against it on
// at most workers goroutines (0: every core). A program that does not
// compile gets a verdict that says why (Compile), not an error: errors are
// the lab's own failures.
func (p *ProgramSpec) Judge(src string, workers int) (*ProgramVerdict, error) {
	return p.JudgeWith(src, SearchOptions{Workers: workers})
}

// JudgeWith is Judge with the search's options: its goroutines
// (opt.Workers, which the random schedules use too), its context, and
// the turn each of its parts takes in a server's pool (opt.Part).
func (p *ProgramSpec) JudgeWith(src string, opt SearchOptions) (*ProgramVerdict, error) {
	c, err := p.Compile(src)
	if err != nil {
		return &ProgramVerdict{Compile: err, Event: -1}, nil
	}
	c.Budget(JudgementSteps)
	if ctx := opt.Context; ctx != nil {
		// A client that leaves ends the work at the program's next call.
		defer context.AfterFunc(ctx, c.Stop)()
	}
	spec := p.spec
	spec.Scenario = p.Scenario(c)
	// Once the budget is spent every call fails: what the schedules or the
	// search then say (or fail to replay) is no verdict, the budget is.
	slow := func() bool { return c.Spent() >= JudgementSteps }
	res, err := judge(spec, opt.Workers)
	if ctx := opt.Context; ctx != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	v := &ProgramVerdict{Result: res, Event: -1, worker: p.Worker, side: p.Side}
	switch {
	case slow():
		return v.tooSlow(c), nil
	case err != nil:
		return nil, err
	}
	if ce := res.Counterexample; ce != nil {
		c.Budget(0) // the replay of a schedule the budget allowed
		replay := spec
		replay.Scenario = p.Scenario(c.Traced()) // the same run, its causes noted
		v.World, err = replay.Play(ce)
		c.Budget(JudgementSteps)
		if err != nil {
			return nil, err
		}
		v.Event = ce.Event
		v.locate(v.Event)
	}
	// A program that fails by itself (a runaway loop, an error) needs no
	// search: no schedule says more than its own failure does.
	if p.lab.search != nil && v.Fault == nil {
		sv, err := p.search(src, c, opt)
		switch {
		case slow():
			return v.tooSlow(c), nil
		case errors.Is(err, errSearchCut):
			v.SearchCut = true
		case err != nil:
			return nil, err
		default:
			v.Search = sv
		}
	}
	v.searchDecides()
	if p.beyond != nil && v.Pass {
		if v.Beyond, err = p.searchWith(p.beyond, src, c, opt); slow() {
			return v.tooSlow(c), nil
		} else if err != nil && !errors.Is(err, errSearchCut) {
			return nil, err
		}
	}
	v.Spent = c.Spent()
	return v, nil
}

// searchDecides makes the search's shortest schedule the verdict, when
// it found one: within the bounds it is the shortest there is.
func (v *ProgramVerdict) searchDecides() {
	if v.Searched() {
		v.Pass, v.World, v.Fault, v.Line, v.Col, v.Cause = false, v.Search.World, nil, 0, 0, engine.Cause{}
		v.Event = slices.Index(v.World.Events(), v.Search.Shortest.Harm)
		v.locate(v.Event)
	}
}

// JudgementSteps bounds the steps a program may take in one judgement,
// its random schedules and its search together: about a second of one
// core at the interpreter's pace with every builtin's work charged
// (program/cost.go). The course's references take 3 % to 9 % of it
// (TestJudgementStepsFitTheCourse).
const JudgementSteps = 30_000_000

// tooSlow is the verdict on a program whose steps reached JudgementSteps.
func (v *ProgramVerdict) tooSlow(c *program.Compiled) *ProgramVerdict {
	line, _ := c.HotLine()
	return &ProgramVerdict{Result: engine.Result{Runs: v.Runs}, Event: -1, worker: v.worker, side: v.side, Spent: c.Spent(), TooSlow: true, Line: line}
}

// SearchCalls is the most handler calls a program's unfaulted run may
// make for the search to try it at every moment.
const SearchCalls = programSearchCalls

// programSearchSchedules bounds the schedules a program's search decides,
// and programSearchCalls the handler calls its unfaulted run may make
// within the search's horizon: each schedule replays most of them. The
// course's references make 30 to 60 calls and need 16,000 to 40,000
// schedules; a program that acts every millisecond would need millions of
// schedules of thousands of calls, and is judged on the random schedules
// alone (SearchCut).
const (
	programSearchSchedules = 150_000
	programSearchCalls     = 300
)

var errSearchCut = errors.New("the search has more schedules than a program's judgement tries")

// calls counts the handler calls the program (compiled afresh, so that
// only this run counts) makes in the lab's world, unfaulted, until horizon.
func (p *ProgramSpec) calls(src string, horizon engine.Time) (int64, error) {
	own, err := p.Compile(src)
	if err != nil {
		return 0, err
	}
	w, err := engine.New(p.Scenario(own))
	if err != nil {
		return 0, err
	}
	for _, cmd := range p.lab.setup {
		if err := w.Apply(cmd.cmd); err != nil {
			return 0, err
		}
	}
	_ = w.Apply(engine.Command{Kind: engine.CmdUntil, At: horizon}) // a refusal (the event budget) ends the count as well
	return own.Calls(), nil
}

// search runs the lab's bounded search against program src (compiled:
// c), and
// stops it (errSearchCut) past programSearchSchedules.
func (p *ProgramSpec) search(src string, c *program.Compiled, opt SearchOptions) (*SearchVerdict, error) {
	return p.searchWith(p.lab.search, src, c, opt)
}

// searchWith is search within the bounds of spec: the lab's, or those
// beyond them (ProgramSpec.beyond).
func (p *ProgramSpec) searchWith(spec *SearchSpec, src string, c *program.Compiled, opt SearchOptions) (*SearchVerdict, error) {
	if calls, err := p.calls(src, spec.Bounds.Horizon); err != nil {
		return nil, err
	} else if calls > programSearchCalls {
		return nil, errSearchCut
	}
	l := *p.lab
	l.search = spec
	l.scenario = p.Scenario(c)
	l.prepared, l.prepErr = engine.Prepare(l.scenario)
	l.traced = p.tracer(c)
	parent := opt.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	opt.Context = ctx
	progress := opt.Progress
	opt.Progress = func(sp SearchProgress) {
		if sp.Schedules > programSearchSchedules {
			cancel(errSearchCut)
		}
		if progress != nil {
			progress(sp)
		}
	}
	v, err := l.RunSearch(opt)
	if err != nil && parent.Err() == nil && errors.Is(context.Cause(ctx), errSearchCut) {
		return nil, errSearchCut
	}
	if err == nil && v.TooLarge {
		return nil, errSearchCut
	}
	return v, err
}

// locate finds the program's code behind the deciding event (index ev
// in World): the line of a failing handler, or the line whose action the
// violation proves (its Ref).
func (v *ProgramVerdict) locate(ev int) {
	w := v.World
	for i, f := range w.ProgramFaults() {
		if int(f.Event) == ev {
			v.Fault = &w.ProgramFaults()[i]
			var pe *program.Error
			var ae *engine.ActionError
			switch {
			case errors.As(f.Err, &pe):
				v.Line, v.Col = pe.Line, pe.Col
			case errors.As(f.Err, &ae):
				v.Line, v.Col = ae.Action.Line, ae.Action.Col
			}
			return
		}
	}
	// Follow the proof back (a violation to the accept, the accept to
	// the write) to the first event a line of the program caused.
	evs := w.Events()
	for hops := 0; ev >= 0 && ev < len(evs) && hops < 4; hops++ {
		if v.Line, v.Col = w.ProgramLine(ev); v.Line > 0 {
			if c := w.ProgramCause(ev); c.Line > 0 && c.Line != v.Line {
				v.Cause = c
			}
			return
		}
		ev = int(evs[ev].Ref())
	}
}

// tracer swaps c's traced runs into a scenario: a search's shortest
// schedule is replayed with the causes noted (Lab.traced), the search
// itself runs without them.
func (p *ProgramSpec) tracer(c *program.Compiled) func(engine.Scenario) engine.Scenario {
	return func(sc engine.Scenario) engine.Scenario { return p.withLogic(copyScenario(sc), c.Traced()) }
}

// verifyProgramCompiles checks, as a course loads, that the starting
// program and the reference compile: judging them is check's (verifyProgram).
func verifyProgramCompiles(r *report, l *Lab) {
	p := l.program
	if p == nil || p.reference == "" || p.Start == "" {
		return
	}
	for _, f := range []struct{ name, src string }{{p.startFile, p.Start}, {p.refFile, p.reference}} {
		if _, err := p.Compile(f.src); err != nil {
			r.errorf(p.at, "program: %s does not compile: %v", f.name, err)
		}
	}
}

// verifyProgram proves the reference within the lab's schedules and shows
// that the starting program fails them: a lab whose start already passes
// teaches nothing. leaselab check does it (ProveSearches), not a load.
func verifyProgram(r *report, l *Lab) {
	p := l.program
	if p == nil || p.reference == "" || p.Start == "" {
		return
	}
	ref, err := p.Judge(p.reference, 0)
	switch {
	case err != nil:
		r.errorf(p.at, "program: %v", err)
		return
	case ref.Compile != nil:
		// verifyProgramCompiles said so
	case ref.TooSlow:
		r.errorf(p.at, "program: the reference %s takes more than the %d steps a judgement may (line %d took the most)", p.refFile, JudgementSteps, ref.Line)
	case ref.Searched():
		h := ref.Search.Shortest
		r.errorf(p.at, "program: the reference %s is broken within the search's bounds by %s (%s at %s); replay it: %s", p.refFile, faults(h.Faults), h.Harm.Reason(), h.Harm.T, l.replayCommand(p.refFile, -1))
	case !ref.Pass:
		ce := ref.Counterexample
		r.errorf(p.at, "program: the reference %s fails run %d (%s at %s); replay it: %s", p.refFile, ce.Index, ce.Why.Kind, ce.Why.T, l.replayCommand(p.refFile, ce.Index))
	}
	if p.beyond != nil && ref.Pass && (ref.Beyond == nil || ref.Beyond.Shortest == nil) {
		r.errorf(p.at, "program: beyond: no schedule within these bounds breaks the reference %s: they show nothing no program can do", p.refFile)
	}
	start, err := p.Judge(p.Start, 0)
	switch {
	case err != nil:
		r.errorf(p.at, "program: %v", err)
	case start.Compile != nil:
	case start.Pass:
		r.errorf(p.at, "program: the starting program %s passes every schedule: give the student something to fix", p.startFile)
	}
}

// replayCommand is the command line, from the course's folder, that plays
// the judgement's random schedule i (-1: the search's, which leaselab
// search finds again) with program file as the lab's written worker.
func (l *Lab) replayCommand(file string, i int) string {
	run := "leaselab run " + path.Join(l.dir, "lab.yaml") + " --program " + path.Join(l.dir, file)
	if i < 0 {
		return "leaselab search " + path.Join(l.dir, "lab.yaml") + ", then " + run + " --do ... with its commands"
	}
	return run + " --schedule " + strconv.Itoa(i)
}

// PlaySchedule plays the judgement's random schedule i with src as the
// written worker, as Judge plays it: the world of a counterexample.
func (p *ProgramSpec) PlaySchedule(src string, i int) (*engine.World, error) {
	c, err := p.Compile(src)
	if err != nil {
		return nil, err
	}
	spec := p.spec
	spec.Scenario = p.Scenario(c)
	if spec, err = spec.Ready(); err != nil {
		return nil, err
	}
	if i < 0 || i >= spec.Runs {
		return nil, fmt.Errorf("schedule %d: the lab plays schedules 0 to %d", i, spec.Runs-1)
	}
	_, w, err := spec.PlayRun(i, nil)
	return w, err
}

// Runs is how many schedules a judgement plays.
func (p *ProgramSpec) Runs() int {
	if p.spec.Runs == 0 {
		return 200
	}
	return p.spec.Runs
}

// WithProgram is the lab with src as its written worker's logic: its
// live world, its runs, its searches run that program. A program that does
// not compile is a *program.Error.
func (l *Lab) WithProgram(src string) (*Lab, error) {
	p := l.program
	if p == nil {
		return nil, errors.New("this lab has no written worker")
	}
	c, err := p.Compile(src)
	if err != nil {
		return nil, err
	}
	cp := *l
	cp.scenario = p.Scenario(c)
	cp.prepared, cp.prepErr = engine.Prepare(cp.scenario)
	cp.traced = p.tracer(c)
	return &cp, nil
}

// useStart makes the starting program the lab's written worker, so that
// the lab's own world (its page, leaselab run) runs what the student
// starts from.
func (p *ProgramSpec) useStart() {
	c, err := p.Compile(p.Start)
	if err != nil {
		return // verifyProgram says so
	}
	l := p.lab
	l.scenario = p.Scenario(c)
	l.prepared, l.prepErr = engine.Prepare(l.scenario)
}

// CauseText says the verdict's Cause in lang: the line that set what the
// acting line went by, and when, naming it name (a page sets the code
// apart); "" when there is none.
func (v *ProgramVerdict) CauseText(lang, name string) string {
	c := v.Cause
	c.Name = name
	if c.Line <= 0 {
		return ""
	}
	at := catalog.MomentText(lang, c.At)
	switch c.Kind {
	case engine.CauseChecked:
		return fmt.Sprintf(catalog.T(lang, "program.verdict.cause.checked"), c.Name, c.Line, at)
	case engine.CauseTimer:
		return fmt.Sprintf(catalog.T(lang, "program.verdict.cause.timer"), c.Name, c.Line, at)
	}
	return fmt.Sprintf(catalog.T(lang, "program.verdict.cause.used"), c.Name, c.Line, at)
}

// Why is the deciding event of a failed verdict, and false on a pass.
func (v *ProgramVerdict) Why() (engine.Event, bool) {
	if v.World == nil || v.Event < 0 || v.Event >= len(v.World.Events()) {
		return engine.Event{}, false
	}
	return v.World.Events()[v.Event], true
}

// WroteAfterRejection reports a verdict decided by a write with a token
// the storage had refused.
func (v *ProgramVerdict) WroteAfterRejection() bool {
	e, ok := v.Why()
	if !ok || e.Kind != engine.KindWrite || v.side != engine.SideWorker {
		return false
	}
	h, _ := v.World.Worker(v.worker)
	return e.Node == h
}
