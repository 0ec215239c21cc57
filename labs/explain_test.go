package labs

import (
	"strings"
	"testing"

	"leaselab/engine"
)

// TestUnmet: a goal not reached says which part is missing, from what the
// engine's log shows, in the student's language.
func TestUnmet(t *testing.T) {
	var sc engine.Scenario
	for k, v := range map[string]string{"ttl": "15s", "first-token": "7"} {
		if err := sc.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, line := range []string{"W1: acquire; work 5s; write file; release", "W2 start=1s: acquire; work 5s; write file; release"} {
		ws, err := engine.ParseWorker(line)
		if err != nil {
			t.Fatal(err)
		}
		sc.Workers = append(sc.Workers, ws)
	}
	const goal = "W1's write with token 7 is rejected"
	for _, tc := range []struct {
		name, pred string
		do         []string
		lang, want string
	}{
		{"reached", goal, []string{"fencing on", "until 4s", "freeze W1 for=25s", "until 30s"}, "id", ""},
		{"frozen before it held the lease", goal, []string{"fencing on", "freeze W1", "until 30s"}, "id", "token 7 jatuh ke W2, bukan ke W1"},
		{"still frozen", goal, []string{"fencing on", "freeze W1", "until 30s"}, "en", "W1 is still frozen"},
		{"no fencing", goal, []string{"until 4s", "freeze W1 for=25s", "until 30s"}, "id", "penyimpanan tidak memeriksa token"},
		{"no freeze", goal, []string{"fencing on", "until 30s"}, "en", "while its lease was still valid"},
		{"not yet", goal, []string{"fencing on", "until 4s"}, "en", "W1 has not written yet"},
		{"parts of an and", "W1 acts after its lease expired and no harm", []string{"until 4s", "freeze W1 for=25s", "until 30s"}, "id", "log menunjukkan kerusakan"},
		{"acted after", "W1 acts after its lease expired", []string{"until 30s"}, "en", "W1's lease has not expired at the coordinator yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := engine.New(sc)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tc.do {
				if err := w.Do(c); err != nil {
					t.Fatal(err)
				}
			}
			p, err := CompilePredicate(tc.pred, []string{"W1", "W2"})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(p.Unmet(w.Events(), w.Names(), tc.lang), " | ")
			if tc.want == "" {
				if got != "" {
					t.Errorf("reached, yet unmet: %s", got)
				}
				return
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("unmet %q, want it to say %q", got, tc.want)
			}
		})
	}
}
