package engine

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The engine is a pure, deterministic state machine: same scenario, seed and
// commands give the same events on every machine. That only holds while the
// package cannot reach a real clock, the network, the file system, a
// goroutine scheduler or an unseeded random source. These tests hold the
// line by reading the package's own source.

// pureImports are the only packages the engine's non-test files may import.
// Everything here is computation on values: no clock, no I/O, no
// scheduling, no global randomness.
var pureImports = map[string]bool{
	"errors":       true,
	"fmt":          true,
	"strconv":      true,
	"strings":      true,
	"math":         true,
	"math/bits":    true,
	"slices":       true,
	"sort":         true,
	"unicode":      true,
	"unicode/utf8": true,
	"cmp":          true,
	"maps":         true,
}

// wallClock lists the functions of package time that read or wait on the
// real clock. time itself is not on the allowlist; these are named
// separately so that the report says exactly what is wrong.
var wallClock = map[string]bool{
	"Now": true, "Since": true, "Until": true, "Sleep": true,
	"After": true, "AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true,
}

// purityOffences returns one line per offence in files, as "file:line: what".
func purityOffences(fset *token.FileSet, files []*ast.File) []string {
	var out []string
	report := func(p token.Pos, format string, args ...any) {
		pos := fset.Position(p)
		out = append(out, filepath.Base(pos.Filename)+":"+strconv.Itoa(pos.Line)+": "+fmt.Sprintf(format, args...))
	}
	for _, f := range files {
		// Local names under which the file sees package time.
		timeNames := map[string]bool{}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				report(imp.Pos(), "unreadable import %s", imp.Path.Value)
				continue
			}
			if !pureImports[path] {
				report(imp.Pos(), "imports %q, which is not on the pure allowlist", path)
			}
			if path == "time" {
				name := "time"
				if imp.Name != nil {
					name = imp.Name.Name
				}
				timeNames[name] = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				report(n.Pos(), "go statement starts a goroutine")
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				if ok && timeNames[x.Name] && wallClock[sel.Sel.Name] {
					report(n.Pos(), "calls time.%s, the real clock", sel.Sel.Name)
				}
			}
			return true
		})
	}
	return out
}

func TestEnginePurity(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		if f.Name.Name != "engine" {
			continue // a file for another package (say, package main with a build tag) is not the engine
		}
		files = append(files, f)
	}
	if len(files) < 5 {
		t.Fatalf("found only %d engine source files; is the test running in the engine directory?", len(files))
	}
	for _, o := range purityOffences(fset, files) {
		t.Errorf("engine is not pure: %s", o)
	}
}

// TestPurityCheckerCatches proves the checker can fail: a snippet with each
// kind of offence must be reported once per offence, at the right line.
func TestPurityCheckerCatches(t *testing.T) {
	const src = `package engine

import (
	"os"
	"strings"
	clock "time"
	"github.com/example/thing"
)

func f() {}

func bad() {
	go f()
	_ = clock.Now()
	clock.Sleep(1)
	_ = os.Args
	_ = strings.Fields
	_ = thing.X
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := purityOffences(fset, []*ast.File{f})
	want := []string{
		`bad.go:4: imports "os", which is not on the pure allowlist`,
		`bad.go:6: imports "time", which is not on the pure allowlist`,
		`bad.go:7: imports "github.com/example/thing", which is not on the pure allowlist`,
		`bad.go:13: go statement starts a goroutine`,
		`bad.go:14: calls time.Now, the real clock`,
		`bad.go:15: calls time.Sleep, the real clock`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("checker reported:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A clean file reports nothing.
	const clean = `package engine

import (
	"fmt"
	"strings"
)

func ok() string { return fmt.Sprint(strings.ToUpper("x")) }
`
	g, err := parser.ParseFile(fset, "clean.go", clean, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	if got := purityOffences(fset, []*ast.File{g}); len(got) != 0 {
		t.Errorf("clean snippet reported: %v", got)
	}
}
