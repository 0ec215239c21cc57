package web

import (
	"cmp"
	"context"
	"encoding/json"
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
// the first one has been painted, and times a tap from inside the page:
// from the finger touching (pointerdown's timeStamp, when the browser
// took the touch) and from it lifting (pointerup), to the first paint
// that shows "now" at or past the time the tap asked for, and to the
// server's answer's arrival. Painted is the first task that runs after
// the animation frame that paints the change: that frame itself when
// the page changed it inside one (a probe that asked for an animation
// frame from there counted the next frame too, and the page's own work
// after the paint), the next one otherwise.
const phoneProbe = `(() => {
	const p = window.__phone = {frames: 0, text: 0, first: 0, taps: [], socks: [], drawn: 0};
	// A change made inside an animation frame is painted at the end of
	// that frame; any other, at the end of the next one. The first task
	// after it that may run (before the page's own timers) is painted's.
	const raf = window.requestAnimationFrame.bind(window);
	let inFrame = false;
	window.requestAnimationFrame = (cb) => raf((ts) => {
		inFrame = true;
		try { cb(ts); } finally { queueMicrotask(() => { inFrame = false; }); }
	});
	const after = (f) => scheduler.postTask(f, {priority: "user-blocking"});
	const painted = (f) => inFrame ? after(f) : raf(() => after(f));
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
				if (t && t.down && !t.answer && JSON.parse(ev.data).type === "ack") t.answer = performance.now();
			});
		}
	};
	const seconds = () => {
		const el = document.getElementById("now");
		return el ? parseFloat(el.textContent.replace(/[^0-9,.]/g, "").replace(",", ".")) : NaN;
	};
	p.arm = (step) => {
		p.pending = {target: seconds() + step - 0.001, down: 0, up: 0, answer: 0};
	};
	addEventListener("pointerdown", (ev) => { if (p.pending && !p.pending.down) p.pending.down = ev.timeStamp; }, true);
	addEventListener("pointerup", (ev) => { if (p.pending && !p.pending.up) p.pending.up = ev.timeStamp; }, true);
	new MutationObserver(() => {
		p.drawn++;
		const t = p.pending;
		if (!t || !t.up || !(seconds() >= t.target)) return;
		p.pending = null;
		painted(() => {
			const at = performance.now();
			p.taps.push({down: at - t.down, up: at - t.up, answer: t.answer ? t.answer - t.down : NaN, held: t.up - t.down});
		});
	}).observe(document, {subtree: true, childList: true, characterData: true});
})()`

// phoneTap is one tap's times, in ms, as the probe took them: from the
// finger touching to the new time painted (down), from it lifting (up),
// from touching to the server's answer arriving (answer), and how long
// the finger stayed down, which is the test driver's time between its
// touch and its lift (held).
type phoneTap struct{ Down, Up, Answer, Held float64 }

// phoneRow is one lab's figures, as issue 48 asks for them.
type phoneRow struct {
	lab                   string
	busy                  float64 // share of wall time the main thread worked while playing
	perFrame              float64 // main-thread ms per live message
	drawn                 int     // tasks that changed the page (a drawn batch, a scroll)
	perDrawn              float64 // main-thread ms per task that changed the page
	script, layout, style float64 // of it, ms
	frames                int
	played                float64 // s of wall time the figures above and the wire cover
	wire                  int64   // bytes the server wrote while it played
	wireKBs, wirePerFrame float64 // on the wire: KB/s, bytes per message
	textPerFrame          float64 // the messages' text, bytes
	taps                  []phoneTap
	cold                  [2]coldLoad // the lab page opened afresh: a laptop unthrottled, the phone at 6×
}

// coldLoad is what opening a lab page with an empty cache took, the
// median of coldLoads tabs, in ms after navigation began: its HTML's
// last byte, the script run (DOMContentLoaded's end), the first
// contentful paint, the socket open, its first message, and that
// message painted (the first live frame); and the bytes it fetched.
type coldLoad struct {
	html, script, fcp, open, msg, live float64
	bytes                              float64
}

// coldLoads is how many times each lab page is opened afresh.
const coldLoads = 5

// TestPhoneFigures measures what a lab costs a budget phone (issues 28
// and 48). At phone size (390×844) with the CPU slowed 6×, on a fresh
// page it plays each lab at 1× for a minute from its start (busy share
// and ms a message from Chromium's performance metrics, the tasks that
// changed the page, and every byte the server wrote meanwhile), then
// pauses and taps "+5 dtk" eight times, timing each inside the page from
// the touch to the new time painted (phoneProbe). Then it opens the lab
// page afresh (empty cache) five times on a laptop-sized tab, not
// slowed, and five times on the slowed phone, and takes the median of
// when the first live frame was painted. It prints the figures and
// asserts nothing about them: a shared machine's timings are not a
// test's business.
//
// LEASELAB_PHONE_FIGURES=1 runs it for w1-w2 and renew-load;
// =w1-w2 (labs, split by commas) for those labs. LEASELAB_PHONE_SECONDS
// plays for that long instead of 60 s, LEASELAB_PHONE_FROM=170s from
// there; LEASELAB_PHONE_TRACE=DIR writes where the slowed main thread
// spent its time while playing (DIR/LAB.txt, mainTrace; the whole trace
// in DIR/LAB.json) and while tapped (DIR/LAB-taps.txt and .json);
// LEASELAB_PHONE_SLOWNET=1 opens each page once more on a slow mobile
// network (150 ms, 1.6 Mbit/s) at 6×.
func TestPhoneFigures(t *testing.T) {
	if os.Getenv(phoneFiguresEnv) == "" {
		t.Skip(phoneFiguresEnv + "=1 runs the phone figures (about two minutes a lab)")
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
		playOnPhone(t, ts.URL, &r, &out)
		u := ts.URL + "/id/labs/" + lab
		r.cold[0] = coldLoadMedian(t, u, laptop, 1, lab+"-cold-laptop")
		r.cold[1] = coldLoadMedian(t, u, phone, phoneSlowdown, lab+"-cold-phone")
		if os.Getenv("LEASELAB_PHONE_SLOWNET") != "" {
			t.Logf("%s: first live frame on a slow network at %d×: %.0f ms", lab, phoneSlowdown, firstFrameOnSlowNetwork(t, u))
		}
		rows = append(rows, r)
	}
	printPhoneFigures(rows)
}

// printPhoneFigures prints the figures of each lab.
func printPhoneFigures(rows []phoneRow) {
	fmt.Printf("phone figures: 390×844, CPU %d× slower, a fresh page playing at 1× for %v from %s (issues 28, 48)\n",
		phoneSlowdown, phonePlay(), cmp.Or(os.Getenv("LEASELAB_PHONE_FROM"), "the start"))
	fmt.Printf("%-10s %6s %8s %16s %6s %6s %8s %9s %7s %7s\n",
		"lab", "busy", "ms/frame", "script/lay/style", "frames", "drawn", "ms/drawn", "wire KB/s", "B/frame", "text B")
	for _, r := range rows {
		fmt.Printf("%-10s %5.1f%% %8.1f %5.1f/%4.1f/%4.1f %6d %6d %8.1f %9.2f %7.0f %7.0f  (%d B in %.1f s)\n",
			r.lab, 100*r.busy, r.perFrame, r.script, r.layout, r.style, r.frames, r.drawn, r.perDrawn,
			r.wireKBs, r.wirePerFrame, r.textPerFrame, r.wire, r.played)
	}
	fmt.Printf("taps on \"+5 dtk\", paused, after the play (ms; p50 and max of %d):\n", phoneTaps)
	fmt.Printf("%-10s %16s %16s %16s %16s\n", "lab", "touch→painted", "lift→painted", "touch→answer", "touch held")
	for _, r := range rows {
		col := func(f func(phoneTap) float64) string {
			xs := make([]float64, len(r.taps))
			for i, tp := range r.taps {
				xs[i] = f(tp)
			}
			slices.Sort(xs)
			if len(xs) == 0 {
				return "-"
			}
			return fmt.Sprintf("%4.0f (%4.0f)", xs[len(xs)/2], xs[len(xs)-1])
		}
		fmt.Printf("%-10s %16s %16s %16s %16s\n", r.lab, col(func(p phoneTap) float64 { return p.Down }),
			col(func(p phoneTap) float64 { return p.Up }), col(func(p phoneTap) float64 { return p.Answer }),
			col(func(p phoneTap) float64 { return p.Held }))
	}
	fmt.Printf("cold load, empty cache, no network delay (ms after navigation, median of %d):\n", coldLoads)
	fmt.Printf("%-10s %-13s %6s %6s %6s %6s %6s %10s %8s\n", "lab", "tab", "html", "script", "fcp", "open", "msg", "live frame", "KB")
	for _, r := range rows {
		for i, c := range r.cold {
			fmt.Printf("%-10s %-13s %6.0f %6.0f %6.0f %6.0f %6.0f %10.0f %8.1f\n", r.lab, []string{"laptop, 1×", "phone, 6×"}[i],
				c.html, c.script, c.fcp, c.open, c.msg, c.live, c.bytes/1000)
		}
	}
}

// phoneBrowser opens a fresh phone-sized tab with the probe in every
// page and the CPU slowed by slowdown; closeTab closes it, so that a lab
// measured after it shares the machine, the browser and the server's
// budgets with no page still playing.
func phoneBrowser(t *testing.T, slowdown float64) (ctx context.Context, closeTab func()) {
	t.Helper()
	return probedTab(t, phone, slowdown)
}

// probedTab is phoneBrowser in a tab of size v. A tab is a browser
// context of its own: its cache is empty.
func probedTab(t *testing.T, v viewport, slowdown float64) (ctx context.Context, closeTab func()) {
	t.Helper()
	ctx, closeTab = openTab(t, int(v.width), int(v.height))
	emulate(t, ctx, v)
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

// phonePlay is how long TestPhoneFigures measures play: a minute, or
// LEASELAB_PHONE_SECONDS.
func phonePlay() time.Duration {
	if n, err := strconv.Atoi(os.Getenv("LEASELAB_PHONE_SECONDS")); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return time.Minute
}

// phoneTaps is how many times TestPhoneFigures taps "+5 dtk".
const phoneTaps = 8

// playOnPhone opens the lab r names on the slowed phone, plays it for
// phonePlay from the tap on play, pauses and taps "+5 dtk" phoneTaps
// times, filling r.
func playOnPhone(t *testing.T, base string, r *phoneRow, out *atomic.Int64) {
	t.Helper()
	ctx, closeTab := phoneBrowser(t, phoneSlowdown)
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
	time.Sleep(300 * time.Millisecond) // the page settled: no message is on its way

	frames0 := evalAs[int](t, ctx, `window.__phone.frames`)
	drawn0 := evalAs[int](t, ctx, `window.__phone.drawn`)
	text0 := evalAs[int](t, ctx, `window.__phone.text`)
	var tr *mainTrace
	trace := os.Getenv(phoneTraceEnv)
	if trace != "" {
		tr = startMainTrace(t, ctx)
	}
	m0, out0, wall0 := perfMetrics(t, ctx), out.Load(), time.Now()
	tap(t, ctx, "#play")
	time.Sleep(phonePlay() - time.Since(wall0))
	m1, out1, wall := perfMetrics(t, ctx), out.Load(), time.Since(wall0).Seconds()
	if tr != nil {
		tr.stop(t, ctx, filepath.Join(trace, r.lab+".txt"))
	}
	if evalAs[string](t, ctx, `document.getElementById("play").getAttribute("aria-pressed")`) != "true" {
		t.Errorf("%s: the lab was not playing at the end of its minute", r.lab)
	}
	if os.Getenv(screenshotsEnv) != "" {
		// The picture mid-play, at the top of the screen.
		evalAs[bool](t, ctx, `(document.getElementById("diagram").scrollIntoView({block: "start"}), true)`)
		time.Sleep(300 * time.Millisecond)
		screenshot(t, ctx, fmt.Sprintf("phone-%s-playing", r.lab), false)
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
	r.played, r.wire = wall, out1-out0
	r.wireKBs = float64(r.wire) / 1000 / wall
	r.wirePerFrame = float64(r.wire) / n
	r.textPerFrame = float64(text) / n
	if math.IsNaN(r.busy) {
		t.Errorf("%s: no performance metrics", r.lab)
	}

	tap(t, ctx, "#play")
	waitJS(t, ctx, "paused", `document.getElementById("play").getAttribute("aria-pressed") === "false" && !document.querySelector(".sent")`)
	time.Sleep(500 * time.Millisecond) // the pause's answer drawn
	r.taps = tapsOnPhone(t, ctx, r.lab, trace)
	screenshot(t, ctx, fmt.Sprintf("phone-%s", r.lab), false)
}

// tapsOnPhone taps "+5 dtk" phoneTaps times on the paused lab and is what
// the probe timed of each; with trace set, the taps are traced into
// DIR/LAB-taps.txt and .json.
func tapsOnPhone(t *testing.T, ctx context.Context, lab, trace string) []phoneTap {
	t.Helper()
	var tr *mainTrace
	if trace != "" {
		tr = startMainTrace(t, ctx)
	}
	for range phoneTaps {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(window.__phone.arm(5), true)`)); err != nil {
			t.Fatal(err)
		}
		tap(t, ctx, `button[value="advance 5s"]`)
		waitJS(t, ctx, "the tap's time painted", `window.__phone.pending === null`)
		time.Sleep(300 * time.Millisecond)
	}
	if tr != nil {
		tr.stop(t, ctx, filepath.Join(trace, lab+"-taps.txt"))
		tr.tapTimeline(t, filepath.Join(trace, lab+"-taps-timeline.txt"))
	}
	taps, err := chromedp.Run(ctx, chromedp.Evaluate[[]phoneTap](`window.__phone.taps.map(x => ({Down: x.down, Up: x.up, Answer: x.answer, Held: x.held}))`))
	if err != nil {
		t.Fatal(err)
	}
	if len(taps) != phoneTaps {
		t.Errorf("%s: %d taps timed of %d", lab, len(taps), phoneTaps)
	}
	return taps
}

// tapTimeline writes, for each tap of a trace (from one pointerdown to
// the next), when the main thread did what, in ms from the touch: the
// input events, the answer's arrival (the socket's message), the
// animation frame that applies it, and the style, layout, paint and
// commit after, each with its time (wall, and CPU in brackets), and the
// taps' sums by kind.
func (r *mainTrace) tapTimeline(t *testing.T, file string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	type ev struct {
		Name string  `json:"name"`
		Ph   string  `json:"ph"`
		Ts   float64 `json:"ts"`
		Dur  float64 `json:"dur"`
		TDur float64 `json:"tdur"`
		Tid  int     `json:"tid"`
		Pid  int     `json:"pid"`
		Args struct {
			Name string `json:"name"`
			Data struct {
				Type string `json:"type"`
			} `json:"data"`
		} `json:"args"`
	}
	var evs []ev
	main := map[[2]int]bool{}
	for _, b := range r.events {
		var e ev
		if json.Unmarshal(b, &e) != nil {
			continue
		}
		if e.Ph == "M" && e.Name == "thread_name" && e.Args.Name == "CrRendererMain" {
			main[[2]int{e.Pid, e.Tid}] = true
		}
		evs = append(evs, e)
	}
	var on []ev
	var downs []float64
	kinds := map[string]bool{"EventDispatch": true, "FireAnimationFrame": true, "UpdateLayoutTree": true, "Layout": true,
		"PrePaint": true, "Paint": true, "Layerize": true, "Commit": true, "TimerFire": true, "ParseHTML": true, "HitTest": true}
	for _, e := range evs {
		if e.Ph != "X" || !main[[2]int{e.Pid, e.Tid}] || !kinds[e.Name] {
			continue
		}
		on = append(on, e)
		if e.Name == "EventDispatch" && e.Args.Data.Type == "pointerdown" {
			downs = append(downs, e.Ts)
		}
	}
	slices.SortFunc(on, func(a, b ev) int { return cmp.Compare(a.Ts, b.Ts) })
	slices.Sort(downs)
	var b strings.Builder
	sum, cpu := map[string]float64{}, map[string]float64{}
	for i, d := range downs {
		end := math.Inf(1)
		if i+1 < len(downs) {
			end = downs[i+1]
		}
		fmt.Fprintf(&b, "tap %d:", i+1)
		for _, e := range on {
			if e.Ts < d || e.Ts >= end || e.Ts-d > 3e6 {
				continue
			}
			name := e.Name
			if e.Args.Data.Type != "" {
				name += "(" + e.Args.Data.Type + ")"
			}
			if e.Dur >= 500 || e.Name == "EventDispatch" || e.Name == "FireAnimationFrame" {
				fmt.Fprintf(&b, " %s@%.0f %.1f[%.1f]", name, (e.Ts-d)/1000, e.Dur/1000, e.TDur/1000)
			}
			sum[name] += e.Dur / 1000
			cpu[name] += e.TDur / 1000
		}
		b.WriteString("\n")
	}
	b.WriteString("\nall taps, by kind: wall ms [CPU ms]\n")
	for _, k := range sortedKeys(sum, func(k string) float64 { return sum[k] }) {
		fmt.Fprintf(&b, "%-40s %8.1f [%8.1f]\n", k, sum[k], cpu[k])
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// coldLoadMedian opens u coldLoads times, each in a fresh tab of size v
// (its cache empty) with the CPU slowed by slowdown, and is the median
// of each of the load's moments. With LEASELAB_PHONE_TRACE=DIR it opens
// u once more, traced, into DIR/name.txt (and .json), the figures left
// out of the median.
func coldLoadMedian(t *testing.T, u string, v viewport, slowdown float64, name string) coldLoad {
	t.Helper()
	if dir := os.Getenv(phoneTraceEnv); dir != "" {
		defer openCold(t, u, v, slowdown, filepath.Join(dir, name+".txt"))
	}
	var got [7][]float64
	for range coldLoads {
		c := openCold(t, u, v, slowdown, "")
		for i, x := range []float64{c.html, c.script, c.fcp, c.open, c.msg, c.live, c.bytes} {
			got[i] = append(got[i], x)
		}
	}
	m := func(i int) float64 { return median(got[i]) }
	return coldLoad{html: m(0), script: m(1), fcp: m(2), open: m(3), msg: m(4), live: m(5), bytes: m(6)}
}

// openCold opens u once in a fresh tab and says when its parts came;
// with trace set, it traces the load into that file (mainTrace).
func openCold(t *testing.T, u string, v viewport, slowdown float64, trace string) coldLoad {
	t.Helper()
	ctx, closeTab := probedTab(t, v, slowdown)
	defer closeTab()
	var tr *mainTrace
	if trace != "" {
		tr = startMainTrace(t, ctx)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the first live frame painted", `window.__phone.first > 0 && performance.getEntriesByName("first-contentful-paint").length > 0 && performance.getEntriesByType("navigation")[0].loadEventEnd > 0`)
	if tr != nil {
		tr.stop(t, ctx, trace)
	}
	x := evalAs[[]float64](t, ctx, `(() => {
		const n = performance.getEntriesByType("navigation")[0], p = window.__phone;
		const bytes = performance.getEntriesByType("resource").reduce((s, r) => s + r.transferSize, n.transferSize);
		return [n.responseEnd, n.domContentLoadedEventEnd, performance.getEntriesByName("first-contentful-paint")[0].startTime, p.open, p.msg, p.first, bytes];
	})()`)
	return coldLoad{html: x[0], script: x[1], fcp: x[2], open: x[3], msg: x[4], live: x[5], bytes: x[6]}
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
