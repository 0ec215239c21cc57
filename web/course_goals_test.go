package web

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"leaselab/content"
)

// labGoals is the part of a lab.yaml this test needs: each goal's proof.
type labGoals struct {
	ID    string `yaml:"id"`
	Goals []struct {
		ID    string   `yaml:"id"`
		Proof []string `yaml:"proof"`
	} `yaml:"goals"`
}

// courseGoals reads every lab.yaml of the embedded course, by lab id.
func courseGoals(t *testing.T) map[string]labGoals {
	t.Helper()
	files, err := fs.Glob(content.FS, "labs/*/lab.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no labs in the course: %v", err)
	}
	out := make(map[string]labGoals)
	for _, f := range files {
		b, err := fs.ReadFile(content.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		var lg labGoals
		if err := yaml.Unmarshal(b, &lg); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[lg.ID] = lg
	}
	return out
}

// TestCourseGoalsLive plays each goal of the first lesson's labs through
// the live websocket, a student's way: the goal's own proof from lab.yaml,
// one command at a time, each of which the lab's page must offer (the
// socket refuses any other), then the session's goal check.
func TestCourseGoalsLive(t *testing.T) {
	all := courseGoals(t)
	for _, tc := range []struct {
		lab   string
		goals []string // every goal of the lab, so that a new one is not left untested
	}{
		{"lock-vs-lease", []string{"take-over"}},
		{"leader-failover", []string{"failover"}},
		{"flapping", []string{"lose-leadership"}},
		{"split-brain", []string{"two-leaders", "fenced"}},
		{"quorum-loss", []string{"stop-at-deadline", "new-token"}},
		{"storage-options", []string{"by-lease", "by-version", "by-key"}},
		{"idempotent-work", []string{"thumb-twice", "report-twice"}},
		{"clock-trouble", []string{"fool-w1", "fenced"}},
		{"delayed-packet", []string{"late-overwrite"}},
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
				_, ts := newTestServer(t, Config{})
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
					c.do(cmd)
				}
				if v := ask(); !strings.Contains(v, `data-correct="true"`) {
					t.Errorf("goal not reached after %q:\n%s", g.Proof, v)
				}
			})
		}
	}
}
