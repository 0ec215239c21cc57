package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"leaselab/catalog"
	"leaselab/labs"
)

// loaded is one successful or failed load of the content.
type loaded struct {
	course   *labs.Course // the last good course; nil if none has loaded yet
	problems problemList  // why the latest load failed, file:line:col first
	err      error        // the latest load's error: a labs.Problems
	version  string       // names the files' state this load read
}

// courseHolder keeps the last good course serving while a broken edit
// shows its errors in the page.
type courseHolder struct {
	fsys fs.FS
	load func(fs.FS, labs.Options) (*labs.Course, error)
	opt  labs.Options
	cur  atomic.Pointer[loaded]
	sig  string
	log  *slog.Logger

	mu      sync.Mutex
	changed chan struct{} // closed at the next load, then replaced
}

func newCourseHolder(fsys fs.FS, load func(fs.FS, labs.Options) (*labs.Course, error), log *slog.Logger, opt labs.Options) *courseHolder {
	h := &courseHolder{fsys: fsys, load: load, log: log, opt: opt, changed: make(chan struct{})}
	h.cur.Store(&loaded{})
	h.reload()
	return h
}

func (h *courseHolder) get() *loaded { return h.cur.Load() }

// next is closed when the content loads again.
func (h *courseHolder) next() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}

// store publishes a load and wakes whoever waits for one.
func (h *courseHolder) store(l *loaded) {
	h.cur.Store(l)
	h.mu.Lock()
	close(h.changed)
	h.changed = make(chan struct{})
	h.mu.Unlock()
}

// reload loads the content again and reports whether it is good.
func (h *courseHolder) reload() bool {
	h.sig = signature(h.fsys)
	sum := sha256.Sum256([]byte(h.sig))
	version := hex.EncodeToString(sum[:8])
	c, err := h.load(h.fsys, h.opt)
	prev := h.cur.Load()
	if err != nil {
		next := &loaded{course: prev.course, problems: problemList{err}, err: err, version: version}
		h.store(next)
		if prev.course != nil {
			h.log.Warn("content has errors; the last good version keeps serving", "problems", strings.Join(next.problems.In("en"), "; "))
		}
		return false
	}
	h.store(&loaded{course: c, version: version})
	if prev.course != nil {
		h.log.Info("content reloaded")
	}
	return true
}

// watch reloads whenever a file under the content changes, until ctx ends.
// Polling is plain and works on every filesystem and editor.
func (h *courseHolder) watch(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if s := signature(h.fsys); s != h.sig {
				h.reload()
			}
		}
	}
}

// signature summarises names, sizes and times of every file under fsys.
func signature(fsys fs.FS) string {
	var b strings.Builder
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(&b, "%s!%v\n", p, err)
			return nil
		}
		if info, err := d.Info(); err == nil && !d.IsDir() {
			fmt.Fprintf(&b, "%s %d %d\n", p, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}

// problemList is why a load failed, said in each reader's language: the
// banner an author sees on every page while an edit is broken.
type problemList struct{ err error }

// Len is how many problems there are (0: none).
func (l problemList) Len() int { return len(l.In("en")) }

// In lists the load error's problems in lang, errors before warnings,
// each at its file:line:col: the same words `leaselab check --lang`
// prints.
func (l problemList) In(lang string) []string {
	if l.err == nil {
		return nil
	}
	var ps labs.Problems
	if errors.As(l.err, &ps) {
		var out []string
		for _, p := range ps {
			if !p.Warning {
				out = append(out, p.In(lang))
			}
		}
		return out
	}
	return []string{catalog.MessageError(lang, l.err)}
}
