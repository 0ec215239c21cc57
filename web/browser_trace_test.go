package web

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// phoneTraceEnv names a folder for TestPhoneFigures' traces.
const phoneTraceEnv = "LEASELAB_PHONE_TRACE"

// mainTrace records a Chromium trace of a tab while a lab plays, to say
// where the page's main thread spent its time: the figures say how much,
// this says on what (style, layout, paint, script, loading) and what made
// the layout and the style stale.
type mainTrace struct {
	mu     sync.Mutex
	events []json.RawMessage
	done   chan struct{}
}

func startMainTrace(t *testing.T, ctx context.Context) *mainTrace {
	t.Helper()
	r := &mainTrace{done: make(chan struct{})}
	var complete sync.Once
	if err := chromedp.Listen(ctx, func(ev any) {
		select {
		case <-r.done:
			return // a later trace of the same tab: its own listener has it
		default:
		}
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			r.mu.Lock()
			for _, v := range e.Value {
				b, _ := json.Marshal(v)
				r.events = append(r.events, b)
			}
			r.mu.Unlock()
		case *tracing.EventTracingComplete:
			complete.Do(func() { close(r.done) })
		}
	}); err != nil {
		t.Fatal(err)
	}
	// The script's time by function, from V8's sampling profiler.
	if _, err := chromedp.Call(ctx, profiler.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, profiler.Start, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	categories := []string{"devtools.timeline", "disabled-by-default-devtools.timeline", "disabled-by-default-devtools.timeline.invalidationTracking"}
	if _, err := chromedp.Call(ctx, tracing.Start, tracing.StartParams{TraceConfig: &tracing.TraceConfig{IncludedCategories: categories}}); err != nil {
		t.Fatal(err)
	}
	return r
}

// traceEvent is what mainTrace reads of a trace event.
type traceEvent struct {
	Name string  `json:"name"`
	Ph   string  `json:"ph"`
	Dur  float64 `json:"dur"`  // µs, wall time
	TDur float64 `json:"tdur"` // µs, the thread's CPU time: a loaded machine's waits left out
	Tid  int     `json:"tid"`
	Pid  int     `json:"pid"`
	Args struct {
		Name string `json:"name"`
		Data struct {
			NodeName, Reason string
		} `json:"data"`
	} `json:"args"`
}

// stop ends the trace and writes into file the main thread's time by
// kind of work, wall and CPU (nested kinds count in each: RunTask holds
// them all; on a loaded machine the CPU time is the steadier), and what
// invalidated style and layout, most first, and what was painted.
func (r *mainTrace) stop(t *testing.T, ctx context.Context, file string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, tracing.End, struct{}{}); err != nil {
		t.Fatal(err)
	}
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	var events []traceEvent
	main := map[[2]int]bool{}
	for _, b := range r.events {
		var e traceEvent
		if json.Unmarshal(b, &e) != nil {
			continue
		}
		if e.Ph == "M" && e.Name == "thread_name" && e.Args.Name == "CrRendererMain" {
			main[[2]int{e.Pid, e.Tid}] = true
		}
		events = append(events, e)
	}
	ms, cpu, n, why, painted := map[string]float64{}, map[string]float64{}, map[string]int{}, map[string]int{}, map[string]float64{}
	for _, e := range events {
		switch {
		case e.Ph == "X" && main[[2]int{e.Pid, e.Tid}]:
			if e.Name == "Paint" {
				painted["Paint: "+e.Args.Data.NodeName] += e.TDur / 1000
			}
			ms[e.Name] += e.Dur / 1000
			cpu[e.Name] += e.TDur / 1000
			n[e.Name]++
		case strings.HasSuffix(e.Name, "InvalidationTracking"):
			why[strings.TrimSuffix(e.Name, "InvalidationTracking")+": "+e.Args.Data.NodeName+": "+e.Args.Data.Reason]++
		}
	}
	var b strings.Builder
	kinds := sortedKeys(ms, func(k string) float64 { return ms[k] })
	for _, k := range kinds[:min(40, len(kinds))] {
		fmt.Fprintf(&b, "%-55s %8.1f ms %8.1f ms CPU %6d\n", k, ms[k], cpu[k], n[k])
	}
	b.WriteString("\npainted (ms CPU, a layer's paint holds those inside it):\n")
	for _, k := range sortedKeys(painted, func(k string) float64 { return painted[k] })[:min(12, len(painted))] {
		fmt.Fprintf(&b, "%8.1f %s\n", painted[k], k)
	}
	if prof, err := chromedp.Call(ctx, profiler.Stop, cdp.Empty{}); err != nil {
		t.Fatal(err)
	} else if prof.Profile != nil {
		b.WriteString("\nscript, by function (self time, ms CPU of the sampling profiler):\n")
		self := scriptSelf(prof.Profile)
		if raw, err := json.Marshal(prof.Profile); err == nil {
			_ = os.WriteFile(strings.TrimSuffix(file, ".txt")+".cpuprofile", raw, 0o644) // for DevTools, beside the trace
		}
		names := sortedKeys(self, func(k string) float64 { return self[k] })
		for _, k := range names[:min(30, len(names))] {
			fmt.Fprintf(&b, "%8.1f %s\n", self[k], k)
		}
	}
	b.WriteString("\ninvalidated:\n")
	reasons := sortedKeys(why, func(k string) float64 { return float64(why[k]) })
	for _, k := range reasons[:min(40, len(reasons))] {
		fmt.Fprintf(&b, "%6d %s\n", why[k], k)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The whole trace too, as DevTools' Performance panel loads it, for a
	// look at single frames.
	raw := []byte(`{"traceEvents":[`)
	for i, e := range r.events {
		if i > 0 {
			raw = append(raw, ",\n"...)
		}
		raw = append(raw, e...)
	}
	raw = append(raw, "]}\n"...)
	if err := os.WriteFile(strings.TrimSuffix(file, ".txt")+".json", raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sortedKeys are m's keys, the largest by of first.
func sortedKeys[V any](m map[string]V, by func(string) float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if by(a) != by(b) {
			if by(a) > by(b) {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return keys
}

// scriptSelf is a V8 profile's self time by function (name, file and
// line), in ms.
func scriptSelf(p *profiler.Profile) map[string]float64 {
	name := map[int64]string{}
	for _, n := range p.Nodes {
		f := n.CallFrame
		fn := f.FunctionName
		if fn == "" {
			fn = "(anonymous)"
		}
		name[n.ID] = fmt.Sprintf("%s %s:%d", fn, filepath.Base(f.URL), f.LineNumber+1)
	}
	self := map[string]float64{}
	for i, id := range p.Samples {
		if i+1 < len(p.TimeDeltas) {
			self[name[id]] += float64(p.TimeDeltas[i+1]) / 1000
		}
	}
	return self
}
