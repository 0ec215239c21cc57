package live

import (
	"runtime"
	"strings"
	"testing"

	"leaselab/engine"
	"leaselab/load"
)

// BenchmarkPlayingSessionHeap measures what a playing session keeps on the
// server's heap, the way leaselab load plays one: a frame every play tick
// at speed 5 (one virtual second), a control every ten frames from a
// different place in the load's list for each session (a reset among
// them), for the load's default 20 s hold. It reports the live heap per
// session after a collection (the world, its log, the session and the
// picture kept to send only what changed), without the connection.
func BenchmarkPlayingSessionHeap(b *testing.B) {
	cfg, course := testConfig(), testCourse(b)
	const sessions, frames = 500, 100
	for _, id := range []string{"w1-w2", "renew-load"} {
		b.Run(id, func(b *testing.B) {
			lab := benchLab(b, course, id)
			ws := lab.Scenario().Workers
			r := strings.NewReplacer("W1", ws[0].Name, "W2", ws[min(1, len(ws)-1)].Name)
			var perSession, events float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				ls := make([]*Conn, sessions)
				for i := range ls {
					ls[i] = playingLive(b, cfg, lab, uint64(i+1))
				}
				for f := range frames {
					for i, l := range ls {
						if (f+i)%10 == 0 {
							// Refused controls (thaw a worker not frozen) count too.
							_ = l.sess.Do(r.Replace(load.Controls[(f/10+i*7)%len(load.Controls)]))
						}
						if err := l.sess.Apply(engine.Command{Kind: engine.CmdAdvance, Dur: engine.Second}); err != nil {
							b.Fatal(err)
						}
						if m := l.frame(0); m.Type != "frame" {
							b.Fatal(m.Error)
						}
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				n := 0
				for _, l := range ls {
					n += len(l.sess.World().Events())
				}
				perSession = float64(after.HeapAlloc-before.HeapAlloc) / sessions
				events = float64(n) / sessions
				runtime.KeepAlive(ls)
			}
			b.ReportMetric(perSession, "heap-B/session")
			b.ReportMetric(events, "events/session")
		})
	}
}

// BenchmarkCappedSessionHeap measures what a session opened right at the
// event cap keeps on the server's heap once its first frame is drawn: the
// world is let go at rest (labsession.Release), so what remains is the
// session's commands, its state and the picture it keeps.
func BenchmarkCappedSessionHeap(b *testing.B) {
	cfg, course := testConfig(), testCourse(b)
	lab := benchLab(b, course, "renew-policy")
	const sessions = 200
	var perSession, events float64
	for b.Loop() {
		var before, after runtime.MemStats
		ls := make([]*Conn, sessions)
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range ls {
			l := playingLive(b, cfg, lab, 1)
			if err := l.sess.Apply(engine.Command{Kind: engine.CmdUntil, At: 550 * engine.Second}); err != nil {
				b.Fatal(err)
			}
			events += float64(len(l.sess.World().Events()))
			l.stopPlay()
			if m := l.frame(0); m.Type != "frame" {
				b.Fatal(m.Error)
			}
			l.rest()
			ls[i] = l
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perSession = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / sessions
		runtime.KeepAlive(ls)
	}
	b.ReportMetric(perSession, "heap-B/session")
	b.ReportMetric(events/float64(b.N)/sessions, "events/session")
}
