// Package program runs the logic a student writes for a worker or the
// storage in Starlark, as an engine.Program. Starlark is a small,
// deterministic, Python-like language made for running untrusted code
// inside Go programs.
//
// A program defines handlers, one per moment the engine reports:
//
//	def on_start(w, ev): ...
//	def on_granted(w, ev): ...      # ev.token, ev.ttl
//	def on_renewed(w, ev): ...      # ev.token, ev.ttl, ev.tag
//	def on_renew_failed(w, ev): ... # ev.reason, ev.tag
//	def on_timer(w, ev): ...        # ev.timer
//	def on_denied(w, ev) / on_write_ok(w, ev) / on_write_rejected(w, ev)
//
// w.now is the worker's own clock in milliseconds, w.state a dict the
// program keeps between moments (plain data only: None, bool, int, string,
// list, tuple, dict). The actions are w.acquire(), w.renew(token, tag=0),
// w.write(key, token), w.set_timer(name, at), w.cancel_timer(name) and
// w.stop(), and with independent masters w.lock(master, value, ttl) and
// w.unlock(master, value), answered by on_locked(w, ev) (ev.master, ev.ok,
// ev.token: the value); they are carried out after the handler returns,
// all of them or, when the handler fails, none. on_start's ev.token is a
// random number, the same for the same seed.
//
// The storage's program (CompileSide with engine.SideStorage) has one
// handler, def on_write(s, ev): ev.token, ev.key, ev.value (the fixed
// result the write puts, "" for the writer's own), ev.effect (a send, not
// a put) and ev.version (the version its writer read); s.now is the
// storage's clock, s.state what it keeps. It decides with s.accept() or
// s.reject(reason), exactly once a write.
//
// The coordinator's program (engine.SideCoord) answers on_acquire(c, ev)
// with c.grant(token, ttl) or c.deny(), on_renew(c, ev) with
// c.extend(ttl) or c.refuse(), and has on_release, on_start and on_timer
// besides (ev.worker, ev.token, ev.timer); c.expire(worker) ends a lease.
// c.state is lost when its replica crashes, c.stable is kept.
//
// What keeps a hostile program harmless: no load, no while, no recursion
// (Starlark's own rules), no clock, random, file or network builtins (the
// language has none and none are added); a step limit per handler call,
// per run, and (Budget) for all the runs of a judgement; a size limit on
// the text; and on values — the operators that build values go through a
// guard that refuses a result over the size limit, range is bounded, the
// methods that multiply a value in one step (join, replace, format,
// extend) are not available, and every operation whose work grows with
// its operands pays for that work in steps first, or is refused before it
// starts when a value it would walk expands past Limits.Weight (cost.go,
// instrument.go). The state is checked after every call.
package program

import (
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"leaselab/engine"
)

// Limits bound what one program may take.
type Limits struct {
	Source       int    // bytes of program text
	StepsPerCall uint64 // Starlark steps one handler call may take
	StepsPerRun  uint64 // steps all handler calls of one run may take together
	Value        int    // elements of a list, tuple or dict, or bytes of a string, anywhere
	State        int    // elements and bytes of everything w.state holds, together
	IntBits      int    // bits of an integer
	// Weight bounds a value used whole — compared, hashed, searched,
	// printed, sorted, given to a builtin — counted with every nested part
	// each time it appears (a unit an element, or 16 bytes of text).
	Weight int
}

// DefaultLimits are the limits a lab gets unless it says otherwise.
var DefaultLimits = Limits{Source: 16 << 10, StepsPerCall: 10_000, StepsPerRun: 100_000, Value: 4096, State: 16 << 10, IntBits: 128, Weight: 64 << 10}

// CallSteps is the least a handler call counts against its run's steps,
// and ActionSteps what each action it asks for adds.
const (
	CallSteps   = 25
	ActionSteps = 25
)

// Filename is the name errors give the student's program.
const Filename = "worker.star"

// denied are the methods that grow a value many times over in one step.
var denied = []string{"join", "replace", "format", "extend"}

// Compiled is a checked program: its handlers, shared by every run.
type Compiled struct {
	side     engine.Side
	handlers []*starlark.Function // by engine.MomentKind
	allowed  map[engine.ActionKind]bool
	lim      Limits
	calls    atomic.Int64 // handler calls of every run, all together

	spent   atomic.Uint64   // steps of every run, all together
	budget  atomic.Uint64   // what spent may reach (0: no bound)
	stopped atomic.Bool     // Stop was called
	lines   []atomic.Uint64 // steps spent on each line of the text
	threads sync.Pool       // of *meter, each with its thread: those calls are done with
}

// Budget bounds the steps all runs of the program may take together: a
// judgement's 200 schedules and its search share one budget. A call once
// the budget is spent fails with "steps-total".
func (c *Compiled) Budget(steps uint64) { c.budget.Store(steps) }

// Spent is the steps every run of the program has taken so far.
func (c *Compiled) Spent() uint64 { return c.spent.Load() }

// Stop makes every later handler call fail ("stopped"): the work a
// judgement does for a client that has left ends at its next call.
func (c *Compiled) Stop() { c.stopped.Store(true) }

// HotLine is the line of the text that has taken the most steps so far,
// and those steps (0, 0 before any).
func (c *Compiled) HotLine() (line int32, steps uint64) {
	for i := range c.lines {
		if n := c.lines[i].Load(); n > steps {
			line, steps = int32(i), n
		}
	}
	return line, steps
}

func (c *Compiled) tally(line int32, steps uint64) {
	if line > 0 && int(line) < len(c.lines) {
		c.lines[line].Add(steps)
	}
}

// Calls counts the handler calls of every run of the program so far: a
// judge measures what one run costs on a program compiled for that alone.
func (c *Compiled) Calls() int64 { return c.calls.Load() }

// Compile checks a worker's program text and runs its top level
// (definitions). allowed lists the actions the lab lets it take (by name);
// nil allows every action. A *Error says what is wrong, and where.
func Compile(src string, allowed []string, lim Limits) (*Compiled, error) {
	return CompileSide(src, engine.SideWorker, allowed, lim)
}

// CompileSide is Compile for the program of side: its handlers, its
// actions, the name its first parameter goes by.
func CompileSide(src string, side engine.Side, allowed []string, lim Limits) (*Compiled, error) {
	if lim == (Limits{}) {
		lim = DefaultLimits
	}
	if len(src) > lim.Source {
		return nil, &Error{Code: "size-source", Arg: fmt.Sprint(lim.Source)}
	}
	c := &Compiled{side: side, handlers: make([]*starlark.Function, len(engine.Moments())), lim: lim, lines: make([]atomic.Uint64, strings.Count(src, "\n")+2)}
	if allowed != nil {
		c.allowed = map[engine.ActionKind]bool{}
		for _, a := range allowed {
			k, ok := actionByName(side, a)
			if !ok {
				return nil, fmt.Errorf("program: unknown action %q", a)
			}
			c.allowed[k] = true
		}
	}
	opts := &syntax.FileOptions{}
	f, err := opts.Parse(Filename, src, 0)
	if err != nil {
		return nil, syntaxError(err)
	}
	if err := guardTree(f, side); err != nil {
		return nil, err
	}
	instrument(f)
	pre := c.predeclared()
	prog, err := starlark.FileProgram(f, pre.Has)
	if err != nil {
		return nil, syntaxError(err)
	}
	th := c.thread(lim.StepsPerCall).th
	globals, err := prog.Init(th, pre)
	if err != nil {
		return nil, evalError(err, th, lim)
	}
	globals.Freeze()
	for _, k := range side.Moments() {
		v, ok := globals["on_"+k.String()]
		if !ok {
			continue
		}
		fn, ok := v.(*starlark.Function)
		if !ok || fn.NumParams() != 2 {
			return nil, &Error{Code: "handler-shape", Arg: "on_" + k.String() + "(" + ownerName(side) + ", ev)"}
		}
		c.handlers[k] = fn
	}
	if first := side.Moments()[0]; c.handlers[first] == nil {
		if side == engine.SideWorker {
			return nil, &Error{Code: "handler-start"}
		}
		return nil, &Error{Code: "handler-missing", Arg: "def on_" + first.String() + "(" + ownerName(side) + ", ev):"}
	}
	return c, nil
}

// Side is whose decisions the program makes.
func (c *Compiled) Side() engine.Side { return c.side }

// ownerName is what a side's program calls the side: w, s.
func ownerName(side engine.Side) string {
	switch side {
	case engine.SideStorage:
		return "s"
	case engine.SideCoord:
		return "c"
	}
	return "w"
}

func actionByName(side engine.Side, s string) (engine.ActionKind, bool) {
	var kinds []engine.ActionKind
	if int(side) < len(sideActions) {
		kinds = sideActions[side]
	} else {
		kinds = side.Actions()
	}
	for _, k := range kinds {
		if k.String() == s {
			return k, true
		}
	}
	return 0, false
}

// sides are the sides a program may be written for, and sideActions
// their actions (engine.Side.Actions), listed once: a handler asks for
// one at every w.write.
var (
	sides       = []engine.Side{engine.SideWorker, engine.SideStorage, engine.SideCoord}
	sideActions = func() (as [][]engine.ActionKind) {
		for _, side := range sides {
			for int(side) >= len(as) {
				as = append(as, nil)
			}
			as[side] = side.Actions()
		}
		return as
	}()
)

// guardTree writes augmented assignments out (x += y is x = x + y, so that
// instrument guards the operator), refuses them on anything but names,
// indexes and attributes, and refuses load and the methods that build
// large values in one step. A coordinator's program may call c.extend:
// for it .extend is allowed where it is called at once, and a list's
// extend is refused when called (paidCall).
func guardTree(f *syntax.File, side engine.Side) error {
	var err error
	called := map[*syntax.DotExpr]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if err != nil {
			return false
		}
		switch x := n.(type) {
		case *syntax.CallExpr:
			if d, ok := x.Fn.(*syntax.DotExpr); ok && side == engine.SideCoord && d.Name.Name == "extend" {
				called[d] = true
			}
		case *syntax.AssignStmt:
			if x.Op == syntax.EQ {
				break
			}
			lhs, ok := copyPure(x.LHS)
			if !ok {
				err = &Error{Code: "augmented", Line: x.OpPos.Line, Col: x.OpPos.Col}
				return false
			}
			// x op= y becomes x = guard(x) op y: the same when x is a
			// name, or an index or attribute of names and constants
			// (reading it twice does nothing more).
			op := map[syntax.Token]syntax.Token{syntax.PLUS_EQ: syntax.PLUS, syntax.MINUS_EQ: syntax.MINUS, syntax.STAR_EQ: syntax.STAR, syntax.SLASH_EQ: syntax.SLASH, syntax.SLASHSLASH_EQ: syntax.SLASHSLASH, syntax.PERCENT_EQ: syntax.PERCENT, syntax.AMP_EQ: syntax.AMP, syntax.PIPE_EQ: syntax.PIPE, syntax.CIRCUMFLEX_EQ: syntax.CIRCUMFLEX, syntax.LTLT_EQ: syntax.LTLT, syntax.GTGT_EQ: syntax.GTGT}[x.Op]
			x.Op, x.RHS = syntax.EQ, &syntax.BinaryExpr{X: lhs, OpPos: x.OpPos, Op: op, Y: x.RHS}
		case *syntax.LoadStmt:
			err = &Error{Code: "load", Line: x.Load.Line, Col: x.Load.Col}
			return false
		case *syntax.DotExpr:
			if slices.Contains(denied, x.Name.Name) && !called[x] {
				err = &Error{Code: "method", Arg: x.Name.Name, Line: x.Name.NamePos.Line, Col: x.Name.NamePos.Col}
				return false
			}
		}
		return true
	})
	return err
}

// copyPure copies an expression made of names, constants, attributes and
// indexes only (no calls), or says it is not one.
func copyPure(e syntax.Expr) (syntax.Expr, bool) {
	switch x := e.(type) {
	case *syntax.Ident:
		return &syntax.Ident{NamePos: x.NamePos, Name: x.Name}, true
	case *syntax.Literal:
		c := *x
		return &c, true
	case *syntax.DotExpr:
		in, ok := copyPure(x.X)
		if !ok {
			return nil, false
		}
		return &syntax.DotExpr{X: in, Dot: x.Dot, NamePos: x.NamePos, Name: &syntax.Ident{NamePos: x.Name.NamePos, Name: x.Name.Name}}, true
	case *syntax.IndexExpr:
		a, ok := copyPure(x.X)
		if !ok {
			return nil, false
		}
		b, ok := copyPure(x.Y)
		if !ok {
			return nil, false
		}
		return &syntax.IndexExpr{X: a, Lbrack: x.Lbrack, Y: b, Rbrack: x.Rbrack}, true
	}
	return nil, false
}

const guardName = "_guard"

// guarded is an operand whose operator pays for its work and whose
// result is checked for size: a repeat's or a concatenation's length is
// known before it is built, and refused then.
type guarded struct {
	v   starlark.Value
	th  *starlark.Thread
	lim *Limits
}

func (g guarded) String() string        { return g.v.String() }
func (g guarded) Type() string          { return g.v.Type() }
func (g guarded) Freeze()               {}
func (g guarded) Truth() starlark.Bool  { return g.v.Truth() }
func (g guarded) Hash() (uint32, error) { return g.v.Hash() }
func (g guarded) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	if side == starlark.Right {
		return nil, nil
	}
	if gy, ok := y.(guarded); ok {
		y = gy.v
	}
	// Refuse before building: a repeat's, a shift's and a concatenation's
	// sizes are known.
	switch op {
	case syntax.STAR, syntax.LTLT:
		if n, ok := sizeOf(g.v); ok {
			if k, err := starlark.AsInt32(y); err == nil && n > 0 && k > 0 && int64(n)*int64(k) > int64(g.lim.Value) {
				return nil, errTooBig
			}
		}
		if n, ok := sizeOf(y); ok && n > 0 {
			if k, err := starlark.AsInt32(g.v); err == nil && k > 0 && int64(n)*int64(k) > int64(g.lim.Value) {
				return nil, errTooBig
			}
		}
		if op == syntax.LTLT {
			if k, err := starlark.AsInt32(y); err == nil && k > g.lim.IntBits {
				return nil, errTooBig
			}
		}
	case syntax.PLUS:
		if n, ok := sizeOf(g.v); ok {
			if m, ok := sizeOf(y); ok && n+m > g.lim.Value {
				return nil, errTooBig
			}
		}
	case syntax.PERCENT:
		// Formatting writes y out whole, however much it shares.
		if _, ok := g.v.(starlark.String); ok {
			if err := weighDeep(g.th, y); err != nil {
				return nil, err
			}
		}
	case syntax.PIPE, syntax.MINUS, syntax.AMP, syntax.CIRCUMFLEX:
		// A union or a difference hashes the keys of both.
		if _, ok := g.v.(starlark.Int); !ok {
			if err := weighDeep(g.th, y); err != nil {
				return nil, err
			}
			if err := charge(g.th, length(g.v)); err != nil {
				return nil, err
			}
		}
	}
	r, err := starlark.Binary(op, g.v, y)
	if err != nil {
		return nil, err
	}
	if tooLong(r, g.lim) {
		return nil, errTooBig
	}
	if _, ok := r.(starlark.Int); ok {
		return r, nil
	}
	return r, charge(g.th, length(r))
}

var errTooBig = errors.New("value too large")

// sizeOf is the length of a string or sequence.
func sizeOf(v starlark.Value) (int, bool) {
	switch x := v.(type) {
	case starlark.String:
		return len(x), true
	case starlark.Sequence:
		return x.Len(), true
	}
	return 0, false
}

// checkState counts a state's elements and bytes, all together (a part
// held twice counts twice: the next call's copy holds it twice), and
// refuses one larger than the limits or holding anything but plain data. The walk
// stops at the limit: a state that shares one list many times is refused
// without being walked whole.
func checkState(v starlark.Value, lim *Limits) (int, error) {
	c := stateCounter{lim: lim}
	err := c.walk(v, 0)
	return c.n, err
}

// stateCounter is checkState's walk: the count so far.
type stateCounter struct {
	n   int
	lim *Limits
}

func (c *stateCounter) walk(v starlark.Value, depth int) error {
	lim := c.lim
	if depth > 16 {
		return errTooBig
	}
	c.n++
	if c.n > lim.State {
		return errStateFull
	}
	switch x := v.(type) {
	case starlark.NoneType, starlark.Bool, starlark.Float:
	case starlark.Int:
		if _, ok := x.Int64(); !ok && x.BigInt().BitLen() > lim.IntBits {
			return errTooBig
		}
	case starlark.String:
		if len(x) > lim.Value {
			return errTooBig
		}
		if c.n += len(x); c.n > lim.State {
			return errStateFull
		}
	case *starlark.List:
		if x.Len() > lim.Value {
			return errTooBig
		}
		for i := range x.Len() {
			if err := c.walk(x.Index(i), depth+1); err != nil {
				return err
			}
		}
	case starlark.Tuple:
		if len(x) > lim.Value {
			return errTooBig
		}
		for _, e := range x {
			if err := c.walk(e, depth+1); err != nil {
				return err
			}
		}
	case *starlark.Dict:
		if x.Len() > lim.Value {
			return errTooBig
		}
		return c.walkDict(x, depth)
	default:
		return errNotData
	}
	return nil
}

// walkDict walks a dict's entries. (Apart from walk: the loop's body is a
// closure, and what it holds of walk's would be allocated at every value
// walk walks.)
func (c *stateCounter) walkDict(x *starlark.Dict, depth int) (err error) {
	for k, e := range x.Entries() {
		if err = c.walk(k, depth+1); err == nil {
			err = c.walk(e, depth+1)
		}
		if err != nil {
			break
		}
	}
	return err
}

var errStateFull = errors.New("state too large")

var errNotData = errors.New("not plain data")

func (c *Compiled) predeclared() starlark.StringDict {
	pre := starlark.StringDict{
		guardName: starlark.NewBuiltin(guardName, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			if len(args) != 1 {
				return nil, errors.New("guard: one operand")
			}
			return guarded{v: args[0], th: th, lim: &c.lim}, nil
		}),
		"range": starlark.NewBuiltin("range", func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			r, err := starlark.Call(th, starlark.Universe["range"], args, kw)
			if err != nil {
				return nil, err
			}
			if s, ok := r.(starlark.Sequence); ok && s.Len() > c.lim.Value {
				return nil, errTooBig
			}
			return r, nil
		}),
		"SECOND": starlark.MakeInt(int(engine.Second)),
	}
	c.costBuiltins(pre)
	pre[keptName] = starlark.NewBuiltin(keptName, c.keptBuiltin)
	return pre
}

// samplePeriod is how many steps pass between two looks at the line a
// thread is on: the tally of where a program spends its steps.
const samplePeriod = 128

// thread is a thread that may take steps steps. The interpreter stops at
// every samplePeriod'th step to tally the line it is on (the count is
// deterministic: steps, not time), and at the last to stop the call.
// It is a thread an earlier call was done with when there is one
// (release): its steps start at 0 as a new thread's do, and it keeps its
// call stack's frames, which a new thread allocates at every call.
func (c *Compiled) thread(steps uint64) *meter {
	m, _ := c.threads.Get().(*meter)
	if m == nil {
		m = &meter{lim: &c.lim, c: c}
		th := &starlark.Thread{Name: "worker", Print: func(*starlark.Thread, string) {}}
		th.SetLocal(meterKey, m)
		th.OnMaxSteps = func(th *starlark.Thread) {
			if th.Steps > m.last+m.charged { // _kept gives steps back (cause.go)
				c.tally(callerLine(th), th.Steps-m.last-m.charged)
			}
			m.last, m.charged = th.Steps, 0
			if th.Steps >= m.max {
				m.stepsOut(th)
				th.Cancel("too many steps")
				return
			}
			th.SetMaxExecutionSteps(min(th.Steps+samplePeriod, m.max))
		}
		m.th = th
	}
	m.max, m.last, m.charged = steps, 0, 0
	m.th.Steps = 0
	m.th.SetMaxExecutionSteps(min(steps, samplePeriod))
	return m
}

// release gives back a thread whose call has returned (m its meter), for
// the next call: a search makes millions of calls. A thread that ran out
// of steps (cancelled) or noted a trace (traced) is not used again.
func (c *Compiled) release(m *meter, traced bool) {
	if m.out || traced {
		return
	}
	m.w = nil
	c.threads.Put(m)
}

// stepsOut is the thread-local a thread holds once it ran out of steps:
// the interpreter says so only in its error's text.
const stepsOut = "leaselab.stepsOut"

// Start begins a run: an empty state and no steps taken. The empty state
// is frozen too (run): a search may fork the run before its first call.
func (c *Compiled) Start() engine.Program { return c.start(false) }

// Traced is the program whose runs note what each action went by
// (engine.Cause, cause.go): the same runs, the same steps, slower; a
// verdict replays its deciding schedule with it.
func (c *Compiled) Traced() engine.Logic { return tracedLogic{c} }

type tracedLogic struct{ c *Compiled }

func (t tracedLogic) Start() engine.Program { return t.c.start(true) }

func (c *Compiled) start(traced bool) engine.Program {
	r := &run{c: c, state: emptyDict(), size: 1, traced: traced}
	if c.side == engine.SideCoord {
		r.stable, r.size = emptyDict(), 2
	}
	return r
}

func emptyDict() *starlark.Dict {
	d := starlark.NewDict(0)
	d.Freeze()
	return d
}

// Restart is the coordinator's program started again after a crash:
// its state empty, its stable state as it was (it is what a leader
// keeps in the replicated log).
func (r *run) Restart() engine.Program {
	cp := *r
	cp.state, cp.hashed = emptyDict(), false
	cp.size = 1 + cp.stableSize
	cp.timers, cp.origins = nil, nil
	for _, o := range r.origins {
		if o.stable {
			cp.origins = append(cp.origins, o)
		}
	}
	return &cp
}

// run is one worker's program as it runs: what it remembers and the steps
// it has taken.
//
// The state a run holds is frozen and never changed: Handle gives the
// handler a copy and keeps the copy once the call has succeeded, so a
// failed call leaves the state as it was, and Fork's copies (a search's
// branches, on any goroutine) can share one state and its hash.
type run struct {
	c      *Compiled
	state  *starlark.Dict
	stable *starlark.Dict // a coordinator's: what survives a restart (nil for other sides)
	steps  uint64
	size   int    // of state and stable, as checkState counts them
	hash   uint64 // of state and stable, when hashed
	hashed bool

	stableSize int

	// origins are the lines that last set the kept values, by name, and
	// timers the lines that set the timers (cause.go); both shared by
	// forks, replaced, never changed.
	origins []origin
	timers  []engine.Cause
	traced  bool // notes them (Traced)
}

// Handle calls the moment's handler, if the program has one.
func (r *run) Handle(m engine.Moment) ([]engine.Action, error) {
	fn := r.c.handlers[m.Kind]
	if fn == nil {
		return nil, nil
	}
	r.c.calls.Add(1)
	if r.c.stopped.Load() {
		return nil, &Error{Code: "stopped"}
	}
	if b := r.c.budget.Load(); b > 0 && r.c.spent.Load() >= b {
		e := &Error{Code: "steps-total", Arg: fmt.Sprint(b)}
		e.Line, _ = r.c.HotLine()
		return nil, e
	}
	left := r.c.lim.StepsPerRun - min(r.steps, r.c.lim.StepsPerRun)
	if left == 0 {
		return nil, &Error{Code: "steps-run", Arg: fmt.Sprint(r.c.lim.StepsPerRun)}
	}
	w, err := r.value(m)
	if err != nil {
		return nil, err
	}
	mt := r.c.thread(min(left, r.c.lim.StepsPerCall))
	th := mt.th
	t := &w.trace
	if r.traced {
		t.r, t.at, t.w = r, m.At, w
		if m.Kind == engine.MomentTimer {
			t.timer = m.Timer
		}
		th.SetLocal(traceKey, t)
	}
	mt.w = w
	w.ev = event{m: m, side: r.c.side}
	w.args = [2]starlark.Value{w, &w.ev}
	_, err = starlark.Call(th, fn, w.args[:], nil)
	steps := max(th.ExecutionSteps(), CallSteps)
	if err != nil {
		r.c.spent.Add(steps)
		e := evalError(err, th, r.c.lim)
		if e.Code == "steps-call" && left < r.c.lim.StepsPerCall {
			e.Code, e.Arg = "steps-run", fmt.Sprint(r.c.lim.StepsPerRun)
		}
		e.Handler = "on_" + m.Kind.String()
		r.c.release(mt, r.traced)
		return nil, e
	}
	r.c.release(mt, r.traced)
	size, stableSize, kerr := r.checkKept(w)
	if kerr != nil {
		r.c.spent.Add(steps)
		kerr.Handler = "on_" + m.Kind.String()
		return nil, kerr
	}
	// A call and each action it asks for cost the world work beyond the
	// program's own steps (a thread, events, the state copied, checked and
	// hashed, a step for every four units): the run's budget counts them
	// too, so a program that fires a timer every millisecond runs out of
	// it in a few thousand calls, not a million, and one that keeps a
	// large state pays for it at every call.
	cost := steps + ActionSteps*uint64(len(w.acts)) + uint64(size/4)
	r.steps += cost
	r.c.spent.Add(cost)
	if r.traced {
		r.origins, r.timers = t.commit(w), timersAfter(r.timers, w.acts, m.At)
	}
	w.state.Freeze()
	r.state, r.size, r.hashed = w.state, size, false
	if w.stable != nil {
		w.stable.Freeze()
		r.stable, r.stableSize = w.stable, stableSize
	}
	return w.acts, nil
}

// value is the handler's first argument: the clock, a copy of the state
// (and of the stable state), the actions to come.
func (r *run) value(m engine.Moment) (*workerValue, error) {
	state, err := copyValue(r.state, r.c.side)
	if err != nil {
		return nil, err
	}
	w := &workerValue{c: r.c, now: m.Now, state: state.(*starlark.Dict)}
	w.acts = w.actRoom[:0]
	if r.stable != nil {
		stable, err := copyValue(r.stable, r.c.side)
		if err != nil {
			return nil, err
		}
		w.stable = stable.(*starlark.Dict)
	}
	return w, nil
}

// checkKept counts what a call leaves its run to keep, the state and the
// stable state together, and refuses it when it is too large or holds
// anything but plain data.
func (r *run) checkKept(w *workerValue) (size, stable int, _ *Error) {
	size, e := r.checkDict(w.state, "state", 0)
	if e != nil {
		return 0, 0, e
	}
	if w.stable != nil {
		if stable, e = r.checkDict(w.stable, "stable", size); e != nil {
			return 0, 0, e
		}
	}
	return size + stable, stable, nil
}

// checkDict is checkKept of one dict, what (state, stable), counted after
// before elements and bytes of the other.
func (r *run) checkDict(d *starlark.Dict, what string, before int) (int, *Error) {
	n, err := checkState(d, &r.c.lim)
	if err == nil && before+n > r.c.lim.State {
		err = errStateFull
	}
	switch {
	case errors.Is(err, errNotData):
		return 0, &Error{Code: "state-data", Arg: ownerName(r.c.side) + "." + what}
	case errors.Is(err, errStateFull):
		return 0, &Error{Code: "size-value", Arg: fmt.Sprint(r.c.lim.State)}
	case err != nil:
		return 0, &Error{Code: "size-value", Arg: fmt.Sprint(r.c.lim.Value)}
	}
	return n, nil
}

// Fork copies the run: a search's branch changes its copy only. The
// state is shared: no run changes the state it holds (run).
func (r *run) Fork() engine.Program {
	cp := *r
	return &cp
}

// Hash fingerprints the state (its text, which lists a dict's entries in
// the order they were added). The steps taken are left out: they decide
// only whether the run may go on, not what it does.
func (r *run) Hash() uint64 {
	if !r.hashed {
		h := fnv.New64a()
		h.Write([]byte(r.state.String()))
		if r.stable != nil {
			h.Write([]byte{0})
			h.Write([]byte(r.stable.String()))
		}
		r.hash, r.hashed = h.Sum64(), true
	}
	return r.hash
}

// Footprint estimates the bytes the run holds, for a server's memory
// ledger: its state, counted by elements and bytes, generously.
func (r *run) Footprint() int { return 256 + 64*r.size }

// eachEntry calls f with each of d's entries in order, and stops at its
// first error. Unlike d.Items it makes no slice of pairs: a search calls
// it three times a handler call, and Items was a third of the bytes a
// judgement allocated.
func eachEntry(d *starlark.Dict, f func(k, v starlark.Value) error) error {
	var err error
	for k, v := range d.Entries() { // no lookup of each key
		if err = f(k, v); err != nil {
			break
		}
	}
	return err
}

// copyValue copies plain data deeply; anything else is an error (side's
// state holds it).
func copyValue(v starlark.Value, side engine.Side) (starlark.Value, error) {
	switch x := v.(type) {
	case *starlark.List:
		out := make([]starlark.Value, x.Len())
		for i := range out {
			e, err := copyValue(x.Index(i), side)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return starlark.NewList(out), nil
	case starlark.Tuple:
		out := make(starlark.Tuple, len(x))
		for i := range x {
			e, err := copyValue(x[i], side)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case *starlark.Dict:
		out := starlark.NewDict(x.Len())
		if err := eachEntry(x, func(k, v starlark.Value) error {
			e, err := copyValue(v, side)
			if err != nil {
				return err
			}
			return out.SetKey(k, e)
		}); err != nil {
			return nil, err
		}
		return out, nil
	case starlark.NoneType, starlark.Bool, starlark.Int, starlark.Float, starlark.String:
		return v, nil
	}
	return nil, &Error{Code: "state-data", Arg: ownerName(side) + ".state"}
}

// event is the handler's ev: what the moment carries, as its side sees
// it.
type event struct {
	m    engine.Moment
	side engine.Side
	// The text attribute read last and its value, made once: a handler
	// compares ev.timer with each of its timers' names in turn.
	lastName string
	last     starlark.Value
}

func (e *event) String() string        { return "event(" + e.m.Kind.String() + ")" }
func (e *event) Type() string          { return "event" }
func (e *event) Freeze()               {}
func (e *event) Truth() starlark.Bool  { return true }
func (e *event) Hash() (uint32, error) { return 0, errors.New("event is not hashable") }
func (e *event) AttrNames() []string   { return slices.Clone(eventAttrs(e.side)) }

// eventAttrs are the names of a side's ev's attributes, sorted: shared,
// not to be changed (AttrNames gives a copy).
func eventAttrs(side engine.Side) []string {
	switch side {
	case engine.SideStorage:
		return storageEventAttrs
	case engine.SideCoord:
		return coordEventAttrs
	}
	return workerEventAttrs
}

var (
	storageEventAttrs = []string{"effect", "key", "kind", "token", "value", "version"}
	coordEventAttrs   = []string{"kind", "timer", "token", "worker"}
	workerEventAttrs  = []string{"kind", "master", "ok", "reason", "tag", "timer", "token", "ttl"}
)

func (e *event) Attr(name string) (starlark.Value, error) {
	if e.last != nil && name == e.lastName {
		return e.last, nil
	}
	v, err := e.attr(name)
	if _, text := v.(starlark.String); text {
		e.lastName, e.last = name, v
	}
	return v, err
}

func (e *event) attr(name string) (starlark.Value, error) {
	if !slices.Contains(eventAttrs(e.side), name) {
		return nil, missing("ev", name, e.AttrNames())
	}
	switch name {
	case "key":
		return starlark.String(e.m.Key), nil
	case "worker":
		return starlark.String(e.m.Worker), nil
	case "master":
		return starlark.MakeInt(e.m.Master), nil
	case "ok":
		return starlark.Bool(e.m.OK), nil
	case "value":
		return starlark.String(e.m.Value), nil
	case "effect":
		return starlark.Bool(e.m.Effect), nil
	case "version":
		return starlark.MakeInt64(e.m.Version), nil
	case "kind":
		return starlark.String(e.m.Kind.String()), nil
	case "token":
		return starlark.MakeInt64(e.m.Token), nil
	case "ttl":
		return starlark.MakeInt64(int64(e.m.TTL)), nil
	case "tag":
		return starlark.MakeInt64(e.m.Tag), nil
	case "timer":
		return starlark.String(e.m.Timer), nil
	case "reason":
		if e.m.Reason == engine.ReasonNone {
			return starlark.String(""), nil
		}
		return starlark.String(e.m.Reason.String()), nil
	}
	return nil, missing("ev", name, e.AttrNames())
}

// workerValue is the handler's w (or s, c): the clock, the state (and a
// coordinator's stable state), the actions.
type workerValue struct {
	c      *Compiled
	now    engine.Time
	state  *starlark.Dict
	stable *starlark.Dict
	acts   []engine.Action
	trace  trace // what the call reads and sets of what it keeps (cause.go)
	// The call's ev and its arguments, and room for its first actions:
	// allocated with w, not one by one at each call.
	ev      event
	args    [2]starlark.Value
	actRoom [2]engine.Action
}

func (w *workerValue) String() string       { return w.c.side.String() }
func (w *workerValue) Type() string         { return w.c.side.String() }
func (w *workerValue) Freeze()              {}
func (w *workerValue) Truth() starlark.Bool { return true }
func (w *workerValue) Hash() (uint32, error) {
	return 0, errors.New(w.c.side.String() + " is not hashable")
}
func (w *workerValue) AttrNames() []string {
	names := []string{"now", "state"}
	if w.c.side == engine.SideCoord {
		names = append(names, "stable")
	}
	for _, k := range w.c.side.Actions() {
		names = append(names, k.String())
	}
	sort.Strings(names)
	return names
}

func (w *workerValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "now":
		return starlark.MakeInt64(int64(w.now)), nil
	case "state":
		return w.state, nil
	case "stable":
		if w.stable != nil {
			return w.stable, nil
		}
	}
	k, ok := actionByName(w.c.side, name)
	if !ok {
		return nil, missing(ownerName(w.c.side), name, w.AttrNames())
	}
	return starlark.NewBuiltin(name, actionFuncs[k]), nil
}

// actionFuncs are the actions' builtins' functions, by kind: the w they
// act for is the one whose call the thread runs (meter.w), so that a
// method value costs one allocation, not a closure besides.
var actionFuncs = func() (fs []func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)) {
	n := 0
	for _, as := range sideActions {
		for _, k := range as {
			n = max(n, int(k)+1)
		}
	}
	fs = make([]func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error), n)
	for k := range fs {
		fs[k] = func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			m := meterOf(th)
			if m == nil || m.w == nil {
				return nil, errors.New(b.Name() + ": called outside a handler")
			}
			return m.w.action(th, engine.ActionKind(k), b, args, kw)
		}
	}
	return fs
}()

const maxActions = 64

func (w *workerValue) action(th *starlark.Thread, k engine.ActionKind, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	if w.c.allowed != nil && !w.c.allowed[k] {
		return nil, &actionRefused{code: "action-denied", arg: k.String()}
	}
	if len(w.acts) >= maxActions {
		return nil, &actionRefused{code: "actions", arg: fmt.Sprint(maxActions)}
	}
	// The action is written where it is kept: UnpackArgs's pointers into
	// a local would move it to the heap, one allocation an action.
	w.acts = append(w.acts, engine.Action{Kind: k})
	a := &w.acts[len(w.acts)-1]
	for d := 1; d < th.CallStackDepth(); d++ { // past _call, to the program's line
		if pos := th.CallFrame(d).Pos; pos.Filename() == Filename {
			a.Line, a.Col = pos.Line, pos.Col
			break
		}
	}
	var err error
	switch k {
	case engine.ActAcquire, engine.ActStop, engine.ActAccept, engine.ActDeny, engine.ActRefuse:
		err = starlark.UnpackArgs(b.Name(), args, kw)
	case engine.ActGrant, engine.ActExtend:
		var ttl int64
		if k == engine.ActGrant {
			err = starlark.UnpackArgs(b.Name(), args, kw, "token", &a.Token, "ttl", &ttl)
		} else {
			err = starlark.UnpackArgs(b.Name(), args, kw, "ttl", &ttl)
		}
		a.TTL = engine.Time(ttl)
	case engine.ActExpire:
		err = starlark.UnpackArgs(b.Name(), args, kw, "worker", &a.Worker)
	case engine.ActLock, engine.ActUnlock:
		var ttl int64
		if k == engine.ActLock {
			err = starlark.UnpackArgs(b.Name(), args, kw, "master", &a.Master, "value", &a.Token, "ttl", &ttl)
		} else {
			err = starlark.UnpackArgs(b.Name(), args, kw, "master", &a.Master, "value", &a.Token)
		}
		a.TTL = engine.Time(ttl)
	case engine.ActReject:
		var why string
		err = starlark.UnpackArgs(b.Name(), args, kw, "reason", &why)
		a.Reason, _ = engine.ParseReason(why) // one a storage cannot give is refused (engine.ActionError)
	case engine.ActRenew:
		var tag int64
		err = starlark.UnpackArgs(b.Name(), args, kw, "token", &a.Token, "tag?", &tag)
		a.Tag = tag
	case engine.ActWrite:
		err = starlark.UnpackArgs(b.Name(), args, kw, "key", &a.Key, "token", &a.Token)
	case engine.ActSetTimer:
		var at int64
		err = starlark.UnpackArgs(b.Name(), args, kw, "name", &a.Timer, "at", &at)
		a.At = engine.Time(at)
	case engine.ActCancelTimer:
		err = starlark.UnpackArgs(b.Name(), args, kw, "name", &a.Timer)
	}
	if err != nil {
		w.acts = w.acts[:len(w.acts)-1]
		return nil, err
	}
	if t := &w.trace; t.r != nil { // traced (Handle)
		a.Cause = t.cause(*a)
	}
	return starlark.None, nil
}

// actionRefused is an action the lab does not allow, or one too many.
type actionRefused struct{ code, arg string }

func (e *actionRefused) Error() string { return e.code + ": " + e.arg }

// Error is what is wrong with a program, where: Code names the catalog's
// text (program.err.<code>), Arg fills it in, Detail is the interpreter's
// own words (English) when the catalog has none better.
type Error struct {
	Code      string
	Arg       string
	Hint      string // a name the program may have meant (program.hint)
	Line, Col int32
	Handler   string
	Detail    string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "%s:%d:%d: ", Filename, e.Line, e.Col)
	}
	b.WriteString(e.Code)
	if e.Arg != "" {
		b.WriteString(" " + e.Arg)
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}

func syntaxError(err error) *Error {
	var se syntax.Error
	if errors.As(err, &se) {
		return &Error{Code: "syntax", Line: se.Pos.Line, Col: se.Pos.Col, Detail: se.Msg}
	}
	var rl resolve.ErrorList
	if errors.As(err, &rl) && len(rl) > 0 {
		return &Error{Code: "syntax", Line: rl[0].Pos.Line, Col: rl[0].Pos.Col, Detail: rl[0].Msg}
	}
	return &Error{Code: "syntax", Detail: err.Error()}
}

// evalError places a run-time error at the innermost line of the
// student's code and names it.
func evalError(err error, th *starlark.Thread, lim Limits) *Error {
	e := &Error{Code: "runtime", Detail: clip(err.Error())}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		e.Detail = clip(ee.Msg)
		for i := len(ee.CallStack) - 1; i >= 0; i-- {
			if p := ee.CallStack[i].Pos; p.Filename() == Filename {
				e.Line, e.Col = p.Line, p.Col
				break
			}
		}
	}
	var ar *actionRefused
	var am *attrMissing
	switch {
	case errors.As(err, &ar):
		e.Code, e.Arg, e.Detail = ar.code, ar.arg, ""
	case errors.As(err, &am):
		e.Code, e.Arg, e.Hint, e.Detail = "attr", am.owner+"."+am.name, am.near, ""
	case errors.Is(err, errTooBig):
		e.Code, e.Arg, e.Detail = "size-value", fmt.Sprint(lim.Value), ""
	case errors.Is(err, errTooLarge):
		e.Code, e.Arg, e.Detail = "size-weight", fmt.Sprint(lim.Weight), ""
	case th.Local(stepsOut) == true:
		e.Code, e.Arg, e.Detail = "steps-call", fmt.Sprint(lim.StepsPerCall), ""
	}
	return e
}

// maxDetail bounds the interpreter's words an error carries: a message
// may quote a value the program built (a missing key, a failed call's
// argument), and a page shows it.
const maxDetail = 300

func clip(s string) string {
	if len(s) <= maxDetail {
		return s
	}
	cut := maxDetail
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
