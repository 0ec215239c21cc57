package web

import (
	"fmt"
	"os"
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
	evalAs[bool](t, ctx, `(document.getElementById("diagram").scrollIntoView({block: "start"}), window.__change = (i) => {`+js+`}, true)`)
	time.Sleep(time.Second)
	const frames, rounds = 40, 3
	for round := 0; round <= rounds; round++ {
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
