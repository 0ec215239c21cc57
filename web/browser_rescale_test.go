package web

import (
	"testing"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// opCounts counts, in every page, the ops of the server's messages by
// kind and target (window.__ops["scale live-plot"]).
const opCounts = `(() => {
	window.__ops = {};
	const W = window.WebSocket;
	window.WebSocket = class extends W {
		constructor(...a) {
			super(...a);
			this.addEventListener("message", (ev) => {
				for (const o of JSON.parse(ev.data).ops || []) {
					const k = o[0] + " " + o[1];
					window.__ops[k] = (window.__ops[k] || 0) + 1;
				}
			});
		}
	};
})()`

// TestBrowserLivePictureRescales plays renew-load at the server's top
// speed through the live picture's changes of scale, which the page
// applies itself (the "scale" op: issue 48), and past the window a busy
// world narrows, pauses, and finds the page equal to a fresh render: the
// marks and messages the page moved stand where a fresh render draws
// them.
func TestBrowserLivePictureRescales(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	ctx := browser(t, int(laptop.width), int(laptop.height))
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: opCounts}); err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, Config{})
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/renew-load")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null`)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.getElementById("speed"); s.add(new Option("20×", "20")); s.value = "20"; return true; })()`)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#play")
	waitJS(t, ctx, "play past 100s", `parseFloat(document.getElementById("now").textContent) >= 100`)
	click(t, ctx, "#play")
	waitJS(t, ctx, "paused", `document.getElementById("play").getAttribute("aria-pressed") === "false"`)
	// The spans change at 20, 40 and 80 s, but a busy machine's frames
	// each cover more time (the server sends the world as it is when the
	// page is ready for more), so one frame may cross two changes: the
	// count of scale ops depends on the machine, that there is one does not.
	if n := evalAs[int](t, ctx, `window.__ops["scale live-plot"] || 0`); n < 1 {
		t.Errorf("the page never moved its picture to a new scale by 100 s")
	}
	if n := evalAs[int](t, ctx, `window.__ops["replace diagram"] || 0`); n > 0 {
		t.Errorf("the picture was drawn whole %d times while playing", n)
	}
	diff, err := chromedp.Run(ctx, chromedp.Evaluate[string](samePageAsFresh, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Errorf("after play frames, the page differs from a fresh render: %s", diff)
	}
}
