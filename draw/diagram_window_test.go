package draw

import (
	"testing"

	"leaselab/engine"
)

// A live picture of a long run shows its last liveWindow, with every mark
// and message a whole picture shows there; a permalink's shows it all.
func TestLiveDiagramWindowsLongRuns(t *testing.T) {
	c, err := embeddedCourse()
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Lab("renew-load").NewWorld(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Do("until 5m"); err != nil {
		t.Fatal(err)
	}
	whole := PageDiagram("p", w, "en", nil)
	win := WindowDiagram("p", w, "en")
	if whole.Ticks[0].At != 0 || win.Ticks[0].At == 0 {
		t.Fatalf("whole starts at %s, window at %s", whole.Ticks[0].At, win.Ticks[0].At)
	}
	from := win.From
	if from <= 0 || from < w.Now()-liveWindow-30*engine.Second || from > w.Now()-liveMinWindow {
		t.Fatalf("the window starts at %s, now is %s", from, w.Now())
	}
	if n := len(win.Marks); n > liveEvents {
		t.Errorf("a busy world's window draws %d marks", n)
	}
	if len(win.Marks) == 0 || len(win.Marks) >= len(whole.Marks) || len(win.Msgs) == 0 || len(win.Msgs) >= len(whole.Msgs) {
		t.Fatalf("window: %d marks, %d messages; whole run: %d, %d", len(win.Marks), len(win.Msgs), len(whole.Marks), len(whole.Msgs))
	}
	events := w.Events()
	// Each mark of the window's time is the whole picture's mark, drawn
	// the same apart from where the scale puts it.
	inWindow := map[int32]string{}
	for _, m := range whole.Marks {
		if events[m.Index].T >= from {
			inWindow[m.Index] = markHTML(whole, m)
		}
	}
	for _, m := range win.Marks {
		if events[m.Index].T < from {
			t.Errorf("mark of event %d at %s, before the window", m.Index, events[m.Index].T)
		}
		html, ok := inWindow[m.Index]
		if !ok || html != markHTML(win, m) {
			t.Errorf("mark %d: %s in the window, %s (%v) in the whole picture", m.Index, markHTML(win, m), html, ok)
		}
		delete(inWindow, m.Index)
	}
	if len(inWindow) > 0 {
		t.Errorf("%d marks of the window's time only in the whole picture", len(inWindow))
	}
	// The next frame's picture takes the marks over in place, and after
	// the log starts again it draws the new log's marks, not the old.
	want := map[int32]string{}
	for _, m := range win.Marks {
		want[m.Index] = markHTML(win, m)
	}
	again := &Diagram{}
	again.layout("p", w, "en", nil, diagramOpts{Window: liveWindow}, win)
	if !again.inPlace || len(again.Marks) != len(want) || markHTML(again, again.Marks[0]) != want[again.Marks[0].Index] {
		t.Fatalf("a second frame differs (in place %v)", again.inPlace)
	}
	if err := w.Do("reset"); err != nil {
		t.Fatal(err)
	}
	if err := w.Do("until 10s"); err != nil {
		t.Fatal(err)
	}
	cached := &Diagram{}
	cached.layout("p", w, "en", nil, diagramOpts{Window: liveWindow}, again)
	fresh := PageDiagram("p", w, "en", nil)
	if len(fresh.Marks) != len(cached.Marks) {
		t.Fatalf("after a reset: %d marks, %d laid out after the last frame", len(fresh.Marks), len(cached.Marks))
	}
	for i := range fresh.Marks {
		if f, c := markHTML(fresh, fresh.Marks[i]), markHTML(cached, cached.Marks[i]); f != c {
			t.Errorf("after a reset, mark %d: %q, after the last frame %q", i, f, c)
		}
	}
}

// markHTML is how m is drawn in d, but for its place and its id: its
// class, words and shape.
func markHTML(d *Diagram, m dMark) string {
	m.X, m.Y = 0, 0
	var w Markup
	k := d.Keyed
	d.Keyed = false
	w.mark(d, m)
	d.Keyed = k
	return string(w.B)
}
