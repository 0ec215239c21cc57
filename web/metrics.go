package web

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"leaselab/live"
	"net/http"
	"os"
	"runtime"
	rtmetrics "runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
)

// Error kinds counted in leaselab_errors_total. A fixed list, so a client
// cannot grow the metrics with made-up labels.
// The live connections count theirs too (live.ErrCommand and the rest).
const (
	errOrigin = "origin" // a websocket from another site
	errFull   = "full"   // refused: the server holds MaxSessions already
	errHost   = "host"   // a request for a host name this server is not (DNS rebinding)
	errConns  = "conns"  // a connection refused: too many from its address, or in all
	errHeader = "header" // a request whose header fields are larger than a browser sends
	errMemory = "memory" // refused: its address holds its share of session memory, or the server is near its ceiling
)

var errorKinds = []string{live.ErrCommand, live.ErrMessage, live.ErrSize, live.ErrRate, errOrigin, errFull, live.ErrSlow, live.ErrIdle, live.ErrLimit, live.ErrBudget, errHost, errConns, errHeader, live.ErrPanic, errMemory}

// frameBuckets are the upper bounds, in seconds, of the frame latency
// histograms.
var frameBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}

// metrics are the server's counters, exposed at /metrics in Prometheus'
// text format. Written without a client library: a handful of atomics.
type metrics struct {
	sessionsOpen  atomic.Int64
	sessionsTotal atomic.Int64
	commands      atomic.Int64
	skipped       atomic.Int64
	errors        []atomic.Int64 // by errorKinds' index
	answers       histogram      // a client message's arrival to its answer written
	plays         histogram      // a play tick to its frame written

	mu       sync.Mutex
	requests map[routeStatus]*atomic.Int64 // HTTP requests by route pattern and status
}

// routeStatus labels leaselab_http_requests_total. Routes are the
// server's own patterns, so the label set stays small whatever clients ask.
type routeStatus struct {
	route  string
	status int
}

// processStart is when this process started, near enough: package
// variables are set before main runs.
var processStart = time.Now()

func (m *metrics) request(route string, status int) {
	k := routeStatus{route, status}
	m.mu.Lock()
	n := m.requests[k]
	if n == nil {
		n = new(atomic.Int64)
		m.requests[k] = n
	}
	m.mu.Unlock()
	n.Add(1)
}

func (m *metrics) writeRequests(w io.Writer) {
	m.mu.Lock()
	keys := make([]routeStatus, 0, len(m.requests))
	counts := make(map[routeStatus]int64, len(m.requests))
	for k, n := range m.requests {
		keys = append(keys, k)
		counts[k] = n.Load()
	}
	m.mu.Unlock()
	slices.SortFunc(keys, func(a, b routeStatus) int {
		return cmp.Or(cmp.Compare(a.route, b.route), cmp.Compare(a.status, b.status))
	})
	fmt.Fprintf(w, "# HELP leaselab_http_requests_total HTTP requests answered, by route pattern and status code.\n# TYPE leaselab_http_requests_total counter\n")
	for _, k := range keys {
		fmt.Fprintf(w, "leaselab_http_requests_total{route=%q,code=\"%d\"} %d\n", k.route, k.status, counts[k])
	}
}

// histogram counts durations into frameBuckets.
type histogram struct {
	counts   []atomic.Int64 // by frameBuckets' index, and +Inf last
	sumNanos atomic.Int64
}

func newHistogram() histogram { return histogram{counts: make([]atomic.Int64, len(frameBuckets)+1)} }

func (h *histogram) observe(d time.Duration) {
	s := d.Seconds()
	i := 0
	for i < len(frameBuckets) && s > frameBuckets[i] {
		i++
	}
	h.counts[i].Add(1)
	h.sumNanos.Add(int64(d))
}

func (h *histogram) write(w io.Writer, name, kind string) {
	var cum int64
	for i, b := range frameBuckets {
		cum += h.counts[i].Load()
		fmt.Fprintf(w, "%s_bucket{kind=%q,le=%q} %d\n", name, kind, strconv.FormatFloat(b, 'g', -1, 64), cum)
	}
	cum += h.counts[len(frameBuckets)].Load()
	fmt.Fprintf(w, "%s_bucket{kind=%q,le=\"+Inf\"} %d\n", name, kind, cum)
	fmt.Fprintf(w, "%s_sum{kind=%q} %g\n%s_count{kind=%q} %d\n", name, kind, float64(h.sumNanos.Load())/1e9, name, kind, cum)
}

func newMetrics() *metrics {
	return &metrics{errors: make([]atomic.Int64, len(errorKinds)), answers: newHistogram(), plays: newHistogram(), requests: map[routeStatus]*atomic.Int64{}}
}

// Error counts an error of a kind in errorKinds; another kind is not
// counted.
func (m *metrics) Error(kind string) {
	for i, k := range errorKinds {
		if k == kind {
			m.errors[i].Add(1)
			return
		}
	}
}

// Command counts a command applied to a live world.
func (m *metrics) Command() { m.commands.Add(1) }

// Skipped counts play ticks that passed without a frame.
func (m *metrics) Skipped(n int64) { m.skipped.Add(n) }

// Answered observes a message's answer written, d after it arrived.
func (m *metrics) Answered(d time.Duration) { m.answers.observe(d) }

// Played observes a play frame written, d after its tick.
func (m *metrics) Played(d time.Duration) { m.plays.observe(d) }

func (m *metrics) write(w io.Writer) {
	fmt.Fprintf(w, "# HELP leaselab_sessions_open Live lab sessions open now.\n# TYPE leaselab_sessions_open gauge\nleaselab_sessions_open %d\n", m.sessionsOpen.Load())
	fmt.Fprintf(w, "# HELP leaselab_sessions_total Live lab sessions opened since start.\n# TYPE leaselab_sessions_total counter\nleaselab_sessions_total %d\n", m.sessionsTotal.Load())
	fmt.Fprintf(w, "# HELP leaselab_commands_total Commands applied to live worlds, play-mode steps included.\n# TYPE leaselab_commands_total counter\nleaselab_commands_total %d\n", m.commands.Load())
	fmt.Fprintf(w, "# HELP leaselab_play_frames_skipped_total Play ticks that passed without a frame: the players were behind, or the session was busy or over its work budget.\n# TYPE leaselab_play_frames_skipped_total counter\nleaselab_play_frames_skipped_total %d\n", m.skipped.Load())
	fmt.Fprintf(w, "# HELP leaselab_errors_total Errors answered or sessions ended, by kind.\n# TYPE leaselab_errors_total counter\n")
	for i, k := range errorKinds {
		fmt.Fprintf(w, "leaselab_errors_total{kind=%q} %d\n", k, m.errors[i].Load())
	}
	fmt.Fprintf(w, "# HELP leaselab_frame_seconds Frame latency: kind answer is from a client message's arrival to its answer written; kind play from a play-mode tick to its frame written.\n# TYPE leaselab_frame_seconds histogram\n")
	m.answers.write(w, "leaselab_frame_seconds", "answer")
	m.plays.write(w, "leaselab_frame_seconds", "play")
	fmt.Fprintf(w, "# HELP go_goroutines Goroutines that exist now.\n# TYPE go_goroutines gauge\ngo_goroutines %d\n", runtime.NumGoroutine())
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(w, "# HELP go_memstats_heap_inuse_bytes Bytes in in-use heap spans.\n# TYPE go_memstats_heap_inuse_bytes gauge\ngo_memstats_heap_inuse_bytes %d\n", ms.HeapInuse)
	fmt.Fprintf(w, "# HELP go_memstats_stack_inuse_bytes Bytes in goroutine stacks.\n# TYPE go_memstats_stack_inuse_bytes gauge\ngo_memstats_stack_inuse_bytes %d\n", ms.StackInuse)
	live := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(live)
	if live[0].Value.Kind() == rtmetrics.KindUint64 {
		fmt.Fprintf(w, "# HELP go_gc_heap_live_bytes Heap memory reachable at the last garbage collection.\n# TYPE go_gc_heap_live_bytes gauge\ngo_gc_heap_live_bytes %d\n", live[0].Value.Uint64())
	}
	fmt.Fprintf(w, "# HELP go_memstats_next_gc_bytes Heap size at which the next collection runs.\n# TYPE go_memstats_next_gc_bytes gauge\ngo_memstats_next_gc_bytes %d\n", ms.NextGC)
	if rss, ok := residentBytes(); ok {
		fmt.Fprintf(w, "# HELP process_resident_memory_bytes Resident memory size in bytes.\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %d\n", rss)
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		fmt.Fprintf(w, "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %.3f\n", cpu.Seconds())
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
	if s.metricsElsewhere {
		return notFound(langOf(c))
	}
	return c.Blob(200, metricsType, s.metricsText())
}

const metricsType = "text/plain; version=0.0.4; charset=utf-8"

// metricsText is /metrics' page.
func (s *Server) metricsText() []byte {
	var b strings.Builder
	bi := s.build
	fmt.Fprintf(&b, "# HELP leaselab_build_info The running binary's version, VCS revision and Go version; the value is always 1.\n# TYPE leaselab_build_info gauge\nleaselab_build_info{version=%q,revision=%q,goversion=%q} 1\n", bi.Version, bi.Revision, cmp.Or(bi.GoVersion, runtime.Version()))
	fmt.Fprintf(&b, "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds %.3f\n", float64(processStart.UnixMilli())/1000)
	s.metrics.writeRequests(&b)
	s.metrics.write(&b)
	s.searches.writeMetrics(&b)
	s.writeJudgeMetrics(&b)
	return []byte(b.String())
}

// MetricsHandler serves /metrics and /healthz alone, whatever the host
// name, for a separate address only monitoring reaches (serve
// --metrics-addr); with Config.MetricsElsewhere the site's /metrics is then
// not found.
func (s *Server) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	// A GET pattern answers HEAD too.
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", metricsType)
		w.Write(s.metricsText())
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
	return mux
}

// refusalLogEvery is how often each kind of refusal may write a log line:
// a flood of them must not flood the log too. /metrics counts every one.
const refusalLogEvery = time.Minute

// refusalLog remembers, per kind, when its last line was written and how
// many refusals came since.
type refusalLog struct {
	mu     sync.Mutex
	last   map[string]time.Time
	unsaid map[string]int
}

// refused counts a refused connection or request of kind in /metrics and
// logs it, at most one line per kind each refusalLogEvery; the line's
// count is the refusals of that kind since the previous line, this one
// included.
func (s *Server) refused(kind, why string, attrs ...any) {
	s.metrics.Error(kind)
	l := &s.refusals
	now := time.Now()
	l.mu.Lock()
	if l.last == nil {
		l.last, l.unsaid = map[string]time.Time{}, map[string]int{}
	}
	l.unsaid[kind]++
	if t, ok := l.last[kind]; ok && now.Sub(t) < refusalLogEvery {
		l.mu.Unlock()
		return
	}
	n := l.unsaid[kind]
	l.last[kind], l.unsaid[kind] = now, 0
	l.mu.Unlock()
	s.log.Warn("refused: "+why, append([]any{"reason", kind, "count", n}, attrs...)...)
}
