package engine

import (
	"runtime"
	"testing"
)

// TestFootprintIsWhatTheHeapHolds builds worlds of a long run and compares
// their estimate with what the collector finds they hold: a server bounds
// one client's memory by the estimate, so it must not be far below.
func TestFootprintIsWhatTheHeapHolds(t *testing.T) {
	sc := benchScenario(t)
	const n = 40
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ws := make([]*World, n)
	est := 0
	for i := range ws {
		w, err := New(sc)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Apply(Command{Kind: CmdUntil, At: 9 * Minute}); err != nil {
			t.Fatal(err)
		}
		ws[i] = w
		est += w.Footprint()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int(after.HeapAlloc - before.HeapAlloc)
	runtime.KeepAlive(ws)
	t.Logf("%d events a world; estimate %d B, heap %d B a world", len(ws[0].Events()), est/n, held/n)
	if est < held*8/10 || est > held*12/10 {
		t.Fatalf("estimate %d B a world, heap holds %d B: more than a fifth apart", est/n, held/n)
	}
}
