package web

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"leaselab/live"
)

// TestBrowserFingerTap: on a phone, a finger's touch on "+5 s" of a
// paused world sends its command as the finger touches (held); the page
// keeps the answer back while the finger is down and draws it as it
// lifts, and the touch's end makes no click of it (a slowed phone's mouse
// events, focus and click came between the command and the drawing of
// its answer). A touch that turns into a scroll (its touch cancelled)
// takes its command back, so that the next tap moves the world 5 s from
// where it was. A mouse's click still sends at the click.
func TestBrowserFingerTap(t *testing.T) {
	t.Parallel()
	ctx := browser(t, int(phone.width), int(phone.height))
	emulate(t, ctx, phone)
	s, ts := newTestServer(t, Config{})
	var held atomic.Int64
	s.live.BeforeHandle = func(m live.ClientMsg) {
		if m.Hold {
			held.Add(1)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/en/labs/w1-w2")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null`)
	const plus5 = `button[value="advance 5s"]`
	evalBool(t, ctx, `(window.__clicks = 0, document.querySelector('`+plus5+`').addEventListener("click", () => window.__clicks++), true)`)
	now := `parseFloat(document.getElementById("now").textContent)`
	heldBy := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); held.Load() < n; { // a hang guard, not a timing
			if time.Now().After(deadline) {
				t.Fatalf("the server had %d held commands, want %d", held.Load(), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	touch(t, ctx, plus5, input.DispatchTouchEventTypeTouchStart)
	heldBy(1)
	if n := evalAs[float64](t, ctx, now); n != 0 {
		t.Errorf("while the finger is down the page shows %v s, want the answer kept back (0 s)", n)
	}
	touch(t, ctx, plus5, input.DispatchTouchEventTypeTouchEnd)
	waitJS(t, ctx, "the lift's 5 s", now+` === 5 && !document.querySelector(".sent")`)
	tap(t, ctx, plus5)
	waitJS(t, ctx, "the tap's 5 s", now+` >= 10 && !document.querySelector(".sent")`)

	touch(t, ctx, plus5, input.DispatchTouchEventTypeTouchStart)
	heldBy(3)
	touch(t, ctx, plus5, input.DispatchTouchEventTypeTouchCancel)
	tap(t, ctx, plus5)
	waitJS(t, ctx, "the tap after the scroll", now+` >= 15 && !document.querySelector(".sent")`)
	if n := evalAs[float64](t, ctx, now); n != 15 {
		t.Errorf("a touch, a tap, a touch that scrolled, a tap: the world is at %v s, want 15", n)
	}
	waitJS(t, ctx, "the address after the taps", `location.search.includes("15s")`)
	if q := evalAs[string](t, ctx, `location.search`); q != "?seed=1&do=advance+15s" {
		t.Errorf("the address is %q, want the three taps' 15 s", q)
	}
	if n := evalAs[int](t, ctx, `window.__clicks`); n != 0 {
		t.Errorf("the button heard %d clicks from taps that had sent", n)
	}
	// A click that is not a finger's (a mouse, a key) sends at the click.
	click(t, ctx, plus5)
	waitJS(t, ctx, "the click's 5 s", now+` === 20 && !document.querySelector(".sent")`)
}

// touch sends one touch event of kind at the middle of the element css
// names (a start there, an end or a cancel of the touch).
func touch(t *testing.T, ctx context.Context, css string, kind input.DispatchTouchEventType) {
	t.Helper()
	var points []*input.TouchPoint
	if kind == input.DispatchTouchEventTypeTouchStart {
		xy := evalAs[[]float64](t, ctx, fmt.Sprintf(`(() => {
			const el = document.querySelector(%q);
			el.scrollIntoView({block: "center"});
			const r = el.getBoundingClientRect();
			return [r.left + r.width / 2, r.top + r.height / 2];
		})()`, css))
		points = []*input.TouchPoint{{X: xy[0], Y: xy[1]}}
	}
	if _, err := chromedp.Call(ctx, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: kind, TouchPoints: points}); err != nil {
		t.Fatal(err)
	}
}
