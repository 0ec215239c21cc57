package web

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"
)

// phoneFiguresEnv turns TestPhoneFigures on: it plays two labs for about
// a minute and a half, too long for every run of the tests.
const phoneFiguresEnv = "LEASELAB_PHONE_FIGURES"

// phoneSlowdown is DevTools' usual stand-in for a budget Android phone.
const phoneSlowdown = 6

// countingListener counts the bytes the server reads and writes on every
// connection it accepts: what a phone's mobile data pays, websocket
// framing and compression included.
type countingListener struct {
	net.Listener
	in, out *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.in, l.out}, nil
}

type countingConn struct {
	net.Conn
	in, out *atomic.Int64
}

func (c countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.in.Add(int64(n))
	return n, err
}

func (c countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.out.Add(int64(n))
	return n, err
}

// phoneProbe is put into every page before its own script runs. It counts
// the live messages as they arrive (and their text's length), notes when
// the first one has been painted (an animation frame, then a task after
// it), and times a tap: from the finger lifting (when a tap becomes a
// click) to the first paint that shows "now" at or past the time the tap
// asked for, and to the server's answer's arrival.
const phoneProbe = `(() => {
	const p = window.__phone = {frames: 0, text: 0, first: 0, taps: [], answers: [], socks: [], drawn: 0};
	const painted = (f) => requestAnimationFrame(() => setTimeout(f, 0));
	const W = window.WebSocket;
	window.WebSocket = class extends W {
		constructor(...a) {
			super(...a);
			p.socks.push(this);
			this.addEventListener("open", () => { p.open = p.open || performance.now(); });
			this.addEventListener("message", (ev) => {
				p.msg = p.msg || performance.now();
				p.frames++;
				p.text += ev.data.length;
				if (p.log) p.log.push([performance.now(), ev.data]);
				if (!p.first) painted(() => { p.first = p.first || performance.now(); });
				const t = p.pending;
				if (t && t.up && !t.answer && JSON.parse(ev.data).type === "ack") t.answer = performance.now() - t.up;
			});
		}
	};
	const seconds = () => {
		const el = document.getElementById("now");
		return el ? parseFloat(el.textContent.replace(/[^0-9,.]/g, "").replace(",", ".")) : NaN;
	};
	p.arm = (step) => {
		p.pending = {target: seconds() + step - 0.001, up: 0, answer: 0};
	};
	addEventListener("pointerup", (ev) => { if (p.pending) p.pending.up = ev.timeStamp; }, true);
	new MutationObserver(() => {
		p.drawn++;
		const t = p.pending;
		if (!t || !t.up || !(seconds() >= t.target)) return;
		p.pending = null;
		painted(() => { p.taps.push(performance.now() - t.up); p.answers.push(t.answer); });
	}).observe(document, {subtree: true, childList: true, characterData: true});
})()`

// phoneRow is one lab's figures, as the table of issue 28 has them.
type phoneRow struct {
	lab                     string
	busy                    float64 // share of wall time the main thread worked
	perFrame                float64 // main-thread ms per live message
	drawn                   int     // tasks that changed the page (a drawn batch, a scroll)
	perDrawn                float64 // main-thread ms per task that changed the page
	script, layout, style   float64 // of it, ms
	frames                  int
	tapP50, tapMax          float64 // ms
	answerP50               float64 // ms from the finger lifting to the answer's arrival
	taps                    int
	wireKBs, wirePerFrame   float64 // on the wire: KB/s, bytes per message
	textPerFrame            float64 // the messages' text, bytes
	firstFrame              float64 // ms after navigation, slow network
	unthrottledBusy, unTapP float64
}

// TestPhoneFigures measures what a lab costs a budget phone (issue 28):
// at phone size with the CPU slowed 6×, it plays w1-w2 and renew-load at
// 1× for 10 s and reads the main thread's work from Chromium's
// performance metrics, taps "+5 dtk" while playing, counts the bytes the
// server sends, and opens each lab afresh on a slow mobile network. It
// prints the figures and asserts nothing about them: a shared machine's
// timings are not a test's business. LEASELAB_PHONE_FIGURES=1 runs it;
// LEASELAB_PHONE_FIGURES=w1-w2 (labs, split by commas) measures those labs,
// and LEASELAB_PHONE_TRACE=DIR writes where the slowed main thread spent
// its time while playing into DIR/LAB.txt (mainTrace) and the whole trace
// into DIR/LAB.json.
func TestPhoneFigures(t *testing.T) {
	if os.Getenv(phoneFiguresEnv) == "" {
		t.Skip(phoneFiguresEnv + "=1 runs the phone figures (about 90 s)")
	}
	var in, out atomic.Int64
	s, err := New(Config{SessionWork: 1000, AddrWork: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s)
	ts.Listener = countingListener{ts.Listener, &in, &out}
	ts.Start()
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})

	var rows []phoneRow
	labs := []string{"w1-w2", "renew-load"}
	if only := os.Getenv(phoneFiguresEnv); only != "1" {
		labs = strings.Split(only, ",") // LEASELAB_PHONE_FIGURES=w1-w2: that lab alone
	}
	for _, lab := range labs {
		r := phoneRow{lab: lab}
		playOnPhone(t, ts.URL, &r, &out, phoneSlowdown)
		plain := phoneRow{lab: lab}
		playOnPhone(t, ts.URL, &plain, &out, 1)
		r.unthrottledBusy, r.unTapP = plain.busy, plain.tapP50
		r.firstFrame = firstFrameOnSlowNetwork(t, ts.URL+"/id/labs/"+lab)
		rows = append(rows, r)
	}
	fmt.Printf("phone figures: 390×844, CPU %d× slower, playing at 1× for %v (issue 28)\n", phoneSlowdown, phonePlay())
	fmt.Printf("%-10s %6s %8s %16s %6s %6s %8s %14s %6s %6s %7s %7s %9s %13s\n",
		"lab", "busy", "ms/frame", "script/lay/style", "frames", "drawn", "ms/drawn", "tap p50 (max)", "answer", "KB/s", "B/frame", "text B", "1st frame", "1×: busy tap")
	for _, r := range rows {
		fmt.Printf("%-10s %5.1f%% %8.1f %5.1f/%4.1f/%4.1f %6d %6d %8.1f %6.0f (%5.0f) %6.0f %6.2f %7.0f %7.0f %7.0fms %5.1f%% %4.0f\n",
			r.lab, 100*r.busy, r.perFrame, r.script, r.layout, r.style, r.frames, r.drawn, r.perDrawn, r.tapP50, r.tapMax, r.answerP50,
			r.wireKBs, r.wirePerFrame, r.textPerFrame, r.firstFrame, 100*r.unthrottledBusy, r.unTapP)
	}
}

// phoneBrowser opens a fresh phone-sized tab with the probe in every
// page and the CPU slowed by slowdown; closeTab closes it, so that a lab
// measured after it shares the machine, the browser and the server's
// budgets with no page still playing.
func phoneBrowser(t *testing.T, slowdown float64) (ctx context.Context, closeTab func()) {
	t.Helper()
	ctx, closeTab = openTab(t, int(phone.width), int(phone.height))
	emulate(t, ctx, phone)
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: phoneProbe}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: slowdown}); err != nil {
		t.Fatal(err)
	}
	return ctx, closeTab
}

func perfMetrics(t *testing.T, ctx context.Context) map[string]float64 {
	t.Helper()
	res, err := chromedp.Call(ctx, performance.GetMetrics, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]float64{}
	for _, x := range res.Metrics {
		m[x.Name] = x.Value
	}
	return m
}

// phonePlay is how long TestPhoneFigures measures play: 10 s, or
// LEASELAB_PHONE_SECONDS (a longer run takes in the picture's changes of
// scale, each a whole picture, which the first 10 s of a lab have none of).
func phonePlay() time.Duration {
	if n, err := strconv.Atoi(os.Getenv("LEASELAB_PHONE_SECONDS")); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 10 * time.Second
}

// playOnPhone plays the lab r names for phonePlay and then taps "+5 dtk" ten
// times while it plays, filling r.
func playOnPhone(t *testing.T, base string, r *phoneRow, out *atomic.Int64, slowdown float64) {
	t.Helper()
	ctx, closeTab := phoneBrowser(t, slowdown)
	defer closeTab()
	if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	u := base + "/id/labs/" + r.lab
	if from := os.Getenv("LEASELAB_PHONE_FROM"); from != "" {
		u += "?do=advance+" + url.QueryEscape(from) // LEASELAB_PHONE_FROM=150s: play from there
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null && window.__phone.frames > 0`)
	if evalBool(t, ctx, scrollsSideways) {
		t.Errorf("%s scrolls sideways on a phone: a finger's tap lands off what it touched", r.lab)
	}
	tap(t, ctx, "#play")
	waitJS(t, ctx, "playing", `document.getElementById("play").getAttribute("aria-pressed") === "true"`)
	time.Sleep(time.Second) // past the first frames' start-up

	frames0 := evalAs[int](t, ctx, `window.__phone.frames`)
	drawn0 := evalAs[int](t, ctx, `window.__phone.drawn`)
	text0 := evalAs[int](t, ctx, `window.__phone.text`)
	var tr *mainTrace
	if dir := os.Getenv(phoneTraceEnv); dir != "" && slowdown > 1 {
		tr = startMainTrace(t, ctx)
	}
	m0, out0, wall0 := perfMetrics(t, ctx), out.Load(), time.Now()
	time.Sleep(phonePlay())
	m1, out1, wall := perfMetrics(t, ctx), out.Load(), time.Since(wall0).Seconds()
	if tr != nil {
		tr.stop(t, ctx, filepath.Join(os.Getenv(phoneTraceEnv), r.lab+".txt"))
	}
	if os.Getenv(screenshotsEnv) != "" {
		// The picture mid-play, at the top of the screen.
		evalAs[bool](t, ctx, `(document.getElementById("diagram").scrollIntoView({block: "start"}), true)`)
		time.Sleep(300 * time.Millisecond)
		screenshot(t, ctx, fmt.Sprintf("phone-%s-%gx-playing", r.lab, slowdown), false)
	}
	r.frames = evalAs[int](t, ctx, `window.__phone.frames`) - frames0
	r.drawn = evalAs[int](t, ctx, `window.__phone.drawn`) - drawn0
	text := evalAs[int](t, ctx, `window.__phone.text`) - text0

	elapsed := m1["Timestamp"] - m0["Timestamp"]
	task := m1["TaskDuration"] - m0["TaskDuration"]
	r.busy = task / elapsed
	n := float64(max(r.frames, 1))
	r.perFrame = 1000 * task / n
	r.perDrawn = 1000 * task / float64(max(r.drawn, 1))
	r.script = 1000 * (m1["ScriptDuration"] - m0["ScriptDuration"]) / n
	r.layout = 1000 * (m1["LayoutDuration"] - m0["LayoutDuration"]) / n
	r.style = 1000 * (m1["RecalcStyleDuration"] - m0["RecalcStyleDuration"]) / n
	r.wireKBs = float64(out1-out0) / 1000 / wall
	r.wirePerFrame = float64(out1-out0) / n
	r.textPerFrame = float64(text) / n

	for range 10 {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(window.__phone.arm(5), true)`)); err != nil {
			t.Fatal(err)
		}
		tap(t, ctx, `button[value="advance 5s"]`)
		waitJS(t, ctx, "the tap's time painted", `window.__phone.pending === null`)
		time.Sleep(300 * time.Millisecond)
	}
	taps, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`window.__phone.taps`))
	if err != nil {
		t.Fatal(err)
	}
	answers, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`window.__phone.answers`))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(answers)
	if len(answers) > 0 {
		r.answerP50 = answers[len(answers)/2]
	}
	slices.Sort(taps)
	r.taps = len(taps)
	if len(taps) > 0 {
		r.tapP50, r.tapMax = taps[len(taps)/2], taps[len(taps)-1]
	}
	if math.IsNaN(r.busy) {
		t.Errorf("%s: no performance metrics", r.lab)
	}
	screenshot(t, ctx, fmt.Sprintf("phone-%s-%gx", r.lab, slowdown), false)
}

// tap touches the middle of the element css finds, as a finger does: no
// mouse pointer is left over the page to be hit-tested as it changes.
func tap(t *testing.T, ctx context.Context, css string) {
	t.Helper()
	xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		el.scrollIntoView({block: "center"});
		const r = el.getBoundingClientRect();
		const x = r.left + r.width / 2, y = r.top + r.height / 2, at = document.elementFromPoint(x, y);
		if (at !== el && !el.contains(at)) console.log("tap: " + (at && at.outerHTML.slice(0, 120)));
		return [x, y, at === el || el.contains(at) ? 1 : 0];
	})()`, css)))
	if err != nil {
		t.Fatalf("tap %s: %v", css, err)
	}
	if xy[2] == 0 {
		t.Logf("tap %s: another element is at its middle", css)
	}
	if _, err := chromedp.Call(ctx, input.DispatchTouchEvent, input.DispatchTouchEventParams{
		Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: []*input.TouchPoint{{X: xy[0], Y: xy[1]}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, input.DispatchTouchEvent, input.DispatchTouchEventParams{
		Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{},
	}); err != nil {
		t.Fatal(err)
	}
}

// emulateNetwork is Network.emulateNetworkConditionsByRule as Chromium
// 148 takes it: with "offline" beside the rules. The protocol package's
// parameters leave it out, and Chromium refuses them as invalid.
var emulateNetwork = cdp.Command[emulateNetworkParams, struct{}]{Method: network.CommandEmulateNetworkConditionsByRule}

type emulateNetworkParams struct {
	Offline                  bool                  `json:"offline"`
	MatchedNetworkConditions []*network.Conditions `json:"matchedNetworkConditions"`
}

// firstFrameOnSlowNetwork opens u in a fresh browser (nothing cached) on
// a slow mobile network — 150 ms round trip, 1.6 Mbit/s down, 750 kbit/s
// up — with the CPU slowed, and says how long after navigation the first
// live frame was painted, in ms.
func firstFrameOnSlowNetwork(t *testing.T, u string) float64 {
	t.Helper()
	ctx, closeTab := phoneBrowser(t, phoneSlowdown)
	defer closeTab()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, emulateNetwork, emulateNetworkParams{
		MatchedNetworkConditions: []*network.Conditions{{Latency: 150, DownloadThroughput: 1.6e6 / 8, UploadThroughput: 750e3 / 8}},
	}); err != nil {
		t.Fatal(err)
	}
	// The shared browser's network would stay slow for the tabs after.
	defer chromedp.Call(ctx, emulateNetwork, emulateNetworkParams{
		MatchedNetworkConditions: []*network.Conditions{{DownloadThroughput: -1, UploadThroughput: -1}},
	})
	if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the first live frame painted", `window.__phone.first > 0`)
	first, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
		const n = performance.getEntriesByType("navigation")[0], p = window.__phone;
		return [p.first, n.responseEnd, n.domContentLoadedEventEnd, p.open, p.msg];
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(performance.getEntriesByType("resource").map(r => [r.name.slice(-20), Math.round(r.startTime), Math.round(r.responseStart), Math.round(r.responseEnd), r.transferSize]))`))
	nav, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(performance.getEntriesByType("navigation").map(r => [Math.round(r.responseStart), Math.round(r.domInteractive), Math.round(r.domContentLoadedEventStart), Math.round(r.domContentLoadedEventEnd), r.transferSize]))`))
	t.Logf("resources %s nav %s", res, nav)
	t.Logf("%s: first frame painted at %.0f ms: page received %.0f, script run %.0f, socket open %.0f, first message %.0f", u, first[0], first[1], first[2], first[3], first[4])
	return first[0]
}
