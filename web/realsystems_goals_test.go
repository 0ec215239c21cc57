package web

import (
	"slices"
	"strings"
	"testing"
)

// TestRealSystemsGoalsLive reaches every goal of the real-systems lesson's
// labs through the live websocket, as a student would: the goal's own
// proof from lab.yaml, one command at a time — each of which the lab's
// page must offer, since the socket refuses any other — then the session's
// goal check. The goal must not hold before the proof, and must after.
func TestRealSystemsGoalsLive(t *testing.T) {
	all := courseGoals(t)
	_, ts := newTestServer(t, Config{})
	for _, tc := range []struct {
		lab   string
		goals []string // every goal of the lab, so that a new one is not left untested
	}{
		{"kubernetes-election", []string{"two-leaders"}},
		{"etcd-keepalive", []string{"fenced"}},
		{"consul-session", []string{"lockindex"}},
		{"zookeeper-session", []string{"stale-writes"}},
		{"chubby-sequencer", []string{"sequencer"}},
		{"redlock-pause", []string{"two-writers"}},
		{"juliet-pause", []string{"fenced"}},
		{"github-2018", []string{"fenced"}},
	} {
		lg, ok := all[tc.lab]
		if !ok {
			t.Errorf("no lab %q in the course", tc.lab)
			continue
		}
		var ids []string
		for _, g := range lg.Goals {
			ids = append(ids, g.ID)
		}
		if !slices.Equal(ids, tc.goals) {
			t.Errorf("%s: goals %v, want %v", tc.lab, ids, tc.goals)
		}
		for _, g := range lg.Goals {
			t.Run(tc.lab+"/"+g.ID, func(t *testing.T) {
				if len(g.Proof) == 0 {
					t.Fatal("the goal has no proof to play")
				}
				c := dialLab(t, ts.URL, "/en/labs/"+tc.lab+"/ws")
				target := "goal-verdict-" + g.ID
				ask := func() string {
					t.Helper()
					m := c.call(clientMsg{Type: "goal", Goal: g.ID})
					if m.Type != "ack" {
						t.Fatalf("goal check: %s %s", m.Type, m.Error)
					}
					v := opHTML(m, target)
					if v == "" {
						t.Fatalf("goal check sent no %s", target)
					}
					return v
				}
				if v := ask(); strings.Contains(v, `data-correct="true"`) {
					t.Fatalf("goal reached before any command:\n%s", v)
				}
				for _, cmd := range g.Proof {
					c.do(cmd) // fails the test when the lab's page does not offer cmd
				}
				if v := ask(); !strings.Contains(v, `data-correct="true"`) {
					t.Errorf("goal not reached after %q:\n%s", g.Proof, v)
				}
			})
		}
	}
}
