package web

import (
	"testing"

	"leaselab/content"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/web/labsession"
)

// BenchmarkPlayFrame measures one play tick as a playing session pays it:
// the world advances one second (speed 5) and the frame is built. The
// session starts again from its lab every four virtual minutes, outside
// the timer, as a student's reset would; so the long runs' frames, past
// the live picture's window, count too.
func BenchmarkPlayFrame(b *testing.B) {
	srv, course := benchServer(b)
	for _, id := range []string{"w1-w2", "renew-load"} {
		b.Run(id, func(b *testing.B) {
			lab := benchLab(b, course, id)
			start := func() *live { return playingLive(b, srv, lab, 1) }
			l := start()
			b.ReportAllocs()
			for b.Loop() {
				if l.sess.World().Now() >= 4*engine.Minute {
					b.StopTimer()
					l = start()
					b.StartTimer()
				}
				if err := l.sess.Apply(engine.Command{Kind: engine.CmdAdvance, Dur: engine.Second}); err != nil {
					b.Fatal(err)
				}
				if m := l.frame(0); m.Type != "frame" {
					b.Fatal(m.Error)
				}
			}
		})
	}
}

// benchServer is a server with the embedded course, closed when b ends.
func benchServer(b *testing.B) (*Server, *labs.Course) {
	c, err := labs.Load(content.FS)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return srv, c
}

func benchLab(b *testing.B, c *labs.Course, id string) *labs.Lab {
	lab := c.Lab(id)
	if lab == nil {
		b.Fatalf("no lab %s", id)
	}
	return lab
}

// playingLive is a session of lab in play mode, as its socket holds it,
// after its first frame.
func playingLive(b *testing.B, srv *Server, lab *labs.Lab, seed uint64) *live {
	sess, err := labsession.New(lab, seed)
	if err != nil {
		b.Fatal(err)
	}
	l := &live{srv: srv, lab: lab, lang: "en", sess: sess, playing: true, shown: -1}
	if m := l.frame(0); m.Type != "frame" {
		b.Fatal(m.Error)
	}
	return l
}
