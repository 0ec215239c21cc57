package catalog

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"leaselab/engine"
)

// Every kind of the engine's command table has words in the catalog.
func TestEveryCommandHasWords(t *testing.T) {
	for _, k := range engine.Commands() {
		if commandWords[k] == nil {
			t.Errorf("the catalog has no words for %q commands", k.Word())
		}
	}
	if len(commandWords) != len(engine.Commands()) {
		t.Errorf("the catalog says %d kinds of command, the engine has %d", len(commandWords), len(engine.Commands()))
	}
}

// Every refusal the engine declares (its Refusal constants, read from its
// source so a new one cannot be forgotten here) has a text in every
// language.
func TestEveryRefusalHasText(t *testing.T) {
	fs := token.NewFileSet()
	f, err := parser.ParseFile(fs, "../engine/errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		vs, ok := node.(*ast.ValueSpec)
		if !ok || vs.Type == nil || fmt.Sprint(vs.Type) != "Refusal" {
			return true
		}
		for _, v := range vs.Values {
			lit, ok := v.(*ast.BasicLit)
			if !ok {
				continue
			}
			key := "err." + strings.Trim(lit.Value, `"`)
			n++
			for _, lang := range Langs() {
				if _, ok := texts[lang][key]; !ok {
					t.Errorf("%s has no text for the engine's refusal %s", lang, key)
				}
			}
		}
		return true
	})
	if n < 30 {
		t.Fatalf("found %d refusals in engine/errors.go; the test no longer reads them", n)
	}
}

// A link change names the parts of the delay it adds, in each language's
// own units: a what-if list once read "jalur H→koordinator:" and stopped.
func TestLinkPartsHaveWords(t *testing.T) {
	for _, tt := range []struct{ lang, cmd, want string }{
		{"id", "link H->coord dns=400ms", "jalur H→koordinator: DNS +400 ms"},
		{"id", "link H->coord proxy=1500ms", "jalur H→koordinator: antrean proxy +1,5 dtk"},
		{"en", "link H->coord connect=300ms", "connect"},
	} {
		if got := CommandText(tt.lang, tt.cmd); !strings.Contains(got, tt.want) {
			t.Errorf("%s %q: %q, want %q in it", tt.lang, tt.cmd, got, tt.want)
		}
	}
}
