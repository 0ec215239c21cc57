package labs

import (
	"fmt"
	"slices"

	"leaselab/engine"
)

// MeasuredVerdict is the engine's judgement of the margin a student's
// figures imply.
type MeasuredVerdict struct {
	Budget Budget
	Runs   int          // runs played at the p99 figures
	Fail   *MeasuredRun // the first run at the p99 figures that failed; nil: every one held
	// Past is, for each grown figure (GrownFigures), how far past its p99
	// the margin still holds and the run that breaks it; nil when Fail.
	Past   []PastFigure
	Played int // every run played, the search past p99 included
}

// MeasuredRun is one run of the test: the world's figures, the faults
// placed in it, and what decided it.
type MeasuredRun struct {
	Figures Figures // the world's figures (one grown past its p99 in Past)
	Slow    bool    // the holder's clock ran slow by Figures.Drift, else fast
	// At is when the pause begins (-1: no fault), or, when Outage, when
	// the holder is cut off from the coordinator for good.
	At     engine.Time
	Outage bool
	Pause  engine.Time // the pause played (the world's figure)
	// Lost is when the renewal request lost on its way was sent: the one
	// attempt the margin allows for, the last before the pause or the
	// first after it began; -1: none.
	Lost     engine.Time
	Commands []engine.Command
	Safety   bool // the holder acted without its lease, not only lost it
	Event    int  // the deciding event's index in World's log
	Why      engine.Event
	World    *engine.World // the run replayed, for its diagram

	budget Budget // the policy played
}

// PastFigure is how far one figure may grow past its p99.
type PastFigure struct {
	Name   string
	P99    int64 // the student's value (ms, or ppm for drift)
	Holds  int64 // the largest value tested that held
	Breaks int64 // the smallest value tested that broke; 0 when none did up to the cap
	Run    *MeasuredRun
}

// Measured returns the lab's p99 exercise, or nil.
func (l *Lab) Measured() *Measured { return l.measured }

// Judge derives the budget of the student's figures (over the lab's
// starting ones) and tests it. A figure that cannot be used, or a margin
// that does not fit in the lease, is a FigureError.
func (m *Measured) Judge(values map[string]string) (*MeasuredVerdict, error) {
	fig, err := ParseFigures(values, m.Start)
	if err != nil {
		return nil, err
	}
	b, err := fig.Budget()
	if err != nil {
		return nil, err
	}
	v := &MeasuredVerdict{Budget: b}
	fail, runs, err := m.test(b, fig, &v.Played)
	if err != nil {
		return nil, err
	}
	v.Runs = runs
	if fail != nil {
		v.Fail = fail
		return v, m.replay(fail)
	}
	for _, name := range GrownFigures {
		p, err := m.past(b, name, &v.Played)
		if err != nil {
			return nil, err
		}
		if p.Run != nil {
			if err := m.replay(p.Run); err != nil {
				return nil, err
			}
		}
		v.Past = append(v.Past, p)
	}
	return v, nil
}

// past grows one figure from its p99 until a run breaks: steps that
// double from a tenth of the p99, then halving between the last value
// that held and the first that broke, to the figure's resolution.
func (m *Measured) past(b Budget, name string, played *int) (PastFigure, error) {
	spec := figureSpecs[name]
	p99 := b.Get(name)
	limit := map[string]int64{"pause": 2 * int64(b.Lease), "delay": int64(b.Lease), "service": int64(b.Lease), "drift": maxGrownDrift}[name]
	out := PastFigure{Name: name, P99: p99, Holds: p99}
	try := func(v int64) (*MeasuredRun, error) {
		fig := b.Figures
		*spec.get(&fig) = v
		run, _, err := m.test(b, fig, played)
		return run, err
	}
	step := max(spec.res, p99/10/spec.res*spec.res)
	for v := p99 + step; out.Run == nil; v, step = p99+2*(v-p99), 2*step {
		v = min(v, limit)
		run, err := try(v)
		if err != nil {
			return out, err
		}
		if run != nil {
			out.Breaks, out.Run = v, run
			break
		}
		out.Holds = v
		if v == limit {
			return out, nil
		}
	}
	for out.Breaks-out.Holds > spec.res {
		mid := (out.Holds + out.Breaks) / 2 / spec.res * spec.res
		if mid <= out.Holds {
			break
		}
		run, err := try(mid)
		if err != nil {
			return out, err
		}
		if run != nil {
			out.Breaks, out.Run = mid, run
		} else {
			out.Holds = mid
		}
	}
	return out, nil
}

// test plays the budget's policy in a world with fig's figures: both ways
// of drift, the pause and lost attempt at every placement, then the
// outages. It returns the first run that fails (nil when all held) and how
// many it played.
func (m *Measured) test(b Budget, fig Figures, played *int) (*MeasuredRun, int, error) {
	runs := 0
	for _, slow := range driftWays(fig.Drift) {
		mw, err := m.world(b, fig, slow)
		if err != nil {
			return nil, runs, err
		}
		pauses, outages, fail, err := mw.plan()
		runs++
		*played++
		if err != nil || fail != nil {
			return fail, runs, err
		}
		for _, t := range pauses {
			fail, n, err := mw.pauseAndLoss(t)
			runs += n
			*played += n
			if err != nil || fail != nil {
				return fail, runs, err
			}
		}
		for _, run := range outages {
			failed, err := mw.play(run)
			runs++
			*played++
			if err != nil {
				return nil, runs, err
			}
			if failed {
				return run, runs, nil
			}
		}
	}
	return nil, runs, nil
}

// driftWays are the holder's clocks to play: slow and fast, or only a
// true one when there is no drift.
func driftWays(drift int64) []bool {
	if drift == 0 {
		return []bool{false}
	}
	return []bool{true, false}
}

// measuredWorld is the lab's world with one set of figures and the
// budget's policy on the holder: one prepared scenario, one world reused
// run after run.
type measuredWorld struct {
	b      Budget
	fig    Figures
	slow   bool
	sc     engine.Scenario
	p      *engine.Prepared
	holder engine.Node
	w      *engine.World
}

// world builds the scenario of one set of figures.
func (m *Measured) world(b Budget, fig Figures, slow bool) (*measuredWorld, error) {
	sc := copyScenario(m.lab.scenario)
	sc.TTL, sc.Delay, sc.ServiceTime = b.Lease, fig.Delay, fig.Service
	i := slices.IndexFunc(sc.Workers, func(w engine.WorkerSpec) bool { return w.Name == m.Holder })
	ws := &sc.Workers[i]
	for _, o := range b.Policy() {
		if err := ws.Set(o[0], o[1]); err != nil {
			return nil, fmt.Errorf("measured: %s=%s: %w", o[0], o[1], err)
		}
	}
	ws.Drift = 1_000_000 + fig.Drift
	if slow {
		ws.Drift = 1_000_000 - fig.Drift
	}
	p, err := engine.Prepare(sc)
	if err != nil {
		return nil, err
	}
	mw := &measuredWorld{b: b, fig: fig, slow: slow, sc: sc, p: p}
	mw.w = p.NewIn(nil, sc.Seed)
	mw.holder, _ = mw.w.Worker(m.Holder)
	return mw, nil
}

// plan runs the world without faults and lays out the runs to play
// around the holder's first renewal: the moments a pause begins, every
// 100 ms (or a hundredth of the span, when longer) from a pause that
// ends as the renewal is due to an answer after its retry, and right around the first two renewals (pauseAndLoss plays
// each); and the outages, every 200 ms from just before the first renewal
// through two seconds of work after it. A run without faults that fails
// already is returned as the failure.
func (mw *measuredWorld) plan() (pauses []engine.Time, outages []*MeasuredRun, fail *MeasuredRun, err error) {
	lease := mw.b.Lease
	unfaulted := &MeasuredRun{Figures: mw.fig, Slow: mw.slow, At: -1, Lost: -1, budget: mw.b, Commands: []engine.Command{{Kind: engine.CmdUntil, At: 2*lease + 2*engine.Second}}}
	failed, err := mw.play(unfaulted)
	if err != nil || failed {
		return nil, nil, unfaulted, err
	}
	renew := mw.renewals()
	if len(renew) < 2 {
		return nil, nil, nil, fmt.Errorf("measured: the holder renews fewer than twice in %s without faults", 2*lease+2*engine.Second)
	}
	s1, s2 := renew[0], renew[1]
	rtt := 2*mw.fig.Delay + mw.fig.Service
	at := []engine.Time{s1 - 1, s1, s1 + 1, s1 + rtt - 1, s2 - 1, s2, s2 + 1, s2 + rtt - 1}
	from, to := (s1-mw.fig.Pause-100)/100*100, s1+mw.b.Attempt+mw.b.Retry+rtt
	step := max(100, (to-from)/100/100*100) // at most about 100 moments
	for t := from; t <= to; t += step {
		at = append(at, t)
	}
	slices.Sort(at)
	for _, t := range slices.Compact(at) {
		if t > 0 {
			pauses = append(pauses, t)
		}
	}
	for t := (s1 - rtt) / 100 * 100; t <= s1+2*engine.Second; t += 200 {
		if t > 0 {
			outages = append(outages, mw.outage(t))
		}
	}
	return pauses, outages, nil, nil
}

// renewals are the moments the holder sent a renewal request in the
// world's log.
func (mw *measuredWorld) renewals() []engine.Time {
	var out []engine.Time
	for _, e := range mw.w.Events() {
		if e.Kind == engine.KindSend && e.Node == mw.holder && e.Msg() == engine.MsgRenew {
			out = append(out, e.T)
		}
	}
	return out
}

// pauseAndLoss plays the pause from t alone, then with one renewal
// request lost as well: the last sent before the pause began, and the
// first sent after. Each is within the budget: one p99 pause and one lost
// attempt. It returns the first that fails, and how many it played.
func (mw *measuredWorld) pauseAndLoss(t engine.Time) (*MeasuredRun, int, error) {
	alone := mw.pauseRun(t, -1)
	failed, err := mw.play(alone)
	if err != nil || failed {
		return alone, 1, err
	}
	var before, after engine.Time = -1, -1
	for _, x := range mw.renewals() {
		if x < t {
			before = x
		} else if after < 0 {
			after = x
		}
	}
	n := 1
	if before+mw.b.Attempt+mw.b.Retry+mw.b.Attempt < t {
		before = -1 // its retry was answered before the pause: the pause alone
	}
	for _, x := range []engine.Time{before, after} {
		if x <= 0 {
			continue
		}
		run := mw.pauseRun(t, x)
		failed, err := mw.play(run)
		n++
		if err != nil || failed {
			return run, n, err
		}
	}
	return nil, n, nil
}

// pauseRun is the run with the holder paused from t for the pause and,
// when lost is positive, the renewal request it sends at lost lost on its
// way: its link to the coordinator loses what it sends in the millisecond
// up to then.
func (mw *measuredWorld) pauseRun(t, lost engine.Time) *MeasuredRun {
	h, p := mw.holderName(), mw.fig.Pause
	type step struct {
		at  engine.Time
		cmd engine.Command
	}
	var steps []step
	if p > 0 {
		steps = append(steps, step{t, engine.Command{Kind: engine.CmdFreeze, A: h, Dur: p}})
	}
	if lost > 0 {
		steps = append(steps,
			step{lost - 1, engine.Command{Kind: engine.CmdLink, A: h, B: "coord", OneWay: true, HasLoss: true, LossPPM: 1_000_000}},
			step{lost, engine.Command{Kind: engine.CmdLink, A: h, B: "coord", OneWay: true, HasLoss: true, LossPPM: mw.sc.LossPPM}})
	}
	slices.SortStableFunc(steps, func(a, b step) int { return int(a.at - b.at) })
	var cmds []engine.Command
	for _, s := range steps {
		cmds = append(cmds, engine.Command{Kind: engine.CmdUntil, At: s.at}, s.cmd)
	}
	cmds = append(cmds, engine.Command{Kind: engine.CmdUntil, At: max(t+p, lost) + mw.b.Lease + engine.Second})
	return &MeasuredRun{Figures: mw.fig, Slow: mw.slow, At: t, Pause: p, Lost: lost, Commands: cmds, budget: mw.b}
}

// outage is the run with the holder cut off from the coordinator from t
// on: it must lose the lease, and stop acting before the coordinator
// gives it to another.
func (mw *measuredWorld) outage(t engine.Time) *MeasuredRun {
	h := mw.holderName()
	cmds := []engine.Command{
		{Kind: engine.CmdUntil, At: t},
		{Kind: engine.CmdPartition, A: h, B: "coord"},
		{Kind: engine.CmdUntil, At: t + 2*mw.b.Lease + engine.Second},
	}
	return &MeasuredRun{Figures: mw.fig, Slow: mw.slow, At: t, Outage: true, Lost: -1, Commands: cmds, budget: mw.b}
}

func (mw *measuredWorld) holderName() string { return mw.w.Names().Nodes[mw.holder] }

// play runs one run in the reused world and judges it: a violation of
// the holder fails it on safety; losing the lease fails it too, except in
// an outage, which no margin outlasts.
func (mw *measuredWorld) play(run *MeasuredRun) (bool, error) {
	mw.w = mw.p.NewIn(mw.w, mw.sc.Seed)
	for _, c := range run.Commands {
		if err := mw.w.Apply(c); err != nil && c.Kind == engine.CmdUntil {
			return false, &FigureError{Name: "lease", key: "err.figure.run", args: []any{c.At}}
		}
	}
	run.Event = -1
	evs := mw.w.Events()
	for i, e := range evs {
		other := engine.NoNode
		if e.Kind == engine.KindViolation && e.Reason() == engine.ViolationSplitBrain && e.Ref2() >= 0 {
			other = evs[e.Ref2()].Node
		}
		if e.Kind == engine.KindViolation && (e.Peer() == mw.holder || other == mw.holder) {
			run.Safety, run.Event, run.Why = true, i, e
			return true, nil
		}
	}
	if run.Outage {
		return false, nil
	}
	for i, e := range evs {
		if e.Kind == engine.KindLost && e.Node == mw.holder {
			run.Event, run.Why = i, e
			return true, nil
		}
	}
	return false, nil
}

// replay plays a run again in a world of its own, kept for its diagram.
func (m *Measured) replay(run *MeasuredRun) error {
	mw, err := m.world(run.budget, run.Figures, run.Slow)
	if err != nil {
		return err
	}
	if _, err := mw.play(run); err != nil {
		return err
	}
	run.World = mw.w
	return nil
}
