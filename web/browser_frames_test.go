package web

import (
	"testing"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// samePageAsFresh is a script that compares the live parts of the page —
// as the incremental frames left them — with the same parts of a fresh
// render of the page's own address, fetched and parsed by the browser.
// What the script itself sets for scrolling (the pinned lane names'
// transform, the box's fitted flag) is left out of both, and the event
// list is opened first. It yields ""
// when they match, else the first target that differs and where.
const samePageAsFresh = `(async () => {
	// A closed event list holds its rows until it is opened.
	for (const d of document.querySelectorAll("details.eventbox")) d.open = true;
	await new Promise(r => setTimeout(r, 50));
	const res = await fetch(location.href);
	const fresh = new DOMParser().parseFromString(await res.text(), "text/html");
	const norm = (el) => {
		const c = el.cloneNode(true);
		c.querySelectorAll(".lanes-fixed").forEach(g => g.removeAttribute("transform"));
		c.querySelectorAll("[data-fitted]").forEach(b => b.removeAttribute("data-fitted"));
		return c.innerHTML;
	};
	for (const id of ["diagram", "chart", "status", "session", "events"]) {
		const a = document.getElementById(id), b = fresh.getElementById(id);
		if (!a || !b) return id + ": missing (" + !!a + ", " + !!b + ")";
		const x = norm(a), y = norm(b);
		if (x !== y) {
			let i = 0;
			while (i < x.length && x[i] === y[i]) i++;
			return id + " differs at " + i + ":\n page:  " + x.slice(Math.max(0, i - 120), i + 120) + "\n fresh: " + y.slice(Math.max(0, i - 120), i + 120);
		}
	}
	return "";
})()`

// TestBrowserFramesMatchAFreshPage plays W1/W2 in Chromium through the
// live picture's rescales and past its window, with commands while it
// plays, pauses, and finds the page the incremental frames built equal to
// a fresh render of the same address.
func TestBrowserFramesMatchAFreshPage(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	ctx := browser(t, int(laptop.width), int(laptop.height))
	_, ts := newTestServer(t, Config{})
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/w1-w2")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null`)
	click(t, ctx, `button[value="fencing on"]`)
	waitJS(t, ctx, "fencing on", `document.getElementById("storage-mode").dataset.mode === "fencing"`)
	// Play at the server's top speed: 4 virtual seconds a frame.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.getElementById("speed"); s.add(new Option("20×", "20")); s.value = "20"; return true; })()`)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#play")
	waitJS(t, ctx, "play to 10s", `parseFloat(document.getElementById("now").textContent) >= 10`)
	click(t, ctx, `button[aria-label="Bekukan W1"]`)
	waitJS(t, ctx, "W1 frozen", `document.querySelector('#status [data-worker="W1"]').dataset.frozen === "true"`)
	waitJS(t, ctx, "play to 40s", `parseFloat(document.getElementById("now").textContent) >= 40`)
	if n := evalString(t, ctx, `String(document.querySelectorAll("#live-marks .mk").length)`); n == "0" {
		t.Fatal("no marks in the live picture at 40s")
	}
	screenshot(t, ctx, "frames-playing-40s", false)
	click(t, ctx, `button[value="thaw W1"]`)
	waitJS(t, ctx, "play past the window", `parseFloat(document.getElementById("now").textContent) >= 135`)
	click(t, ctx, "#play")
	waitJS(t, ctx, "paused", `document.getElementById("play").getAttribute("aria-pressed") === "false"`)
	screenshot(t, ctx, "frames-after-play", false)
	diff, err := chromedp.Run(ctx, chromedp.Evaluate[string](samePageAsFresh, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Errorf("after play frames, the page differs from a fresh render: %s", diff)
	}
}

// rowOps counts, in every page, the ops of the server's messages that
// put rows into the event list (window.__rowOps).
const rowOps = `(() => {
	window.__rowOps = 0;
	const W = window.WebSocket;
	window.WebSocket = class extends W {
		constructor(...a) {
			super(...a);
			this.addEventListener("message", (ev) => {
				for (const o of JSON.parse(ev.data).ops || []) if (o[1] === "events" || o[1].startsWith("events-")) window.__rowOps++;
			});
		}
	};
})()`

// TestBrowserEventRowsWaitWhileClosed plays renew-load at phone size with the
// event list closed: the server sends no rows while it plays, so the list
// does not grow; opening it brings them, and after it is closed again a
// pause does, every row the frames would have brought, as a fresh render
// has them.
func TestBrowserEventRowsWaitWhileClosed(t *testing.T) {
	t.Parallel()
	ctx := browser(t, int(phone.width), int(phone.height))
	_, ts := newTestServer(t, Config{})
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: rowOps}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/renew-load")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null`)
	rows := `String(document.querySelectorAll("#events [data-event]").length)`
	before := evalString(t, ctx, rows)
	if open := evalString(t, ctx, `String(document.querySelector("details.eventbox").open)`); open != "false" {
		t.Fatalf("the event list is open (%s) on a new page", open)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.getElementById("speed"); s.add(new Option("20×", "20")); s.value = "20"; return true; })()`)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#play")
	waitJS(t, ctx, "play to 20s", `parseFloat(document.getElementById("now").textContent) >= 20`)
	if after := evalString(t, ctx, rows); after != before {
		t.Errorf("the closed event list went from %s to %s rows while playing", before, after)
	}
	if n := evalString(t, ctx, `String(window.__rowOps)`); n != "0" {
		t.Errorf("the server sent %s event-row ops to a closed list while playing", n)
	}
	// Opened while it plays: the rows go in; closed again: they wait again.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("details.eventbox").open = true`)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the rows put in once opened", `document.querySelectorAll("#events [data-event]").length > `+before)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!(document.querySelector("details.eventbox").open = false)`)); err != nil {
		t.Fatal(err)
	}
	opened := evalString(t, ctx, rows)
	waitJS(t, ctx, "play to 40s", `parseFloat(document.getElementById("now").textContent) >= 40`)
	if after := evalString(t, ctx, rows); after != opened {
		t.Errorf("the event list, closed again, went from %s to %s rows while playing", opened, after)
	}
	click(t, ctx, "#play")
	waitJS(t, ctx, "paused", `document.getElementById("play").getAttribute("aria-pressed") === "false"`)
	waitJS(t, ctx, "the rows put in once paused", `document.querySelectorAll("#events [data-event]").length > `+opened)
	diff, err := chromedp.Run(ctx, chromedp.Evaluate[string](samePageAsFresh, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Errorf("once paused, the page differs from a fresh render: %s", diff)
	}
}
