package labs

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"leaselab/engine"
)

// Measured is a lab's "size the margin from your own measurements"
// exercise (lab.yaml measured:). The student enters the p99 figures of
// their own system: the holder's longest pause, the one-way network delay,
// the coordinator's time per request and the clock's drift, with the lease
// they use. The engine derives the renewal policy those figures imply (the
// renewal lesson's budget: margin ≥ pause + attempt + retry delay + final
// attempt) and tests it: it plays the lab's world with every message at
// the p99 delay and service time, the holder's clock drifting at its p99
// either way, and one p99 pause followed by one lost attempt placed at
// every moment of a renewal cycle that matters, and, for safety, the
// holder cut off for longer than the lease. Then it grows each figure in
// turn past its p99 until some run breaks, and shows that run. Nothing is
// stored: the verdict is the engine's.
type Measured struct {
	Holder string
	Start  Figures // the form's starting values, from lab.yaml

	lab *Lab
	at  pos
}

// Figures are a system's p99 figures and its lease. Times are in ms;
// Drift in parts per million, either way (1000 is 0.1 %).
type Figures struct {
	Lease   engine.Time
	Pause   engine.Time
	Delay   engine.Time
	Service engine.Time
	Drift   int64
}

// FigureNames are the figures in the form's order.
var FigureNames = []string{"lease", "pause", "delay", "service", "drift"}

// GrownFigures are the figures the engine grows past their p99: the
// measurements, not the lease (a choice).
var GrownFigures = FigureNames[1:]

// figureSpec says what values a figure takes from a student, how far the
// engine grows it past the p99 and in what steps.
type figureSpec struct {
	lo, hi int64 // a student's value must lie within
	res    int64 // the resolution of the search past p99
	get    func(*Figures) *int64
}

var figureSpecs = map[string]figureSpec{
	"lease":   {lo: int64(engine.Second), hi: int64(engine.Minute), res: 10, get: func(f *Figures) *int64 { return (*int64)(&f.Lease) }},
	"pause":   {lo: 0, hi: int64(30 * engine.Second), res: 10, get: func(f *Figures) *int64 { return (*int64)(&f.Pause) }},
	"delay":   {lo: 0, hi: int64(10 * engine.Second), res: 10, get: func(f *Figures) *int64 { return (*int64)(&f.Delay) }},
	"service": {lo: 0, hi: int64(10 * engine.Second), res: 10, get: func(f *Figures) *int64 { return (*int64)(&f.Service) }},
	"drift":   {lo: 0, hi: 100_000, res: 100, get: func(f *Figures) *int64 { return &f.Drift }},
}

// maxGrownDrift is how far the engine grows the drift past its p99: a
// clock half as fast, or half again as fast.
const maxGrownDrift = 500_000

// Get is one figure's value: ms, or ppm for drift.
func (f Figures) Get(name string) int64 { return *figureSpecs[name].get(&f) }

// FigureError is a figure the student entered that cannot be used, said
// by its catalog key: Name is the figure, Value what was entered.
type FigureError struct {
	Name, Value string
	key         string
	args        []any
}

func (e *FigureError) Error() string {
	return fmt.Sprintf("figure %s %q: %s", e.Name, e.Value, strings.TrimPrefix(e.key, "err.figure."))
}

// Key is the catalog's text.
func (e *FigureError) Key() string { return e.key }

// Args fill it.
func (e *FigureError) Args() []any { return e.args }

// FigureWord is a figure's name as the catalog says it ("figure.pause"),
// an argument of a FigureError.
type FigureWord string

func (w FigureWord) Error() string { return string(w) }

// Key is the catalog's word.
func (w FigureWord) Key() string { return "figure." + string(w) }

// Args: none.
func (w FigureWord) Args() []any { return nil }

// ParseFigures reads the student's values over from: each a duration
// ("800ms", "0,8 dtk", "1.5s") or, for drift, a rate ("0,1%", "100ppm").
// A name that is not a figure, a value that does not read, or one out of
// bounds is a FigureError; nothing is ever half-applied.
func ParseFigures(values map[string]string, from Figures) (Figures, error) {
	f := from
	for _, name := range slices.Sorted(maps.Keys(values)) {
		spec, ok := figureSpecs[name]
		if !ok {
			return from, &FigureError{Name: name, key: "err.figure.unknown", args: []any{clip(name)}}
		}
		s := strings.TrimSpace(values[name])
		if s == "" {
			continue
		}
		if len(s) > 32 {
			return from, &FigureError{Name: name, Value: clip(s), key: "err.figure.long", args: []any{FigureWord(name)}}
		}
		v, ok := parseFigure(name, s)
		if !ok {
			key := "err.figure.duration"
			if name == "drift" {
				key = "err.figure.drift"
			}
			return from, &FigureError{Name: name, Value: s, key: key, args: []any{FigureWord(name), s}}
		}
		if v < spec.lo || v > spec.hi {
			return from, &FigureError{Name: name, Value: s, key: "err.figure.range", args: []any{FigureWord(name), s, figureArg(name, spec.lo), figureArg(name, spec.hi)}}
		}
		*spec.get(&f) = v
	}
	return f, nil
}

func clip(s string) string {
	if r := []rune(s); len(r) > 32 {
		return string(r[:32]) + "…"
	}
	return s
}

// figureArg is a figure's value as an argument a catalog text says in the
// reader's words: a duration, or a drift as a percentage.
func figureArg(name string, v int64) any {
	if name == "drift" {
		return DriftText(v)
	}
	return engine.Time(v)
}

// DriftText is a drift in ppm as a percentage with a point ("0.1%"); a
// page puts it in its language's decimal sign.
func DriftText(ppm int64) string {
	return strconv.FormatFloat(float64(ppm)/10_000, 'f', -1, 64) + "%"
}

// parseFigure reads one figure's text: ms for a duration, ppm for drift.
func parseFigure(name, s string) (int64, bool) {
	s = strings.ToLower(strings.Join(strings.Fields(s), ""))
	s = strings.ReplaceAll(s, ",", ".")
	if name == "drift" {
		for _, sign := range []string{"±", "+", "-"} {
			s = strings.TrimPrefix(s, sign)
		}
		switch {
		case s == "0":
			return 0, true
		case strings.HasSuffix(s, "ppm"):
			return decimal(strings.TrimSuffix(s, "ppm"), 1)
		case strings.HasSuffix(s, "%"):
			return decimal(strings.TrimSuffix(s, "%"), 10_000)
		}
		return 0, false
	}
	if s == "0" {
		return 0, true
	}
	for _, u := range []struct {
		suffix string
		ms     float64
	}{{"ms", 1}, {"detik", 1000}, {"dtk", 1000}, {"sec", 1000}, {"s", 1000}, {"m", 60_000}, {"min", 60_000}, {"menit", 60_000}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			return decimal(num, u.ms)
		}
	}
	return 0, false
}

// decimal reads a plain decimal number (digits with at most one point)
// times unit, rounded to a whole number; false for anything else.
func decimal(s string, unit float64) (int64, bool) {
	if s == "" || strings.Count(s, ".") > 1 || strings.Trim(s, "0123456789.") != "" || s == "." {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || f*unit > 1e12 {
		return 0, false
	}
	return int64(math.Round(f * unit)), true
}

// Budget is the renewal policy a system's figures imply, each step of its
// derivation kept so that a page can show it.
type Budget struct {
	Figures
	RoundTrip engine.Time // delay there, service, delay back
	Attempt   engine.Time // one attempt's timeout: the round trip by a fast clock, and a step more
	Retry     engine.Time // the delay before the retry: a quarter of an attempt, in whole 100 ms
	Sum       engine.Time // pause + attempt + retry + attempt
	Margin    engine.Time // Sum by a fast clock: renew when this much is left before the deadline
	GiveUp    engine.Time // the holder's own deadline after its last successful request: the lease by a slow clock
}

// budgetStep is what the budget rounds to.
const budgetStep = 10 * engine.Millisecond

// fast is t as a clock drift ppm fast counts it, rounded up to the ms.
func fast(t engine.Time, ppm int64) engine.Time {
	return engine.Time((int64(t)*(1_000_000+ppm) + 999_999) / 1_000_000)
}

// Budget derives the policy. Its error (a FigureError) says the margin
// does not fit before the deadline: the lease is too short for the figures.
func (f Figures) Budget() (Budget, error) {
	b := Budget{Figures: f}
	b.RoundTrip = 2*f.Delay + f.Service
	b.Attempt = fast(b.RoundTrip, f.Drift)/budgetStep*budgetStep + budgetStep
	b.Retry = max(100*engine.Millisecond, (b.Attempt/4+99)/100*100)
	b.Sum = f.Pause + 2*b.Attempt + b.Retry
	b.Margin = (fast(b.Sum, f.Drift) + budgetStep - 1) / budgetStep * budgetStep
	b.GiveUp = engine.Time(int64(f.Lease)*(1_000_000-f.Drift)/1_000_000) / budgetStep * budgetStep
	if b.GiveUp-b.Margin < 100*engine.Millisecond {
		return b, &FigureError{Name: "lease", key: "err.figure.fit", args: []any{b.Margin, b.GiveUp, f.Lease}}
	}
	return b, nil
}

// Policy is the holder's options the budget sets, as lab.yaml writes them.
func (b Budget) Policy() [][2]string {
	return [][2]string{
		{"renew-margin", b.Margin.String()},
		{"renew-attempt", b.Attempt.String()},
		{"renew-retry", b.Retry.String()},
		{"renew-give-up", b.GiveUp.String()},
		{"belief", "send"},
		{"stop-at-expiry", "on"},
	}
}

// PolicyText is Policy as one line: "renew-margin=2.23s …".
func (b Budget) PolicyText() string {
	var parts []string
	for _, o := range b.Policy() {
		parts = append(parts, o[0]+"="+o[1])
	}
	return strings.Join(parts, " ")
}

// measuredKeys are the keys of lab.yaml's measured:.
var measuredKeys = []string{"holder", "figures"}

func parseMeasured(r *report, l *Lab, y ynode) *Measured {
	kvs, ok := y.mapping(r, "measured")
	if !ok {
		return nil
	}
	knownKeys(r, kvs, "measured", measuredKeys...)
	m := &Measured{lab: l, at: y.pos(), Start: Figures{Lease: l.scenario.TTL}}
	good := true
	for _, e := range kvs {
		switch e.key {
		case "holder":
			s, _ := e.val.str(r, "holder")
			if !slices.Contains(workerNames(l.scenario), s) {
				r.errorf(e.val.pos(), "measured.holder %q is not a worker of the scenario (%s)", s, strings.Join(workerNames(l.scenario), ", "))
				good = false
			}
			m.Holder = s
		case "figures":
			good = m.readFigures(r, e.val) && good
		}
	}
	if m.Holder == "" {
		r.errorf(m.at, "measured needs holder: the worker whose margin the figures size")
		return nil
	}
	if !good {
		return nil
	}
	return m
}

// readFigures reads figures:, the form's starting values.
func (m *Measured) readFigures(r *report, y ynode) bool {
	kvs, ok := y.mapping(r, "measured.figures")
	if !ok {
		return false
	}
	knownKeys(r, kvs, "measured.figures", FigureNames...)
	good := true
	for _, e := range kvs {
		s, _ := e.val.str(r, e.key)
		spec, ok := figureSpecs[e.key]
		if !ok {
			good = false
			continue
		}
		f, err := ParseFigures(map[string]string{e.key: s}, m.Start)
		switch {
		case err != nil && e.key == "drift":
			r.errorf(e.val.pos(), "measured.figures drift %q: want a rate such as 0.1%% or 100ppm, from %v to %v", s, figureArg(e.key, spec.lo), figureArg(e.key, spec.hi))
		case err != nil:
			r.errorf(e.val.pos(), "measured.figures %s %q: want a duration such as 800ms, from %v to %v", e.key, s, figureArg(e.key, spec.lo), figureArg(e.key, spec.hi))
		default:
			m.Start = f
			continue
		}
		good = false
	}
	if good && m.Start.Lease == 0 {
		r.errorf(y.pos(), "measured.figures: a lease is needed (lease:, or the scenario's ttl)")
		good = false
	}
	return good
}

// verifyMeasured judges the starting figures once, so that check fails on
// an exercise that cannot run, and holds the lab's live world to them.
func verifyMeasured(r *report, l *Lab, once judgeOnce) {
	m := l.measured
	if m == nil {
		return
	}
	if err := once("measured", func() error { _, err := m.Judge(nil); return err }); err != nil {
		r.errorf(m.at, "measured: the starting figures: %v", err)
		return
	}
	b, _ := m.Start.Budget()
	if want, ok := m.startWorld(b); !ok {
		r.errorf(m.at, "measured: the lab's world shows the starting figures: write ttl: %v, delay: %v and service: %v in the scenario, and on %s: %s", b.Lease, b.Delay, b.Service, m.Holder, want)
	}
}

// startWorld says whether the lab's scenario is the starting figures'
// world with their budget's policy on the holder (its clock slow by the
// drift), and the holder's options that make it so.
func (m *Measured) startWorld(b Budget) (string, bool) {
	sc := m.lab.scenario
	i := slices.IndexFunc(sc.Workers, func(w engine.WorkerSpec) bool { return w.Name == m.Holder })
	want := sc.Workers[i]
	for _, o := range b.Policy() {
		_ = want.Set(o[0], o[1])
	}
	rate := 1_000_000 - b.Drift
	opts := "drift=" + strconv.FormatInt(-b.Drift, 10) + "ppm " + b.PolicyText()
	if b.Drift == 0 {
		opts = b.PolicyText()
	}
	got := sc.Workers[i]
	same := sc.TTL == b.Lease && sc.Delay == b.Delay && sc.ServiceTime == b.Service &&
		clockRate(got.Drift) == rate &&
		got.Renew.Margin == want.Renew.Margin && got.Renew.Attempt == want.Renew.Attempt &&
		got.Renew.Retry == want.Renew.Retry && got.Renew.GiveUp == want.Renew.GiveUp &&
		got.Belief == want.Belief && got.StopAtExpiry == want.StopAtExpiry
	return opts, same
}

// clockRate is a worker's clock rate in ppm: 0 is a true clock.
func clockRate(drift int64) int64 {
	if drift == 0 {
		return 1_000_000
	}
	return drift
}
