package labs

import (
	"fmt"
	"regexp"
	"strings"

	"leaselab/catalog"
	"leaselab/engine"
)

// Apply applies one command to a world of this lab: after a reset the new
// world gets the lab's setup commands, as NewWorld's do.
func (l *Lab) Apply(w *engine.World, c engine.Command) error {
	if err := w.Apply(c); err != nil {
		return err
	}
	if c.Kind != engine.CmdReset {
		return nil
	}
	for _, s := range l.setup {
		if err := w.Apply(s.cmd); err != nil {
			return fmt.Errorf("lab %s setup %q after reset: %w", l.ID, s.src, err)
		}
	}
	return nil
}

// NewPair starts a what-if of this lab: two new worlds with the same seed,
// run B taking change f at its moment. Replay the session's commands on it.
func (l *Lab) NewPair(seed uint64, f engine.Fork) (*engine.Pair, error) {
	a, err := l.NewWorld(seed)
	if err != nil {
		return nil, err
	}
	b, err := l.NewWorld(seed)
	if err != nil {
		return nil, err
	}
	return engine.NewPair(a, b, f, l.Apply)
}

// DescribeDifference is one sentence, in lang, for where a pair's runs
// first part: "At 29s: in A, the storage accepts …; in B, the storage
// rejects …".
func DescribeDifference(p *engine.Pair, d engine.Difference, found bool, lang string) string {
	return DescribeDifferenceAs(p, d, found, lang, "A", "B")
}

// DescribeDifferenceAs is DescribeDifference with the runs named: "in
// nameA, …; in nameB, …".
func DescribeDifferenceAs(p *engine.Pair, d engine.Difference, found bool, lang, nameA, nameB string) string {
	var buf [512]byte
	return string(AppendDifference(buf[:0], p, d, found, lang, nameA, nameB))
}

// AppendDifference appends DescribeDifferenceAs's sentence to b: a pair's
// play frame writes it into its buffer without a string for it
// (TestAppendDifferenceIsTheSentence).
func AppendDifference(b []byte, p *engine.Pair, d engine.Difference, found bool, lang, nameA, nameB string) []byte {
	if !found {
		return append(b, catalog.T(lang, "diff.same")...)
	}
	// Each side's words go into the sentence: written into scratch first.
	var scratchA, scratchB [192]byte
	side := func(scratch []byte, w *engine.World, i int) []byte {
		if i < 0 {
			return append(scratch, catalog.T(lang, "diff.ended")...)
		}
		return AppendEvent(scratch, w.Events()[i], w.Names(), lang)
	}
	var at engine.Time
	switch {
	case d.A >= 0 && d.B >= 0:
		at = min(p.A.Events()[d.A].T, p.B.Events()[d.B].T)
	case d.A >= 0:
		at = p.A.Events()[d.A].T
	default:
		at = p.B.Events()[d.B].T
	}
	sa, sb := side(scratchA[:0], p.A, d.A), side(scratchB[:0], p.B, d.B)
	if d.A >= 0 && d.B >= 0 && p.A.Events()[d.A].T != p.B.Events()[d.B].T {
		// The runs part in time: say when each side happens.
		var whenA, whenB [224]byte
		sa = catalog.Append(whenA[:0], lang, "diff.when", catalog.Moment(p.A.Events()[d.A].T), catalog.Bytes(sa))
		sb = catalog.Append(whenB[:0], lang, "diff.when", catalog.Moment(p.B.Events()[d.B].T), catalog.Bytes(sb))
	}
	return catalog.Append(b, lang, "diff.part", catalog.Moment(at), catalog.Str(nameA), catalog.Bytes(sa), catalog.Str(nameB), catalog.Bytes(sb))
}

// compareRE finds {{compare CMD}} and {{compare CMD at TIME}} in an
// explanation.
var compareRE = regexp.MustCompile(`\{\{\s*compare\s+([^{}]*?)\s*\}\}`)

// Comparison is a question's run beside the same run with one change.
type Comparison struct {
	Fork  engine.Fork
	Pair  *engine.Pair
	Diff  engine.Difference
	Found bool
}

// Compare builds the question's run and the same run with change f.
func (q *Question) Compare(f engine.Fork) (*Comparison, error) {
	a, err := engine.New(q.Variant())
	if err != nil {
		return nil, err
	}
	b, err := engine.New(q.Variant())
	if err != nil {
		return nil, err
	}
	p, err := engine.NewPair(a, b, f, q.lab.Apply)
	if err != nil {
		return nil, err
	}
	var cmds []engine.Command
	for _, c := range q.run {
		cmds = append(cmds, c.cmd)
	}
	if err := p.Replay(cmds); err != nil {
		return nil, err
	}
	d, found := engine.FirstDifference(a.Events(), b.Events())
	return &Comparison{Fork: f, Pair: p, Diff: d, Found: found}, nil
}

// parseFork reads "CMD" or "CMD at TIME" (the moment defaults to 0s).
func parseFork(src string) (engine.Fork, error) {
	f := engine.Fork{}
	cmd := src
	if i := strings.LastIndex(src, " at "); i >= 0 {
		t, err := engine.ParseTime(strings.TrimSpace(src[i+4:]))
		if err != nil || t < 0 {
			return f, fmt.Errorf("compare %q: after \"at\" comes a time such as 4s", src)
		}
		f.At, cmd = t, src[:i]
	}
	c, err := engine.ParseCommand(strings.TrimSpace(cmd))
	if err != nil {
		return f, fmt.Errorf("compare %q: %v", src, err)
	}
	f.Change = c
	return f, f.Validate()
}

// expandCompare replaces each {{compare …}} in an explanation with the
// sentence for where the question's run and its changed twin part, and
// both runs' events there. A change that cannot be applied is an error;
// one that makes no difference is a warning.
func expandCompare(r *report, at pos, q *Question, md, lang string) string {
	return compareRE.ReplaceAllStringFunc(md, func(m string) string {
		src := compareRE.FindStringSubmatch(m)[1]
		f, err := parseFork(src)
		if err != nil {
			r.errorf(at, "question %s: %v", q.ID, err)
			return ""
		}
		c, err := q.Compare(f)
		if err != nil {
			r.errorf(at, "question %s: compare %q: %v", q.ID, src, err)
			return ""
		}
		if !c.Found {
			r.warnf(at, "question %s: compare %q: the changed run is the same as the question's; the comparison shows nothing", q.ID, src)
		}
		var b strings.Builder
		b.WriteString("\n> ")
		nameA, nameB := catalog.T(lang, "diff.question"), string(catalog.Append(nil, lang, "diff.changed", catalog.Moment(f.At)))
		b.WriteString(DescribeDifferenceAs(c.Pair, c.Diff, c.Found, lang, nameA, nameB))
		b.WriteString("\n")
		return b.String()
	})
}
