package web

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"leaselab/budget"
	"leaselab/labs"
)

// SearchCommand makes the process that runs one search a page asked for:
// leaselab search LAB --format stream --background, with opt's Faults and
// Set, the course the server serves, and ctx ending it. The process prints
// labs.SearchLine objects on its standard output.
//
// A search in a process of its own, at the lowest CPU priority the
// system has, runs only on what the students' sessions leave: the
// kernel, not a pool's rests, keeps it out of their way, its garbage is
// collected apart from theirs, and a search that grows too large dies
// alone.
type SearchCommand func(ctx context.Context, lab string, opt labs.SearchOptions) *exec.Cmd

// runProcess runs a search in a process of its own, taking one place of
// the pool for its whole run, and charges the CPU time the process
// reports to the address's search budget.
func (s *searcher) runProcess(ctx context.Context, r *searchRun, a *searchAsk, b *budget.Work) (*labs.SearchVerdict, error) {
	if err := a.lab.SearchCheck(a.opt); err != nil {
		return nil, err // said here, in the student's language, as the pool would
	}
	if !s.turn(ctx, b) {
		return nil, ctx.Err()
	}
	defer func() { <-s.slots }()
	r.begin()
	defer s.count()()
	cmd := s.command(ctx, a.lab.ID, a.opt)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("search process: %w", err)
	}
	var errs tailWriter
	cmd.Stderr = &errs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("search process: %w", err)
	}
	res, cpu, readErr := readSearchLines(out, r, b)
	s.cpu.Add(int64(cpu))
	if readErr != nil {
		_ = cmd.Process.Kill() // it may have ended
	}
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	switch {
	case res == nil && stoppedBySignal(waitErr):
		return nil, &searchError{"err.search.stopped", nil, fmt.Sprintf("search process: %v: %s", waitErr, errs.last())}
	case readErr != nil:
		return nil, &searchError{"err.search.failed", nil, fmt.Sprintf("search process: %v", readErr)}
	case res == nil:
		return nil, &searchError{"err.search.failed", nil, fmt.Sprintf("search process: %v: %s", waitErr, errs.last())}
	}
	if cpu == 0 {
		start := r.startedAt() // no CPU time said: its wall time
		budget.Charge(start, b)
		s.cpu.Add(int64(time.Since(start)))
	}
	sr, err := res.SearchResult()
	if err != nil {
		return nil, err
	}
	return a.lab.VerdictOf(a.opt, sr)
}

// stoppedBySignal says whether a search process was ended from outside
// (SIGTERM as the machine or its container stops, SIGKILL from the
// kernel's out-of-memory killer) rather than failing by itself: the
// student is told the search was stopped and may ask again, not that
// their question was wrong.
func stoppedBySignal(waitErr error) bool {
	var ee *exec.ExitError
	return errors.As(waitErr, &ee) && ee.ExitCode() == -1
}

// readSearchLines reads a search process's lines to their end: progress
// into r, CPU time charged to b as it grows, and the result.
func readSearchLines(out interface{ Read([]byte) (int, error) }, r *searchRun, b *budget.Work) (res *labs.StreamResult, cpu time.Duration, err error) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		var line labs.SearchLine
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return nil, cpu, fmt.Errorf("a line that is not a search's: %w", err)
		}
		if line.CPU > cpu {
			budget.ChargeFixed(line.CPU-cpu, b)
			cpu = line.CPU
		}
		if p := line.Progress; p != nil {
			r.setProgress(*p)
		}
		if line.Result != nil {
			res = line.Result
		}
	}
	return res, cpu, sc.Err()
}

func (r *searchRun) startedAt() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.started
}

// tailWriter keeps the last 2 KB written to it: a failed search's
// standard error, for the log and the error.
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if n := len(w.buf); n > 2048 {
		w.buf = append(w.buf[:0], w.buf[n-2048:]...)
	}
	return len(p), nil
}

// last is its last line.
func (w *tailWriter) last() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := strings.TrimSpace(string(w.buf))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
