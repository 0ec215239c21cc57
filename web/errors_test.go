package web

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"leaselab/catalog"
	"leaselab/class"
)

// errorKeysIn reads the Go files (not the tests) of the package in dir
// and returns every catalog key they give an error or an error page, with
// where: a key: or title: field of a composite literal (pageError,
// joinRefusal, ...), the first value of an unkeyed searchError, webError
// or wireError, a string assigned to a .key or .title, and what a Key
// method returns.
func errorKeysIn(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	keys := map[string]string{}
	add := func(e ast.Expr) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		k, err := strconv.Unquote(lit.Value)
		if err != nil || !strings.Contains(k, ".") || strings.ContainsAny(k, " :/") {
			return
		}
		keys[k] = fset.Position(lit.Pos()).String()
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && slices.Contains([]string{"searchError", "webError", "wireError"}, id.Name) && len(n.Elts) > 0 {
					if _, keyed := n.Elts[0].(*ast.KeyValueExpr); !keyed {
						add(n.Elts[0])
					}
				}
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if id, ok := kv.Key.(*ast.Ident); ok && (id.Name == "key" || id.Name == "title") {
							add(kv.Value)
						}
					}
				}
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					if sel, ok := l.(*ast.SelectorExpr); ok && (sel.Sel.Name == "key" || sel.Sel.Name == "title") && i < len(n.Rhs) && len(n.Lhs) == len(n.Rhs) {
						add(n.Rhs[i])
					}
				}
			case *ast.FuncDecl:
				if n.Recv != nil && n.Name.Name == "Key" && n.Body != nil {
					ast.Inspect(n.Body, func(m ast.Node) bool {
						if r, ok := m.(*ast.ReturnStmt); ok && len(r.Results) == 1 {
							add(r.Results[0])
						}
						return true
					})
				}
			}
			return true
		})
	}
	return keys
}

// TestEveryErrorHasText: every error the web layer (pages, forms,
// streams, the live socket it hands to package live, the work budgets)
// and the class layer can give a student is a catalog key with a text of
// its own in every language: found in the source, not listed by hand, so
// a new error without words fails here. The program.err.* texts of
// written workers are the program package's. Each error package class
// declares is said in words: classErr turns it into a page error with a
// text, or a handler of this package tests for it (errors.Is) and says
// it in its own words, whose keys the scan above found.
func TestEveryErrorHasText(t *testing.T) {
	keys := map[string]string{}
	for _, dir := range []string{".", "../live", "../budget", "../class", "../labsession"} {
		for k, at := range errorKeysIn(t, dir) {
			keys[k] = at
		}
	}
	for _, must := range []string{"class.unavailable", "err.busy", "err.answer.long", "err.search.stopped", "busy.text", "busy.title", "err.too-many", "class.noclass.title"} {
		if _, ok := keys[must]; !ok {
			t.Errorf("the scan of the source missed %q: it finds too little to be trusted", must)
		}
	}
	langs := catalog.Langs()
	if !slices.Contains(langs, "id") || !slices.Contains(langs, "en") {
		t.Fatalf("catalog languages %v, want id and en among them", langs)
	}
	has := map[string]map[string]bool{}
	for _, l := range langs {
		has[l] = map[string]bool{}
		for _, k := range catalog.Keys(l) {
			has[l][k] = true
		}
	}
	n := 0
	for k, at := range keys {
		if strings.HasPrefix(k, "program.err.") {
			continue
		}
		n++
		for _, l := range langs {
			if !has[l][k] {
				t.Errorf("%s: error text %q has no %s text", at, k, l)
			}
		}
	}
	t.Logf("%d error texts, each in %v", n, langs)

	// The class package's errors, each as classErr says it, or handled
	// by name where it can happen.
	handled := handledClassErrors(t)
	classErrs := map[string]error{
		"ErrUnavailable": class.ErrUnavailable, "ErrNoClass": class.ErrNoClass, "ErrEnded": class.ErrEnded,
		"ErrNotJoined": class.ErrNotJoined, "ErrNoKey": class.ErrNoKey, "ErrClassFull": class.ErrClassFull,
		"ErrNoRound": class.ErrNoRound, "ErrRoundClosed": class.ErrRoundClosed, "ErrRoundLimit": class.ErrRoundLimit,
		"ErrBadChoice": class.ErrBadChoice, "ErrBadInput": class.ErrBadInput,
		// ErrBadInput too: said as it at least, in words of its own where
		// a handler tests for them.
		"ErrNIMRequired": class.ErrNIMRequired, "ErrNIMTaken": class.ErrNIMTaken, "ErrNIMBad": class.ErrNIMBad,
	}
	// Not a student's: the server refuses to start on a database a newer
	// leaselab wrote.
	startOnly := []string{"ErrNewerSchema"}
	for _, name := range declaredErrors(t, "../class") {
		if slices.Contains(startOnly, name) {
			continue
		}
		err, ok := classErrs[name]
		if !ok {
			if !handled[name] {
				t.Errorf("class.%s is neither in this test's table (classErr) nor tested for by a handler of this package: say how a student reads it", name)
			}
			continue
		}
		var pe *pageError
		if !errors.As(classErr("id", err, "ABC123"), &pe) {
			t.Errorf("class.%s: classErr gives no page error, so a student reads a server error", name)
			continue
		}
		for _, l := range langs {
			if !has[l][pe.key] {
				t.Errorf("class.%s: its text %q has no %s text", name, pe.key, l)
			}
		}
	}
}

// declaredErrors lists the package-level Err… variables of the package
// in dir.
func declaredErrors(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	fset := token.NewFileSet()
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, sp := range g.Specs {
				for _, id := range sp.(*ast.ValueSpec).Names {
					if strings.HasPrefix(id.Name, "Err") {
						out = append(out, id.Name)
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no Err variables found in %s", dir)
	}
	return out
}

// handledClassErrors are the class errors this package's handlers test
// for by name: errors.Is(err, class.ErrX).
func handledClassErrors(t *testing.T) map[string]bool {
	t.Helper()
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	out := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 2 {
				return true
			}
			if fn, ok := call.Fun.(*ast.SelectorExpr); !ok || fn.Sel.Name != "Is" {
				return true
			}
			if sel, ok := call.Args[1].(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "class" {
					out[sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	return out
}
