package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"leaselab/content"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/web"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, "; ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// runCmd runs a lab's scenario headless and prints its trace.
func runCmd(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("run", "leaselab run LAB|FILE [--seed N] [--do CMD]... [--question Q] [--format text|json|svg|chart] [--lang id|en]", `
Runs a lab's scenario headless and prints its trace. LAB is a lab id from
the embedded course; FILE is a lab.yaml or its folder. Without --do it runs
to the lab's horizon; --question Q runs that question's variant and commands
first, with the seed check uses (0).`)
	fl.after = "commands (for --do):\n" + engine.CommandHelp
	seed := fl.Uint64("seed", 0, "the world's random seed")
	var dos stringList
	fl.Var(&dos, "do", "a command to apply, such as \"freeze W1 for=25s\" (repeatable; default: until the lab's horizon)")
	format := newOneOf("text", "text", "json", "svg", "chart")
	fl.Var(format, "format", "output: text, json (one event per line), svg (the space-time diagram) or chart (lease time left at each renewal, SVG)")
	question := fl.String("question", "", "run this question's variant and commands first")
	lang := newOneOf("", labs.Langs...)
	fl.Var(lang, "lang", "text output as sentences in this language (id or en) instead of the trace format")
	pos, code, ok := fl.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	switch {
	case len(pos) == 0:
		return usageError(stderr, "run", "which lab? give a lab id or a lab.yaml")
	case len(pos) > 1:
		return usageError(stderr, "run", "takes one lab, got %q and %q", pos[0], pos[1])
	}
	target := pos[0]

	lab, err := findLab(target)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab run: %v\n", err)
		return 1
	}
	var w *engine.World
	var cmds []string
	if *question != "" {
		q := lab.Question(*question)
		if q == nil {
			fmt.Fprintf(stderr, "leaselab run: lab %s has no question %q\n", lab.ID, *question)
			return 1
		}
		sc := q.Variant()
		if fl.given("seed") {
			sc.Seed = *seed
		}
		w, err = engine.New(sc)
		cmds = q.Commands()
	} else {
		w, err = lab.NewWorld(*seed)
		if len(dos) == 0 {
			cmds = []string{"until " + lab.Horizon().String()}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "leaselab run: %s: %v\n", lab.ID, err)
		return 1
	}
	cmds = append(cmds, dos...)
	var failed error
	for _, c := range cmds {
		if err := w.Do(c); err != nil {
			failed = fmt.Errorf("%q: %w", c, err)
			break
		}
	}
	l := lang.val
	if l == "" {
		l = labs.DefaultLang
	}
	switch format.val {
	case "svg":
		// The same space-time diagram component the web pages use.
		err = web.RenderDiagramSVG(stdout, w, l)
	case "chart":
		label := lab.Title(l)
		if *question != "" {
			label += " — " + *question
		}
		err = web.RenderChartSVG(stdout, "c", l, []web.ChartRun{{Label: label, World: w}})
	default:
		err = printTrace(stdout, w, format.val, lang.val)
	}
	if err != nil {
		fmt.Fprintf(stderr, "leaselab run: %v\n", err)
		return 1
	}
	if failed != nil {
		fmt.Fprintf(stderr, "leaselab run: %v\n", failed)
		return 1
	}
	return 0
}

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
	c, err := labs.Load(content.FS)
	if c == nil {
		return nil, err
	}
	if l := c.Lab(target); l != nil {
		return l, nil
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
			t := e.T.String()
			fmt.Fprintf(out, "#%-3d %s%s  %s\n", i, strings.Repeat(" ", max(0, 7-len(t))), t, labs.DescribeEvent(e, names, lang))
		default:
			fmt.Fprintf(out, "#%-3d%s\n", i, names.Format(e))
		}
	}
	return nil
}

func toJSON(i int, e engine.Event, names engine.Names, lang string) jsonEvent {
	j := jsonEvent{I: i, T: int64(e.T), Kind: e.Kind.String(), Actor: names.Of(e.Node), Token: e.Token, Key: e.Key, Value: e.Value, Effect: e.Effect}
	if e.Peer != engine.NoNode {
		j.Peer = names.Of(e.Peer)
	}
	if e.Node == engine.NoNode && e.Peer != engine.NoNode {
		j.Actor = names.Of(e.Peer) // an observer's finding is about the peer
	}
	if e.Reason != engine.ReasonNone {
		j.Reason = e.Reason.String()
	}
	switch e.Kind {
	case engine.KindAccept:
		j.Outcome = "accepted"
	case engine.KindReject:
		j.Outcome = "rejected"
	case engine.KindCheck:
		j.Outcome = e.Reason.String()
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
	for _, r := range []int32{e.Ref, e.Ref2} {
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
