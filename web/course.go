package web

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"leaselab/labs"
)

// loaded is one successful or failed load of the content.
type loaded struct {
	course   *labs.Course // the last good course; nil if none has loaded yet
	problems []string     // why the latest load failed, file:line:col first
}

// courseHolder keeps the last good course serving while a broken edit
// shows its errors in the page.
type courseHolder struct {
	fsys fs.FS
	cur  atomic.Pointer[loaded]
	sig  string
	log  *slog.Logger
}

func newCourseHolder(fsys fs.FS, log *slog.Logger) *courseHolder {
	h := &courseHolder{fsys: fsys, log: log}
	h.cur.Store(&loaded{})
	h.reload()
	return h
}

func (h *courseHolder) get() *loaded { return h.cur.Load() }

// reload loads the content again and reports whether it is good.
func (h *courseHolder) reload() bool {
	h.sig = signature(h.fsys)
	c, err := labs.Load(h.fsys)
	prev := h.cur.Load()
	if err != nil {
		next := &loaded{course: prev.course, problems: problemLines(err)}
		h.cur.Store(next)
		h.log.Warn("content has errors; the last good version keeps serving", "problems", strings.Join(next.problems, "; "))
		return false
	}
	h.cur.Store(&loaded{course: c})
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

// problemLines lists a load error's problems, errors before warnings.
func problemLines(err error) []string {
	var ps labs.Problems
	if errors.As(err, &ps) {
		var out []string
		for _, p := range ps {
			if !p.Warning {
				out = append(out, p.String())
			}
		}
		return out
	}
	return []string{err.Error()}
}
