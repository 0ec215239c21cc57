package program

import (
	"testing"

	"leaselab/engine"
)

// stepCosts are handlers that spend their steps on one kind of work each:
// a plain loop, and each kind the cost model charges for.
var stepCosts = []struct{ name, body string }{
	{"loop", "    for i in range(3000):\n        x = i\n"},
	{"sorted-4096", "    l = list(range(4096))\n    for i in range(100):\n        s = sorted(l)\n"},
	{"sorted-256", "    l = list(range(256))\n    for i in range(1000):\n        s = sorted(l)\n"},
	{"sorted-rev-256", "    l = list(range(256))\n    l = l[::-1]\n    for i in range(1000):\n        s = sorted(l)\n"},
	{"str", "    l = list(range(4096))\n    for i in range(100):\n        s = str(l)\n"},
	{"compare", "    l = list(range(4096))\n    m = list(range(4096))\n    for i in range(100):\n        s = l == m\n"},
	{"in", "    l = list(range(4096))\n    for i in range(100):\n        s = -1 in l\n"},
	{"copy", "    l = list(range(4096))\n    for i in range(100):\n        s = l[:]\n"},
	{"concat", "    l = list(range(2048))\n    for i in range(100):\n        s = l + l\n"},
	{"key", "    t = tuple(range(4096))\n    d = {}\n    for i in range(100):\n        d[t] = 1\n"},
	{"format", "    l = list(range(4096))\n    for i in range(100):\n        s = \"%s\" % (l,)\n"},
	{"index", "    l = list(range(4096))\n    for i in range(100):\n        s = l.index(4095)\n"},
}

// BenchmarkStepCost measures what one step costs in time, for each kind of
// work: a charged step should cost about what a plain one does, so the
// step limits bound CPU whatever a program spends them on.
//
//	go test ./program -run '^$' -bench StepCost
func BenchmarkStepCost(b *testing.B) {
	for _, sc := range stepCosts {
		b.Run(sc.name, func(b *testing.B) {
			lim := DefaultLimits
			lim.StepsPerCall, lim.StepsPerRun = 1_000_000, 1_000_000
			c, err := Compile("def on_start(w, ev):\n"+sc.body, nil, lim)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				c.Start().Handle(engine.Moment{Kind: engine.MomentStart})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(c.Spent()), "ns/step")
			b.ReportMetric(float64(c.Spent())/float64(b.N), "steps/op")
		})
	}
}
