package web

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"leaselab/content"
	"leaselab/labs"
)

// copyContent writes the embedded course into a folder an author can edit.
func copyContent(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := fs.WalkDir(content.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(content.FS, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// eventually polls until cond holds, or gives up after 30 s. A reload
// checks every question of the course with the engine, which under -race
// on a busy machine takes several seconds: 5 s failed every time there.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting: %s", what)
}

func TestContentFolderReloads(t *testing.T) {
	t.Parallel()
	dir := copyContent(t)
	_, ts := newTestServer(t, Config{Content: os.DirFS(dir), Watch: true, PollEvery: 10 * time.Millisecond})
	labFile := filepath.Join(dir, "labs", "w1-w2", "lab.yaml")
	good, err := os.ReadFile(labFile)
	if err != nil {
		t.Fatal(err)
	}
	enFile := filepath.Join(dir, "labs", "w1-w2", "en.md")
	en, err := os.ReadFile(enFile)
	if err != nil {
		t.Fatal(err)
	}

	// An edit shows up without a restart.
	edited := strings.Replace(string(en), "title: ", "title: Edited — ", 1)
	if err := os.WriteFile(enFile, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the edited title", func() bool {
		_, body, _ := get(t, ts.URL+"/en/labs/w1-w2")
		return strings.Contains(body, "Edited — ")
	})

	// A broken edit shows its file:line in the page while the last good
	// content keeps serving.
	broken := strings.Replace(string(good), "ttl: 15s", "ttl: fifteen", 1)
	if err := os.WriteFile(labFile, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the problem in the page", func() bool {
		code, body, _ := get(t, ts.URL+"/en/labs/w1-w2")
		return code == 200 && strings.Contains(body, `class="problems"`) && strings.Contains(body, "labs/w1-w2/lab.yaml:") && strings.Contains(body, "Edited — ")
	})
	if code, body, _ := get(t, ts.URL+"/id/"); code != 200 || !strings.Contains(body, "lab.yaml:") {
		t.Errorf("home: %d, or the problem is not shown", code)
	}

	// Fixing it clears the problem.
	if err := os.WriteFile(labFile, good, 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the problem gone", func() bool {
		_, body, _ := get(t, ts.URL+"/en/labs/w1-w2")
		return !strings.Contains(body, `class="problems"`)
	})
}

// TestBrokenContentFromTheStart: with no good version to serve, New
// refuses, naming the problems, instead of serving error pages.
func TestBrokenContentFromTheStart(t *testing.T) {
	t.Parallel()
	dir := copyContent(t)
	if err := os.WriteFile(filepath.Join(dir, "course.yaml"), []byte("lessons: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Content: os.DirFS(dir), Watch: true})
	var ps labs.Problems
	if s != nil || !errors.As(err, &ps) || !strings.Contains(err.Error(), "course.yaml:1:") {
		t.Errorf("New = %v, %v; want a Problems error naming course.yaml", s, err)
	}
}
