package labs

import (
	"testing"

	"leaselab/content"
)

// BenchmarkSearchRenewPolicy searches renew-policy's starting policy
// within the lab's bounds on every core: every one-fault schedule, and
// every two-fault one with states seen before cut. It reports the
// schedules decided and the distinct states kept per search.
func BenchmarkSearchRenewPolicy(b *testing.B) {
	c, err := Load(content.FS)
	if err != nil {
		b.Fatal(err)
	}
	l := c.Lab("renew-policy")
	for _, tc := range []struct {
		name   string
		faults int
	}{{"faults=1", 1}, {"faults=2", 2}} {
		b.Run(tc.name, func(b *testing.B) {
			var v *SearchVerdict
			for b.Loop() {
				if v, err = l.RunSearch(SearchOptions{Faults: tc.faults}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(v.Schedules), "schedules")
			b.ReportMetric(float64(v.States), "states")
		})
	}
}
