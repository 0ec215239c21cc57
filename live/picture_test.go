package live

import (
	"context"
	"strings"
	"testing"

	"leaselab/draw"
	"leaselab/labsession"

	"github.com/a-h/templ"
)

// A live session's first frame draws the picture the lab page draws, byte
// for byte, whether it plays (sentences cached) or not.
func TestLivePictureIsThePagePicture(t *testing.T) {
	c, cfg := testCourse(t), testConfig()
	lab := c.Lab("w1-w2")
	sess, err := labsession.New(lab, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"fencing on", "until 4s", "freeze W1", "advance 18s", "thaw W1", "advance 6s"} {
		if err := sess.Do(cmd); err != nil {
			t.Fatal(err)
		}
		want, err := renderText(draw.Figure(draw.WindowDiagram("live", sess.World(), "en")))
		if err != nil {
			t.Fatal(err)
		}
		for _, playing := range []bool{true, false} {
			l := &Conn{cfg: cfg, lab: lab, lang: "en", sess: sess, runs: labRun{sess}, shown: -1, playing: playing}
			m := l.frame(0)
			got := ""
			for _, o := range wireOf(m).Ops {
				if o.Target == "diagram" {
					got = o.HTML
				}
			}
			if got != want {
				t.Fatalf("after %q (playing %v) the live picture differs from the page's", cmd, playing)
			}
			if (l.view != nil) != playing {
				t.Fatalf("playing %v, view kept: %v", playing, l.view != nil)
			}
		}
	}
}

// renderText is what c writes.
func renderText(c templ.Component) (string, error) {
	var b strings.Builder
	err := c.Render(context.Background(), &b)
	return b.String(), err
}
