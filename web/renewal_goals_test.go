package web

import (
	"strings"
	"testing"

	"leaselab/engine"
	"leaselab/live"
)

// TestRenewalGoalsLive reaches each goal of the second lesson's new labs
// through the live websocket, sending only commands the lab's page offers:
// the goal's own proof, read from the lab. A goal that does not hold
// before the proof, or does after it, fails.
func TestRenewalGoalsLive(t *testing.T) {
	t.Parallel()
	course := embeddedCourse(t)
	_, ts := newTestServer(t, Config{})
	for _, id := range []string{"renew-status", "renew-state", "retry-past-deadline", "renewal-signals", "clock-assumptions"} {
		lab := course.Lab(id)
		if lab == nil {
			t.Errorf("no lab %s", id)
			continue
		}
		if len(lab.Goals) == 0 {
			t.Errorf("%s has no goal", id)
			continue
		}
		for _, g := range lab.Goals {
			t.Run(id+"/"+g.ID, func(t *testing.T) {
				proof := g.Proof()
				if len(proof) == 0 {
					t.Fatal("the goal has no proof to play")
				}
				c := dialLab(t, ts.URL, "/id/labs/"+id+"/ws")
				if reached(t, c, g.ID) {
					t.Fatal("the goal holds before anything was done")
				}
				for _, src := range proof {
					cmd, err := engine.ParseCommand(src)
					if err != nil {
						t.Fatalf("%q: %v", src, err)
					}
					if !lab.Allows(cmd) {
						t.Fatalf("%q is not a command the lab's page offers", src)
					}
					c.do(src)
				}
				if !reached(t, c, g.ID) {
					t.Fatalf("the proof %q did not reach the goal through the live session", proof)
				}
			})
		}
	}
}

// reached asks the live session whether goal holds on its world.
func reached(t *testing.T, c *wsClient, goal string) bool {
	t.Helper()
	r := c.call(live.ClientMsg{Type: "goal", Goal: goal})
	if r.Type != "ack" {
		t.Fatalf("goal %s: %s %s", goal, r.Type, r.Error)
	}
	html := opHTML(r, "goal-verdict-"+goal)
	switch {
	case strings.Contains(html, `data-correct="true"`):
		return true
	case strings.Contains(html, `data-correct="false"`):
		return false
	}
	t.Fatalf("goal %s: no verdict in %q", goal, html)
	return false
}

// TestSignalsPanelLive: a lab with panels: [signals] shows the renewal
// signals beside the live world and refreshes them with every frame; its
// answers carry them too. A lab without the key shows none.
func TestSignalsPanelLive(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{})
	c := dialLab(t, ts.URL, "/en/labs/renewal-signals/ws")
	if first := opHTML(c.first, "signals"); !strings.Contains(first, "no renewal yet") {
		t.Errorf("the first frame's panel should show no renewal yet:\n%s", first)
	}
	r := c.do("until 20s")
	panel := opHTML(r, "signals")
	for _, want := range []string{`data-signal="left"`, `data-signal="latency"`, `data-signal="lost"`, `data-event="renewed"`, "lease=</span>", "gen=</span>", "prev=</span>", "new=</span>", "left=</span>"} {
		if !strings.Contains(panel, want) {
			t.Errorf("the live panel lacks %s:\n%s", want, panel)
		}
	}
	if strings.Contains(panel, `class="warn"`) {
		t.Errorf("nothing failed, yet the panel warns:\n%s", panel)
	}
	// Slow A's path: attempts time out, and the log line names the class.
	c.do("link A coord delay=1s")
	var seen strings.Builder
	for range 10 {
		// A paused page's answer redraws the panel when events came.
		if p := opHTML(c.do("advance 1s"), "signals"); p != "" {
			panel = p
		}
		seen.WriteString(panel)
	}
	if !strings.Contains(panel, `data-signal="failures" class="warn"`) || strings.Contains(panel, "(transient 0 ") {
		t.Errorf("a slowed link should show transient failures, marked:\n%s", panel)
	}
	if !strings.Contains(seen.String(), `data-event="error"`) || !strings.Contains(seen.String(), "class=</span>transient") {
		t.Errorf("no log line for the failed attempt with its class")
	}
	a := c.call(live.ClientMsg{Type: "answer", Question: "next-warning", Choice: "timeouts"})
	if v := opHTML(a, "verdict-next-warning"); !strings.Contains(v, `data-signal="retries"`) {
		t.Errorf("the answer carries no signals panel:\n%s", v)
	}

	other := dialLab(t, ts.URL, "/en/labs/renew-margin/ws")
	if strings.Contains(opHTML(other.do("until 25s"), "signals"), "signal") {
		t.Error("a lab without panels: [signals] shows the panel")
	}
}
