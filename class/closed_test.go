package class

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestClosedServiceSaysSo: what still calls the store after Close (a vote
// timer firing while the server shuts down) is told ErrClosed, and the
// service logs nothing: a closed store is not a database failure, and a
// log line after a test's end panics the test binary.
func TestClosedServiceSaysSo(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		var mu sync.Mutex
		var logged []string
		s, err := Open(context.Background(), d.cfg(Config{Logf: func(f string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			logged = append(logged, fmt.Sprintf(f, args...))
		}}))
		if err != nil {
			t.Fatal(err)
		}
		c, _, st := classOf(t, s, "Ana")
		r := must(s.OpenRound(ctx, c.ID, "lab", "q", []string{"a", "b"}))
		ok(t, s.Vote(ctx, c.ID, st[0].ID, r.ID, "a"))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CloseDue(ctx, c.ID, r.ID); !errors.Is(err, ErrClosed) {
			t.Errorf("CloseDue after Close: %v, want ErrClosed", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(logged) > 0 {
			t.Errorf("a closed service logged: %q", logged)
		}
	})
}
