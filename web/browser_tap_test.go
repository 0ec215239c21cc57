package web

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserFingerTapMakesNoClick: on a phone, a finger's tap on "+5 s"
// sends its command as the finger lifts, and the touch's end then makes
// no click of it (a slowed phone's mouse events, focus and click came
// between the command and the drawing of its answer): each tap moves
// the world 5 s, the button never hears a click, and a mouse's click
// still sends.
func TestBrowserFingerTapMakesNoClick(t *testing.T) {
	t.Parallel()
	ctx := browser(t, int(phone.width), int(phone.height))
	emulate(t, ctx, phone)
	_, ts := newTestServer(t, Config{})
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/en/labs/w1-w2")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null`)
	const plus5 = `button[value="advance 5s"]`
	evalBool(t, ctx, `(window.__clicks = 0, document.querySelector('`+plus5+`').addEventListener("click", () => window.__clicks++), true)`)
	now := `parseFloat(document.getElementById("now").textContent)`
	tap(t, ctx, plus5)
	waitJS(t, ctx, "the first tap's 5 s", now+` === 5 && !document.querySelector(".sent")`)
	tap(t, ctx, plus5)
	waitJS(t, ctx, "the second tap's 5 s", now+` >= 10 && !document.querySelector(".sent")`)
	if n := evalAs[float64](t, ctx, now); n != 10 {
		t.Errorf("two taps of +5 s moved the world to %v s, not 10", n)
	}
	if n := evalAs[int](t, ctx, `window.__clicks`); n != 0 {
		t.Errorf("the button heard %d clicks from two taps that had sent as they lifted", n)
	}
	// A click that is not a finger's (a mouse, a key) sends at the click.
	click(t, ctx, plus5)
	waitJS(t, ctx, "the click's 5 s", now+` === 15 && !document.querySelector(".sent")`)
}
