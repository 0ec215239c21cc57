package main

import (
	"encoding/json"
	"errors"
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

// runCmd runs a lab's scenario headless and prints its trace.
func runCmd(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("run", "leaselab run LAB|FILE [--seed N] [--do CMD]... [--question Q] [--program FILE [--judge]] [--format text|json|svg|chart] [--lang id|en] [--vs CMD [--vs-at TIME]]", `
Runs a lab's scenario headless and prints its trace. LAB is a lab id from
the embedded course; FILE is a lab.yaml or its folder. Without --do it runs
to the lab's horizon; --question Q runs that question's variant and commands
first, with the seed check uses (0). In a lab where the student writes the
worker, --program FILE runs that Starlark program as the worker, and
--judge plays the lab's schedules against it and prints the verdict.`)
	fl.after = "commands (for --do):\n" + engine.CommandHelp
	seed := fl.Uint64("seed", 0, "the world's random seed")
	var dos stringList
	fl.Var(&dos, "do", "a command to apply, such as \"freeze W1 for=25s\" (repeatable; default: until the lab's horizon)")
	format := newOneOf("text", "text", "json", "svg", "chart")
	fl.Var(format, "format", "output: text, json (one event per line), svg (the space-time diagram) or chart (lease time left at each renewal, SVG)")
	question := fl.String("question", "", "run this question's variant and commands first")
	lang := newOneOf("", labs.Langs...)
	fl.Var(lang, "lang", "text output as sentences in this language (id or en) instead of the trace format (default: Indonesian when LC_ALL, LC_MESSAGES or LANG is)")
	progFile := fl.String("program", "", "a Starlark program for the lab's written worker (a lab with program: in its lab.yaml)")
	judgeIt := fl.Bool("judge", false, "with --program: judge the program on the lab's schedules instead of printing a trace")
	schedule := fl.Int("schedule", -1, "with --program: play the judgement's random schedule `N` (as a verdict or check names it) instead of the lab's own run")
	vs := fl.String("vs", "", "what if: run B is the same run with this command applied (such as \"fencing on\"); prints where the runs first differ")
	vsAt := fl.String("vs-at", "", "with --vs: the virtual time the change lands (default: where the --do commands end)")
	pos, code, ok := fl.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	// An Indonesian locale reads sentences in Indonesian, as --lang id does.
	lang.val = readerLang(fl.given("lang"), lang.val, "")
	switch {
	case len(pos) == 0:
		return usageError(stderr, "run", "which lab? give a lab id or a lab.yaml")
	case len(pos) > 1:
		return usageError(stderr, "run", "takes one lab, got %q and %q", pos[0], pos[1])
	}
	target := pos[0]

	if *vsAt != "" && *vs == "" {
		return usageError(stderr, "run", "--vs-at goes with --vs")
	}
	lab, err := findLab(target)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab run: %s\n", sayErr(lang.val, err))
		return 1
	}
	if (*judgeIt || fl.given("schedule")) && *progFile == "" {
		return usageError(stderr, "run", "--judge and --schedule go with --program")
	}
	if fl.given("schedule") && (*judgeIt || len(dos) > 0 || *vs != "" || *question != "") {
		return usageError(stderr, "run", "--schedule plays a judgement's schedule: it goes with none of --judge, --do, --vs, --question")
	}
	if *progFile != "" {
		if lab, err = withProgram(lab, *progFile, lang.val, stderr); err != nil {
			return 1
		}
		if *judgeIt {
			return judgeProgram(lab, *progFile, lang.val, stdout, stderr)
		}
	}
	if *vs != "" {
		if *question != "" || format.val == "chart" {
			fmt.Fprintln(stderr, "leaselab run: --vs compares two live runs of the lab; it goes with neither --question nor --format chart")
			return 2
		}
		return runPair(lab, *seed, dos, *vs, *vsAt, format.val, lang.val, stdout, stderr)
	}
	var w *engine.World
	var failed error
	if fl.given("schedule") {
		src, _ := os.ReadFile(*progFile) // withProgram read it already
		w, err = lab.Program().PlaySchedule(string(src), *schedule)
	} else {
		w, failed, err = runWorld(lab, *question, *seed, fl.given("seed"), dos)
	}
	if err != nil {
		fmt.Fprintf(stderr, "leaselab run: %s\n", sayErr(lang.val, err))
		return 1
	}
	l := lang.val
	if l == "" {
		l = labs.DefaultLang
	}
	switch format.val {
	case "svg":
		// The same space-time diagram component the web pages use.
		err = draw.RenderDiagramSVG(stdout, w, l)
	case "chart":
		label := lab.Title(l)
		if *question != "" {
			label += " — " + *question
		}
		err = draw.RenderChartSVG(stdout, "c", l, []draw.ChartRun{{Label: label, World: w}})
	default:
		err = printTrace(stdout, w, format.val, lang.val)
	}
	if err != nil {
		fmt.Fprintf(stderr, "leaselab run: %s\n", sayErr(lang.val, err))
		return 1
	}
	if failed != nil {
		fmt.Fprintf(stderr, "leaselab run: %s\n", sayErr(lang.val, failed))
		return 1
	}
	return 0
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
	return nil, errors.New("no lab or file " + strconvQuote(target) + " (labs: " + strings.Join(ids, ", ") + ")")
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

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
	At      *int64 `json:"at,omitempty"` // ms: lease end, belief end, freeze end
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
			t := string(catalog.AppendTime(nil, lang, e.T))
			fmt.Fprintf(out, "#%-3d %s%s  %s\n", i, strings.Repeat(" ", max(0, 7-len(t))), t, labs.DescribeEvent(e, names, lang))
		default:
			fmt.Fprintf(out, "#%-3d%s\n", i, names.Format(e))
		}
	}
	return nil
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
		fmt.Fprintf(stderr, "leaselab run: "+f+"\n", args...)
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
		// At the end of the --do commands: find where they end.
		w, err := lab.NewWorld(seed)
		if err != nil {
			return fail(1, "%s: %v", lab.ID, err)
		}
		for _, c := range cmds {
			if err := lab.Apply(w, c); err != nil {
				return fail(1, "%q: %v", c, err)
			}
		}
		f.At = w.Now()
	}
	p, err := lab.NewPair(seed, f)
	if err != nil {
		return fail(2, "%v", err)
	}
	if err := p.Replay(cmds); err != nil {
		return fail(1, "%v", err)
	}
	// Without commands after the change, run both to the lab's horizon so
	// the change has time to show.
	if p.A.Now() < lab.Horizon() && (len(cmds) == 0 || f.At >= p.A.Now()) {
		if err := p.Apply(engine.Command{Kind: engine.CmdUntil, At: lab.Horizon()}); err != nil {
			return fail(1, "%v", err)
		}
	}
	d, found := engine.FirstDifference(p.A.Events(), p.B.Events())
	l := lang
	if l == "" {
		l = labs.DefaultLang
	}
	sentence := labs.DescribeDifference(p, d, found, l)
	labelB := say(l, "run.vs.label", catalog.Str(ch.String()), catalog.Moment(f.At))
	switch format {
	case "svg":
		err = draw.RenderPairSVG(stdout, p.A, p.B, d, found, l, "A", labelB, sentence)
	case "json":
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
		}{Change: ch.String(), At: int64(f.At)}
		for _, x := range []struct {
			w  *engine.World
			to *side
		}{{p.A, &out.A}, {p.B, &out.B}} {
			x.to.Events = []jsonEvent{}
			for i, e := range x.w.Events() {
				x.to.Events = append(x.to.Events, toJSON(i, e, x.w.Names(), lang))
			}
		}
		if found {
			out.First = &struct {
				A    int    `json:"a"`
				B    int    `json:"b"`
				Text string `json:"text"`
			}{d.A, d.B, sentence}
		}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err = enc.Encode(out)
	default:
		ran := strings.Join(dos, "; ")
		if ran == "" {
			ran = catalog.T(l, "run.vs.nocmds")
		}
		fmt.Fprintln(stdout, say(l, "run.vs.a", catalog.Str(ran)))
		fmt.Fprintln(stdout, say(l, "run.vs.b", catalog.Str(strconv.Quote(ch.String())), catalog.Moment(f.At)))
		if found {
			for _, x := range []struct {
				name string
				w    *engine.World
				i    int
			}{{"A", p.A, d.A}, {"B", p.B, d.B}} {
				if x.i < 0 {
					fmt.Fprintf(stdout, "%s  %s\n", x.name, catalog.T(l, "run.vs.ended"))
					continue
				}
				e := x.w.Events()[x.i]
				if lang != "" {
					// The reader's words, as printTrace writes a trace with --lang.
					t := catalog.TimeText(lang, e.T)
					fmt.Fprintf(stdout, "%s #%-3d %s%s  %s\n", x.name, x.i, strings.Repeat(" ", max(0, 7-len(t))), t, labs.DescribeEvent(e, x.w.Names(), lang))
					continue
				}
				fmt.Fprintf(stdout, "%s #%-3d%s\n", x.name, x.i, x.w.Names().Format(e))
			}
		}
		fmt.Fprintln(stdout, sentence)
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	return 0
}
