package program

import (
	"slices"

	"go.starlark.net/syntax"
)

// instrument rewrites a program so that each operation whose work grows
// with its operands pays for it first (cost.go): comparisons and in weigh
// their operands, keys are weighed before they are hashed, slices pay for
// their length, the operators that build values go through the guard,
// and every call goes through _call. What the program means is unchanged;
// a literal operand (a number or a text in the source) is never weighed,
// the source bounds it.
func instrument(f *syntax.File) {
	for _, s := range f.Stmts {
		stmt(s)
	}
}

func stmts(list []syntax.Stmt) {
	for _, s := range list {
		stmt(s)
	}
}

func stmt(s syntax.Stmt) {
	switch x := s.(type) {
	case *syntax.DefStmt:
		params(x.Params)
		stmts(x.Body)
	case *syntax.ExprStmt:
		x.X = expr(x.X)
	case *syntax.AssignStmt:
		x.LHS = target(x.LHS)
		x.RHS = expr(x.RHS)
	case *syntax.ForStmt:
		x.Vars = target(x.Vars)
		x.X = expr(x.X)
		stmts(x.Body)
	case *syntax.WhileStmt:
		x.Cond = expr(x.Cond)
		stmts(x.Body)
	case *syntax.IfStmt:
		x.Cond = expr(x.Cond)
		markChecked(x.Cond)
		stmts(x.True)
		stmts(x.False)
	case *syntax.ReturnStmt:
		if x.Result != nil {
			x.Result = expr(x.Result)
		}
	}
}

// params rewrites parameters' default values.
func params(ps []syntax.Expr) {
	for i, p := range ps {
		if b, ok := p.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			b.Y = expr(b.Y)
			continue
		}
		ps[i] = p
	}
}

// target rewrites what an assignment or a loop assigns to: the parts it
// reads (a container, a key), never the target itself.
func target(e syntax.Expr) syntax.Expr {
	switch x := e.(type) {
	case *syntax.IndexExpr:
		x.X = expr(x.X)
		x.Y = key(x.Y)
		if owner, stable, ok := keptDict(x.X); ok {
			x.Y = kept(x.Y, keptSet, owner, stable)
		}
	case *syntax.DotExpr:
		x.X = expr(x.X)
	case *syntax.ParenExpr:
		x.X = target(x.X)
	case *syntax.TupleExpr:
		each(x.List, target)
	case *syntax.ListExpr:
		each(x.List, target)
	}
	return e
}

// each rewrites every expression of list with f.
func each(list []syntax.Expr, f func(syntax.Expr) syntax.Expr) {
	for i := range list {
		list[i] = f(list[i])
	}
}

func expr(e syntax.Expr) syntax.Expr {
	switch x := e.(type) {
	case *syntax.ParenExpr:
		x.X = expr(x.X)
	case *syntax.UnaryExpr:
		if x.X != nil {
			x.X = expr(x.X)
		}
	case *syntax.BinaryExpr:
		binary(x)
	case *syntax.CallExpr:
		return call(x)
	case *syntax.Comprehension:
		for _, c := range x.Clauses {
			switch y := c.(type) {
			case *syntax.ForClause:
				y.Vars = target(y.Vars)
				y.X = expr(y.X)
			case *syntax.IfClause:
				y.Cond = expr(y.Cond)
			}
		}
		if d, ok := x.Body.(*syntax.DictEntry); ok {
			d.Key, d.Value = key(d.Key), expr(d.Value)
		} else {
			x.Body = expr(x.Body)
		}
	case *syntax.DictExpr:
		for _, it := range x.List {
			d := it.(*syntax.DictEntry)
			d.Key, d.Value = key(d.Key), expr(d.Value)
		}
	case *syntax.ListExpr:
		each(x.List, expr)
	case *syntax.TupleExpr:
		each(x.List, expr)
	case *syntax.DotExpr:
		x.X = expr(x.X)
	case *syntax.IndexExpr:
		x.X, x.Y = expr(x.X), key(x.Y)
		if owner, stable, ok := keptDict(x.X); ok {
			x.Y = kept(x.Y, keptRead, owner, stable)
		}
	case *syntax.SliceExpr:
		x.X = expr(x.X)
		for _, p := range []*syntax.Expr{&x.Lo, &x.Hi, &x.Step} {
			if *p != nil {
				*p = expr(*p)
			}
		}
		return wrap(copyName, x)
	case *syntax.CondExpr:
		x.Cond, x.True, x.False = expr(x.Cond), expr(x.True), expr(x.False)
		markChecked(x.Cond)
	case *syntax.LambdaExpr:
		params(x.Params)
		x.Body = expr(x.Body)
	}
	return e
}

// binary rewrites an operator's operands: the operators that build values
// go through the guard, comparisons and in weigh what they walk.
func binary(x *syntax.BinaryExpr) {
	x.X, x.Y = expr(x.X), expr(x.Y)
	switch x.Op {
	case syntax.PLUS, syntax.PIPE, syntax.MINUS, syntax.AMP, syntax.CIRCUMFLEX:
		// With a number on either side this is arithmetic, or an error.
		if !number(x.X) && !number(x.Y) {
			x.X = wrap(guardName, x.X)
		}
	case syntax.STAR, syntax.PERCENT, syntax.LTLT:
		if x.Op == syntax.LTLT || !number(x.X) || !number(x.Y) {
			x.X = wrap(guardName, x.X)
		}
	case syntax.EQL, syntax.NEQ, syntax.LT, syntax.GT, syntax.LE, syntax.GE:
		// A comparison walks both operands only as far as the smaller
		// goes: either one weighed pays for it.
		if literal(x.X) || scalar(x.X) {
			break
		}
		if literal(x.Y) || scalar(x.Y) {
			break // a different type, or the literal's size
		}
		x.X = weighed(x.X)
	case syntax.IN, syntax.NOT_IN:
		if !scalar(x.X) {
			x.X = weighed(x.X)
		}
		if !literal(x.Y) {
			x.Y = wrap(inName, x.Y)
		}
	}
}

// call routes a call through _call, which charges a builtin for its work.
func call(x *syntax.CallExpr) syntax.Expr {
	x.Fn = expr(x.Fn)
	for i, a := range x.Args {
		switch y := a.(type) {
		case *syntax.BinaryExpr: // name=value
			if y.Op == syntax.EQ {
				y.Y = expr(y.Y)
				continue
			}
		case *syntax.UnaryExpr: // *args, **kwargs
			if y.Op == syntax.STAR || y.Op == syntax.STARSTAR {
				y.X = expr(y.X)
				continue
			}
		}
		x.Args[i] = expr(a)
	}
	if id, ok := x.Fn.(*syntax.Ident); ok && id.Name == guardName {
		return x // put here by guardTree
	}
	if d, ok := x.Fn.(*syntax.DotExpr); ok && d.Name.Name == "get" && len(x.Args) > 0 {
		if owner, stable, ok := keptDict(d.X); ok && !named(x.Args[0]) {
			x.Args[0] = kept(x.Args[0], keptRead, owner, stable)
		}
	}
	if d, ok := x.Fn.(*syntax.DotExpr); ok && slices.Contains(actionNames, d.Name.Name) {
		return x // only the worker has these methods: their arguments are a few numbers and names
	}
	return &syntax.CallExpr{
		Fn:     &syntax.Ident{NamePos: x.Lparen, Name: callName},
		Lparen: x.Lparen,
		Args:   append([]syntax.Expr{x.Fn}, x.Args...),
		Rparen: x.Rparen,
	}
}

// named reports a call's argument given by name or spread (*args).
func named(a syntax.Expr) bool {
	switch y := a.(type) {
	case *syntax.BinaryExpr:
		return y.Op == syntax.EQ
	case *syntax.UnaryExpr:
		return y.Op == syntax.STAR || y.Op == syntax.STARSTAR
	}
	return false
}

// key rewrites an index or a dict's key: weighed, since hashing and
// comparing it walk it whole.
func key(e syntax.Expr) syntax.Expr { return weighed(expr(e)) }

// weighed wraps an operand that is not a literal in _weigh.
func weighed(e syntax.Expr) syntax.Expr {
	if literal(e) {
		return e
	}
	return wrap(weighName, e)
}

func literal(e syntax.Expr) bool {
	_, ok := e.(*syntax.Literal)
	return ok
}

// scalar reports an attribute that only the worker and the event have, all
// numbers and short names (w.now, ev.token): no builtin type has a field of
// these names.
func scalar(e syntax.Expr) bool {
	d, ok := e.(*syntax.DotExpr)
	return ok && slices.Contains(scalarAttrs, d.Name.Name)
}

// number reports a number in the source, or a scalar attribute.
func number(e syntax.Expr) bool {
	if l, ok := e.(*syntax.Literal); ok {
		return l.Token == syntax.INT || l.Token == syntax.FLOAT
	}
	return scalar(e)
}

var (
	scalarAttrs = []string{"now", "kind", "reason", "tag", "timer", "token", "ttl"}
	actionNames = []string{"acquire", "renew", "write", "set_timer", "cancel_timer", "stop"}
)

func wrap(name string, e syntax.Expr) syntax.Expr {
	start, end := e.Span()
	return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: start, Name: name}, Lparen: start, Args: []syntax.Expr{e}, Rparen: end}
}
