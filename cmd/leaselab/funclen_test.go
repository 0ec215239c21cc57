package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the most lines a function of the short rooms may span,
// from its first line to its closing brace (issue 22): past it, a
// function is split into steps with names.
const maxFuncLines = 80

// shortRooms are the packages held to maxFuncLines: every package with
// Go code of its own (issue 47; cmd/testsummary's functions fit too).
var shortRooms = []string{"engine", "labs", "draw", "live", "budget", "labsession", "program", "class", "cmd/leaselab", "catalog", "classroom", "web", "load"}

// TestNoLongFunctions fails on any function or function literal of the
// short rooms' own code (tests and generated files aside) longer than
// maxFuncLines, naming it with its file and line.
func TestNoLongFunctions(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	for _, room := range shortRooms {
		files, err := filepath.Glob(filepath.Join("..", "..", room, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", room, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_templ.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				what := ""
				switch fn := n.(type) {
				case *ast.FuncDecl:
					if fn.Body == nil {
						return true
					}
					what = fn.Name.Name
				case *ast.FuncLit:
					what = "a function literal"
				default:
					return true
				}
				checked++
				from, to := fset.Position(n.Pos()), fset.Position(n.End())
				if lines := to.Line - from.Line + 1; lines > maxFuncLines {
					rel, _ := filepath.Rel(filepath.Join("..", ".."), from.Filename)
					t.Errorf("%s:%d: %s is %d lines long, more than %d: split it into named steps", rel, from.Line, what, lines, maxFuncLines)
				}
				return true
			})
		}
	}
	if checked < 500 {
		t.Errorf("only %d functions checked: the rooms were not found", checked)
	}
	checkJSFunctions(t, filepath.Join("..", "..", "static"))
}
