package program

import (
	"errors"
	"math/bits"
	"slices"

	"go.starlark.net/starlark"
)

// What a step pays for (issue 51). The interpreter counts one step an
// instruction, whatever the instruction does: str() of a list that holds
// the same 4,096-element list 4,096 times is one step that asks for
// gigabytes, sorted() of 4,096 numbers one step of a millisecond. So the
// program is rewritten (instrument) to route every operation whose work
// grows with its operands through a builtin that weighs them first and
// charges the steps the work is worth, or refuses before it starts:
//
//   - a value used whole (compared, hashed as a key, searched with in,
//     printed, formatted, sorted, passed to a builtin) is weighed deeply,
//     every nested part counted each time it appears, as the work that
//     walks it would count it; a value over Limits.Weight is refused
//     ("too-large") whatever its own length;
//   - a value copied (+, *, slices, what a builtin returns) pays for its
//     length, and one longer than Limits.Value is refused before it is
//     built where its length is known beforehand;
//   - a sort pays its weight once for each halving of its length.
//
// Weighing stops at what the call can still pay, so the walk itself is
// bounded by the charge. A unit of work is a step: an element, a scalar,
// or 16 bytes of text visited. BenchmarkStepCost measures what a step
// costs for each kind of work: 5 ns in a plain loop, 10 to 25 ns charged
// (a comparison within a sort, a hash, a copy), 50 to 80 ns a step for a
// whole judgement, where the engine's own work per call counts too.
const (
	bytesPerUnit = 16
	maxDepth     = 64
)

// meter is what a thread's builtins need to charge it: the step it must
// not reach, the limits, the program (for its line tallies).
type meter struct {
	max     uint64
	lim     *Limits
	c       *Compiled
	last    uint64 // the steps at the last look at the line (thread)
	charged uint64 // what builtins charged since then, tallied already
	th      *starlark.Thread
	w       *workerValue // the handler's w while its call runs
	out     bool         // the call ran out of steps (stepsOut)
}

const meterKey = "leaselab.meter"

func meterOf(th *starlark.Thread) *meter {
	m, _ := th.Local(meterKey).(*meter)
	return m
}

// errTooLarge is a value used whole that is over Limits.Weight.
var errTooLarge = errors.New("value too large to work on")

// errStepsOut is a charge the call's steps cannot pay.
var errStepsOut = errors.New("too many steps")

// charge adds units of work to th's steps, on the line that called the
// builtin, and fails when the call's steps run out: the caller must not
// then do the work.
func charge(th *starlark.Thread, units int) error {
	if units <= 0 {
		return nil
	}
	return meterOf(th).charge(th, units)
}

// charge is charge by th's meter m (nil: th is not metered).
func (m *meter) charge(th *starlark.Thread, units int) error {
	if units <= 0 || m == nil {
		return nil
	}
	n := uint64(units)
	th.Steps += n
	m.charged += n
	m.c.tally(callerLine(th), n)
	if th.Steps >= m.max {
		m.stepsOut(th)
		return errStepsOut
	}
	return nil
}

// stepsOut marks th, m's thread, as out of steps.
func (m *meter) stepsOut(th *starlark.Thread) {
	m.out = true
	th.SetLocal(stepsOut, true)
}

// affordable is how many units th can still pay for, at most lim.
func affordable(th *starlark.Thread, lim int) int {
	m := meterOf(th)
	if m == nil || th.Steps >= m.max {
		return lim
	}
	left := m.max - th.Steps
	if left < uint64(lim) {
		return int(left)
	}
	return lim
}

// weighDeep charges th for walking v whole and refuses a v over the
// weight limit. The walk stops at the limit.
func weighDeep(th *starlark.Thread, v starlark.Value) error {
	return meterOf(th).weighDeep(th, v)
}

// weighDeep is weighDeep by th's meter m (nil: th is not metered).
func (m *meter) weighDeep(th *starlark.Thread, v starlark.Value) error {
	if m == nil {
		return nil
	}
	n, over := weight(v, m.lim.Weight)
	if over {
		return errTooLarge
	}
	return m.charge(th, n)
}

// weight is v's size with every nested part counted each time it
// appears, or over once it passes cap (the walk stops there).
func weight(v starlark.Value, cap int) (int, bool) {
	switch x := v.(type) { // a scalar, as walk weighs it, without a weigher
	case starlark.String:
		n := 1 + len(x)/bytesPerUnit
		return n, n > cap
	case starlark.Int, starlark.Bool, starlark.NoneType, starlark.Float:
		return 1, 1 > cap
	}
	w := weigher{cap: cap}
	w.walk(v, 0)
	return w.n, w.n > cap
}

type weigher struct{ n, cap int }

func (w *weigher) walk(v starlark.Value, depth int) bool {
	if depth > maxDepth {
		w.n = w.cap + 1
		return false
	}
	w.n++
	switch x := v.(type) {
	case starlark.String:
		w.n += len(x) / bytesPerUnit
	case starlark.Bytes:
		w.n += len(x) / bytesPerUnit
	case *starlark.List:
		for i := range x.Len() {
			if w.n > w.cap || !w.walk(x.Index(i), depth+1) {
				return false
			}
		}
	case starlark.Tuple:
		for _, e := range x {
			if w.n > w.cap || !w.walk(e, depth+1) {
				return false
			}
		}
	case *starlark.Dict:
		return w.walkDict(x, depth)
	case *starlark.Set:
		it := x.Iterate()
		defer it.Done()
		var k starlark.Value
		for it.Next(&k) {
			if w.n > w.cap || !w.walk(k, depth+1) {
				return false
			}
		}
	}
	return w.n <= w.cap
}

// walkDict walks a dict's entries (apart from walk: see
// stateCounter.walkDict).
func (w *weigher) walkDict(x *starlark.Dict, depth int) bool {
	ok := true
	for k, e := range x.Entries() {
		w.n += 2 // the lookup of its value
		if w.n > w.cap || !w.walk(k, depth+1) || !w.walk(e, depth+1) {
			ok = false
			break
		}
	}
	return ok
}

// length is what copying v costs, in units: its elements, or its text's.
func length(v starlark.Value) int {
	switch x := v.(type) {
	case starlark.String:
		return 1 + len(x)/bytesPerUnit
	case starlark.Bytes:
		return 1 + len(x)/bytesPerUnit
	case *starlark.List, starlark.Tuple, *starlark.Dict, *starlark.Set:
		return 1 + x.(starlark.Sequence).Len()
	case starlark.Sequence: // a range is lazy: its steps are paid as they are taken
		return 1
	}
	return 1
}

// tooLong refuses a value whose own length is over the value limit: the
// elements of a container, the bytes of a text.
func tooLong(v starlark.Value, lim *Limits) bool {
	switch x := v.(type) {
	case starlark.String:
		return len(x) > lim.Value
	case starlark.Bytes:
		return len(x) > lim.Value
	case starlark.Int:
		_, ok := x.Int64()
		return !ok && x.BigInt().BitLen() > lim.IntBits
	case starlark.Sequence:
		return x.Len() > lim.Value
	}
	return false
}

// The builtins instrument calls. Each is predeclared under a name a
// student's program cannot bind (it starts with an underscore, and the
// rewrite names them only where it put them).
const (
	weighName = "_weigh"  // _weigh(x): x, after paying for walking it whole
	inName    = "_in"     // _in(y): y, after paying for searching it
	copyName  = "_copied" // _copied(x): x, after paying for its length
	callName  = "_call"   // _call(f, args...): f(args...), paid for
)

func (c *Compiled) costBuiltins(pre starlark.StringDict) {
	pre[weighName] = starlark.NewBuiltin(weighName, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		if len(args) != 1 {
			return nil, errors.New("one operand")
		}
		return args[0], weighDeep(th, args[0])
	})
	pre[inName] = starlark.NewBuiltin(inName, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		if len(args) != 1 {
			return nil, errors.New("one operand")
		}
		switch y := args[0].(type) {
		case *starlark.Dict, *starlark.Set: // a lookup: the key pays (_weigh)
			return y, nil
		case starlark.String, starlark.Bytes:
			return y, charge(th, length(y))
		}
		return args[0], weighDeep(th, args[0])
	})
	pre[copyName] = starlark.NewBuiltin(copyName, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		if len(args) != 1 {
			return nil, errors.New("one operand")
		}
		return args[0], charge(th, length(args[0]))
	})
	pre[callName] = starlark.NewBuiltin(callName, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		if len(args) == 0 {
			return nil, errors.New("no function")
		}
		return c.paidCall(th, args[0], args[1:], kw)
	})
}

// shallowArgs are the builtins and methods whose work does not walk their
// arguments: a list passed to len or appended is not read.
var shallowArgs = []string{"len", "type", "bool", "getattr", "hasattr", "dir", "append", "insert"}

// deepReceiver are the methods that compare their receiver's elements.
var deepReceiver = []string{"index", "remove"}

// paidCall calls fn, first charging what its arguments will cost it to
// read, and then what its result cost to build. A function of the
// program's own pays as it runs; only builtins are charged here.
func (c *Compiled) paidCall(th *starlark.Thread, fn starlark.Value, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	b, ok := fn.(*starlark.Builtin)
	if !ok {
		// f(*l) spreads l into the call's arguments: that copy is paid.
		if err := charge(th, len(args)+len(kw)); err != nil {
			return nil, err
		}
		return starlark.Call(th, fn, args, kw)
	}
	name := b.Name()
	if b.Receiver() != nil && slices.Contains(denied, name) {
		return nil, &actionRefused{code: "method", arg: name} // a list's extend, called as c.extend is
	}
	units := len(args) + len(kw)
	m := meterOf(th)
	if !slices.Contains(shallowArgs, name) {
		for _, a := range args {
			if err := m.weighDeep(th, a); err != nil {
				return nil, err
			}
		}
		for _, p := range kw {
			if err := m.weighDeep(th, p[1]); err != nil {
				return nil, err
			}
		}
	}
	if recv := b.Receiver(); recv != nil {
		switch {
		case slices.Contains(deepReceiver, name):
			if err := m.weighDeep(th, recv); err != nil {
				return nil, err
			}
		case name == "insert":
			units += length(recv)
		default:
			if _, text := recv.(starlark.String); text {
				units += length(recv)
			}
		}
	}
	if name == "sorted" && len(args) > 0 {
		if s, ok := args[0].(starlark.Sequence); ok {
			// Each halving of the length compares every element once more.
			n, _ := weight(args[0], affordable(th, c.lim.Weight))
			units += n * bits.Len(uint(s.Len()))
		}
	}
	if err := m.charge(th, units); err != nil {
		return nil, err
	}
	r, err := starlark.Call(th, b, args, kw)
	if err != nil {
		return nil, err
	}
	if tooLong(r, &c.lim) {
		return nil, errTooBig
	}
	return r, m.charge(th, length(r))
}

// callerLine is the line of the student's code that th is running: the
// innermost frame in the program's file.
func callerLine(th *starlark.Thread) int32 {
	for d := 0; d < th.CallStackDepth(); d++ {
		if p := th.CallFrame(d).Pos; p.Filename() == Filename {
			return p.Line
		}
	}
	return 0
}
