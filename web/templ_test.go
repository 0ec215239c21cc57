package web

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedTemplIsCurrent regenerates the templ components into a
// scratch folder and compares them with the committed _templ.go files, so
// an edit to a .templ file without `go tool templ generate` fails.
func TestGeneratedTemplIsCurrent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the templ generator")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	srcs, err := filepath.Glob("*.templ")
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no templ files: %v", err)
	}
	dir := t.TempDir()
	for _, src := range srcs {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, src), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command(gobin, "tool", "templ", "generate", "-path", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("templ generate: %v\n%s", err, out)
	}
	for _, src := range srcs {
		gen := src[:len(src)-len(".templ")] + "_templ.go"
		want, err := os.ReadFile(filepath.Join(dir, gen))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(gen)
		if err != nil {
			t.Fatal(err)
		}
		// The generator names the source as it was given the path.
		got = bytes.ReplaceAll(got, []byte("`web/"+src+"`"), []byte("`"+src+"`"))
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date: run go tool templ generate", gen)
		}
	}
}
