package web

import (
	"strings"
	"testing"

	"leaselab/content"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/web/labsession"
)

// pageModel is the part of a lab page frames change: each target's
// content, as the page's script leaves it after applying ops.
type pageModel map[string]string

func (p pageModel) apply(t *testing.T, m serverMsg) {
	t.Helper()
	if m.Type == "error" {
		t.Fatalf("frame error: %s", m.Error)
	}
	for _, o := range m.Ops {
		switch o.Op {
		case "replace":
			p[o.Target] = o.HTML
		case "append":
			p[o.Target] += o.HTML
		default:
			t.Fatalf("unknown op %q", o.Op)
		}
	}
}

// A page that followed a playing session's frames, through pauses, steps
// and a reset, shows what a fresh render of the same world shows.
func TestFramesAddUpToAFreshRender(t *testing.T) {
	c, err := labs.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, id := range []string{"w1-w2", "renew-load"} {
		lab := c.Lab(id)
		sess, err := labsession.New(lab, 1)
		if err != nil {
			t.Fatal(err)
		}
		l := &live{srv: srv, lab: lab, lang: "en", sess: sess, shown: -1, playing: true}
		page := pageModel{}
		page.apply(t, l.frame(0))
		tick := func(n int) {
			for range n {
				if err := sess.Apply(engine.Command{Kind: engine.CmdAdvance, Dur: engine.Second}); err != nil {
					t.Fatal(err)
				}
				page.apply(t, l.frame(0))
			}
		}
		do := func(cmd string) {
			if err := sess.Do(cmd); err != nil {
				t.Fatalf("%s: %s: %v", id, cmd, err)
			}
			page.apply(t, l.frame(0))
		}
		tick(30)
		l.playing = false
		do("advance 2s")
		l.playing = true
		tick(150) // past the live picture's window
		do("reset")
		tick(20)

		fresh := &live{srv: srv, lab: lab, lang: "en", sess: sess, shown: -1}
		want := pageModel{}
		want.apply(t, fresh.frame(0))
		for target, html := range want {
			if page[target] != html {
				t.Errorf("%s: after frames, #%s differs from a fresh render (%d bytes, fresh %d)", id, target, len(page[target]), len(html))
			}
		}
		if !strings.Contains(page["events"], `id="events-0"`) {
			t.Errorf("%s: the event list lacks its first event after the reset", id)
		}
	}
}
