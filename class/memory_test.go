package class

import (
	"runtime"
	"testing"
)

// TestMemoryPerStudent: a class keeps its students in the database, not
// in the server's memory. 2,000 students join and vote with a dashboard
// subscribed; the Go heap that stays live after a collection grows by
// less than 2 KB per student (the budget beyond a live session).
// SQLite's page cache lives outside the Go heap and is bounded (2 MB by
// default) whatever the number of students.
func TestMemoryPerStudent(t *testing.T) {
	if testing.Short() {
		t.Skip("joins 2,000 students")
	}
	s := open(t, db{"sqlite", func(c Config) Config { c.Data = t.TempDir(); return c }}, Config{})
	c, _, _ := classOf(t, s)
	r := must(s.OpenRound(ctx, c.ID, "lab", "q", []string{"a", "b"}))
	changes, stop := s.Subscribe(c.ID)
	defer stop()
	go func() {
		for range changes {
		}
	}()
	live := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	const n = 2000
	before := live()
	for i := range n {
		st := must(s.Join(ctx, c.Code, "", ""))
		ok(t, s.Vote(ctx, c.ID, st.ID, r.ID, []string{"a", "b"}[i%2]))
		ok(t, s.Step(ctx, c.ID, st.ID, "lab", "freeze W1"))
	}
	after := live()
	per := (int64(after) - int64(before)) / n
	t.Logf("Go heap per student: %d bytes (%d -> %d for %d students)", per, before, after, n)
	if per > 2048 {
		t.Errorf("a student costs %d bytes of heap, want at most 2 KB", per)
	}
}
