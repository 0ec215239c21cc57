package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// updateDocs rewrites the generated blocks of README.md and
// docs/architecture.md from the tree (issue 47): go test ./cmd/leaselab
// -run TestDocsFromTree -update-docs.
var updateDocs = flag.Bool("update-docs", false, "rewrite README.md's package table and docs/architecture.md's sizes from the tree")

// room is one package of the module as the docs describe it.
type room struct {
	dir, what    string
	lines, tests int // hand-written lines: own code, and its tests
}

// TestDocsFromTree: the README's table of what is here and
// docs/architecture.md's sizes are written from the tree, each between
// a pair of marker comments. The README's table must name every package
// with its doc comment's first phrase, exactly; the sizes must be
// within a point of each room's share and 5 % of the total, so that a
// new room, a changed doc comment or a room that grew a lot fails here,
// and an ordinary change does not.
func TestDocsFromTree(t *testing.T) {
	rooms := treeRooms(t)
	root := filepath.Join("..", "..")
	table := packageTable(rooms)
	sizes := sizesBlock(rooms)
	readme := filepath.Join(root, "README.md")
	arch := filepath.Join(root, "docs", "architecture.md")
	if *updateDocs {
		rewriteBlock(t, readme, "packages", table)
		rewriteBlock(t, arch, "sizes", sizes)
		return
	}
	const how = "go test ./cmd/leaselab -run TestDocsFromTree -update-docs"
	if got := readBlock(t, readme, "packages"); got != table {
		t.Errorf("README.md's package table is stale; run %s. Want:\n%s", how, table)
	}
	got := readBlock(t, arch, "sizes")
	stated := statedShares(got)
	total := 0
	for _, r := range rooms {
		total += r.lines
	}
	for _, r := range rooms {
		share := 100 * float64(r.lines) / float64(total)
		s, ok := stated[r.dir]
		if !ok || share-s > 1 || s-share > 1 {
			t.Errorf("docs/architecture.md says %s holds %v %% of the lines, the tree %.1f %%; run %s", r.dir, s, share, how)
		}
	}
	if n := stated["total"]; float64(total) > n*1.05 || float64(total) < n*0.95 {
		t.Errorf("docs/architecture.md says %v lines in all, the tree has %d; run %s", n, total, how)
	}
	if len(stated) != len(rooms)+1 {
		t.Errorf("docs/architecture.md names %d rooms, the tree has %d; run %s", len(stated)-1, len(rooms), how)
	}
}

// treeRooms lists the module's packages with their doc comments and line
// counts, as go list sees them.
func treeRooms(t *testing.T) []room {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goCmd, "list", "-f", "{{.Dir}}\t{{.Doc}}", "leaselab/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	var rooms []room
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, doc, _ := strings.Cut(line, "\t")
		rel, _ := filepath.Rel(root, dir)
		r := room{dir: filepath.ToSlash(rel), what: firstPhrase(doc)}
		r.lines, r.tests = countLines(t, dir)
		if r.what == "" {
			t.Errorf("%s has no package doc comment to describe it by", r.dir)
		}
		rooms = append(rooms, r)
	}
	slices.SortFunc(rooms, func(a, b room) int { return strings.Compare(a.dir, b.dir) })
	return rooms
}

var issueRef = regexp.MustCompile(` \(issues? [0-9, and]+\)`)

// firstPhrase is a doc comment's first sentence, without "Package x "
// or "Command x " and without issue numbers.
func firstPhrase(doc string) string {
	doc = issueRef.ReplaceAllString(doc, "")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i]
	}
	doc = strings.TrimRight(strings.TrimSpace(doc), ".:")
	if f := strings.Fields(doc); len(f) > 2 && (f[0] == "Package" || f[0] == "Command") {
		doc = strings.Join(f[2:], " ")
	}
	return doc
}

// countLines counts a package folder's hand-written lines, .go and .templ
// (generated _templ.go files left out), its own and its tests'.
func countLines(t *testing.T, dir string) (own, tests int) {
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, name := range names {
		if !(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".templ")) || strings.HasSuffix(name, "_templ.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		n := strings.Count(string(b), "\n")
		if strings.HasSuffix(name, "_test.go") {
			tests += n
		} else {
			own += n
		}
	}
	return own, tests
}

// packageTable is the README's table of the packages.
func packageTable(rooms []room) string {
	var b strings.Builder
	b.WriteString("| folder | what it is |\n|---|---|\n")
	for _, r := range rooms {
		fmt.Fprintf(&b, "| `%s/` | %s |\n", r.dir, r.what)
	}
	b.WriteString("| `docs/` | the pages above |\n")
	return b.String()
}

// sizesBlock is architecture.md's table of the rooms' sizes.
func sizesBlock(rooms []room) string {
	total, all := 0, 0
	for _, r := range rooms {
		total += r.lines
		all += r.lines + r.tests
	}
	var b strings.Builder
	b.WriteString("| room | lines | share | with its tests |\n|---|---:|---:|---:|\n")
	byShare := slices.Clone(rooms)
	slices.SortStableFunc(byShare, func(a, b room) int { return b.lines - a.lines })
	for _, r := range byShare {
		fmt.Fprintf(&b, "| `%s` | %d | %.1f %% | %.1f %% |\n", r.dir, r.lines,
			100*float64(r.lines)/float64(total), 100*float64(r.lines+r.tests)/float64(all))
	}
	fmt.Fprintf(&b, "| total | %d | | %d |\n", total, all)
	return b.String()
}

// statedShares reads a sizes block back: each room's share, and "total".
func statedShares(block string) map[string]float64 {
	row := regexp.MustCompile("^\\| `([^`]+)` \\| [0-9]+ \\| ([0-9.]+) %")
	tot := regexp.MustCompile(`^\| total \| ([0-9]+) \|`)
	got := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(block))
	for sc.Scan() {
		if m := row.FindStringSubmatch(sc.Text()); m != nil {
			got[m[1]], _ = strconv.ParseFloat(m[2], 64)
		} else if m := tot.FindStringSubmatch(sc.Text()); m != nil {
			got["total"], _ = strconv.ParseFloat(m[1], 64)
		}
	}
	return got
}

func markers(name string) (string, string) {
	return "<!-- " + name + ": written by go test ./cmd/leaselab -run TestDocsFromTree -update-docs -->\n", "<!-- end of " + name + " -->"
}

// blockAt is where name's block lies in s: from just after its opening
// marker to its closing one.
func blockAt(t *testing.T, file, s, name string) (from, to int) {
	begin, end := markers(name)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q block (markers %q … %q)", file, name, strings.TrimSpace(begin), end)
	}
	return i + len(begin), j
}

// readBlock is the text between name's markers in file.
func readBlock(t *testing.T, file, name string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	from, to := blockAt(t, file, string(b), name)
	return string(b)[from:to]
}

// rewriteBlock puts text between name's markers in file.
func rewriteBlock(t *testing.T, file, name, text string) {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	from, to := blockAt(t, file, s, name)
	if err := os.WriteFile(file, []byte(s[:from]+text+s[to:]), 0o644); err != nil {
		t.Fatal(err)
	}
}
