package live

import (
	"leaselab/engine"
	"leaselab/labsession"
	"net/url"
	"testing"
)

// BenchmarkPairPlayFrame is one play tick of a live pair: both runs of
// W1/W2 forked at 4s advance one second and the frame redraws both. It
// reports the frame's size too: a pair's frames are full redraws.
func BenchmarkPairPlayFrame(b *testing.B) {
	cfg, c := testConfig(), testCourse(b)
	q, _ := url.ParseQuery("do=until+4s&do=freeze+W1+for%3D25s&vs=fencing+on")
	start := func() *Conn {
		p, _, err := labsession.OpenPair(c.Lab("w1-w2"), q)
		if err != nil {
			b.Fatal(err)
		}
		return &Conn{cfg: cfg, lab: p.Session().Lab(), lang: "en", sess: p.Session(), runs: &pairRun{Pair: p}, playing: true}
	}
	l := start()
	bytes := 0
	b.ReportAllocs()
	for b.Loop() {
		if l.runs.(*pairRun).A().Now() >= 4*engine.Minute {
			b.StopTimer()
			l = start()
			b.StartTimer()
		}
		if err := l.runs.Apply(engine.Command{Kind: engine.CmdAdvance, Dur: engine.Second}); err != nil {
			b.Fatal(err)
		}
		m := l.runs.frame(l, 0)
		if m.Type != "frame" {
			b.Fatal(m.Error)
		}
		for _, o := range m.b.Ops {
			bytes += int(o.HTML.To - o.HTML.From)
		}
		m.free()
	}
	b.ReportMetric(float64(bytes)/float64(b.N), "frame-bytes/op")
}
