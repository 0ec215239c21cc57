package labs

import (
	"errors"

	"leaselab/catalog"
	"leaselab/engine"
)

// RefComparison is a program that passed beside the lab's reference on the
// same schedules (issue 49): not their code but what they do. The
// engine plays both on the lab's world without faults and on the
// judgement's first random schedules; the schedule whose first
// differing event comes earliest is shown, with that event of each.
type RefComparison struct {
	Tried int // schedules played, each by both programs
	// Same reports that no schedule tried tells them apart; the rest is
	// empty then.
	Same bool
	// Schedule is the judgement's random schedule shown (its number from
	// 0), or -1: the lab's world without faults.
	Schedule int
	Faults   []engine.Fault
	// Diff is the first differing event's index in each world's log
	// (engine.FirstDifference): -1 in a world whose log had ended.
	Diff      engine.Difference
	Mine, Ref *engine.World
}

// compareSchedules is how many of the judgement's random schedules a
// comparison plays beside the world without faults: enough to tell
// programs apart that behave differently at all, a tenth of a
// judgement's work.
const compareSchedules = 20

// ErrNotPassed refuses a comparison with the reference to a program that
// has not passed: it would show the reference's way before the student
// found their own.
var ErrNotPassed = errors.New("compare with the reference: only a program that passed")

// Compare plays src and the reference on the same schedules and finds
// where their behaviour first differs. v is src's verdict: a program that
// did not pass is refused (ErrNotPassed).
func (p *ProgramSpec) Compare(src string, v *ProgramVerdict) (*RefComparison, error) {
	if v == nil || !v.Pass {
		return nil, ErrNotPassed
	}
	mine, err := p.readySpec(src)
	if err != nil {
		return nil, err
	}
	ref, err := p.readySpec(p.reference)
	if err != nil {
		return nil, err
	}
	out := &RefComparison{Same: true}
	best := engine.Time(-1)
	for i := -1; i < min(compareSchedules, mine.Runs); i++ {
		run := engine.Run{Index: i, Event: -1, Commands: []engine.Command{{Kind: engine.CmdUntil, At: mine.Horizon}}}
		if i >= 0 {
			run = mine.Schedule(i)
		}
		mw, err := mine.Play(&run)
		if err != nil {
			return nil, err
		}
		rw, err := ref.Play(&run)
		if err != nil {
			return nil, err
		}
		out.Tried++
		d, differ := engine.FirstDifference(mw.Events(), rw.Events())
		if !differ {
			continue
		}
		if t := diffTime(mw, rw, d); best < 0 || t < best {
			best = t
			*out = RefComparison{Tried: out.Tried, Schedule: i, Faults: run.Faults, Diff: d, Mine: mw, Ref: rw}
		}
	}
	return out, nil
}

// diffTime is when two worlds' logs first differ, at d.
func diffTime(a, b *engine.World, d engine.Difference) engine.Time {
	t := engine.Time(-1)
	for _, x := range []struct {
		w *engine.World
		i int
	}{{a, d.A}, {b, d.B}} {
		if x.i >= 0 && (t < 0 || x.w.Events()[x.i].T < t) {
			t = x.w.Events()[x.i].T
		}
	}
	return t
}

// At is when the comparison's schedule first tells the programs apart.
func (c *RefComparison) At() engine.Time {
	if c.Same {
		return -1
	}
	return diffTime(c.Mine, c.Ref, c.Diff)
}

// readySpec is the judgement's schedules with src deciding for the lab's
// side.
func (p *ProgramSpec) readySpec(src string) (engine.Challenge, error) {
	c, err := p.Compile(src)
	if err != nil {
		return engine.Challenge{}, err
	}
	spec := p.spec
	spec.Scenario = p.Scenario(c)
	return spec.Ready()
}

// Text says where the programs first part, in lang: at what moment, what
// the student's program did and what the reference did.
func (c *RefComparison) Text(lang string) string {
	if c.Same {
		return ""
	}
	p := &engine.Pair{A: c.Mine, B: c.Ref}
	return DescribeDifferenceAs(p, c.Diff, true, lang, catalog.T(lang, "program.compare.mine"), catalog.T(lang, "program.compare.ref"))
}
