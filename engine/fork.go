package engine

import "fmt"

// What if? Two runs of one scenario that share a command list and differ
// by one change at one moment: run A applies the list, run B applies the
// same list with the change landing at virtual time At. Both are plain
// worlds, so a pair replays exactly like a single run.

// Fork is one change applied at one moment of a run.
type Fork struct {
	At     Time    // virtual time of the change
	Change Command // the change; it must not move time
}

// Validate refuses a change that is a time command: a fork changes the
// world, not how far it runs.
func (f Fork) Validate() error {
	if k := f.Change.Kind; k.MovesTime() || k == CmdReset || k.spec() == nil {
		return fmt.Errorf("what if: the change must alter the world (freeze, fencing, storage, partition, link, clock, ...), not %q", k.Word())
	}
	if f.At < 0 {
		return fmt.Errorf("what if: the moment cannot be negative")
	}
	return nil
}

// Pair is the two runs of a what-if, kept at the same virtual time. A
// time command (advance, until, step) runs A, then brings B to A's time,
// so a step moves both to A's next event. Any other command applies to
// both. The change lands in B when time reaches Fork.At: a command that
// carries time past it is split there. After a reset the change lands
// again at the same moment of the new run.
type Pair struct {
	A, B   *World
	Fork   Fork
	forked bool
	apply  func(*World, Command) error
}

// NewPair makes a pair of two new worlds of the same scenario. apply is
// how one command is applied to one world (a session also runs a lab's
// setup after a reset); nil means World.Apply.
func NewPair(a, b *World, f Fork, apply func(*World, Command) error) (*Pair, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if apply == nil {
		apply = func(w *World, c Command) error { return w.Apply(c) }
	}
	return &Pair{A: a, B: b, Fork: f, apply: apply}, nil
}

// Replay applies a command list to the pair and lands the change if the
// list ends at its moment. It refuses a fork later than where the list
// ends: run B would have nothing to show.
func (p *Pair) Replay(cmds []Command) error {
	for _, c := range cmds {
		if err := p.Apply(c); err != nil {
			return err
		}
	}
	if !p.forked && p.A.now < p.Fork.At {
		return fmt.Errorf("what if: the run has not reached %s yet (it is %s)", p.Fork.At, p.A.now)
	}
	return p.land()
}

// Forked reports whether the change has landed in B.
func (p *Pair) Forked() bool { return p.forked }

// land applies the change to B once A has reached its moment.
func (p *Pair) land() error {
	if p.forked || p.A.now < p.Fork.At {
		return nil
	}
	if p.B.now < p.Fork.At {
		if err := p.apply(p.B, Command{Kind: CmdUntil, At: p.Fork.At}); err != nil {
			return err
		}
	}
	p.forked = true
	if err := p.apply(p.B, p.Fork.Change); err != nil {
		return fmt.Errorf("what if %s at %s: %w", p.Fork.Change, p.Fork.At, err)
	}
	return nil
}

// Apply applies one command to the pair. On an error the pair may be
// half-applied; rebuild it from the command list (Replay), as a session
// rebuilds any world.
func (p *Pair) Apply(c Command) error {
	switch {
	case c.Kind.MovesTime():
		if err := p.apply(p.A, c); err != nil {
			return err
		}
		if err := p.land(); err != nil {
			return err
		}
		if p.B.now < p.A.now {
			return p.apply(p.B, Command{Kind: CmdUntil, At: p.A.now})
		}
		return nil
	case c.Kind == CmdReset:
		p.forked = false
		if err := p.apply(p.A, c); err != nil {
			return err
		}
		return p.apply(p.B, c)
	}
	if err := p.land(); err != nil {
		return err
	}
	if err := p.apply(p.A, c); err != nil {
		return err
	}
	return p.apply(p.B, c)
}

// Difference is where two runs first part: the index in each log of the
// first event that the other run does not have at the same place, or -1
// where a log has ended. Commands (freeze, fencing, partition, ...) are
// the change itself, not a difference, and are passed over; so are the
// log indexes events point at, which shift when one run logs more.
type Difference struct {
	A, B int
}

// FirstDifference compares two logs event by event, in order, and
// reports where they first differ; ok is false when they are the same.
func FirstDifference(a, b []Event) (d Difference, ok bool) {
	i, j := 0, 0
	for {
		for i < len(a) && isCommandEvent(a[i]) {
			i++
		}
		for j < len(b) && isCommandEvent(b[j]) {
			j++
		}
		switch {
		case i == len(a) && j == len(b):
			return Difference{-1, -1}, false
		case i == len(a):
			return Difference{-1, j}, true
		case j == len(b):
			return Difference{i, -1}, true
		}
		if !sameEvent(a[i], b[j]) {
			return Difference{i, j}, true
		}
		i++
		j++
	}
}

func isCommandEvent(e Event) bool {
	switch e.Kind {
	case KindFreeze, KindCrash, KindRestart, KindFencing, KindPartition, KindHeal, KindLink, KindClock, KindReset:
		return true
	}
	return false
}

// sameEvent compares what happened, not where the log keeps its proof.
func sameEvent(x, y Event) bool {
	a, b := x.Fields(), y.Fields()
	a.Ref, a.Ref2, b.Ref, b.Ref2 = 0, 0, 0, 0
	return a == b
}
