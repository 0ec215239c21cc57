package web

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// placedAsStyled checks, in the live picture, that each bar, message and
// mark is drawn where its style puts it (draw's keyedStyle): its x times
// the plot group's scale right of the group, and a bar as wide as its
// width times the scale (at least a unit). It yields "" when all are,
// else the first that is not, and how many it checked.
const placedAsStyled = `(() => {
	const plot = document.getElementById("live-plot");
	const k = Number(getComputedStyle(plot).getPropertyValue("--k"));
	if (!(k > 0 && k <= 1)) return "the plot group's scale is " + k;
	const inv = plot.getCTM().inverse();
	let n = 0;
	for (const el of plot.querySelectorAll(":scope > g > [style]")) {
		const x = Number(el.style.getPropertyValue("--x")), m = inv.multiply(el.getCTM());
		if (Math.abs(m.e - x * k) > 0.05) return el.id + " at " + m.e + ", its style says " + x * k;
		const r = el.querySelector(".lease, .belief, .stale");
		if (r) {
			const w = Math.max(1, Number(el.style.getPropertyValue("--w")) * k);
			if (Math.abs(r.getBBox().width - w) > 0.05) return el.id + " is " + r.getBBox().width + " wide, its style says " + w;
		}
		n++;
	}
	return n > 100 ? "" : "only " + n + " elements placed";
})()`

// TestBrowserLivePictureRescales plays renew-load at the server's top
// speed through the live picture's changes of scale (a few small ops
// each, not the picture again: issue 48) and the busy world's narrower
// window, pauses, and finds every element drawn where its style and the
// picture's scale put it, and the page equal to a fresh render.
func TestBrowserLivePictureRescales(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	ctx := browser(t, int(laptop.width), int(laptop.height))
	_, ts := newTestServer(t, Config{})
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/renew-load")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null`)
	scale := evalString(t, ctx, `document.getElementById("live-plot").getAttribute("style")`)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.getElementById("speed"); s.add(new Option("20×", "20")); s.value = "20"; return true; })()`)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#play")
	waitJS(t, ctx, "play past 100s", `parseFloat(document.getElementById("now").textContent) >= 100`)
	click(t, ctx, "#play")
	waitJS(t, ctx, "paused", `document.getElementById("play").getAttribute("aria-pressed") === "false"`)
	if now := evalString(t, ctx, `document.getElementById("live-plot").getAttribute("style")`); now == scale {
		t.Errorf("the picture's scale is %q still at 100 s", now)
	}
	if bad := evalString(t, ctx, placedAsStyled); bad != "" {
		t.Errorf("after play frames: %s", bad)
	}
	diff, err := chromedp.Run(ctx, chromedp.Evaluate[string](samePageAsFresh, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Errorf("after play frames, the page differs from a fresh render: %s", diff)
	}
}
