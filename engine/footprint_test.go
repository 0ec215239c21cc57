package engine

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestFootprintSizes holds Footprint's sizes to the types they measure.
func TestFootprintSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"World", sizeWorld, unsafe.Sizeof(World{})},
		{"Event", sizeEvent, unsafe.Sizeof(Event{})},
		{"item", sizeItem, unsafe.Sizeof(item{})},
		{"message", sizeMessage, unsafe.Sizeof(message{})},
		{"Command", sizeCommand, unsafe.Sizeof(Command{})},
		{"worker", sizeWorker, unsafe.Sizeof(worker{})},
		{"link", sizeLink, unsafe.Sizeof(link{})},
		{"BeliefSpan", sizeBeliefSpan, unsafe.Sizeof(BeliefSpan{})},
		{"FreezeSpan", sizeFreezeSpan, unsafe.Sizeof(FreezeSpan{})},
		{"lease", sizeLease, unsafe.Sizeof(lease{})},
		{"LeaseSpan", sizeLeaseSpan, unsafe.Sizeof(LeaseSpan{})},
		{"Write", sizeWrite, unsafe.Sizeof(Write{})},
		{"keyState", sizeKeyState, unsafe.Sizeof(keyState{})},
		{"masterKey", sizeMasterKey, unsafe.Sizeof(masterKey{})},
		{"copyWrite", sizeCopyWrite, unsafe.Sizeof(copyWrite{})},
	} {
		if c.got != c.want {
			t.Errorf("footprint.go says a %s is %d bytes; it is %d", c.name, c.got, c.want)
		}
	}
}

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
