package program

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"leaselab/catalog"
	"leaselab/engine"
)

func start(t *testing.T, c *Compiled) error {
	t.Helper()
	_, err := c.Start().Handle(engine.Moment{Kind: engine.MomentStart})
	return err
}

// Values that expand when used whole are refused before the work starts,
// at their line: the size checks bound what a value expands to, not only
// its own length (issue 51: a 99-byte program asked for 69 GB).
func TestExpansionRefused(t *testing.T) {
	const big = "    l = [\"x\"*4096]*4096\n" // line 2: 4,096 references to one text
	for _, tc := range []struct {
		name, line, code string
	}{
		{"str", "s = str([l]*4096)", "size-weight"},
		{"repr", "s = repr([l]*4096)", "size-weight"},
		{"print", "print([l]*4096)", "size-weight"},
		{"format", "s = \"%s\" % ([l]*4096,)", "size-weight"},
		{"compare", "s = [l]*4096 == [l]*4096", "size-weight"},
		{"in", "s = \"y\" in [l]*4096", "size-weight"},
		{"key", "d = {tuple(l): 1}", "size-weight"},
		{"sorted", "s = sorted([l]*4096)", "size-weight"},
		{"index", "s = ([l]*4096).index(1)", "size-weight"},
		{"repeat text", "s = l[0] * 4096", "size-value"},
		{"concat", "s = l + l", "size-value"},
		{"state", "w.state[\"x\"] = [l]*4096", "size-value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustCompile(t, "def on_start(w, ev):\n"+big+"    "+tc.line+"\n")
			e := wantCode(t, start(t, c), tc.code, 0)
			if tc.code == "size-weight" && e.Line != 3 {
				t.Fatalf("refused at line %d, want 3", e.Line)
			}
		})
	}
}

// A builtin pays for its work in steps: one sort of 4,096 numbers is more
// than a handler call's 10,000, though it is one instruction; sorting 256
// numbers costs their number times the halvings of it.
func TestBuiltinsPayForTheirWork(t *testing.T) {
	c := mustCompile(t, "def on_start(w, ev):\n    l = list(range(4096))\n    s = sorted(l)\n")
	wantCode(t, start(t, c), "steps-call", 3)

	cheap := mustCompile(t, "def on_start(w, ev):\n    l = list(range(256))\n")
	sorts := mustCompile(t, "def on_start(w, ev):\n    l = list(range(256))\n    s = sorted(l)\n")
	if err := start(t, cheap); err != nil {
		t.Fatal(err)
	}
	if err := start(t, sorts); err != nil {
		t.Fatal(err)
	}
	if d := sorts.Spent() - cheap.Spent(); d < 256*8 {
		t.Fatalf("a sort of 256 numbers cost %d steps, want at least %d", d, 256*8)
	}
}

// Spreading a list into a function's arguments pays for the copy: a
// handler that spreads 4,096 elements in a loop runs out of steps in a
// few rounds, not after 10,000 of them.
func TestSpreadPays(t *testing.T) {
	c := mustCompile(t, "def f(*a):\n    pass\ndef on_start(w, ev):\n    l = list(range(4096))\n    for i in range(1000):\n        f(*l)\n")
	wantCode(t, start(t, c), "steps-call", 6)
	if line, _ := c.HotLine(); line != 6 {
		t.Fatalf("hot line %d, want 6", line)
	}
}

// HotLine names the line that took the most steps, counted as the
// interpreter steps (not by time): the same for every run.
func TestHotLine(t *testing.T) {
	for _, tc := range []struct {
		src  string
		line int32
	}{
		{"def on_start(w, ev):\n    x = 0\n    for i in range(100):\n        x = x + i\n    s = sorted(list(range(300)))\n", 5},
		{"def on_start(w, ev):\n    x = 0\n    for i in range(800):\n        x = x + i\n    s = sorted(list(range(30)))\n", 3},
	} {
		var first uint64
		for i := range 2 {
			c := mustCompile(t, tc.src)
			if err := start(t, c); err != nil {
				t.Fatal(err)
			}
			line, n := c.HotLine()
			if line != tc.line {
				t.Fatalf("hot line %d (%d steps), want %d", line, n, tc.line)
			}
			if i == 1 && n != first {
				t.Fatalf("hot line took %d steps, then %d", first, n)
			}
			first = n
		}
	}
}

// A budget shared by every run stops them all once spent, and Stop stops
// them at once.
func TestBudgetAndStop(t *testing.T) {
	c := mustCompile(t, "def on_start(w, ev):\n    for i in range(1000):\n        pass\n")
	c.Budget(10000) // a run takes about 6,000
	for i := range 2 {
		if err := start(t, c); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	e := wantCode(t, start(t, c), "steps-total", 0)
	if e.Arg != "10000" {
		t.Fatalf("arg %q", e.Arg)
	}
	d := mustCompile(t, "def on_start(w, ev):\n    pass\n")
	d.Stop()
	wantCode(t, start(t, d), "stopped", 0)
}

// An error's words quote at most a few hundred bytes of what the program
// built: a page shows them.
func TestErrorDetailIsClipped(t *testing.T) {
	c := mustCompile(t, "def on_start(w, ev):\n    d = {}\n    x = d[\"é\" * 1500]\n")
	e := wantCode(t, start(t, c), "runtime", 3)
	if len(e.Detail) > maxDetail+len("…") {
		t.Fatalf("detail of %d bytes", len(e.Detail))
	}
}

// Every code a program error can carry has its words in every language:
// the codes are read from the source of the packages that make them.
func TestEveryErrorHasText(t *testing.T) {
	codes := map[string]bool{}
	for _, dir := range []string{".", "../labsession"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			for _, c := range errorCodes(t, f) {
				codes[c] = true
			}
		}
	}
	for _, c := range []string{"action-denied", "actions"} { // actionRefused's
		codes[c] = true
	}
	if len(codes) < 15 {
		t.Fatalf("found only %d codes: %v", len(codes), codes)
	}
	for _, lang := range catalog.Langs() {
		for c := range codes {
			if _, ok := catalog.Lookup(lang, "program.err."+c); !ok {
				t.Errorf("%s: no text for program.err.%s", lang, c)
			}
		}
		for _, c := range []string{"key", "tag", "at", "timers", "kind"} { // engine.ActionError's
			if _, ok := catalog.Lookup(lang, "program.act."+c); !ok {
				t.Errorf("%s: no text for program.act.%s", lang, c)
			}
		}
	}
}

// errorCodes reads the codes a file gives program errors: Code: "x" in a
// composite literal, and e.Code = "x" (or e.Code, e.Arg = "x", ...).
func errorCodes(t *testing.T, file string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	str := func(e ast.Expr) {
		if l, ok := e.(*ast.BasicLit); ok && l.Kind == token.STRING {
			s, _ := strconv.Unquote(l.Value)
			out = append(out, s)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.KeyValueExpr:
			if id, ok := x.Key.(*ast.Ident); ok && id.Name == "Code" {
				str(x.Value)
			}
		case *ast.AssignStmt:
			for i, l := range x.Lhs {
				if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == "Code" && i < len(x.Rhs) {
					str(x.Rhs[i])
				}
			}
		}
		return true
	})
	return out
}

// A name w or ev does not have is said in the student's words, with the
// name they most likely meant; getattr with a default still answers it.
func TestAttrTypoHinted(t *testing.T) {
	c := mustCompile(t, "def on_start(w, ev):\n    x = getattr(w, 'nope', 3)\n    w.aquire()\n")
	e := wantCode(t, start(t, c), "attr", 3)
	if e.Arg != "w.aquire" || e.Hint != "acquire" {
		t.Fatalf("arg %q hint %q", e.Arg, e.Hint)
	}
	if d := Describe(e, "id"); !strings.Contains(d, "w.aquire tidak ada (maksudmu .acquire?)") {
		t.Fatalf("id: %q", d)
	}
	c = mustCompile(t, "def on_start(w, ev):\n    x = ev.zzzzzz\n")
	if e := wantCode(t, start(t, c), "attr", 2); e.Hint != "" {
		t.Fatalf("a hint for a name far from every name: %q", e.Hint)
	}
}
