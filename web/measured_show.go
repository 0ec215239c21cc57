package web

import (
	"fmt"
	"strconv"

	"leaselab/catalog"
	"leaselab/draw"
	"leaselab/engine"
	"leaselab/labs"
)

// measuredView is the engine's judgement of the margin a student's own
// p99 figures imply (a lab's measured: exercise): the budget derived,
// whether it held at the figures, and how far past each it holds.
type measuredView struct {
	Lang    string
	Holder  string
	Verdict *labs.MeasuredVerdict
	Fail    *measuredRunView
	Past    []measuredPastView
}

// measuredRunView is one run of the test in words, with its diagram.
type measuredRunView struct {
	Lines   []string // the world's figures, then the faults
	Why     string   // the deciding event
	Diagram *draw.Diagram
}

// measuredPastView is one figure grown past its p99.
type measuredPastView struct {
	Text string
	Run  *measuredRunView
}

// figureValues is the form's values: the request's (m.NAME), else the
// lab's starting figures in the reader's words.
func figureValues(m *labs.Measured, lang string, get func(string) string) map[string]string {
	out := map[string]string{}
	for _, name := range labs.FigureNames {
		out[name] = figureText(lang, name, m.Start.Get(name))
		if v := get("m." + name); v != "" {
			out[name] = v
		}
	}
	return out
}

// figureText is a figure's value as the reader writes it: "800 ms",
// "0,1%".
func figureText(lang, name string, v int64) string {
	if name == "drift" {
		return driftText(lang, v)
	}
	return catalog.TimeText(lang, engine.Time(v))
}

// driftText is a drift in ppm as a percentage with lang's decimal mark.
func driftText(lang string, ppm int64) string {
	return string(catalog.AppendNumber(nil, lang, []byte(strconv.FormatFloat(float64(ppm)/10_000, 'f', -1, 64)))) + "%"
}

// judgeMeasured asks the engine for the verdict on the figures and says
// it in lang.
func judgeMeasured(lab *labs.Lab, values map[string]string, lang string) (*measuredView, error) {
	m := lab.Measured()
	v, err := m.Judge(values)
	if err != nil {
		return nil, err
	}
	mv := &measuredView{Lang: lang, Holder: m.Holder, Verdict: v}
	if v.Fail != nil {
		mv.Fail = mv.run(v.Fail, "measured-fail")
	}
	for i, p := range v.Past {
		pv := measuredPastView{Text: mv.pastText(p)}
		if p.Run != nil {
			pv.Run = mv.run(p.Run, "measured-past-"+strconv.Itoa(i))
		}
		mv.Past = append(mv.Past, pv)
	}
	return mv, nil
}

func (mv *measuredView) t(key string, args ...any) string {
	return fmt.Sprintf(T(mv.Lang, key), args...)
}

func (mv *measuredView) time(t engine.Time) string { return catalog.TimeText(mv.Lang, t) }

// Budget is the derivation, one line a step.
func (mv *measuredView) Budget() []string {
	b := mv.Verdict.Budget
	d := driftText(mv.Lang, b.Drift)
	lines := []string{mv.t("measured.rtt", mv.time(b.Delay), mv.time(b.Service), mv.time(b.RoundTrip))}
	if b.Drift == 0 {
		lines = append(lines, mv.t("measured.attempt.true", mv.time(b.Attempt)))
	} else {
		lines = append(lines, mv.t("measured.attempt", d, mv.time(b.Attempt)))
	}
	lines = append(lines, mv.t("measured.retry", mv.time(b.Retry)))
	sum := []any{mv.time(b.Pause), mv.time(b.Attempt), mv.time(b.Retry), mv.time(b.Attempt), mv.time(b.Sum)}
	if b.Drift == 0 {
		lines = append(lines, mv.t("measured.margin.true", sum...))
		lines = append(lines, mv.t("measured.giveup.true", mv.time(b.Lease), mv.time(b.GiveUp)))
	} else {
		lines = append(lines, mv.t("measured.margin", append(sum, d, mv.time(b.Margin))...))
		lines = append(lines, mv.t("measured.giveup", mv.time(b.Lease), d, mv.time(b.GiveUp)))
	}
	return lines
}

// Summary says the verdict at the p99 figures.
func (mv *measuredView) Summary() string {
	if mv.Verdict.Fail != nil {
		return mv.t("measured.fail", mv.Verdict.Runs)
	}
	return mv.t("measured.pass", mv.Verdict.Runs, mv.Holder, mv.Holder, mv.Holder)
}

// pastText is one figure's row: how far past its p99 it held, and what
// broke it.
func (mv *measuredView) pastText(p labs.PastFigure) string {
	word := T(mv.Lang, "figure."+p.Name)
	if p.Run == nil {
		return mv.t("measured.past.none", word, figureText(mv.Lang, p.Name, p.P99), figureText(mv.Lang, p.Name, p.Holds))
	}
	return mv.t("measured.past.row", word, figureText(mv.Lang, p.Name, p.P99), figureText(mv.Lang, p.Name, p.Holds), figureText(mv.Lang, p.Name, p.Breaks))
}

// run says one run: its world, its faults, the event that decided it,
// and its diagram with that event marked.
func (mv *measuredView) run(r *labs.MeasuredRun, id string) *measuredRunView {
	f := r.Figures
	clock := mv.t("measured.run.true")
	switch {
	case f.Drift != 0 && r.Slow:
		clock = mv.t("measured.run.slow", mv.Holder, driftText(mv.Lang, f.Drift))
	case f.Drift != 0:
		clock = mv.t("measured.run.fast", mv.Holder, driftText(mv.Lang, f.Drift))
	}
	rv := &measuredRunView{Lines: []string{mv.t("measured.run.world", mv.time(f.Delay), mv.time(f.Service), clock)}}
	at, lost := catalog.MomentText(mv.Lang, r.At), catalog.MomentText(mv.Lang, r.Lost)
	switch {
	case r.Outage:
		rv.Lines = append(rv.Lines, mv.t("measured.run.outage", mv.Holder, at))
	case r.At < 0:
		rv.Lines = append(rv.Lines, mv.t("measured.run.none"))
	case r.Pause > 0 && r.Lost > 0:
		rv.Lines = append(rv.Lines, mv.t("measured.run.pause.lost", mv.Holder, mv.time(r.Pause), at, lost))
	case r.Pause > 0:
		rv.Lines = append(rv.Lines, mv.t("measured.run.pause", mv.Holder, mv.time(r.Pause), at))
	case r.Lost > 0:
		rv.Lines = append(rv.Lines, mv.t("measured.run.lost", mv.Holder, lost))
	default:
		rv.Lines = append(rv.Lines, mv.t("measured.run.none"))
	}
	if r.World != nil && r.Event >= 0 {
		// As the diagram's pin and the event list write it.
		rv.Why = catalog.MomentText(mv.Lang, r.Why.T) + ": " + labs.DescribeEvent(r.Why, r.World.Names(), mv.Lang)
		rv.Diagram = draw.ZoomedDiagram(id, r.World, mv.Lang, map[int]bool{r.Event: true})
	}
	return rv
}
