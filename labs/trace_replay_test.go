package labs

import (
	"testing"

	"leaselab/engine"
)

// A traced run (program.Compiled.Traced), which a verdict's replay uses
// to note what each action went by, does exactly what the untraced runs
// of the judgement did: for every program lab's start and reference, the
// first random schedules give the same events either way.
func TestTracedReplayIsTheSameRun(t *testing.T) {
	t.Parallel()
	for _, l := range SharedCourse(t).Labs {
		p := l.Program()
		if p == nil {
			continue
		}
		for _, src := range []string{p.Start, p.reference} {
			c, err := p.Compile(src)
			if err != nil {
				t.Fatal(err)
			}
			plain, traced := p.spec, p.spec
			plain.Scenario, traced.Scenario = p.Scenario(c), p.Scenario(c.Traced())
			if plain, err = plain.Ready(); err != nil {
				t.Fatal(err)
			}
			if traced, err = traced.Ready(); err != nil {
				t.Fatal(err)
			}
			for i := range 5 {
				_, a, err := plain.PlayRun(i, nil)
				if err != nil {
					t.Fatal(err)
				}
				_, b, err := traced.PlayRun(i, nil)
				if err != nil {
					t.Fatal(err)
				}
				if d, differ := engine.FirstDifference(a.Events(), b.Events()); differ {
					t.Errorf("%s, schedule %d: the traced run parts at %+v", l.ID, i, d)
				}
			}
		}
	}
}
