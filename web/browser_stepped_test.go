package web

import (
	"context"
	"fmt"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"leaselab/live"
)

// A page's play, once a test has to say how often or how soon the page
// draws, runs on clocks the test moves, never on the machine's: a busy
// machine then changes how long the test takes, not what it sees.
// The server plays on a live.ManualClock (Config.Clock): a play frame
// falls due only when the test moves it on. The page reads the time
// through performance.now (when a message came, what a batch of
// messages cost it, how long it rests after, where the "now" line's
// glide has got to): pageClock makes that a clock the test moves too,
// the same 0.2 s a frame. What the page does with a frame then depends
// only on the frames and the order they come in.
// (The glide's animation itself runs on the document's timeline, which
// only a screen cares about: the tests look at what it was given.)

// pageClock is put into a stepped page before its own script. It
//   - makes performance.now read window.__clock.t (ms), which the test moves;
//   - charges every animation frame the page asks for window.__clock.cost
//     ms of that clock, as a phone that slow would take to draw it (0, a
//     fast page; 10, a budget phone: static/play.js's slow()), so the page
//     measures itself as that phone;
//   - counts the live messages that came (msgs) and the play frames
//     among them (frames), and keeps the last one's time (now);
//   - keeps the browser's own requestAnimationFrame (raf), which costs
//     nothing, for the test's waits;
//   - settled() is a promise of the moment the page has done with what
//     came: the animation frame a message is handed to (later, in
//     static/play.js) has run, and a task after it, where the page reads
//     what the batch cost;
//   - next(n) is settled() once more than n play frames have come.
//
// Its listener is the socket's first, so the page's own (onmessage) has
// run by the task after it.
const pageClock = `(() => {
	const c = window.__clock = {t: 1000, cost: 0, msgs: 0, frames: 0, now: "", raf: window.requestAnimationFrame.bind(window), waiting: []};
	performance.now = () => c.t;
	window.requestAnimationFrame = (f) => c.raf((ts) => { f(ts); c.t += c.cost; });
	c.settled = () => new Promise((r) => setTimeout(() => c.raf(() => setTimeout(() => r(c.now), 0)), 0));
	c.next = (n) => c.frames > n ? c.settled() : new Promise((r) => c.waiting.push([n, r]));
	const W = window.WebSocket;
	window.WebSocket = class extends W {
		constructor(...a) {
			super(...a);
			this.addEventListener("message", (ev) => {
				const m = JSON.parse(ev.data);
				c.msgs++;
				if (m.type === "frame" && m.playing) c.frames++;
				if (m.now !== undefined) c.now = m.now;
				c.waiting = c.waiting.filter(([n, r]) => c.frames > n ? (c.settled().then(r), false) : true);
			});
		}
	};
})()`

// stepTick is how far each step moves both clocks: a play frame apart
// (live's playTick, what a page asks for while a message costs it
// little).
const stepTick = 200 * time.Millisecond

// steppedPage is a lab page in Chromium whose world plays on clocks the
// test moves (step).
type steppedPage struct {
	t     *testing.T
	ctx   context.Context
	clock *live.ManualClock
	url   string // the test server's
}

// openStepped opens a tab of width × height on a test server of its own
// whose live clock is manual, with pageClock, the page charged cost ms an
// animation frame, and the scripts given, in every page it loads.
func openStepped(t *testing.T, width, height int, cost float64, scripts ...string) *steppedPage {
	t.Helper()
	ctx := browser(t, width, height)
	clock := live.NewManualClock()
	_, ts := newTestServer(t, Config{Clock: clock})
	for _, src := range append([]string{pageClock, fmt.Sprintf(`window.__clock.cost = %g`, cost)}, scripts...) {
		if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: src}); err != nil {
			t.Fatal(err)
		}
	}
	return &steppedPage{t: t, ctx: ctx, clock: clock, url: ts.URL}
}

// open loads the page at path and waits for its live connection.
func (p *steppedPage) open(path string) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Navigate(p.url+path)); err != nil {
		p.t.Fatal(err)
	}
	waitJS(p.t, p.ctx, "the live connection", `document.querySelector("#conn.on") !== null`)
}

// settle waits until the page has done with what came (settled).
func (p *steppedPage) settle() {
	p.t.Helper()
	evalString(p.t, p.ctx, `window.__clock.settled()`)
}

// play presses play and waits until the page shows the world playing.
func (p *steppedPage) play() {
	p.t.Helper()
	click(p.t, p.ctx, "#play")
	waitJS(p.t, p.ctx, "playing", `document.getElementById("play").getAttribute("aria-pressed") === "true"`)
	p.settle()
}

// pause presses pause and waits until the page shows the world paused.
func (p *steppedPage) pause() {
	p.t.Helper()
	click(p.t, p.ctx, "#play")
	waitJS(p.t, p.ctx, "paused", `document.getElementById("play").getAttribute("aria-pressed") === "false"`)
	p.settle()
}

// step moves the page's clock and then the server's on by stepTick, so
// that the next play frame falls due, waits for it to come and for the
// page to have done with it, and returns the world's time it brought
// (a Go duration, as the wire has it). It waits on the frame, not on a
// time: what a frame that never came means is for the tab's own three
// minutes to tell.
func (p *steppedPage) step() string {
	p.t.Helper()
	evalAs[bool](p.t, p.ctx, fmt.Sprintf(`(window.__clock.t += %d, window.__clock.pending = window.__clock.next(window.__clock.frames), true)`, stepTick.Milliseconds()))
	p.clock.Advance(stepTick)
	now, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`window.__clock.pending`, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("waiting for the play frame %s on: %v", stepTick, err)
	}
	return now
}

// stepPast steps until the page's clock shows at least until seconds.
func (p *steppedPage) stepPast(until float64) {
	p.t.Helper()
	for range 1000 {
		if evalAs[float64](p.t, p.ctx, `parseFloat(document.getElementById("now").textContent.replace(",", "."))`) >= until {
			return
		}
		p.step()
	}
	p.t.Fatalf("the page's clock did not reach %g s in 1000 steps", until)
}
