package program

import (
	"errors"
	"strconv"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"leaselab/engine"
)

// What an action went by (engine.Cause): issue 49's verdict chain shows,
// beside the line that acted, the line that set the value it checked.
// The rewrite (instrument) routes each key of w.state[...] and
// w.state.get(...) (and a coordinator's c.stable) through _kept, which
// notes in the call's trace that the key was read — checked, when the
// read is in an if's condition — or set. A run keeps, for each kept
// value, the line that last set it; a value changed any other way (a
// method, an alias, a nested part) loses its line rather than keep a
// wrong one. The timers' lines are the set_timer actions'.
//
// An action's cause is, first, the value its handler checked before it
// that was set last; else the timer that called the handler; else the
// value it used that was set last.

// keptName is the builtin the rewrite routes a kept value's key through:
// _kept(key, how) is key.
const keptName = "_kept"

// How a key reaches _kept: read, checked (read in a condition) or set; of
// the stable state when keptStable is added.
const (
	keptRead   = 1
	keptGuard  = 2
	keptSet    = 3
	keptStable = 4
)

const traceKey = "leaselab.trace"

// maxReads bounds the reads a call's trace notes: past them, the rest go
// unnoted (an action then has fewer candidates for its cause).
const maxReads = 32

// trace is what one handler call read and set of what its run keeps.
type trace struct {
	r     *run
	m     engine.Moment
	w     *workerValue // the handler's: what it reads
	reads []keptUse
	set   map[string]origin // set in this call, by name
}

// keptUse is a read: the value's cause as it was when it was read, and
// whether the read was a check.
type keptUse struct {
	cause engine.Cause
	guard bool
	num   int64 // the value read, when it is a number (num ok)
	numOK bool
}

// origin is where a kept value was last set: its cause, and its key (to
// tell that it changed since).
type origin struct {
	cause  engine.Cause
	key    starlark.Value
	stable bool
}

// keptBuiltin is _kept: it notes the key in the thread's trace.
func (c *Compiled) keptBuiltin(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 {
		return nil, errBadKept
	}
	how, _ := starlark.AsInt32(args[1])
	if t, ok := th.Local(traceKey).(*trace); ok {
		t.note(th, args[0], how)
	}
	return args[0], nil
}

var errBadKept = errors.New(keptName + ": a key and how")

func (t *trace) note(th *starlark.Thread, key starlark.Value, how int) {
	stable := how > keptStable
	if stable {
		how -= keptStable
	}
	name := keptLabel(ownerName(t.r.c.side), stable, key)
	if how != keptSet {
		o, ok := t.set[name]
		if !ok {
			o, ok = t.r.origins[name]
		}
		if ok && o.cause.Line > 0 && len(t.reads) < maxReads {
			u := keptUse{cause: o.cause, guard: how == keptGuard}
			u.num, u.numOK = t.number(key, stable)
			t.reads = append(t.reads, u)
		}
		return
	}
	line, col := callerPos(th)
	if t.set == nil {
		t.set = map[string]origin{}
	}
	t.set[name] = origin{cause: engine.Cause{Kind: engine.CauseUsed, Name: name, Line: line, Col: col, At: t.m.At}, key: key, stable: stable}
}

// keptLabel is the code that names a kept value: w.state["until"].
func keptLabel(owner string, stable bool, key starlark.Value) string {
	dict := ".state["
	if stable {
		dict = ".stable["
	}
	k := key.String()
	if len(k) > 40 {
		k = k[:37] + "..."
	}
	return owner + dict + k + "]"
}

// callerPos is the line and column of the student's code th is running.
func callerPos(th *starlark.Thread) (line, col int32) {
	for d := 0; d < th.CallStackDepth(); d++ {
		if p := th.CallFrame(d).Pos; p.Filename() == Filename {
			return p.Line, p.Col
		}
	}
	return 0, 0
}

// number is the kept value of key, when it is a number that fits.
func (t *trace) number(key starlark.Value, stable bool) (int64, bool) {
	d := t.w.state
	if stable {
		d = t.w.stable
	}
	if d == nil {
		return 0, false
	}
	v, found, err := d.Get(key)
	if err != nil || !found {
		return 0, false
	}
	i, ok := v.(starlark.Int)
	if !ok {
		return 0, false
	}
	return i.Int64()
}

// cause is what action a, asked for now, goes by. A grant goes by where
// its token came from first: a kept value it read that holds that token.
func (t *trace) cause(a engine.Action) engine.Cause {
	if a.Kind == engine.ActGrant {
		for i := len(t.reads) - 1; i >= 0; i-- {
			if u := t.reads[i]; u.numOK && u.num == a.Token {
				u.cause.Kind = engine.CauseUsed
				return u.cause
			}
		}
	}
	if c, ok := t.latest(true); ok {
		c.Kind = engine.CauseChecked
		return c
	}
	if t.m.Kind == engine.MomentTimer {
		if c, ok := t.r.timers[t.m.Timer]; ok {
			return c
		}
	}
	if c, ok := t.latest(false); ok {
		c.Kind = engine.CauseUsed
		return c
	}
	return engine.Cause{}
}

// latest is the cause of the value, among those read (checked, when
// guard) so far in the call, whose line ran last; of two set at once,
// the one read later.
func (t *trace) latest(guard bool) (engine.Cause, bool) {
	var best engine.Cause
	found := false
	for _, u := range t.reads {
		if u.guard == guard && (!found || u.cause.At >= best.At) {
			best, found = u.cause, true
		}
	}
	return best, found
}

// commit is the run's origins after a call that succeeded with w: what
// it set, and the older ones whose values it left as they were.
func (t *trace) commit(w *workerValue) map[string]origin {
	old := t.r.origins
	if len(t.set) == 0 && len(old) == 0 {
		return old
	}
	out := make(map[string]origin, len(old)+len(t.set))
	for name, o := range old {
		if _, again := t.set[name]; !again && t.unchanged(o, w) {
			out[name] = o
		}
	}
	for name, o := range t.set {
		out[name] = o
	}
	return out
}

// unchanged reports whether the call left o's value as it was.
func (t *trace) unchanged(o origin, w *workerValue) bool {
	before, after := t.r.state, w.state
	if o.stable {
		before, after = t.r.stable, w.stable
	}
	if before == nil || after == nil {
		return false
	}
	a, found, err := before.Get(o.key)
	if err != nil || !found {
		return false
	}
	b, found, err := after.Get(o.key)
	if err != nil || !found {
		return false
	}
	eq, err := starlark.Equal(a, b)
	return err == nil && eq
}

// timersAfter is the run's timers' causes after a call that asked for
// acts: a set timer's line, a cancelled one's forgotten.
func timersAfter(old map[string]engine.Cause, acts []engine.Action, at engine.Time) map[string]engine.Cause {
	var out map[string]engine.Cause
	for _, a := range acts {
		if a.Kind != engine.ActSetTimer && a.Kind != engine.ActCancelTimer {
			continue
		}
		if out == nil {
			out = make(map[string]engine.Cause, len(old)+1)
			for k, v := range old {
				out[k] = v
			}
		}
		if a.Kind == engine.ActCancelTimer {
			delete(out, a.Timer)
			continue
		}
		out[a.Timer] = engine.Cause{Kind: engine.CauseTimer, Name: a.Timer, Line: a.Line, Col: a.Col, At: at}
	}
	if out == nil {
		return old
	}
	return out
}

// keptDict reports an expression that names what a program keeps: an
// attribute state or stable (w.state, c.stable).
func keptDict(e syntax.Expr) (stable, ok bool) {
	d, isDot := e.(*syntax.DotExpr)
	if !isDot {
		return false, false
	}
	switch d.Name.Name {
	case "state":
		return false, true
	case "stable":
		return true, true
	}
	return false, false
}

// kept routes a key of a kept dict through _kept.
func kept(key syntax.Expr, how int, stable bool) syntax.Expr {
	if stable {
		how += keptStable
	}
	start, end := key.Span()
	lit := &syntax.Literal{Token: syntax.INT, TokenPos: start, Raw: strconv.Itoa(how), Value: int64(how)}
	return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: start, Name: keptName}, Lparen: start, Args: []syntax.Expr{key, lit}, Rparen: end}
}

// markChecked makes the reads in an if's condition checks.
func markChecked(cond syntax.Expr) {
	syntax.Walk(cond, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || len(c.Args) != 2 {
			return true
		}
		if id, ok := c.Fn.(*syntax.Ident); !ok || id.Name != keptName {
			return true
		}
		if lit, ok := c.Args[1].(*syntax.Literal); ok {
			if v, ok := lit.Value.(int64); ok && (v == keptRead || v == keptRead+keptStable) {
				lit.Value, lit.Raw = v+1, strconv.Itoa(int(v+1))
			}
		}
		return true
	})
}
