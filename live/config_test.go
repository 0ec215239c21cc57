package live

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"leaselab/content"
	"leaselab/labs"
)

// testConfig is a Config as a server fills it, for the tests and
// benchmarks that drive a Conn without a server or a socket: the wall
// clock, no render goroutine running (work is done on the caller's),
// metrics counted here, and no verdicts (a lab page's answers are the web
// server's tests').
func testConfig() *Config {
	return &Config{
		Clock: WallClock{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: &testMetrics{},
		Renderers: NewRenderers(), Players: NewPlayers(WallClock{}), IdleTimeout: 15 * time.Minute,
		Done: context.Background(),
	}
}

// testMetrics counts what a Conn reports.
type testMetrics struct {
	errors, commands, skipped, answered, played atomic.Int64
}

func (m *testMetrics) Error(string)           { m.errors.Add(1) }
func (m *testMetrics) Command()               { m.commands.Add(1) }
func (m *testMetrics) Skipped(n int64)        { m.skipped.Add(n) }
func (m *testMetrics) Answered(time.Duration) { m.answered.Add(1) }
func (m *testMetrics) Played(time.Duration)   { m.played.Add(1) }

// testCourse is the embedded course, loaded once for the package's
// tests: a load runs every question, goal and measured exercise in the
// engine (a fifth of a CPU-second), and a dozen tests ask for it; a
// course is only read once loaded.
func testCourse(tb testing.TB) *labs.Course {
	tb.Helper()
	c, err := embeddedCourse()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

var embeddedCourse = sync.OnceValues(func() (*labs.Course, error) { return labs.Load(content.FS) })
