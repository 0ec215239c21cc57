package web

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// Error kinds counted in leaselab_errors_total. A fixed list, so a client
// cannot grow the metrics with made-up labels.
const (
	errCommand = "command" // a command or question the engine refused
	errMessage = "message" // not JSON, or an unknown type
	errSize    = "size"    // a message over maxMessageSize
	errRate    = "rate"    // over the per-connection message rate
	errOrigin  = "origin"  // a websocket from another site
	errFull    = "full"    // refused: the server holds MaxSessions already
	errSlow    = "slow"    // dropped: could not keep up with its frames
	errIdle    = "idle"    // closed: no message for IdleTimeout
	errLimit   = "limit"   // the session's virtual time or event limit
	errPanic   = "panic"   // a bug, contained to its session
)

var errorKinds = []string{errCommand, errMessage, errSize, errRate, errOrigin, errFull, errSlow, errIdle, errLimit, errPanic}

// frameBuckets are the upper bounds, in seconds, of the frame latency
// histogram: from a message's arrival to its answer's last byte written.
var frameBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}

// metrics are the server's counters, exposed at /metrics in Prometheus'
// text format. Written without a client library: a handful of atomics.
type metrics struct {
	sessionsOpen  atomic.Int64
	sessionsTotal atomic.Int64
	commands      atomic.Int64
	errors        []atomic.Int64 // by errorKinds' index
	frameCount    []atomic.Int64 // by frameBuckets' index, and +Inf last
	frameSumNanos atomic.Int64
}

func newMetrics() *metrics {
	return &metrics{errors: make([]atomic.Int64, len(errorKinds)), frameCount: make([]atomic.Int64, len(frameBuckets)+1)}
}

func (m *metrics) error(kind string) {
	for i, k := range errorKinds {
		if k == kind {
			m.errors[i].Add(1)
			return
		}
	}
}

func (m *metrics) frame(d time.Duration) {
	s := d.Seconds()
	i := 0
	for i < len(frameBuckets) && s > frameBuckets[i] {
		i++
	}
	m.frameCount[i].Add(1)
	m.frameSumNanos.Add(int64(d))
}

func (m *metrics) write(w io.Writer) {
	fmt.Fprintf(w, "# HELP leaselab_sessions_open Live lab sessions open now.\n# TYPE leaselab_sessions_open gauge\nleaselab_sessions_open %d\n", m.sessionsOpen.Load())
	fmt.Fprintf(w, "# HELP leaselab_sessions_total Live lab sessions opened since start.\n# TYPE leaselab_sessions_total counter\nleaselab_sessions_total %d\n", m.sessionsTotal.Load())
	fmt.Fprintf(w, "# HELP leaselab_commands_total Commands applied to live worlds, play-mode steps included.\n# TYPE leaselab_commands_total counter\nleaselab_commands_total %d\n", m.commands.Load())
	fmt.Fprintf(w, "# HELP leaselab_errors_total Errors answered or sessions ended, by kind.\n# TYPE leaselab_errors_total counter\n")
	for i, k := range errorKinds {
		fmt.Fprintf(w, "leaselab_errors_total{kind=%q} %d\n", k, m.errors[i].Load())
	}
	fmt.Fprintf(w, "# HELP leaselab_frame_seconds From a client message's arrival to its answer written, and each play-mode frame's render and write.\n# TYPE leaselab_frame_seconds histogram\n")
	var cum int64
	for i, b := range frameBuckets {
		cum += m.frameCount[i].Load()
		fmt.Fprintf(w, "leaselab_frame_seconds_bucket{le=%q} %d\n", strconv.FormatFloat(b, 'g', -1, 64), cum)
	}
	cum += m.frameCount[len(frameBuckets)].Load()
	fmt.Fprintf(w, "leaselab_frame_seconds_bucket{le=\"+Inf\"} %d\n", cum)
	fmt.Fprintf(w, "leaselab_frame_seconds_sum %g\nleaselab_frame_seconds_count %d\n", float64(m.frameSumNanos.Load())/1e9, cum)
	fmt.Fprintf(w, "# HELP go_goroutines Goroutines that exist now.\n# TYPE go_goroutines gauge\ngo_goroutines %d\n", runtime.NumGoroutine())
	if rss, ok := residentBytes(); ok {
		fmt.Fprintf(w, "# HELP process_resident_memory_bytes Resident memory size in bytes.\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %d\n", rss)
	}
}

// residentBytes is this process's resident set, from /proc (Linux only).
func residentBytes() (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}

func (s *Server) metricsShow(c echo.Context) error {
	var b strings.Builder
	s.metrics.write(&b)
	return c.Blob(200, "text/plain; version=0.0.4; charset=utf-8", []byte(b.String()))
}
