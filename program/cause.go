package program

import (
	"errors"
	"slices"
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
// _kept(key, how, label) is key; label is the code that names the value
// (w.state["until"]) when the key is a literal, else None.
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

// keptSteps is what the interpreter counts for a call of _kept beyond its
// key: loading it, its two constants and the call.
const keptSteps = 5

// maxReads bounds the reads a call's trace notes: past them, the rest go
// unnoted (an action then has fewer candidates for its cause).
const maxReads = 16

// trace is what one handler call read and set of what its run keeps. It
// lives in the call's workerValue: a call allocates nothing more for it
// until it sets a value.
type trace struct {
	r     *run
	at    engine.Time // the call's true time
	timer string      // the timer that called it, if one did
	w     *workerValue
	reads []keptUse
	set   []origin // set in this call
}

// keptUse is a read: the value's cause as it was when it was read,
// whether the read was a check, and its key (a grant looks up its value).
type keptUse struct {
	cause  engine.Cause
	guard  bool
	key    starlark.Value
	stable bool
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
	if len(args) != 3 {
		return nil, errBadKept
	}
	// The call's own instructions are given back: noting what a program
	// keeps costs it no steps, so a program runs as it did before it was
	// traced (TestKeptCostsNoSteps).
	if th.Steps >= keptSteps {
		th.Steps -= keptSteps
	}
	how, _ := starlark.AsInt32(args[1])
	if t, ok := th.Local(traceKey).(*trace); ok {
		label, _ := args[2].(starlark.String)
		t.note(th, args[0], how, string(label))
	}
	return args[0], nil
}

var errBadKept = errors.New(keptName + ": a key, how and a label")

func (t *trace) note(th *starlark.Thread, key starlark.Value, how int, label string) {
	stable := how > keptStable
	if stable {
		how -= keptStable
	}
	if how != keptSet {
		if len(t.reads) >= maxReads {
			return
		}
		if o, ok := t.origin(key, stable); ok {
			t.reads = append(t.reads, keptUse{cause: o.cause, guard: how == keptGuard, key: key, stable: stable})
		}
		return
	}
	if label == "" {
		label = keptLabel(ownerName(t.r.c.side), stable, key)
	}
	line, col := callerPos(th)
	o := origin{cause: engine.Cause{Kind: engine.CauseUsed, Name: label, Line: line, Col: col, At: t.at}, key: key, stable: stable}
	if i := indexOf(t.set, key, stable); i >= 0 {
		t.set[i] = o
		return
	}
	t.set = append(t.set, o)
}

// origin is where key's value was set last, as far as the call knows.
func (t *trace) origin(key starlark.Value, stable bool) (origin, bool) {
	if i := indexOf(t.set, key, stable); i >= 0 {
		return t.set[i], true
	}
	if i := indexOf(t.r.origins, key, stable); i >= 0 {
		return t.r.origins[i], true
	}
	return origin{}, false
}

// indexOf finds key's origin in os, or -1.
func indexOf(os []origin, key starlark.Value, stable bool) int {
	for i := range os {
		if os[i].stable == stable && sameKey(os[i].key, key) {
			return i
		}
	}
	return -1
}

// sameKey compares two keys: strings and numbers by value, others by
// their text.
func sameKey(a, b starlark.Value) bool {
	if x, ok := a.(starlark.String); ok {
		y, ok := b.(starlark.String)
		return ok && x == y
	}
	eq, err := starlark.Equal(a, b)
	return err == nil && eq
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
			u := t.reads[i]
			if n, ok := t.number(u.key, u.stable); ok && n == a.Token {
				u.cause.Kind = engine.CauseUsed
				return u.cause
			}
		}
	}
	if c, ok := t.latest(true); ok {
		c.Kind = engine.CauseChecked
		return c
	}
	if t.timer != "" {
		for _, c := range t.r.timers {
			if c.Name == t.timer {
				return c
			}
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
// it set, and the older ones whose values it left as they were. A call
// that set nothing and changed no value with a line shares the old ones.
func (t *trace) commit(w *workerValue) []origin {
	old := t.r.origins
	keep := 0
	for i := range old {
		if indexOf(t.set, old[i].key, old[i].stable) < 0 && t.unchanged(old[i], w) {
			keep++
		}
	}
	if len(t.set) == 0 && keep == len(old) {
		return old
	}
	out := make([]origin, 0, keep+len(t.set))
	for i := range old {
		if indexOf(t.set, old[i].key, old[i].stable) < 0 && t.unchanged(old[i], w) {
			out = append(out, old[i])
		}
	}
	return append(out, t.set...)
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
	if a == b {
		return true
	}
	eq, err := starlark.Equal(a, b)
	return err == nil && eq
}

// timersAfter is the run's timers' causes after a call that asked for
// acts: a set timer's line, a cancelled one's forgotten. A call that
// touched no timer shares the old ones.
func timersAfter(old []engine.Cause, acts []engine.Action, at engine.Time) []engine.Cause {
	var out []engine.Cause
	for _, a := range acts {
		if a.Kind != engine.ActSetTimer && a.Kind != engine.ActCancelTimer {
			continue
		}
		if out == nil {
			out = make([]engine.Cause, 0, len(old)+1)
			out = append(out, old...)
		}
		out = slices.DeleteFunc(out, func(c engine.Cause) bool { return c.Name == a.Timer })
		if a.Kind == engine.ActSetTimer {
			out = append(out, engine.Cause{Kind: engine.CauseTimer, Name: a.Timer, Line: a.Line, Col: a.Col, At: at})
		}
	}
	if out == nil {
		return old
	}
	return out
}

// keptDict reports an expression that names what a program keeps: an
// attribute state or stable (w.state, c.stable), and the code before it.
func keptDict(e syntax.Expr) (owner string, stable, ok bool) {
	d, isDot := e.(*syntax.DotExpr)
	if !isDot {
		return "", false, false
	}
	if id, isName := d.X.(*syntax.Ident); isName {
		owner = id.Name
	}
	switch d.Name.Name {
	case "state":
		return owner, false, true
	case "stable":
		return owner, true, true
	}
	return "", false, false
}

// kept routes a key of a kept dict through _kept, with the code that
// names the value when the key is a literal.
func kept(key syntax.Expr, how int, owner string, stable bool) syntax.Expr {
	label := syntax.Expr(&syntax.Ident{Name: "None"})
	if lit, ok := key.(*syntax.Literal); ok && owner != "" && len(lit.Raw) <= 40 {
		dict := ".state["
		if stable {
			dict = ".stable["
		}
		text := owner + dict + lit.Raw + "]"
		label = &syntax.Literal{Token: syntax.STRING, Raw: strconv.Quote(text), Value: text}
	}
	if stable {
		how += keptStable
	}
	start, end := key.Span()
	lit := &syntax.Literal{Token: syntax.INT, TokenPos: start, Raw: strconv.Itoa(how), Value: int64(how)}
	return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: start, Name: keptName}, Lparen: start, Args: []syntax.Expr{key, lit, label}, Rparen: end}
}

// markChecked makes the reads in an if's condition checks.
func markChecked(cond syntax.Expr) {
	syntax.Walk(cond, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || len(c.Args) != 3 {
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
