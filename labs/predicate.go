package labs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"leaselab/engine"
)

// A Predicate is a sentence about a run's event log, such as
// "W1's write with token 7 is rejected". It is compiled once against the
// names of a scenario's workers and then evaluated on any log. The grammar
// is documented in docs/authoring.md; in short:
//
//	predicate = clause { "and" clause | "or" clause }   ("and" binds tighter)
//	clause    = "not" clause | "(" predicate ")" | fact [ ["within" D] ("after"|"before") fact ]
//	fact      = W "'s" (write|send|rename|temporary write) [of KEY] [with token N] is (accepted|rejected) [because REASON]
//	          | W "'s" check (passes|fails)
//	          | W "'s" token is its grant's log index
//	          | W gets a (higher|lower) token than W
//	          | the coordinator changes leader
//	          | W "'s" lease expires [with token N]
//	          | W (writes|sends) [KEY] [with token N]
//	          | W acts [after its lease expired]
//	          | W acquires the lease [with token N]
//	          | W loses (the|its) lease [because REASON]
//	          | W renews (the|its) lease [with token N]
//	          | W "'s" renewal fails [because REASON]
//	          | W "'s" renewal is rolled back
//	          | W (becomes uncertain|gives up) [because REASON]
//	          | W (refuses work|drops a stale reply)
//	          | W is denied the lease COUNT
//	          | W (freezes|crashes)
//	          | W renews (the|its) lease [with token N] [for (at least|at most) D]
//	          | the KEY is (sent|written|accepted|rejected) COUNT
//	          | violation NAME [by W]
//	          | no violation [NAME]
//	          | harm [by W] | no harm      (stale-write, lost-update, double-effect, split-brain, diverged)
//	COUNT     = never | once | twice | N times | at least (once|twice|N times)
//
// "within D after" (or before) also bounds the gap: "L2 acquires the lease
// within 6s after L1 crashes" holds when the acquisition comes at most 6 s
// of virtual time after the crash.
//
// After "after" or "before", a bare "W's" repeats the left fact for W,
// without its token or reason: "W1's write with token 7 is accepted after
// W2's" compares with any accepted write of W2's.
type Predicate struct {
	src  string
	root pnode
}

// String is the predicate as written.
func (p *Predicate) String() string { return p.src }

// PredicateError is a predicate that does not parse; Offset is the byte
// offset in the predicate text where the trouble starts.
type PredicateError struct {
	Offset int
	Msg    string
}

func (e *PredicateError) Error() string { return e.Msg }

// maxPredicateLen and maxPredicateDepth keep a hostile predicate from
// costing much; real ones are one line.
const (
	maxPredicateLen   = 2000
	maxPredicateDepth = 32
)

// CompilePredicate parses src. Worker names must be among workers.
func CompilePredicate(src string, workers []string) (*Predicate, error) {
	if len(src) > maxPredicateLen {
		return nil, &PredicateError{0, fmt.Sprintf("a predicate is at most %d characters", maxPredicateLen)}
	}
	toks, err := lexPredicate(src)
	if err != nil {
		return nil, err
	}
	p := &pparser{toks: toks, src: src, workers: workers}
	if len(toks) == 0 {
		return nil, &PredicateError{0, "empty predicate: write a sentence such as \"W1's write is rejected\""}
	}
	root, err := p.predicate(0)
	if err != nil {
		return nil, err
	}
	if !p.done() {
		t := p.peek()
		return nil, &PredicateError{t.off, fmt.Sprintf("unexpected %q: expected \"and\", \"or\" or the end", t.raw)}
	}
	return &Predicate{src: src, root: root}, nil
}

// Eval reports whether the predicate holds on events, and the indexes of
// the events that show it, in log order. names are the log's world's
// (World.Names): they resolve the keys the events name.
func (p *Predicate) Eval(events []engine.Event, names engine.Names) (bool, []int) {
	ok, ev := p.root.eval(events, names)
	slices.Sort(ev)
	return ok, slices.Compact(ev)
}

type ptok struct {
	text string // lower-cased unless it may be a name
	raw  string
	off  int
}

func lexPredicate(src string) ([]ptok, error) {
	var toks []ptok
	i := 0
	for i < len(src) {
		r, n := utf8.DecodeRuneInString(src[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return nil, &PredicateError{i, "the predicate is not valid UTF-8"}
		case unicode.IsSpace(r):
			i += n
		case r == '(' || r == ')':
			toks = append(toks, ptok{string(r), string(r), i})
			i += n
		case r == '\'' || r == '’':
			// 's after a name
			j := i + n
			if j < len(src) && (src[j] == 's' || src[j] == 'S') && (j+1 == len(src) || !isWordByte(src[j+1])) {
				toks = append(toks, ptok{"'s", src[i : j+1], i})
				i = j + 1
				continue
			}
			return nil, &PredicateError{i, "an apostrophe is only used in 's, as in \"W1's write\""}
		default:
			j := i
			for j < len(src) {
				r, n := utf8.DecodeRuneInString(src[j:])
				if unicode.IsSpace(r) || r == '(' || r == ')' || r == '\'' || r == '’' {
					break
				}
				j += n
			}
			w := src[i:j]
			toks = append(toks, ptok{strings.ToLower(w), w, i})
			i = j
		}
	}
	return toks, nil
}

func isWordByte(b byte) bool {
	return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

type pparser struct {
	toks    []ptok
	pos     int
	src     string
	workers []string
}

func (p *pparser) done() bool { return p.pos >= len(p.toks) }

func (p *pparser) peek() ptok {
	if p.done() {
		return ptok{off: len(p.src)}
	}
	return p.toks[p.pos]
}

func (p *pparser) is(words ...string) bool {
	for i, w := range words {
		if p.pos+i >= len(p.toks) || p.toks[p.pos+i].text != w {
			return false
		}
	}
	return true
}

func (p *pparser) accept(words ...string) bool {
	if p.is(words...) {
		p.pos += len(words)
		return true
	}
	return false
}

func (p *pparser) errf(format string, args ...any) error {
	t := p.peek()
	got := "the end"
	if !p.done() {
		got = strconv.Quote(t.raw)
	}
	return &PredicateError{t.off, strings.ReplaceAll(fmt.Sprintf(format, args...), "GOT", got)}
}

func (p *pparser) expect(words ...string) error {
	if p.accept(words...) {
		return nil
	}
	return p.errf("expected %q, got GOT", strings.Join(words, " "))
}

func (p *pparser) predicate(depth int) (pnode, error) {
	if depth > maxPredicateDepth {
		return nil, p.errf("the predicate nests too deeply")
	}
	var ors []pnode
	for {
		var ands []pnode
		for {
			c, err := p.clause(depth)
			if err != nil {
				return nil, err
			}
			ands = append(ands, c)
			if !p.accept("and") {
				break
			}
		}
		if len(ands) == 1 {
			ors = append(ors, ands[0])
		} else {
			ors = append(ors, &andNode{ands})
		}
		if !p.accept("or") {
			break
		}
	}
	if len(ors) == 1 {
		return ors[0], nil
	}
	return &orNode{ors}, nil
}

func (p *pparser) clause(depth int) (pnode, error) {
	if depth > maxPredicateDepth {
		return nil, p.errf("the predicate nests too deeply")
	}
	if p.accept("not") {
		c, err := p.clause(depth + 1)
		if err != nil {
			return nil, err
		}
		return &notNode{c}, nil
	}
	if p.accept("(") {
		n, err := p.predicate(depth + 1)
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		return n, nil
	}
	left, err := p.fact()
	if err != nil {
		return nil, err
	}
	within, err := p.within()
	if err != nil {
		return nil, err
	}
	var before bool
	switch {
	case p.accept("after"):
	case p.accept("before"):
		before = true
	default:
		if within > 0 {
			return nil, p.errf("after \"within %s\" expected \"after\" or \"before\", got GOT", within)
		}
		return left, nil
	}
	var right *fact
	if w, ok := p.ellipsis(); ok {
		if left.kind != factVerdict && left.kind != factCheck && left.kind != factExpires {
			return nil, p.errf("\"%s's\" alone repeats the left side only after a fact such as \"W1's write is accepted\"", w)
		}
		// The repeat keeps what is done and its outcome, not the token
		// or the reason, which belong to the left side's worker.
		r := *left
		r.worker, r.wnode = w, p.node(w)
		r.token, r.reason = 0, engine.ReasonNone
		right = &r
	} else {
		right, err = p.fact()
		if err != nil {
			return nil, err
		}
	}
	return &orderNode{left: left, right: right, before: before, within: within}, nil
}

// within reads an optional "within D" before "after" or "before".
func (p *pparser) within() (engine.Time, error) {
	if !p.accept("within") {
		return 0, nil
	}
	if p.done() {
		return 0, p.errf("expected a duration such as 6s, got GOT")
	}
	d, err := engine.ParseTime(p.peek().text)
	if err != nil || d <= 0 {
		return 0, p.errf("expected a duration such as 6s, got GOT")
	}
	p.pos++
	return d, nil
}

// ellipsis reads "W's" followed by the end, a conjunction or ")".
func (p *pparser) ellipsis() (string, bool) {
	if p.pos+1 >= len(p.toks) || p.toks[p.pos+1].text != "'s" {
		return "", false
	}
	if p.pos+2 < len(p.toks) {
		switch p.toks[p.pos+2].text {
		case "and", "or", ")":
		default:
			return "", false
		}
	}
	w := p.toks[p.pos].raw
	if !slices.Contains(p.workers, w) {
		return "", false
	}
	p.pos += 2
	return w, true
}

type factKind uint8

const (
	factVerdict    factKind = iota + 1 // W's write ... is accepted|rejected
	factCheck                          // W's check passes|fails
	factExpires                        // W's lease expires
	factActs                           // W writes|sends|acts
	factAfterExp                       // W acts after its lease expired
	factAcquires                       // W acquires the lease
	factLoses                          // W loses the lease
	factCount                          // the KEY is sent twice
	factViolation                      // violation NAME [by W]
	factNoViolate                      // no violation [NAME]
	factRenews                         // W renews the lease
	factRenewFails                     // W's renewal fails
	factRolledBack                     // W's renewal is rolled back
	factStaleDrop                      // W drops a stale reply
	factUncertain                      // W becomes uncertain
	factGivesUp                        // W gives up
	factRefuses                        // W refuses work
	factDenied                         // W is denied the lease COUNT
	factFreezes                        // W freezes
	factCrashes                        // W crashes
	factLogToken                       // W's token is its grant's log index
	factTokenOrder                     // W gets a higher (lower) token than V
	factLeader                         // the coordinator changes leader
)

type fact struct {
	kind     factKind
	worker   string // "" for any
	wnode    engine.Node
	key      string // "" for any
	token    int64  // 0 for any
	accepted bool   // verdict, count: accepted rather than rejected; check: passes
	effect   int    // acts: 0 any, 1 put, 2 send
	reason   engine.Reason
	count    int64
	atLeast  bool
	harm     bool // violation, no violation: only the harmful ones
	// form narrows a verdict, a count or an act to a kind of write: any
	// but a write to a temporary name (formAny), the rename of a
	// temporary name onto the key (formRename), or the write to the
	// temporary name (formTemp).
	form writeKind
	// renews: the length the coordinator extended the lease by, at
	// least (forMin) or at most (forMax); 0 for any.
	forMin, forMax engine.Time
	// token order: the other worker, and whether the token is higher.
	other  string
	onode  engine.Node
	higher bool
}

// writeKind is which writes a fact is about (fact.form).
type writeKind uint8

const (
	formAny writeKind = iota
	formRename
	formTemp
)

// isForm reports whether a write, accept or reject is of the kind f asks
// about: a write to a temporary name only when f asks for one, since
// nothing reads it.
func (f *fact) isForm(e engine.Event) bool {
	switch f.form {
	case formRename:
		return e.Rename()
	case formTemp:
		return e.Temp()
	}
	return !e.Temp()
}

var violationNames = []string{"stale-write", "double-effect", "acted-after-expiry", "split-brain", "lost-update", "diverged", "refused-holder", "mixed", "double-grant", "token-reused"}

// byWorker reads an optional "by W" after a finding.
func (p *pparser) byWorker(f *fact) (*fact, error) {
	if p.accept("by") {
		w, err := p.worker()
		if err != nil {
			return nil, err
		}
		f.worker, f.wnode = w, p.node(w)
	}
	return f, nil
}

func (p *pparser) fact() (*fact, error) {
	if f, err := p.worldFact(); f != nil || err != nil {
		return f, err
	}
	w, err := p.worker()
	if err != nil {
		return nil, err
	}
	if p.accept("'s") {
		return p.possessive(w)
	}
	return p.workerFact(w)
}

// worldFact reads a fact about the whole run (a count, a violation, harm,
// none of them), or nothing when the words are not one.
func (p *pparser) worldFact() (*fact, error) {
	switch {
	case p.accept("the", "coordinator", "changes", "leader"):
		return &fact{kind: factLeader}, nil
	case p.accept("the"):
		return p.countFact()
	case p.accept("violation"):
		f := &fact{kind: factViolation}
		if err := p.violationName(f, true); err != nil {
			return nil, err
		}
		return p.byWorker(f)
	case p.accept("harm"):
		return p.byWorker(&fact{kind: factViolation, harm: true})
	case p.accept("no", "harm"):
		return &fact{kind: factNoViolate, harm: true}, nil
	case p.accept("no", "violation") || p.accept("no", "violations"):
		f := &fact{kind: factNoViolate}
		if !p.done() && !p.is("and") && !p.is("or") && !p.is(")") && !p.is("after") && !p.is("before") && !p.is("within") {
			if err := p.violationName(f, true); err != nil {
				return nil, err
			}
		}
		return f, nil
	}
	return nil, nil
}

// workerFact reads what worker w did: "W1 writes …", "W1 loses the lease".
func (p *pparser) workerFact(w string) (*fact, error) {
	f := &fact{worker: w, wnode: p.node(w)}
	switch {
	case p.accept("writes"), p.accept("sends"):
		f.kind = factActs
		f.effect = 1
		if p.toks[p.pos-1].text == "sends" {
			f.effect = 2
		}
		if !p.done() && !p.is("with") && !p.is("and") && !p.is("or") && !p.is(")") && !p.is("after") && !p.is("before") && !p.is("within") {
			f.key = p.peek().raw
			p.pos++
		}
		if err := p.withToken(f); err != nil {
			return nil, err
		}
		return f, nil
	case p.accept("acts"):
		if p.accept("after", "its", "lease", "expired") || p.accept("after", "its", "lease", "expires") {
			f.kind = factAfterExp
			return f, nil
		}
		f.kind = factActs
		return f, nil
	case p.accept("acquires", "the", "lease"), p.accept("gets", "the", "lease"):
		f.kind = factAcquires
		return f, p.withToken(f)
	case p.accept("gets", "token"):
		f.kind = factAcquires
		return f, p.number(&f.token)
	case p.accept("gets", "a", "higher", "token", "than"), p.accept("gets", "a", "lower", "token", "than"):
		f.kind, f.higher = factTokenOrder, p.toks[p.pos-3].text == "higher"
		o, err := p.worker()
		if err != nil {
			return nil, err
		}
		f.other, f.onode = o, p.node(o)
		return f, nil
	case p.accept("loses", "the", "lease"), p.accept("loses", "its", "lease"):
		f.kind = factLoses
		if p.accept("with", "token") {
			if err := p.number(&f.token); err != nil {
				return nil, err
			}
		}
		return f, p.because(f)
	case p.accept("renews", "the", "lease"), p.accept("renews", "its", "lease"):
		f.kind = factRenews
		if err := p.withToken(f); err != nil {
			return nil, err
		}
		return f, p.renewLength(f)
	case p.accept("freezes"):
		f.kind = factFreezes
		return f, nil
	case p.accept("crashes"):
		f.kind = factCrashes
		return f, nil
	case p.accept("becomes", "uncertain"):
		f.kind = factUncertain
		return f, p.because(f)
	case p.accept("gives", "up"):
		f.kind = factGivesUp
		return f, p.because(f)
	case p.accept("refuses", "work"):
		f.kind = factRefuses
		return f, nil
	case p.accept("drops", "a", "stale", "reply"):
		f.kind = factStaleDrop
		return f, nil
	case p.accept("is", "denied", "the", "lease"):
		f.kind = factDenied
		return f, p.howOften(f)
	}
	return nil, p.errf("after %s expected \"'s\", \"writes\", \"sends\", \"acts\", \"acquires the lease\", \"gets token N\", \"gets a higher token than W\", \"loses the lease\", \"renews the lease\", \"becomes uncertain\", \"gives up\", \"refuses work\", \"drops a stale reply\", \"is denied the lease\", \"freezes\" or \"crashes\", got GOT", w)
}

func (p *pparser) possessive(w string) (*fact, error) {
	f := &fact{worker: w, wnode: p.node(w)}
	switch {
	case p.accept("write"), p.accept("send"), p.accept("writes"), p.accept("sends"), p.accept("rename"), p.accept("temporary", "write"):
		f.kind = factVerdict
		switch p.toks[p.pos-1].text {
		case "rename":
			f.form = formRename
		case "write":
			if p.pos >= 2 && p.toks[p.pos-2].text == "temporary" {
				f.form = formTemp
			}
		}
		if p.accept("of") {
			if p.done() {
				return nil, p.errf("expected the key written, such as \"file\" or \"report\", got GOT")
			}
			f.key = p.peek().raw
			p.pos++
		}
		if err := p.withToken(f); err != nil {
			return nil, err
		}
		if err := p.expect("is"); err != nil {
			return nil, err
		}
		switch {
		case p.accept("accepted"):
			f.accepted = true
		case p.accept("rejected"):
			if err := p.because(f); err != nil {
				return nil, err
			}
		default:
			return nil, p.errf("expected \"accepted\" or \"rejected\", got GOT")
		}
		return f, nil
	case p.accept("token", "is", "its", "grant", "'s", "log", "index"):
		f.kind = factLogToken
		return f, nil
	case p.accept("check"):
		f.kind = factCheck
		switch {
		case p.accept("passes"):
			f.accepted = true
		case p.accept("fails"):
		default:
			return nil, p.errf("expected \"passes\" or \"fails\", got GOT")
		}
		return f, nil
	case p.accept("lease", "expires"):
		f.kind = factExpires
		return f, p.withToken(f)
	case p.accept("renewal", "fails"):
		f.kind = factRenewFails
		return f, p.because(f)
	case p.accept("renewal", "is", "rolled", "back"):
		f.kind = factRolledBack
		return f, nil
	}
	return nil, p.errf("after %s's expected \"write\", \"send\", \"rename\", \"temporary write\", \"check\", \"token is its grant's log index\", \"lease expires\", \"renewal fails\" or \"renewal is rolled back\", got GOT", w)
}

func (p *pparser) countFact() (*fact, error) {
	if p.done() || p.peek().text == "is" {
		return nil, p.errf("expected the key after \"the\", such as \"the report\", got GOT")
	}
	f := &fact{kind: factCount, key: p.peek().raw}
	p.pos++
	if err := p.expect("is"); err != nil {
		return nil, err
	}
	switch {
	case p.accept("sent"), p.accept("written"), p.accept("accepted"):
		f.accepted = true
	case p.accept("rejected"):
	default:
		return nil, p.errf("expected \"sent\", \"written\", \"accepted\" or \"rejected\", got GOT")
	}
	return f, p.howOften(f)
}

// howOften reads a COUNT: never, once, twice, N times, at least ....
func (p *pparser) howOften(f *fact) error {
	if p.accept("at", "least") {
		f.atLeast = true
	}
	switch {
	case !f.atLeast && p.accept("never"):
		f.count = 0
	case p.accept("once"):
		f.count = 1
	case p.accept("twice"):
		f.count = 2
	default:
		if err := p.number(&f.count); err != nil {
			return p.errf("expected how often: \"never\", \"once\", \"twice\", \"N times\" or \"at least ...\", got GOT")
		}
		if err := p.expect("times"); err != nil {
			return err
		}
	}
	return nil
}

func (p *pparser) worker() (string, error) {
	if p.done() {
		return "", p.errf("expected a worker name (one of %s), got GOT", strings.Join(p.workers, ", "))
	}
	t := p.peek()
	if !slices.Contains(p.workers, t.raw) {
		if len(p.workers) == 0 {
			return "", p.errf("unknown worker GOT: the scenario has no workers")
		}
		return "", p.errf("unknown worker GOT: the scenario's workers are %s", strings.Join(p.workers, ", "))
	}
	p.pos++
	return t.raw, nil
}

// node is a worker's place in the scenario, which is its engine.Node.
func (p *pparser) node(w string) engine.Node { return engine.Node(slices.Index(p.workers, w)) }

// renewLength reads an optional "for at least D" or "for at most D" after
// a renewal: how long the coordinator extended the lease by.
func (p *pparser) renewLength(f *fact) error {
	if !p.accept("for") {
		return nil
	}
	least := p.accept("at", "least")
	if !least && !p.accept("at", "most") {
		return p.errf("after \"for\" expected \"at least D\" or \"at most D\", got GOT")
	}
	if p.done() {
		return p.errf("expected a duration such as 6s, got GOT")
	}
	d, err := engine.ParseTime(p.peek().text)
	if err != nil || d <= 0 {
		return p.errf("expected a duration such as 6s, got GOT")
	}
	p.pos++
	if least {
		f.forMin = d
	} else {
		f.forMax = d
	}
	return nil
}

func (p *pparser) withToken(f *fact) error {
	if p.accept("with", "token") {
		return p.number(&f.token)
	}
	return nil
}

func (p *pparser) number(n *int64) error {
	if p.done() {
		return p.errf("expected a number, got GOT")
	}
	v, err := strconv.ParseInt(p.peek().text, 10, 64)
	if err != nil || v < 0 {
		return p.errf("expected a number, got GOT")
	}
	*n = v
	p.pos++
	return nil
}

func (p *pparser) because(f *fact) error {
	if !p.accept("because") {
		return nil
	}
	if p.done() {
		return p.errf("expected a reason such as stale-token after \"because\", got GOT")
	}
	r, ok := engine.ParseReason(p.peek().text)
	if !ok || r.IsViolation() {
		return p.errf("unknown reason GOT (for example stale-token, not-current, duplicate, rejected, expired, deadline)")
	}
	f.reason = r
	p.pos++
	return nil
}

func (p *pparser) violationName(f *fact, required bool) error {
	if p.done() {
		return p.errf("expected a violation: one of %s, got GOT", strings.Join(violationNames, ", "))
	}
	r, ok := engine.ParseReason(p.peek().text)
	if !ok || !r.IsViolation() {
		return p.errf("unknown violation GOT: want one of %s", strings.Join(violationNames, ", "))
	}
	f.reason = r
	p.pos++
	return nil
}

// Evaluation.

type pnode interface {
	eval(ev []engine.Event, names engine.Names) (bool, []int)
}

type andNode struct{ xs []pnode }
type orNode struct{ xs []pnode }
type notNode struct{ x pnode }
type orderNode struct {
	left, right *fact
	before      bool
	within      engine.Time // 0: any gap
}

func (n *andNode) eval(ev []engine.Event, names engine.Names) (bool, []int) {
	var all []int
	for _, x := range n.xs {
		ok, e := x.eval(ev, names)
		if !ok {
			return false, nil
		}
		all = append(all, e...)
	}
	return true, all
}

func (n *orNode) eval(ev []engine.Event, names engine.Names) (bool, []int) {
	for _, x := range n.xs {
		if ok, e := x.eval(ev, names); ok {
			return true, e
		}
	}
	return false, nil
}

func (n *notNode) eval(ev []engine.Event, names engine.Names) (bool, []int) {
	ok, _ := n.x.eval(ev, names)
	return !ok, nil
}

func (n *orderNode) eval(ev []engine.Event, names engine.Names) (bool, []int) {
	ls, rs := n.left.matches(ev, names), n.right.matches(ev, names)
	for _, l := range ls {
		for _, r := range rs {
			if n.inOrder(ev, l.main, r.main) {
				return true, append(append([]int(nil), l.evidence...), r.evidence...)
			}
		}
	}
	return false, nil
}

// inOrder reports whether the left fact's event l comes after (or before)
// the right one's r, within the node's gap when it has one.
func (n *orderNode) inOrder(ev []engine.Event, l, r int) bool {
	if n.before {
		l, r = r, l
	}
	if l <= r {
		return false
	}
	return n.within == 0 || ev[l].T-ev[r].T <= n.within
}

func (f *fact) eval(ev []engine.Event, names engine.Names) (bool, []int) {
	ms := f.matches(ev, names)
	switch f.kind {
	case factCount, factDenied:
		n := int64(len(ms))
		var all []int
		for _, m := range ms {
			all = append(all, m.evidence...)
		}
		if n == f.count || (f.atLeast && n > f.count) {
			return true, all
		}
		return false, nil
	case factNoViolate:
		return len(ms) == 0, nil
	}
	if len(ms) == 0 {
		return false, nil
	}
	return true, ms[0].evidence
}

type match struct {
	main     int   // the event that places the fact in time
	evidence []int // the events that show it, main included
}

func (f *fact) isWorker(n engine.Node) bool { return f.worker == "" || n == f.wnode }

// matches finds every event that makes the fact true, in log order.
// Workers are matched by name through the log's worker order, which is the
// scenario's; the predicate was compiled against the same names.
func (f *fact) matches(ev []engine.Event, names engine.Names) []match {
	var out []match
	for i, e := range ev {
		if m, ok := f.matchAt(ev, names, i, e); ok {
			out = append(out, m)
		}
	}
	return out
}

func (f *fact) matchAt(ev []engine.Event, names engine.Names, i int, e engine.Event) (match, bool) {
	tokenOK := f.token == 0 || e.Token == f.token
	keyOK := f.key == "" || names.Key(e.Key) == f.key
	switch f.kind {
	case factVerdict, factCount:
		return f.matchVerdict(ev, i, e, keyOK, tokenOK)
	case factCheck:
		if e.Kind != engine.KindCheck || !f.isWorker(e.Node) || (e.Reason() == engine.ReasonOK) != f.accepted {
			return match{}, false
		}
	case factExpires:
		if e.Kind != engine.KindExpire || !f.isWorker(e.Peer()) || !tokenOK {
			return match{}, false
		}
	case factActs:
		if e.Kind != engine.KindWrite || !f.isWorker(e.Node) || !keyOK || !tokenOK {
			return match{}, false
		}
		if (f.effect == 1 && e.Effect()) || (f.effect == 2 && !e.Effect()) {
			return match{}, false
		}
	case factAfterExp:
		if e.Kind != engine.KindViolation || e.Reason() != engine.ViolationActedAfterExpiry || !f.isWorker(e.Peer()) {
			return match{}, false
		}
		return violationMatch(ev, i, e), true
	case factAcquires:
		if e.Kind != engine.KindAcquired || !f.isWorker(e.Node) || !tokenOK {
			return match{}, false
		}
	case factLoses:
		if e.Kind != engine.KindLost || !f.isWorker(e.Node) || !tokenOK || (f.reason != engine.ReasonNone && e.Reason() != f.reason) {
			return match{}, false
		}
	case factRenews:
		if !f.renewsAt(e, tokenOK) {
			return match{}, false
		}
	case factFreezes:
		if e.Kind != engine.KindFreeze || !f.isWorker(e.Node) {
			return match{}, false
		}
	case factLogToken, factTokenOrder:
		return f.tokenMatch(ev, i, e)
	case factLeader:
		if e.Kind != engine.KindLeader {
			return match{}, false
		}
	case factCrashes:
		if e.Kind != engine.KindCrash || !f.isWorker(e.Node) {
			return match{}, false
		}
	case factRolledBack:
		if e.Kind != engine.KindRenewed || !f.isWorker(e.Node) || e.At >= e.Prev() {
			return match{}, false
		}
	case factRenewFails, factUncertain, factGivesUp:
		want := map[factKind]engine.Kind{factRenewFails: engine.KindRenewError, factUncertain: engine.KindUncertain, factGivesUp: engine.KindGiveUp}[f.kind]
		if e.Kind != want || !f.isWorker(e.Node) || (f.reason != engine.ReasonNone && e.Reason() != f.reason) {
			return match{}, false
		}
	case factDenied:
		if e.Kind != engine.KindDeny || !f.isWorker(e.Peer()) {
			return match{}, false
		}
	case factRefuses, factStaleDrop:
		want := map[factKind]engine.Kind{factRefuses: engine.KindRefuse, factStaleDrop: engine.KindStaleReply}[f.kind]
		if e.Kind != want || !f.isWorker(e.Node) {
			return match{}, false
		}
	case factViolation, factNoViolate:
		if e.Kind != engine.KindViolation || (f.reason != engine.ReasonNone && e.Reason() != f.reason) || (f.harm && !e.Reason().IsHarm()) || !f.isWorker(e.Peer()) {
			return match{}, false
		}
		return violationMatch(ev, i, e), true
	default:
		return match{}, false
	}
	return match{main: i, evidence: []int{i}}, true
}

// tokenMatch matches W's acquisition whose token is the index of its
// grant's entry in the coordinator's log (the grant's event says the
// index), or whose token is higher (lower) than one the other worker
// acquired before: the grant, or the other's acquisition, is evidence.
func (f *fact) tokenMatch(ev []engine.Event, i int, e engine.Event) (match, bool) {
	if e.Kind != engine.KindAcquired || !f.isWorker(e.Node) {
		return match{}, false
	}
	var j int
	if f.kind == factLogToken {
		j = lastBefore(ev, i, func(x engine.Event) bool {
			return x.Kind == engine.KindGrant && x.Peer() == e.Node && x.Token == e.Token
		})
		if j < 0 || ev[j].Reason() != engine.ReasonNone || ev[j].Value != e.Token {
			return match{}, false
		}
	} else {
		j = lastBefore(ev, i, func(x engine.Event) bool {
			return x.Kind == engine.KindAcquired && x.Node == f.onode && (x.Token < e.Token) == f.higher && x.Token != e.Token
		})
		if j < 0 {
			return match{}, false
		}
	}
	return match{main: i, evidence: []int{j, i}}, true
}

// renewsAt says whether e is the worker's renewal: with a length asked
// for, the coordinator's extension, which says how long the lease now runs.
func (f *fact) renewsAt(e engine.Event, tokenOK bool) bool {
	if f.forMin > 0 || f.forMax > 0 {
		d := e.At - e.T
		return e.Kind == engine.KindExtend && f.isWorker(e.Peer()) && tokenOK && e.At != engine.Never &&
			(f.forMin <= 0 || d >= f.forMin) && (f.forMax <= 0 || d <= f.forMax)
	}
	return e.Kind == engine.KindRenewed && f.isWorker(e.Node) && tokenOK
}

// matchVerdict matches the storage's verdict on a write, with the write
// (and, for a stale token, the accepted write that made it stale) as
// evidence.
func (f *fact) matchVerdict(ev []engine.Event, i int, e engine.Event, keyOK, tokenOK bool) (match, bool) {
	if f.kind == factCount && f.accepted != (e.Kind == engine.KindAccept) {
		return match{}, false
	}
	if (e.Kind != engine.KindAccept && e.Kind != engine.KindReject) || !keyOK || !tokenOK || !f.isWorker(e.Peer()) || !f.isForm(e) {
		return match{}, false
	}
	if f.kind == factVerdict && f.accepted != (e.Kind == engine.KindAccept) {
		return match{}, false
	}
	if f.reason != engine.ReasonNone && e.Reason() != f.reason {
		return match{}, false
	}
	m := match{main: i, evidence: []int{i}}
	if w := lastBefore(ev, i, func(x engine.Event) bool {
		return x.Kind == engine.KindWrite && x.Node == e.Peer() && x.Key == e.Key && x.Token == e.Token && x.Temp() == e.Temp() && x.Rename() == e.Rename() && x.Part() == e.Part()
	}); w >= 0 {
		m.evidence = append(m.evidence, w)
	}
	if e.Kind == engine.KindReject && e.Reason() == engine.ReasonStaleToken {
		if a := lastBefore(ev, i, func(x engine.Event) bool {
			return x.Kind == engine.KindAccept && x.Token == e.Value
		}); a >= 0 {
			m.evidence = append(m.evidence, a)
		}
	}
	return m, true
}

func violationMatch(ev []engine.Event, i int, e engine.Event) match {
	m := match{main: i, evidence: []int{i}}
	for _, r := range []int32{e.Ref(), e.Ref2()} {
		if r >= 0 && int(r) < len(ev) {
			m.evidence = append(m.evidence, int(r))
		}
	}
	return m
}

func lastBefore(ev []engine.Event, i int, ok func(engine.Event) bool) int {
	for j := i - 1; j >= 0; j-- {
		if ok(ev[j]) {
			return j
		}
	}
	return -1
}
