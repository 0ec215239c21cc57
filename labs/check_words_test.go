package labs

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"leaselab/catalog"
)

// sourceMessage is one English format of the Go source that an author
// may read in `leaselab check`'s output.
type sourceMessage struct {
	format, at string
}

// yamlPath is a fragment that names a key as the file writes it
// (controls.freeze, search kinds): the author's own words.
var yamlPath = regexp.MustCompile(`^[a-z][a-z0-9.-]*( kinds)?$`)

// checkMessages lists the formats `leaselab check` may say: the problems
// of this package (errorf, warnf, bad, missing; the words a YAML value is
// called by and what it wants: mapping, seq, str, knownKeys, words,
// parseCommands, commandWords, readTitle; the hints built with
// Sprintf in yaml.go, markdown.go and predicate.go, the predicate's
// errors) and the errors of the engine a problem quotes (the scenario,
// its options and durations, presets, challenges, searches, what-ifs).
func checkMessages(t *testing.T) []sourceMessage {
	t.Helper()
	files, _ := filepath.Glob("*.go")
	engineFiles := []string{"scenario.go", "time.go", "presets.go", "challenge.go", "search.go", "leader_change.go", "fork.go", "errors.go"}
	for _, f := range engineFiles {
		files = append(files, filepath.Join("..", "engine", f))
	}
	fset := token.NewFileSet()
	var out []sourceMessage
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "program_stream.go" || f == "search_stream.go" {
			continue // _stream.go: reading a judgement's or search's own result, no author's
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		inEngine := strings.HasPrefix(f, "..")
		base := filepath.Base(f)
		lit := func(e ast.Expr) (string, bool) {
			bl, ok := e.(*ast.BasicLit)
			if !ok || bl.Kind != token.STRING {
				return "", false
			}
			s, err := strconv.Unquote(bl.Value)
			return s, err == nil
		}
		add := func(e ast.Expr) {
			if s, ok := lit(e); ok && s != "" {
				out = append(out, sourceMessage{s, fset.Position(e.Pos()).String()})
			}
		}
		ast.Inspect(af, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				// yamlHint's hints are returned whole.
				if n.Name.Name == "yamlHint" {
					ast.Inspect(n.Body, func(m ast.Node) bool {
						if r, ok := m.(*ast.ReturnStmt); ok && len(r.Results) == 1 {
							add(r.Results[0])
						}
						return true
					})
				}
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "PredicateError" && len(n.Elts) == 2 {
					add(n.Elts[1])
				}
			case *ast.CallExpr:
				name := ""
				switch fn := n.Fun.(type) {
				case *ast.SelectorExpr:
					name = fn.Sel.Name
					if x, ok := fn.X.(*ast.Ident); ok && (x.Name == "fmt" || x.Name == "errors") {
						name = x.Name + "." + name
					}
				case *ast.Ident:
					name = fn.Name
				}
				arg := -1
				switch {
				case inEngine && (name == "fmt.Errorf" || name == "errors.New"):
					arg = 0
				case inEngine && base == "errors.go" && name == "fmt.Sprintf":
					arg = 0
				case inEngine:
				case name == "errorf" || name == "warnf" || name == "bad" || name == "missing" || name == "mapping" || name == "seq" || name == "str":
					arg = 1
				case name == "knownKeys" || name == "parseCommands" || name == "causedBy" || name == "words" || name == "durations" || name == "flag":
					arg = 2
				case name == "readTitle":
					arg = 3
				case name == "commandWords":
					arg = 4
				case name == "fmt.Errorf" || name == "errors.New" || name == "errf" || name == "report":
					arg = 0
				case name == "fmt.Sprintf" && (base == "yaml.go" || base == "markdown.go" || base == "predicate.go"):
					arg = 0
				}
				if arg >= 0 && arg < len(n.Args) {
					add(n.Args[arg])
				}
			}
			return true
		})
	}
	return out
}

// TestCheckSpeaksIndonesian: every format `leaselab check` may say (see
// checkMessages) has its Indonesian, with the same verbs; a key's name as
// the file writes it stays as it is.
func TestCheckSpeaksIndonesian(t *testing.T) {
	msgs := checkMessages(t)
	if len(msgs) < 250 {
		t.Fatalf("found %d messages in the source; the scan is broken", len(msgs))
	}
	var missing []string
	seen := map[string]bool{}
	for _, m := range msgs {
		if seen[m.format] || yamlPath.MatchString(m.format) {
			continue
		}
		seen[m.format] = true
		id, ok := catalog.MessageFormat("id", m.format)
		if !ok {
			missing = append(missing, fmt.Sprintf("%s: %q", m.at, m.format))
			continue
		}
		if a, b := verbLetters(m.format), verbLetters(id); a != b {
			t.Errorf("%s: %q has verbs %s, its Indonesian %q has %s", m.at, m.format, a, id, b)
		}
		if words := catalog.Untranslated("id", quotedOut(id)); len(words) > 0 {
			t.Errorf("%s: the Indonesian of %q has English: %q", m.at, m.format, words)
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no Indonesian for %s", m)
	}
}

var (
	anyVerb = regexp.MustCompile(`%(?:\[\d+\])?[-+# 0]*\d*(?:\.\d+)?[a-zA-Z%]`)
	quoted  = regexp.MustCompile("\"[^\"]*\"|`[^`]*`|%(?:\\[\\d+\\])?q")
)

// verbLetters is format's verbs, sorted: a translation may reorder them.
func verbLetters(format string) string {
	var vs []string
	for _, v := range anyVerb.FindAllString(format, -1) {
		if v != "%%" {
			vs = append(vs, v[len(v)-1:])
		}
	}
	sort.Strings(vs)
	return strings.Join(vs, "")
}

// quotedOut is s without what it quotes: the author's words and syntax.
func quotedOut(s string) string { return quoted.ReplaceAllString(s, " ") }

var pathRE = regexp.MustCompile(`\S*/\S*`)

// authorsOut is s without what the author wrote: quotes, paths and the
// course's ids (its labs, lessons, questions, choices and goals).
func authorsOut(s string, ids []string) string {
	s = pathRE.ReplaceAllString(quotedOut(s), " ")
	for _, id := range ids {
		s = regexp.MustCompile(`(^|[^\w-])`+regexp.QuoteMeta(id)+`($|[^\w-])`).ReplaceAllString(s, "$1 $2")
	}
	return s
}

// courseIDs are the ids of the course m holds.
func courseIDs(t *testing.T, m fstest.MapFS) []string {
	t.Helper()
	c, err := loadCopy(m)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range c.Lessons {
		ids = append(ids, l.ID)
	}
	for _, l := range c.Labs {
		ids = append(ids, l.ID)
		for _, q := range l.Questions {
			ids = append(ids, q.ID)
			for _, ch := range q.Choices {
				ids = append(ids, ch.ID)
			}
		}
		for _, g := range l.Goals {
			ids = append(ids, g.ID)
		}
	}
	// The longest first, so that none is cut by a shorter one inside it.
	sort.Slice(ids, func(i, j int) bool { return len(ids[i]) > len(ids[j]) })
	return ids
}
