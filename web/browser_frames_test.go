package web

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// samePageAsFresh is a script that compares the live parts of the page —
// as the incremental frames left them — with the same parts of a fresh
// render of the page's own address, fetched and parsed by the browser.
// What the script itself sets for scrolling (the pinned lane names'
// transform, the time labels it hides, the box's fitted flag) is left
// out of both, and the event list is opened first. The "now" layer the script draws over a picture
// must stand where the picture's own (hidden) line is and say what its
// label says; then it is left out too. It yields ""
// when they match, else the first target that differs and where.
const samePageAsFresh = `(async () => {
	// A closed event list holds its rows until it is opened.
	for (const d of document.querySelectorAll("details.eventbox")) d.open = true;
	await new Promise(r => setTimeout(r, 50));
	for (const layer of document.querySelectorAll(".nowlayer:not([hidden])")) {
		const box = layer.parentElement, svg = box.querySelector("svg.diagram"), g = svg && svg.querySelector(".nowline");
		if (!g) return "a now layer over a picture without a now line";
		const x = Number(/translate\(([-\d.]+)/.exec(g.getAttribute("transform"))[1]);
		const r = svg.getBoundingClientRect(), k = r.width / (Number(box.dataset.width) || svg.viewBox.baseVal.width);
		const at = layer.getBoundingClientRect().left;
		if (Math.abs(at - (r.left + x * k)) > 2) return "the now layer is at " + at + ", the picture's line at " + (r.left + x * k);
		if (layer.textContent !== g.querySelector("text").textContent) return "the now layer says " + layer.textContent + ", the picture's line " + g.querySelector("text").textContent;
	}
	const res = await fetch(location.href);
	const fresh = new DOMParser().parseFromString(await res.text(), "text/html");
	const norm = (el) => {
		const c = el.cloneNode(true);
		c.querySelectorAll(".lanes-fixed").forEach(g => g.removeAttribute("transform"));
		c.querySelectorAll("[id$='-ticks'] > text").forEach(t => t.removeAttribute("visibility"));
		c.querySelectorAll("[data-fitted]").forEach(b => b.removeAttribute("data-fitted"));
		c.querySelectorAll(".nowlayer").forEach(l => l.remove());
		c.querySelectorAll(".nowlayered").forEach(b => b.classList.remove("nowlayered"));
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
	// Ten seconds of the world's time from here, not a fixed moment: on a
	// busy machine the wait for the rows above took long enough for 20×
	// to pass 40 s, the pause followed the close within one frame, no
	// event came between them, and the rows once paused never grew.
	closed := evalString(t, ctx, `String(parseFloat(document.getElementById("now").textContent))`)
	waitJS(t, ctx, "play ten seconds more", `parseFloat(document.getElementById("now").textContent) >= `+closed+` + 10`)
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

// TestBrowserClockTicksBySecond plays W1/W2 at 1×, a frame each 0.2 s
// on clocks the test moves (steppedPage): the words that tell the time
// (the clock, the "now" layer's label, the last step) change only when
// the second does, and a pause shows the exact time at once, in all
// three. The layer itself glides: once the frames keep to a straight
// line, an animation moves it and the frames on that line write nothing
// to it and ask for no animation frame within a second; for a student
// who asks for less motion it moves with every frame instead.
func TestBrowserClockTicksBySecond(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	for _, still := range []bool{false, true} {
		name := "glides"
		if still {
			name = "reduced-motion"
		}
		t.Run(name, func(t *testing.T) { clockTicksBySecond(t, still) })
	}
}

// countRAFs counts the animation frames the page asks for (window.__rafs).
const countRAFs = `(() => {
	const raf = window.requestAnimationFrame.bind(window);
	window.__rafs = 0;
	window.requestAnimationFrame = (f) => { window.__rafs++; return raf(f); };
})()`

// watchTicks keeps the texts that tell the time as they change
// (window.__ticks), counts the writes to the now layer's style, and
// gives the layer's place in the picture's units as it is drawn (at) and
// whether an animation moves it (gliding).
const watchTicks = `(() => {
	const w = window.__ticks = {clock: [], label: [], step: [], moves: 0};
	const layer = document.querySelector("#live-box > .nowlayer");
	new MutationObserver(() => {
		const last = (a, v) => { if (a[a.length - 1] !== v) a.push(v); };
		last(w.clock, document.getElementById("now").textContent);
		last(w.label, layer.textContent);
		last(w.step, document.getElementById("cmd-0")?.textContent || "");
	}).observe(document.getElementById("lab"), {subtree: true, childList: true, characterData: true});
	new MutationObserver(() => { w.moves++; }).observe(layer, {attributes: true, attributeFilter: ["style"]});
	w.at = () => {
		const box = layer.parentElement, svg = box.querySelector("svg.diagram");
		const r = svg.getBoundingClientRect(), k = r.width / (Number(box.dataset.width) || svg.viewBox.baseVal.width);
		return (layer.getBoundingClientRect().left - r.left) / k;
	};
	w.gliding = () => layer.getAnimations().some((a) => a.playState === "running");
	return "";
})()`

func clockTicksBySecond(t *testing.T, still bool) {
	p := openStepped(t, int(phone.width), int(phone.height), 0, countRAFs)
	if still {
		if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}}); err != nil {
			t.Fatal(err)
		}
	}
	p.open("/id/labs/w1-w2")
	waitJS(t, p.ctx, "the now layer", `!!document.querySelector("#live-box > .nowlayer:not([hidden])")`)
	evalString(t, p.ctx, watchTicks)
	p.play()
	if still {
		for range 12 {
			p.step()
		}
		if evalBool(t, p.ctx, `window.__ticks.gliding()`) {
			t.Error("the now layer glides for a student who asked for less motion")
		}
	} else {
		glideOnItsLine(t, p)
	}
	// Paused between two whole seconds, so that the exact time differs
	// from the second's.
	for now := seconds(t, evalString(t, p.ctx, `window.__clock.now`)); now == math.Trunc(now); {
		now = seconds(t, p.step())
	}
	p.pause()
	if evalBool(t, p.ctx, `window.__ticks.gliding()`) {
		t.Error("the now layer still glides once paused")
	}
	// Paused, the layer stands on the picture's own line.
	line := evalAs[float64](t, p.ctx, `Number(/translate\(([-\d.]+)/.exec(document.getElementById("live-nowline").getAttribute("transform"))[1])`)
	if at := evalAs[float64](t, p.ctx, `window.__ticks.at()`); math.Abs(at-line) > 0.5 {
		t.Errorf("paused, the now layer is at %.2f units, the picture's line at %.2f", at, line)
	}
	timeTicksBySecond(t, p, still)
}

// seconds is a Go duration's length in seconds, as the wire has it.
func seconds(t *testing.T, d string) float64 {
	t.Helper()
	v, err := time.ParseDuration(d)
	if err != nil {
		t.Fatalf("a frame's time %q: %v", d, err)
	}
	return v.Seconds()
}

// glideOnItsLine steps the playing page until the now layer glides, then
// eight frames more: each is drawn (or not) by what it brings, whatever
// the machine's speed. The frames keep to the glide's line, so they write
// nothing to the layer, the glide goes on unbroken, and those within a
// second ask for no animation frame at all.
func glideOnItsLine(t *testing.T, p *steppedPage) {
	t.Helper()
	for i := 0; !evalBool(t, p.ctx, `window.__ticks.gliding()`); i++ {
		if i == 25 {
			t.Fatalf("the now layer did not glide after %d frames of 0.2 s", i)
		}
		p.step()
	}
	evalString(t, p.ctx, `(window.__ticks.anim = document.querySelector("#live-box > .nowlayer").getAnimations()[0], "")`)
	f0, m0, r0 := evalAs[int](t, p.ctx, `window.__clock.frames`), evalAs[int](t, p.ctx, `window.__ticks.moves`), evalAs[int](t, p.ctx, `window.__rafs`)
	at0 := evalAs[float64](t, p.ctx, `window.__ticks.at()`)
	var times []string
	for range 8 {
		times = append(times, p.step())
	}
	f1, m1, r1 := evalAs[int](t, p.ctx, `window.__clock.frames`), evalAs[int](t, p.ctx, `window.__ticks.moves`), evalAs[int](t, p.ctx, `window.__rafs`)
	t.Logf("while gliding: %d frames (%s), %d animation frames asked for, %d style writes", f1-f0, times, r1-r0, m1-m0)
	if f1-f0 != 8 {
		t.Errorf("8 steps of the clocks brought %d play frames", f1-f0)
	}
	// A second's change draws the words (one animation frame); the
	// frames between it ask for none.
	if r1-r0 >= f1-f0 {
		t.Errorf("%d frames while gliding asked for %d animation frames: none was left undrawn", f1-f0, r1-r0)
	}
	if m1 != m0 {
		t.Errorf("the frames wrote the gliding layer's style %d times in %d frames", m1-m0, f1-f0)
	}
	if !evalBool(t, p.ctx, `window.__ticks.anim.playState === "running" && document.querySelector("#live-box > .nowlayer").getAnimations()[0] === window.__ticks.anim`) {
		t.Error("the frames on the glide's line stopped or started the glide again")
	}
	// The animation moves the layer on from where it was: the screen's
	// own clock, which the test leaves alone, takes it there.
	waitJS(t, p.ctx, "the gliding layer moving on", fmt.Sprintf(`window.__ticks.at() > %g`, at0))
}

// timeTicksBySecond checks the texts that told the time while the page
// played, once it is paused.
func timeTicksBySecond(t *testing.T, p *steppedPage, still bool) {
	t.Helper()
	var got struct {
		Clock, Label, Step []string
		Moves              int
	}
	if err := json.Unmarshal([]byte(evalString(t, p.ctx, `JSON.stringify(window.__ticks)`)), &got); err != nil {
		t.Fatal(err)
	}
	exact := evalString(t, p.ctx, `document.querySelector("#live-box .nowline text").textContent`)
	if !strings.Contains(exact, ",") {
		t.Fatalf("paused at %s: on a whole second, though the test paused between two", exact)
	}
	// secondOf reads "1,2 dtk", "kini 1 dtk", "maju 400 ms" as a second.
	secondOf := func(s string) int {
		f := strings.Fields(strings.ReplaceAll(s, ",", "."))
		if len(f) < 2 {
			return -1
		}
		v, err := strconv.ParseFloat(f[len(f)-2], 64)
		if err != nil {
			return -1
		}
		if f[len(f)-1] == "ms" {
			v /= 1000
		}
		return int(v)
	}
	for _, texts := range [][]string{got.Clock, got.Label, got.Step} {
		if len(texts) < 2 {
			t.Fatalf("the time's words did not change while playing: %q", texts)
		}
		// Each text shown while playing is of a later second than the one
		// before it.
		for i := 1; i < len(texts)-1; i++ {
			if secondOf(texts[i]) <= secondOf(texts[i-1]) {
				t.Errorf("while playing the page went from %q to %q within a second", texts[i-1], texts[i])
			}
		}
		if last := texts[len(texts)-1]; !strings.Contains(last, strings.TrimPrefix(exact, "kini ")) {
			t.Errorf("paused, the page shows %q; the picture's line says %q", last, exact)
		}
	}
	if still && got.Moves < 2*len(got.Clock) {
		t.Errorf("the now layer moved %d times for %d clock texts: it should move with every frame", got.Moves, len(got.Clock))
	}
	t.Logf("clock %q, %d moves", got.Clock, got.Moves)
}

// TestBrowserChartWaitsForTheSecond plays renew-load at 1× through its
// first renewals (from 7 s to past 11 s), a frame each 0.2 s on clocks
// the test moves, and watches the renewal chart: while the world plays
// it changes only with the clock, once a second (the chart's ops wait
// with the clock's words), and once paused the page equals a fresh
// render, chart included.
func TestBrowserChartWaitsForTheSecond(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	p := openStepped(t, int(phone.width), int(phone.height), 0)
	p.open("/id/labs/renew-load?seed=1&do=advance+7s")
	log := playPast(p, 11, `document.getElementById("chart").innerHTML`)
	changes := 0
	for i := 1; i < len(log); i++ {
		if log[i][1] != log[i-1][1] {
			changes++
			if log[i][0] == log[i-1][0] {
				t.Errorf("the chart changed at %q without the clock", log[i][0])
			}
		}
	}
	if changes < 2 {
		t.Errorf("the chart changed %d times while renew-load played from 7 s past 11 s", changes)
	}
	diff, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](samePageAsFresh, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Errorf("once paused, the page differs from a fresh render: %s", diff)
	}
}

// TestBrowserSlowPageDrawsTheSecond plays renew-load's renewal burst on a
// page whose every drawn batch costs it 10 ms (a budget phone: the page's
// own measure of itself, on a clock the test moves, so that the machine's
// speed does not change what it measures): once the page knows it is slow
// and the glide has the line, a play frame within the second shown waits
// whole, and the picture (its marks, messages and bars) changes only
// together with the clock. At half speed, where a second lasts two, it
// draws as the frames come, and so changes within the second too.
// Paused, the page equals a fresh render: nothing that waited was lost or
// put in out of order.
func TestBrowserSlowPageDrawsTheSecond(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	for _, speed := range []string{"1", "0.5"} {
		t.Run(speed+"×", func(t *testing.T) {
			t.Parallel()
			p := openStepped(t, int(laptop.width), int(laptop.height), 10) // the whole picture in view: it never scrolls
			p.open("/id/labs/renew-load?seed=1&do=advance+7s")
			evalString(t, p.ctx, `(document.getElementById("speed").value = "`+speed+`", "")`)
			// The picture's layers, each hashed (their attributes count:
			// a bar set in place changes only its width).
			log := playPast(p, 12, `["live-marks", "live-msgs", "live-leases", "live-beliefs"].map((id) => {
				const s = document.getElementById(id)?.innerHTML || "";
				let h = 0;
				for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
				return h;
			}).join(" ")`)
			slowPageChanges(t, speed, log)
			diff, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](samePageAsFresh, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatal(err)
			}
			if diff != "" {
				t.Errorf("once paused, the page differs from a fresh render: %s", diff)
			}
		})
	}
}

// slowPageChanges checks what a slow page's picture did from 9 s on, the
// page playing at speed: it changed, at 1× only with the clock, at half
// speed within the second too.
func slowPageChanges(t *testing.T, speed string, log [][2]string) {
	t.Helper()
	changes, alone := 0, 0
	for i := 1; i < len(log); i++ {
		at, err := strconv.ParseFloat(strings.ReplaceAll(strings.Fields(log[i-1][0])[0], ",", "."), 64)
		if err != nil {
			t.Fatalf("the clock said %q", log[i-1][0])
		}
		if at < 9 || log[i][1] == log[i-1][1] {
			continue // the first two seconds: the page learns it is slow, the glide starts
		}
		changes++
		if log[i][0] == log[i-1][0] {
			alone++
			if speed == "1" {
				t.Errorf("the picture changed at %q without the clock: %v", log[i][0], log[max(0, i-3):i+1])
			}
		}
	}
	if changes < 1 {
		t.Errorf("the picture did not change while renew-load played from 9 s past 12 s: %v", log)
	}
	if speed != "1" && alone == 0 {
		t.Errorf("at %s× the picture changed only with the clock: %v", speed, log)
	}
}

// playPast plays the stepped page's world from where it is past the
// second until and pauses it, and returns what the page showed on the
// way: the clock's words and what the script part says of the rest, at
// the start and at every change of the page that changed either.
func playPast(p *steppedPage, until float64, part string) [][2]string {
	p.t.Helper()
	evalString(p.t, p.ctx, `(() => {
		const seen = () => [document.getElementById("now").textContent, String(`+part+`)];
		const w = window.__seen = {log: [seen()]};
		new MutationObserver(() => {
			const [clock, rest] = seen(), [lastClock, lastRest] = w.log[w.log.length - 1];
			if (rest !== lastRest || clock !== lastClock) w.log.push([clock, rest]);
		}).observe(document.getElementById("lab"), {subtree: true, childList: true, characterData: true, attributes: true});
		return "";
	})()`)
	p.play()
	p.stepPast(until)
	p.pause()
	var log [][2]string
	if err := json.Unmarshal([]byte(evalString(p.t, p.ctx, `JSON.stringify(window.__seen.log)`)), &log); err != nil {
		p.t.Fatal(err)
	}
	return log
}
