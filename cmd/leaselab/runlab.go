package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"leaselab/catalog"
	"leaselab/content"
	"leaselab/draw"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/labsession"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, "; ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// runOptions is what run's flags ask for.
type runOptions struct {
	seed          uint64
	dos           stringList
	format, lang  *oneOf
	question      string
	progFile      string
	judge         bool
	schedule      int
	vs, vsAt      string
	scheduleGiven bool // --schedule, even 0
	seedGiven     bool // --seed, even 0
}

// runCmd runs a lab's scenario headless and prints its trace.
func runCmd(args []string, stdout, stderr io.Writer) int {
	var o runOptions
	fl := o.flags()
	pos, code, ok := fl.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	// An Indonesian locale reads sentences in Indonesian, as --lang id does.
	o.lang.val = readerLang(fl.given("lang"), o.lang.val, "")
	o.scheduleGiven, o.seedGiven = fl.given("schedule"), fl.given("seed")
	switch {
	case len(pos) == 0:
		return fl.fail(stderr, "which lab? give a lab id or a lab.yaml")
	case len(pos) > 1:
		return fl.fail(stderr, "takes one lab, got %q and %q", pos[0], pos[1])
	}
	target := pos[0]

	if o.vsAt != "" && o.vs == "" {
		return fl.fail(stderr, "--vs-at goes with --vs")
	}
	lab, err := findLab(target)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab run: %s\n", sayErr(o.lang.val, err))
		return 1
	}
	if (o.judge || o.scheduleGiven) && o.progFile == "" {
		return fl.fail(stderr, "--judge and --schedule go with --program")
	}
	if o.scheduleGiven && (o.judge || len(o.dos) > 0 || o.vs != "" || o.question != "") {
		return fl.fail(stderr, "--schedule plays a judgement's schedule: it goes with none of --judge, --do, --vs, --question")
	}
	if o.progFile != "" {
		if lab, err = withProgram(lab, o.progFile, o.lang.val, stderr); err != nil {
			return 1
		}
		if o.judge {
			return judgeProgram(lab, o.progFile, o.lang.val, stdout, stderr)
		}
	}
	if o.vs != "" {
		if o.question != "" || o.format.val == "chart" {
			return fl.fail(stderr, "--vs compares two live runs of the lab; it goes with neither --question nor --format chart")
		}
		return runPair(lab, o.seed, o.dos, o.vs, o.vsAt, o.format.val, o.lang.val, stdout, stderr)
	}
	return o.runOne(lab, stdout, stderr)
}

// flags is run's flag set, writing into o.
func (o *runOptions) flags() *cmdFlags {
	fl := newFlags("run", "leaselab run LAB|FILE [--seed N] [--do CMD]... [--question Q] [--program FILE [--judge]] [--format text|json|svg|chart] [--lang id|en] [--vs CMD [--vs-at TIME]]", `
Runs a lab's scenario headless and prints its trace. LAB is a lab id from
the embedded course; FILE is a lab.yaml or its folder. Without --do it runs
to the lab's horizon; --question Q runs that question's variant and commands
first, with the seed check uses (0). In a lab where the student writes the
worker, --program FILE runs that Starlark program as the worker, and
--judge plays the lab's schedules against it and prints the verdict.`)
	fl.after = "commands (for --do):\n" + engine.CommandHelp
	fl.Uint64Var(&o.seed, "seed", 0, "the world's random seed")
	fl.Var(&o.dos, "do", "a command to apply, such as \"freeze W1 for=25s\" (repeatable; default: until the lab's horizon)")
	o.format = newOneOf("text", "text", "json", "svg", "chart")
	fl.Var(o.format, "format", "output: text, json (one event per line), svg (the space-time diagram) or chart (lease time left at each renewal, SVG)")
	fl.StringVar(&o.question, "question", "", "run this question's variant and commands first")
	o.lang = newOneOf("", labs.Langs...)
	fl.Var(o.lang, "lang", "text output as sentences in this language (id or en) instead of the trace format (default: Indonesian when LC_ALL, LC_MESSAGES or LANG is)")
	fl.StringVar(&o.progFile, "program", "", "a Starlark program for the lab's written worker (a lab with program: in its lab.yaml)")
	fl.BoolVar(&o.judge, "judge", false, "with --program: judge the program on the lab's schedules instead of printing a trace")
	fl.IntVar(&o.schedule, "schedule", -1, "with --program: play the judgement's random schedule `N` (as a verdict or check names it) instead of the lab's own run")
	fl.StringVar(&o.vs, "vs", "", "what if: run B is the same run with this command applied (such as \"fencing on\"); prints where the runs first differ")
	fl.StringVar(&o.vsAt, "vs-at", "", "with --vs: the virtual time the change lands (default: where the --do commands end)")
	return fl
}

// runOne plays one run of the lab, a question's variant or a judgement's
// schedule, and prints it in the format asked for.
func (o *runOptions) runOne(lab *labs.Lab, stdout, stderr io.Writer) int {
	var w *engine.World
	var failed, err error
	if o.scheduleGiven {
		src, _ := os.ReadFile(o.progFile) // withProgram read it already
		w, err = lab.Program().PlaySchedule(string(src), o.schedule)
	} else {
		w, failed, err = runWorld(lab, o.question, o.seed, o.seedGiven, o.dos)
	}
	if err == nil {
		err = o.print(stdout, lab, w)
	}
	if err != nil {
		fmt.Fprintf(stderr, "leaselab run: %s\n", sayErr(o.lang.val, err))
		return 1
	}
	if failed != nil {
		fmt.Fprintf(stderr, "leaselab run: %s\n", sayErr(o.lang.val, failed))
		return 1
	}
	return 0
}

// print writes the run's world: a diagram, a chart, or its trace.
func (o *runOptions) print(stdout io.Writer, lab *labs.Lab, w *engine.World) error {
	l := o.lang.val
	if l == "" {
		l = labs.DefaultLang
	}
	switch o.format.val {
	case "svg":
		// The same space-time diagram component the web pages use.
		return draw.RenderDiagramSVG(stdout, w, l)
	case "chart":
		label := lab.Title(l)
		if o.question != "" {
			label += " — " + o.question
		}
		return draw.RenderChartSVG(stdout, "c", l, []draw.ChartRun{{Label: label, World: w}})
	default:
		return printTrace(stdout, w, o.format.val, o.lang.val)
	}
}

// runWorld is the world a run prints. A question's variant is a world of
// its own, driven by its commands; a lab's run is a lab session, as the
// live page holds it (labsession), so that the page and the CLI cannot
// disagree: a reset applies the lab's setup again, and the session's caps
// hold. Without --do it runs to the lab's horizon. failed is the first
// command refused, after which the run stops.
func runWorld(lab *labs.Lab, question string, seed uint64, seedGiven bool, dos []string) (w *engine.World, failed, err error) {
	if question != "" {
		q := lab.Question(question)
		if q == nil {
			return nil, nil, fmt.Errorf("lab %s has no question %q", lab.ID, question)
		}
		sc := q.Variant()
		if seedGiven {
			sc.Seed = seed
		}
		if w, err = engine.New(sc); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", lab.ID, err)
		}
		for _, c := range append(q.Commands(), dos...) {
			if err := w.Do(c); err != nil {
				return w, fmt.Errorf("%q: %w", c, err), nil
			}
		}
		return w, nil, nil
	}
	sess, err := labsession.New(lab, seed)
	if err != nil {
		return nil, nil, err // it names the lab
	}
	if len(dos) == 0 {
		dos = []string{"until " + lab.Horizon().String()}
	}
	for _, c := range dos {
		if err := sess.Do(c); err != nil {
			return sess.World(), fmt.Errorf("%q: %w", c, err), nil
		}
	}
	return sess.World(), nil, nil
}

// embeddedCourse is the course built into the binary, loaded (and its
// answers checked) once per process: it cannot change while the process
// runs, and a process that runs many labs (the tests) need not load it
// for each.
var embeddedCourse = sync.OnceValues(func() (*labs.Course, error) { return labs.Load(content.FS) })

// findLab reads FILE (a lab.yaml or a directory holding one) when it
// exists on disk, and otherwise looks LAB up in the embedded course.
func findLab(target string) (*labs.Lab, error) {
	if st, err := os.Stat(target); err == nil {
		file := target
		if st.IsDir() {
			file = filepath.Join(target, "lab.yaml")
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		l, err := labs.LoadLabFile(file, data)
		if err != nil {
			return nil, err
		}
		return l, nil
	}
	c, err := embeddedCourse()
	if c == nil {
		return nil, err
	}
	if l := c.Lab(target); l != nil {
		return l, nil
	}
	// labs/ID/lab.yaml or labs/ID, as check names a lab of the embedded
	// course, when no such file is here.
	if id, ok := strings.CutPrefix(strings.TrimSuffix(filepath.ToSlash(target), "/lab.yaml"), "labs/"); ok {
		if l := c.Lab(id); l != nil {
			return l, nil
		}
	}
	var ids []string
	for _, l := range c.Labs {
		ids = append(ids, l.ID)
	}
	return nil, fmt.Errorf("no lab or file %q (labs: %s)", target, strings.Join(ids, ", "))
}

// jsonEvent is one line of --format json.
type jsonEvent struct {
	I       int    `json:"i"`
	T       int64  `json:"t"` // virtual ms
	Kind    string `json:"kind"`
	Actor   string `json:"actor"`
	Peer    string `json:"peer,omitempty"`
	Token   int64  `json:"token,omitempty"`
	Key     string `json:"key,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Cause   string `json:"cause,omitempty"` // a violation's: how the lease ended when not by its expiry (revoked, forgotten)
	At      *int64 `json:"at,omitempty"`    // ms: lease end, belief end, freeze end
	Value   int64  `json:"value,omitempty"`
	Effect  bool   `json:"effect,omitempty"`
	Refs    []int  `json:"refs,omitempty"`
	Text    string `json:"text"`
}

func printTrace(out io.Writer, w *engine.World, format, lang string) error {
	names := w.Names()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for i, e := range w.Events() {
		switch {
		case format == "json":
			if err := enc.Encode(toJSON(i, e, names, lang)); err != nil {
				return err
			}
		case lang != "":
			fmt.Fprintf(out, "#%-3d %s  %s\n", i, stamp(lang, e.T), labs.DescribeEvent(e, names, lang))
		default:
			fmt.Fprintf(out, "#%-3d%s\n", i, names.Format(e))
		}
	}
	return nil
}

// stamp is an event's time in a trace's column, as lang says a moment
// ("detik ke-4,5", "4.5s"), right-aligned: the width of "detik ke-12,45"
// in a language with a word for a moment, of "12.45s" otherwise.
func stamp(lang string, t engine.Time) string {
	s := catalog.MomentText(lang, t)
	width := 7
	if s != catalog.TimeText(lang, t) {
		width = 14
	}
	return strings.Repeat(" ", max(0, width-len(s))) + s
}

func toJSON(i int, e engine.Event, names engine.Names, lang string) jsonEvent {
	j := jsonEvent{I: i, T: int64(e.T), Kind: e.Kind.String(), Actor: names.Of(e.Node), Token: e.Token, Key: names.Key(e.Key), Value: e.Value, Effect: e.Effect()}
	if e.Peer() != engine.NoNode {
		j.Peer = names.Of(e.Peer())
	}
	if e.Node == engine.NoNode && e.Peer() != engine.NoNode {
		j.Actor = names.Of(e.Peer()) // an observer's finding is about the peer
	}
	if e.Reason() != engine.ReasonNone {
		j.Reason = e.Reason().String()
	}
	switch e.Kind {
	case engine.KindAccept:
		j.Outcome = "accepted"
	case engine.KindReject:
		j.Outcome = "rejected"
	case engine.KindCheck:
		j.Outcome = e.Reason().String()
	case engine.KindViolation:
		j.Outcome = "violation"
		j.Value = 0 // the cause, said by name
		if c := e.Cause(); c != engine.ReasonNone {
			j.Cause = c.String()
		}
	case engine.KindGrant:
		j.Outcome = "granted"
	case engine.KindDeny:
		j.Outcome = "denied"
	case engine.KindLost:
		j.Outcome = "lost"
	}
	if e.At != 0 && e.At != engine.Never {
		at := int64(e.At)
		j.At = &at
	}
	for _, r := range []int32{e.Ref(), e.Ref2()} {
		if r >= 0 && (e.Kind == engine.KindViolation) {
			j.Refs = append(j.Refs, int(r))
		}
	}
	if lang == "" {
		j.Text = names.Describe(e)
	} else {
		j.Text = labs.DescribeEvent(e, names, lang)
	}
	return j
}

// runPair runs a what-if: run A applies the --do commands, run B the same
// with one change at one moment; it prints where they first differ.
func runPair(lab *labs.Lab, seed uint64, dos []string, change, at, format, lang string, stdout, stderr io.Writer) int {
	fail := func(code int, f string, args ...any) int {
		fmt.Fprintf(stderr, "leaselab run: %s\n", sayMsg(lang, f, args...))
		return code
	}
	var cmds []engine.Command
	for _, d := range dos {
		c, err := engine.ParseCommand(d)
		if err != nil {
			return fail(2, "--do %q: %v", d, err)
		}
		cmds = append(cmds, c)
	}
	ch, err := engine.ParseCommand(change)
	if err != nil {
		return fail(2, "--vs %q: %v", change, err)
	}
	f := engine.Fork{Change: ch, At: -1}
	if at != "" {
		if f.At, err = engine.ParseTime(at); err != nil || f.At < 0 {
			return fail(2, "--vs-at %q: want a time such as 4s", at)
		}
	}
	if f.At < 0 {
		if f.At, err = commandsEnd(lab, seed, cmds); err != nil {
			return fail(1, "%v", err)
		}
	}
	p, err := lab.NewPair(seed, f)
	if err != nil {
		return fail(2, "%v", err)
	}
	if err := playPair(lab, p, f, cmds); err != nil {
		return fail(1, "%v", err)
	}
	wi := newWhatIf(p, f, lang)
	switch format {
	case "svg":
		labelB := say(wi.l, "run.vs.label", catalog.Str(ch.String()), catalog.Moment(f.At))
		err = draw.RenderPairSVG(stdout, p.A, p.B, wi.d, wi.found, wi.l, "A", labelB, wi.sentence)
	case "json":
		err = wi.writeJSON(stdout)
	default:
		wi.writeText(stdout, dos)
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	return 0
}

// commandsEnd is the moment the commands end, played in a new world of
// the lab: where a change lands when --vs-at does not say.
func commandsEnd(lab *labs.Lab, seed uint64, cmds []engine.Command) (engine.Time, error) {
	w, err := lab.NewWorld(seed)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", lab.ID, err)
	}
	for _, c := range cmds {
		if err := lab.Apply(w, c); err != nil {
			return 0, fmt.Errorf("%q: %v", c, err)
		}
	}
	return w.Now(), nil
}

// playPair replays the commands in both runs. Without commands after the
// change, it runs both to the lab's horizon so the change has time to
// show.
func playPair(lab *labs.Lab, p *engine.Pair, f engine.Fork, cmds []engine.Command) error {
	if err := p.Replay(cmds); err != nil {
		return err
	}
	if p.A.Now() < lab.Horizon() && (len(cmds) == 0 || f.At >= p.A.Now()) {
		return p.Apply(engine.Command{Kind: engine.CmdUntil, At: lab.Horizon()})
	}
	return nil
}

// whatIf is a played pair and where its runs first differ, as runPair
// prints it.
type whatIf struct {
	p        *engine.Pair
	f        engine.Fork
	d        engine.Difference
	found    bool   // false: the runs do not differ
	lang     string // --lang, "" for the trace format
	l        string // the language of the sentences
	sentence string // the first difference, said
}

func newWhatIf(p *engine.Pair, f engine.Fork, lang string) whatIf {
	wi := whatIf{p: p, f: f, lang: lang, l: lang}
	wi.d, wi.found = engine.FirstDifference(p.A.Events(), p.B.Events())
	if wi.l == "" {
		wi.l = labs.DefaultLang
	}
	wi.sentence = labs.DescribeDifference(p, wi.d, wi.found, wi.l)
	return wi
}

// writeJSON writes the what-if as one JSON object: both runs' events and
// the first difference.
func (wi whatIf) writeJSON(stdout io.Writer) error {
	type side struct {
		Events []jsonEvent `json:"events"`
	}
	out := struct {
		Change string `json:"change"`
		At     int64  `json:"at"` // virtual ms
		A      side   `json:"a"`
		B      side   `json:"b"`
		First  *struct {
			A    int    `json:"a"` // index in A's events, -1: A had ended
			B    int    `json:"b"`
			Text string `json:"text"`
		} `json:"first_difference"` // null: no difference
	}{Change: wi.f.Change.String(), At: int64(wi.f.At)}
	for _, x := range []struct {
		w  *engine.World
		to *side
	}{{wi.p.A, &out.A}, {wi.p.B, &out.B}} {
		x.to.Events = []jsonEvent{}
		for i, e := range x.w.Events() {
			x.to.Events = append(x.to.Events, toJSON(i, e, x.w.Names(), wi.lang))
		}
	}
	if wi.found {
		out.First = &struct {
			A    int    `json:"a"`
			B    int    `json:"b"`
			Text string `json:"text"`
		}{wi.d.A, wi.d.B, wi.sentence}
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// writeText writes the what-if as text: what each run did, each run's
// first event that differs, and the sentence that says how.
func (wi whatIf) writeText(stdout io.Writer, dos []string) {
	l, lang := wi.l, wi.lang
	ran := strings.Join(dos, "; ")
	if ran == "" {
		ran = catalog.T(l, "run.vs.nocmds")
	}
	fmt.Fprintln(stdout, say(l, "run.vs.a", catalog.Str(ran)))
	fmt.Fprintln(stdout, say(l, "run.vs.b", catalog.Str(strconv.Quote(wi.f.Change.String())), catalog.Moment(wi.f.At)))
	if wi.found {
		for _, x := range []struct {
			name string
			w    *engine.World
			i    int
		}{{"A", wi.p.A, wi.d.A}, {"B", wi.p.B, wi.d.B}} {
			if x.i < 0 {
				fmt.Fprintf(stdout, "%s  %s\n", x.name, catalog.T(l, "run.vs.ended"))
				continue
			}
			e := x.w.Events()[x.i]
			if lang != "" {
				// The reader's words, as printTrace writes a trace with --lang.
				fmt.Fprintf(stdout, "%s #%-3d %s  %s\n", x.name, x.i, stamp(lang, e.T), labs.DescribeEvent(e, x.w.Names(), lang))
				continue
			}
			fmt.Fprintf(stdout, "%s #%-3d%s\n", x.name, x.i, x.w.Names().Format(e))
		}
	}
	fmt.Fprintln(stdout, wi.sentence)
}
