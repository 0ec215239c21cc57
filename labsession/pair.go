package labsession

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"leaselab/engine"
	"leaselab/labs"
)

// Pair is a what-if as a session: run A is a Session (its seed and
// commands, under every cap of a session) and run B is the same run with
// one change landing at one moment. Both stand at the same virtual time.
// Only time commands move a pair on; the world is changed on the lab page.
// The pair's query is A's query with vs=CHANGE and vs-at=TIME, so the
// pair page, its socket and a reconnect rebuild the same two runs.
type Pair struct {
	a    *Session
	src  string // the change as the link wrote it
	fork engine.Fork
	pair *engine.Pair
}

// ForkError is a what-if that cannot be made or a command a pair refuses.
// Key names its text in the catalog, so a page says it in the student's
// language.
type ForkError struct {
	key string
	Err error
}

func (e *ForkError) Error() string { return e.Err.Error() }
func (e *ForkError) Unwrap() error { return e.Err }

// Key is the catalog's text for what the what-if cannot do.
func (e *ForkError) Key() string { return e.key }

// Args: a what-if's texts take none.
func (e *ForkError) Args() []any { return nil }

// NewForkError is a what-if refused with the catalog's text key; err says
// why in English.
func NewForkError(key string, err error) *ForkError { return &ForkError{key: key, Err: err} }

func forkError(key, format string, args ...any) *ForkError {
	return &ForkError{key: key, Err: fmt.Errorf(format, args...)}
}

// OpenPair opens the pair a URL's query describes: the session
// (seed, do, as FromQuery reads them), vs=CHANGE, and vs-at=TIME (empty or
// "now": where the session stands). refused is a command of the session
// left out, as in FromQuery. err is a *ForkError when the change or its
// moment is not a what-if this lab can make.
func OpenPair(lab *labs.Lab, q url.Values) (p *Pair, refused error, err error) {
	a, refused, err := FromQuery(lab, q)
	if err != nil {
		return nil, nil, err
	}
	src := strings.TrimSpace(q.Get("vs"))
	if src == "" || len(src) > MaxCommandLen {
		return nil, nil, forkError("whatif.bad", "what if: vs must name one change of at most %d characters", MaxCommandLen)
	}
	change, err := Parse(src)
	if err != nil {
		return nil, nil, &ForkError{key: "whatif.bad", Err: fmt.Errorf("what if %s: %w", Clip(src), err)}
	}
	if err := lab.Refusal(change); err != nil {
		return nil, nil, &ForkError{key: "whatif.notoffered", Err: err}
	}
	f := engine.Fork{Change: change, At: a.World().Now()}
	if at := strings.TrimSpace(q.Get("vs-at")); at != "" && at != "now" {
		if f.At, err = engine.ParseTime(at); err != nil || f.At < 0 {
			return nil, nil, forkError("whatif.badat", "what if: vs-at %s is not a time such as 4s", Clip(at))
		}
	}
	if err := f.Validate(); err != nil {
		return nil, nil, &ForkError{key: "whatif.bad", Err: err}
	}
	if f.At > a.World().Now() {
		return nil, nil, forkError("whatif.later", "what if: the run has not reached %s yet (it is %s)", f.At, a.World().Now())
	}
	p = &Pair{a: a, src: src, fork: f}
	if err := p.build(a.cmds); err != nil {
		return nil, nil, &ForkError{key: "whatif.bad", Err: err}
	}
	return p, refused, nil
}

// build makes both runs anew from A's commands. Run A's world is replaced
// by the pair's: the same seed and commands make the same world.
func (p *Pair) build(cmds []engine.Command) error {
	lab := p.a.lab
	a, err := lab.NewWorld(p.a.seed)
	if err != nil {
		return err
	}
	b, err := lab.NewWorld(p.a.seed)
	if err != nil {
		return err
	}
	ep, err := engine.NewPair(a, b, p.fork, p.applyTo)
	if err != nil {
		return err
	}
	if err := ep.Replay(cmds); err != nil {
		return err
	}
	p.pair, p.a.world = ep, a
	p.a.run++
	return nil
}

// applyTo applies one command to one of the two worlds, the lab's setup
// after a reset included, within what is left of a session's event cap:
// run B may log more than run A, and is held to the same cap.
func (p *Pair) applyTo(w *engine.World, c engine.Command) error {
	if c.Kind == engine.CmdReset {
		return p.a.lab.Apply(w, c)
	}
	if err := w.ApplyWithin(c, MaxEvents-len(w.Events())); err != nil {
		if errors.Is(err, engine.ErrBudget) {
			return &LimitError{fmt.Sprintf("a session holds at most %d events; reset to start again", MaxEvents), "err.limit.events", MaxEvents}
		}
		return err
	}
	return nil
}

// Apply moves both runs on by one time command (advance, until, step),
// under the caps of A's session, or refuses it and changes nothing. Any
// other command is refused with a *ForkError: a pair compares one
// change, and the world is changed on the lab page.
func (p *Pair) Apply(c engine.Command) error {
	if !c.Kind.MovesTime() {
		return forkError("whatif.timeonly", "what if: only time moves a pair on (step, advance, until), not %q", c.String())
	}
	if err := p.a.check(c); err != nil {
		return err
	}
	before := slices.Clone(p.a.cmds)
	if err := p.pair.Apply(c); err != nil {
		// A refused command leaves A as it was, but B may have moved:
		// both are rebuilt from the commands before it.
		if rerr := p.build(before); rerr != nil {
			return fmt.Errorf("%w; rebuilding the pair failed: %v", err, rerr)
		}
		return err
	}
	p.a.record(c)
	return nil
}

// Do parses src and applies it.
func (p *Pair) Do(src string) error {
	c, err := Parse(src)
	if err != nil {
		return err
	}
	return p.Apply(c)
}

// Session is run A's session. Read it; move the pair only through Apply.
func (p *Pair) Session() *Session { return p.a }

// A and B are the two runs' worlds.
func (p *Pair) A() *engine.World { return p.pair.A }
func (p *Pair) B() *engine.World { return p.pair.B }

// Engine is the engine's pair, for describing the difference.
func (p *Pair) Engine() *engine.Pair { return p.pair }

// Fork is the change and its moment.
func (p *Pair) Fork() engine.Fork { return p.fork }

// Change is the change as the link wrote it.
func (p *Pair) Change() string { return p.src }

// Difference is where the two runs first part, if they do.
func (p *Pair) Difference() (engine.Difference, bool) {
	return engine.FirstDifference(p.pair.A.Events(), p.pair.B.Events())
}

// Query writes the pair as URL parameters (without "?"): A's session,
// then vs and vs-at.
func (p *Pair) Query() string { return string(p.AppendQuery(nil)) }

// AppendQuery appends Query to b: a pair's play frames write it without
// joining url.Values.
func (p *Pair) AppendQuery(b []byte) []byte {
	start := len(b)
	b = p.a.AppendQuery(b)
	if len(b) > start {
		b = append(b, '&')
	}
	var at [24]byte
	b = appendQueryEscape(append(b, "vs="...), p.src)
	return appendQueryEscape(append(b, "&vs-at="...), p.fork.At.AppendTo(at[:0]))
}
