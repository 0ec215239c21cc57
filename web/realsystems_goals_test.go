package web

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"leaselab/content"
	"leaselab/engine"
	"leaselab/labs"
)

// TestRealSystemsGoalsThroughTheSocket reaches every goal of the
// real-systems lesson's labs in a live session, as a student would: each
// command of the goal's proof (read from the lab's own lab.yaml) must be
// one the lab's page offers, the goal must not hold before, and must hold
// after.
func TestRealSystemsGoalsThroughTheSocket(t *testing.T) {
	course, err := labs.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, Config{})
	for _, id := range []string{
		"kubernetes-election", "etcd-keepalive", "consul-session", "zookeeper-session",
		"chubby-sequencer", "redlock-pause", "juliet-pause", "github-2018",
	} {
		t.Run(id, func(t *testing.T) {
			lab := course.Lab(id)
			if lab == nil {
				t.Fatalf("no lab %s in the course", id)
			}
			goals := labGoals(t, id)
			if len(goals) == 0 {
				t.Fatalf("%s has no goal with a proof", id)
			}
			for _, g := range goals {
				c := dialLab(t, ts.URL, "/en/labs/"+id+"/ws")
				verdict := func() string {
					r := c.call(clientMsg{Type: "goal", Goal: g.ID})
					if r.Type != "ack" {
						t.Fatalf("goal %s: %s %s", g.ID, r.Type, r.Error)
					}
					return opHTML(r, "goal-verdict-"+g.ID)
				}
				if v := verdict(); strings.Contains(v, `data-correct="true"`) {
					t.Errorf("goal %s holds before anything was done", g.ID)
				}
				for _, cmd := range g.Proof {
					ec, err := engine.ParseCommand(cmd)
					if err != nil {
						t.Fatalf("goal %s: %q: %v", g.ID, cmd, err)
					}
					if !lab.Allows(ec) {
						t.Fatalf("goal %s: %q is not among the lab's controls", g.ID, cmd)
					}
					c.do(cmd)
				}
				if v := verdict(); !strings.Contains(v, `data-correct="true"`) {
					t.Errorf("goal %s not reached after %q:\n%s", g.ID, g.Proof, v)
				}
			}
		})
	}
}

type labGoal struct {
	ID    string   `yaml:"id"`
	Proof []string `yaml:"proof"`
}

// labGoals reads the goals and their proofs from the lab's lab.yaml.
func labGoals(t *testing.T, id string) []labGoal {
	t.Helper()
	data, err := fs.ReadFile(content.FS, "labs/"+id+"/lab.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var y struct {
		Goals []labGoal `yaml:"goals"`
	}
	if err := yaml.Unmarshal(data, &y); err != nil {
		t.Fatal(err)
	}
	var out []labGoal
	for _, g := range y.Goals {
		if len(g.Proof) > 0 {
			out = append(out, g)
		}
	}
	return out
}
