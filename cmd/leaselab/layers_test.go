package main

import (
	"os/exec"
	"strings"
	"testing"
)

// layers are the module's rooms from the bottom up (docs/architecture.md):
// a package imports only packages of lower layers, never one of its own
// layer or above. content and static are data: they import nothing of the
// module, and anything may embed them.
var layers = [][]string{
	{"engine", "content", "static"},
	{"catalog"},
	{"program"},
	{"labs"},
	{"labsession", "draw", "budget"},
	{"live", "class"},
	{"classroom"},
	{"web", "load"},
	{"cmd/leaselab", "cmd/testsummary"},
}

// TestNoUpwardImport fails when a package of the module imports one of
// its own layer or above, or when a package is in no layer: a new room
// must be placed in layers, and in docs/architecture.md.
func TestNoUpwardImport(t *testing.T) {
	layer := map[string]int{}
	for i, names := range layers {
		for _, n := range names {
			layer["leaselab/"+n] = i
		}
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goCmd, "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "leaselab/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		from, ok := layer[pkg]
		if !ok {
			t.Errorf("%s is in no layer (layers_test.go, docs/architecture.md)", pkg)
			continue
		}
		seen++
		for _, imp := range imports {
			if !strings.HasPrefix(imp, "leaselab/") {
				continue
			}
			if to, ok := layer[imp]; !ok || to >= from {
				t.Errorf("%s imports %s: an arrow up, or across (layer %d -> %d)", pkg, imp, from, to)
			}
		}
	}
	if seen < 9 {
		t.Errorf("go list named only %d packages of the module", seen)
	}
}
