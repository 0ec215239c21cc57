package live

import (
	"bytes"
	"context"
	"testing"

	"leaselab/draw"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/labsession"
)

// BenchmarkPlayFrame measures one play tick as a playing session pays it:
// the world advances one second (speed 5) and the frame is built. The
// session starts again from its lab every four virtual minutes, outside
// the timer, as a student's reset would; so the long runs' frames, past
// the live picture's window, count too.
func BenchmarkPlayFrame(b *testing.B) { benchPlayFrames(b, nil) }

// BenchmarkPlayFrameEncoded is BenchmarkPlayFrame with each frame encoded
// to the bytes the writer sends, as offer encodes it.
func BenchmarkPlayFrameEncoded(b *testing.B) {
	benchPlayFrames(b, func(m serverMsg) int {
		o := newOutMsg(&m)
		o.b = appendMsg(o.b[:0], &m)
		n := len(o.b)
		o.free()
		return n
	})
}

// benchPlayFrames plays each lab's frames; encode, when set, takes each
// and says how many bytes it came to.
func benchPlayFrames(b *testing.B, encode func(serverMsg) int) {
	cfg, course := testConfig(), testCourse(b)
	for _, id := range []string{"w1-w2", "renew-load", "renewal-signals"} {
		b.Run(id, func(b *testing.B) {
			lab := benchLab(b, course, id)
			start := func() *Conn { return playingLive(b, cfg, lab, 1) }
			l := start()
			bytes := 0
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
				m := l.frame(0)
				if m.Type != "frame" {
					b.Fatal(m.Error)
				}
				if encode != nil {
					bytes += encode(m)
				}
				m.free() // as offer does once it has encoded m
			}
			if encode != nil {
				b.ReportMetric(float64(bytes)/float64(b.N), "frame-B/op")
			}
		})
	}
}

// BenchmarkEncodeFrame encodes the first two minutes' play frames of
// each lab, one after another, as offer encodes them: the encoder alone.
func BenchmarkEncodeFrame(b *testing.B) {
	cfg, course := testConfig(), testCourse(b)
	for _, id := range []string{"w1-w2", "renew-load"} {
		b.Run(id, func(b *testing.B) {
			frames := playFrames(b, cfg, benchLab(b, course, id), 120)
			n, i := 0, 0
			b.ReportAllocs()
			for b.Loop() {
				f := &frames[i%len(frames)]
				o := newOutMsg(f)
				o.b = appendMsg(o.b[:0], f)
				n += len(o.b)
				o.free()
				i++
			}
			b.ReportMetric(float64(n)/float64(b.N), "frame-B/op")
		})
	}
}

// BenchmarkWholePicture draws a live picture whole, as a frame does when
// the picture's time scale changes: each lab's world two minutes on.
func BenchmarkWholePicture(b *testing.B) {
	course := testCourse(b)
	for _, id := range []string{"w1-w2", "renew-load"} {
		b.Run(id, func(b *testing.B) {
			w, err := benchLab(b, course, id).NewWorld(1)
			if err != nil {
				b.Fatal(err)
			}
			if err := w.Advance(2 * engine.Minute); err != nil {
				b.Fatal(err)
			}
			d := draw.WindowDiagram("live", w, "en")
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := draw.Figure(d).Render(context.Background(), &buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "picture-B")
		})
	}
}

// BenchmarkPausedCommand measures a command to a paused session and its
// answer, as a tap on "+5 dtk" costs the server: each lab's world a minute
// on, advanced 5 s a command, and back to a minute (outside the timer)
// every 20 commands.
func BenchmarkPausedCommand(b *testing.B) {
	cfg, course := testConfig(), testCourse(b)
	for _, id := range []string{"w1-w2", "renew-load"} {
		b.Run(id, func(b *testing.B) {
			lab := benchLab(b, course, id)
			start := func() *Conn {
				sess, err := labsession.New(lab, 1)
				if err != nil {
					b.Fatal(err)
				}
				if err := sess.Do("until 60s"); err != nil {
					b.Fatal(err)
				}
				l := &Conn{cfg: cfg, lab: lab, lang: "en", sess: sess, runs: labRun{sess}, shown: -1}
				m := l.frame(0)
				m.free()
				return l
			}
			l, n, bytes := start(), 0, 0
			b.ReportAllocs()
			for b.Loop() {
				if n++; n%20 == 0 {
					b.StopTimer()
					l = start()
					b.StartTimer()
				}
				m := l.runs.handle(l, ClientMsg{ID: 1, Type: "do", kind: msgDo, Cmd: "advance 5s"})
				if m.Type != "ack" {
					b.Fatal(m.Error)
				}
				o := newOutMsg(&m)
				o.b = appendMsg(o.b[:0], &m)
				bytes += len(o.b)
				o.free()
			}
			b.ReportMetric(float64(bytes)/float64(b.N), "answer-B/op")
		})
	}
}

// playFrames is the first n play frames of a session of lab.
func playFrames(b *testing.B, cfg *Config, lab *labs.Lab, n int) []serverMsg {
	l := playingLive(b, cfg, lab, 1)
	frames := make([]serverMsg, n)
	for i := range frames {
		if err := l.sess.Apply(engine.Command{Kind: engine.CmdAdvance, Dur: engine.Second}); err != nil {
			b.Fatal(err)
		}
		frames[i] = l.frame(0)
	}
	return frames
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
func playingLive(b *testing.B, cfg *Config, lab *labs.Lab, seed uint64) *Conn {
	sess, err := labsession.New(lab, seed)
	if err != nil {
		b.Fatal(err)
	}
	l := &Conn{cfg: cfg, lab: lab, lang: "en", sess: sess, runs: labRun{sess}, playing: true, shown: -1}
	if m := l.frame(0); m.Type != "frame" {
		b.Fatal(m.Error)
	}
	return l
}

// BenchmarkLiveFrame measures what one play tick costs the server: the
// diagram, the state and the new events, rendered.
func BenchmarkLiveFrame(b *testing.B) {
	lab := testCourse(b).Lab("w1-w2")
	sess, err := labsession.New(lab, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, cmd := range []string{"fencing on", "until 4s", "freeze W1", "advance 18s", "thaw W1", "advance 6s"} {
		if err := sess.Do(cmd); err != nil {
			b.Fatal(err)
		}
	}
	l := &Conn{cfg: testConfig(), lab: lab, lang: "en", sess: sess}
	b.ReportAllocs()
	for b.Loop() {
		l.shown = -1
		if m := l.frame(0); m.Type != "frame" {
			b.Fatal(m.Error)
		}
	}
}
