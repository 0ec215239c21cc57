package engine

import (
	"runtime"
	"testing"
)

// benchScenario is a long, busy run: three workers take turns holding a
// 10 s lease, renew it every 3 s while they work for 20 s, write with
// their token and give the lease back, forever. Messages take 2–5 ms.
func benchScenario(b testing.TB) Scenario {
	b.Helper()
	return scenarioOf(b, []string{"ttl=10s", "fencing=on", "delay=2ms", "jitter=3ms", "seed=1"},
		"W1 renew=3s: acquire; work 20s; write data; release; repeat",
		"W2 renew=3s start=100ms: acquire; work 20s; write data; release; repeat",
		"W3 renew=3s start=200ms: acquire; work 20s; write data; release; repeat")
}

// BenchmarkLongRun measures how fast the engine processes events in a long
// session. Each op advances virtual time by one minute. The log keeps every
// event, so a world is started again every few virtual hours (a world ends
// at 24 h anyway):
//
//   - reset: the session applies "reset", which keeps the log's backing
//     array, as a long-lived session in the web server would;
//   - new: a fresh World each time, which pays for growing the log again.
//
// Both count the cost of restarting inside the timed loop. Reported:
// events/s (events recorded per second of real time) and allocs/event
// (heap allocations, from runtime.MemStats, per event recorded).
func BenchmarkLongRun(b *testing.B) {
	for _, fresh := range []bool{false, true} {
		name := "reset"
		if fresh {
			name = "new"
		}
		b.Run(name, func(b *testing.B) { benchLongRun(b, fresh) })
	}
}

func benchLongRun(b *testing.B, fresh bool) {
	const (
		chunk     = Minute
		worldSpan = 6 * Hour // virtual time before starting again
	)
	sc := benchScenario(b)
	w, err := New(sc)
	if err != nil {
		b.Fatal(err)
	}
	// Warm up, so that "reset" measures a world whose buffers have grown.
	if err := w.Advance(worldSpan); err != nil {
		b.Fatal(err)
	}
	if err := w.Do("reset"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	b.ResetTimer()
	var events int
	for range b.N {
		if w.Now()+chunk > worldSpan {
			if fresh {
				w, err = New(sc)
			} else {
				err = w.Do("reset")
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		before := len(w.Events())
		if err := w.Advance(chunk); err != nil {
			b.Fatal(err)
		}
		events += len(w.Events()) - before
	}
	b.StopTimer()
	runtime.ReadMemStats(&m1)
	if events == 0 {
		b.Fatal("no events")
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(events), "allocs/event")
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(events), "B/event")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}
