package web

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"
)

// frameCostEnv runs TestFrameCost: 1 for every change, or names split by
// commas.
const frameCostEnv = "LEASELAB_FRAME_COST"

// frameCostChanges are what TestFrameCost makes, one per animation frame:
// a script given i, the frame's number.
var frameCostChanges = []struct{ name, js string }{
	{"empty", `void i`},
	{"clock", `document.getElementById("now").textContent = i + " dtk";`},
	{"label", `document.querySelector("#live-box > .nowlayer span").textContent = "kini " + i + " dtk";`},
	{"layer-move", `document.querySelector("#live-box > .nowlayer").style.transform = "translateX(" + (i % 50) + "px)";`},
	{"mark", `const mk = document.querySelector("#live-marks > g.mk.grant");
		document.getElementById("live-marks").insertAdjacentHTML("beforeend", mk.outerHTML.replace(/id="[^"]+"/, 'id="fc-m' + i + '"'));`},
	{"chart", `const dots = document.getElementById("live-chart-dots0");
		dots.insertAdjacentHTML("beforeend", dots.lastElementChild.outerHTML.replace(/cy="\d+"/, 'cy="' + (150 + i % 40) + '"'));
		document.getElementById("live-chart-sum0").textContent = "median " + i;`},
	{"mark+chart", `const mk = document.querySelector("#live-marks > g.mk.grant");
		document.getElementById("live-marks").insertAdjacentHTML("beforeend", mk.outerHTML.replace(/id="[^"]+"/, 'id="fc-m' + i + '"'));
		const dots = document.getElementById("live-chart-dots0");
		dots.insertAdjacentHTML("beforeend", dots.lastElementChild.outerHTML.replace(/cy="\d+"/, 'cy="' + (150 + i % 40) + '"'));
		document.getElementById("live-chart-sum0").textContent = "median " + i;`},
	{"lease-swap", `const el = document.getElementById("live-l0");
		el.outerHTML = el.outerHTML.replace(/width="\d+"/, 'width="' + (200 + i % 50) + '"');`},
	{"lease-attr", `const el = document.getElementById("live-l0");
		el.querySelector("rect").setAttribute("width", 200 + i % 50);
		el.querySelector("title").textContent = "lease " + i;`},
	// A new time scale: the picture drawn whole (as every change of scale
	// was until issue 48), or its marks and messages moved by the page
	// (the scale op, as static/ops.js's rescale moves them), between 1
	// and a half.
	{"picture", `const d = document.getElementById("diagram"); d.innerHTML = d.innerHTML;`},
	{"rescale", `const plot = document.getElementById("live-plot"), from = Number(plot.dataset.k), to = i % 2 ? 0.5 : 1;
		plot.dataset.k = String(to);
		for (const e of plot.querySelectorAll("[data-x]")) {
			const x = Number(e.dataset.x), dx = Math.round(x * to) - Math.round(x * from);
			if (dx) for (const n of [e, ...e.querySelectorAll("*")]) {
				for (const a of ["x", "cx", "x1", "x2"]) { const v = n.getAttribute(a); if (v !== null) n.setAttribute(a, String(Number(v) + dx)); }
				const d = n.getAttribute("d");
				if (d) n.setAttribute("d", d.replace(/^M(-?[\d.]+)/, (_, v) => "M" + (Number(v) + dx)));
			}
		}`},
}

// TestFrameCost measures what one kind of change costs a budget phone's
// main thread when it is drawn: on renew-load's page paused at 11 s, at
// phone size with the CPU slowed 6×, it makes the change once per
// animation frame, 40 times, three rounds after a first, and prints the
// mean of TaskDuration (and of script, layout and style) per frame. The
// page is paused and nothing else moves, so its figures hold still far
// better than TestPhoneFigures', where pace and content vary: it is for
// telling which change costs what, not what a lab costs. It asserts
// nothing about timings. LEASELAB_FRAME_COST=1 runs every change,
// LEASELAB_FRAME_COST=clock,mark some.
func TestFrameCost(t *testing.T) {
	only := os.Getenv(frameCostEnv)
	if only == "" {
		t.Skip(frameCostEnv + "=1 runs the frame-cost bench (about 15 s a change)")
	}
	_, ts := newTestServer(t, Config{})
	for _, c := range frameCostChanges {
		if only != "1" && !strings.Contains(","+only+",", ","+c.name+",") {
			continue
		}
		task, script, layout, style := frameCost(t, ts.URL, c.js)
		fmt.Printf("frame cost, 6× slower, renew-load at 11 s: %-10s %6.2f ms a frame (script %.2f, layout %.2f, style %.2f)\n", c.name, task, script, layout, style)
	}
}

// frameCost opens a fresh tab and returns the mean ms per animation frame
// in which js ran once.
func frameCost(t *testing.T, base, js string) (task, script, layout, style float64) {
	t.Helper()
	ctx, closeTab := phoneBrowser(t, phoneSlowdown)
	defer closeTab()
	if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/id/labs/renew-load?seed=1&do=advance+11s")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null && !!document.querySelector("#live-box > .nowlayer")`)
	if css := os.Getenv("LEASELAB_FRAME_COST_CSS"); css != "" {
		evalAs[bool](t, ctx, fmt.Sprintf(`(document.head.insertAdjacentHTML("beforeend", "<style>" + %q + "</style>"), true)`, css))
	}
	if pre := os.Getenv("LEASELAB_FRAME_COST_JS"); pre != "" {
		evalAs[bool](t, ctx, `(() => {`+pre+`; return true})()`)
	}
	evalAs[bool](t, ctx, `(document.getElementById("diagram").scrollIntoView({block: "start"}), window.__change = (i) => {`+js+`}, true)`)
	time.Sleep(time.Second)
	const frames, rounds = 40, 3
	for round := 0; round <= rounds; round++ {
		var tr *mainTrace
		if dir := os.Getenv("LEASELAB_FRAME_COST_TRACE"); dir != "" && round == rounds {
			tr = startMainTrace(t, ctx)
		}
		m0 := perfMetrics(t, ctx)
		// Each change in an animation frame, then a task after its paint,
		// then a rest, as the page's own batches come.
		run := fmt.Sprintf(`(async () => {
			for (let i = 0; i < %d; i++) {
				window.__change(%d + i);
				await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
				await new Promise((r) => setTimeout(r, 30));
			}
			return true;
		})()`, frames, 1000*round)
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](run, chromedp.EvalAwaitPromise)); err != nil {
			t.Fatal(err)
		}
		m1 := perfMetrics(t, ctx)
		if tr != nil {
			tr.stop(t, ctx, filepath.Join(os.Getenv("LEASELAB_FRAME_COST_TRACE"), "framecost.txt"))
		}
		if round == 0 {
			continue // the first round warms the page up
		}
		per := func(k string) float64 { return 1000 * (m1[k] - m0[k]) / frames / rounds }
		task += per("TaskDuration")
		script += per("ScriptDuration")
		layout += per("LayoutDuration")
		style += per("RecalcStyleDuration")
	}
	return task, script, layout, style
}

// replayCostEnv runs TestReplayCost: the lab to replay (1 for renew-load).
const replayCostEnv = "LEASELAB_REPLAY_COST"

// TestReplayCost measures what a stretch of real play costs a budget
// phone, without the noise of a live run: an unthrottled tab plays
// renew-load from 7 s to 11 s at 1× (frames every
// LEASELAB_REPLAY_EVERY seconds, 0.2 unless told) and keeps every
// message it gets, with when; a fresh tab at phone size with the CPU
// slowed 6×, paused at 7 s, is then handed the same messages at the
// same moments (its socket sends nothing meanwhile), five times, and
// the mean main-thread time is printed: in all, a message and an
// animation frame that drew. It asserts nothing about timings.
func TestReplayCost(t *testing.T) {
	lab := os.Getenv(replayCostEnv)
	if lab == "" {
		t.Skip(replayCostEnv + "=1 runs the replay-cost bench (about 40 s)")
	}
	if lab == "1" {
		lab = "renew-load"
	}
	every := os.Getenv("LEASELAB_REPLAY_EVERY")
	if every == "" {
		every = "0.2"
	}
	_, ts := newTestServer(t, Config{})
	u := ts.URL + "/id/labs/" + lab + "?seed=1&do=advance+7s"

	log := recordPlay(t, u, every)
	t0 := log[0][0].(float64)
	span := log[len(log)-1][0].(float64) - t0
	var msgs strings.Builder
	msgs.WriteString("[")
	for i, e := range log {
		if i > 0 {
			msgs.WriteString(",")
		}
		fmt.Fprintf(&msgs, "[%.1f,%q]", e[0].(float64)-t0, e[1].(string))
	}
	msgs.WriteString("]")

	var task, script, layout, style, drawn float64
	const rounds = 5
	for round := range rounds {
		ctx, closeTab := phoneBrowser(t, phoneSlowdown)
		if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null && window.__phone.frames > 0`)
		if css := os.Getenv("LEASELAB_FRAME_COST_CSS"); css != "" {
			evalAs[bool](t, ctx, fmt.Sprintf(`(document.head.insertAdjacentHTML("beforeend", "<style>" + %q + "</style>"), true)`, css))
		}
		evalAs[bool](t, ctx, `(document.getElementById("diagram").scrollIntoView({block: "start"}), true)`)
		time.Sleep(time.Second)
		var tr *mainTrace
		if dir := os.Getenv("LEASELAB_REPLAY_TRACE"); dir != "" && round == 0 {
			tr = startMainTrace(t, ctx)
		}
		// The messages, numbered on from what this tab's socket got; it
		// sends nothing from now on.
		evalAs[bool](t, ctx, `(() => {
			const p = window.__phone, sock = p.socks.at(-1);
			let seq = p.frames;
			sock.send = () => {};
			// The play button as the first frame will have it: its one
			// restyle is not play's cost.
			const play = document.getElementById("play");
			play.setAttribute("aria-pressed", "true");
			play.textContent = "⏸ " + play.dataset.pause;
			window.__replay = `+msgs.String()+`.map(([at, data]) => { const m = JSON.parse(data); m.seq = ++seq; return [at, JSON.stringify(m)]; });
			return true;
		})()`)
		m0 := perfMetrics(t, ctx)
		run := `(async () => {
			const p = window.__phone, sock = p.socks.at(-1), msgs = window.__replay;
			let drawn = 0;
			const raf = window.requestAnimationFrame;
			window.requestAnimationFrame = (f) => raf((t) => { drawn++; f(t); });
			const start = performance.now();
			for (const [at, data] of msgs) {
				const wait = start + at - performance.now();
				if (wait > 0) await new Promise((r) => setTimeout(r, wait));
				sock.dispatchEvent(new MessageEvent("message", {data}));
			}
			await new Promise((r) => setTimeout(r, 1000));
			window.requestAnimationFrame = raf;
			return drawn;
		})()`
		n, err := chromedp.Run(ctx, chromedp.Evaluate[float64](run, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		m1 := perfMetrics(t, ctx)
		if tr != nil {
			tr.stop(t, ctx, filepath.Join(os.Getenv("LEASELAB_REPLAY_TRACE"), "replay.txt"))
		}
		closeTab()
		drawn += n / rounds
		per := func(k string) float64 { return 1000 * (m1[k] - m0[k]) / rounds }
		task += per("TaskDuration")
		script += per("ScriptDuration")
		layout += per("LayoutDuration")
		style += per("RecalcStyleDuration")
	}
	wall := span + 1000
	fmt.Printf("replay cost, 6× slower, %s 7 s → 11 s, every %s s: %d messages, %.0f drawn frames, %.0f ms (%.1f%% busy): %.1f ms a message, %.1f a drawn frame (script %.0f, layout %.0f, style %.0f ms)\n",
		lab, every, len(log), drawn, task, 100*task/wall, task/float64(len(log)), task/max(drawn, 1), script, layout, style)
}

// recordPlay plays the session at u for 4 s in an unthrottled tab, with
// frames every `every` seconds, and returns the playing messages it got:
// [ms, text]. LEASELAB_REPLAY_FILE names a file that keeps the recording
// (read when it exists, else written), so that two builds replay the same
// messages.
func recordPlay(t *testing.T, u, every string) [][]any {
	t.Helper()
	file := os.Getenv("LEASELAB_REPLAY_FILE")
	if file != "" {
		if b, err := os.ReadFile(file); err == nil {
			var log [][]any
			if err := json.Unmarshal(b, &log); err != nil {
				t.Fatal(err)
			}
			return log
		}
	}
	ctx, closeTab := phoneBrowser(t, 1)
	defer closeTab()
	if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null && window.__phone.frames > 0`)
	evalAs[bool](t, ctx, `(window.__phone.log = [], true)`)
	tap(t, ctx, "#play")
	waitJS(t, ctx, "playing", `document.getElementById("play").getAttribute("aria-pressed") === "true"`)
	evalAs[bool](t, ctx, fmt.Sprintf(`(window.__phone.socks.at(-1).send(JSON.stringify({type: "play", every: %s})), true)`, every))
	time.Sleep(4 * time.Second)
	tap(t, ctx, "#play")
	waitJS(t, ctx, "paused", `document.getElementById("play").getAttribute("aria-pressed") === "false"`)
	log, err := chromedp.Run(ctx, chromedp.Evaluate[[][]any](`window.__phone.log.filter((e) => JSON.parse(e[1]).playing)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(log) < 10 {
		t.Fatalf("recorded %d playing messages", len(log))
	}
	if file != "" {
		b, err := json.Marshal(log)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return log
}
