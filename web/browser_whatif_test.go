package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserWhatif forks W1/W2 at 4s with fencing on from the lab page's
// "Bagaimana jika?" form and finds the marked difference at W1's write,
// on a phone and on a laptop: one tab, its pages read at each size by
// resizing it in place (as the accessibility tests do), the form pressed
// on the phone. The pages are the server's: a tab a size loaded them
// twice (issue 46).
func TestBrowserWhatif(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	findChromium(t)
	want := w1w2Pair(t)
	_, ts := newTestServer(t, Config{})
	sizes := []viewport{phone, laptop}
	ctx := browser(t, int(phone.width), int(phone.height))
	emulate(t, ctx, phone)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/w1-w2?do=until+4s&do=freeze+W1+for%3D25s&do=until+30s")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the what-if form", `document.querySelector("#whatif-go") !== null`)
	for _, v := range sizes {
		emulate(t, ctx, v)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
			const vs = document.getElementById("whatif-vs"), at = document.getElementById("whatif-at");
			if (![...vs.options].some(o => o.value === "fencing on") || ![...at.options].some(o => o.value === "4s")) return false;
			vs.value = "fencing on"; at.value = "4s"; return true })()`))
		if err != nil || !ok {
			t.Fatalf("%s: the form does not offer fencing on at 4s (%v)", v.name, err)
		}
		screenshot(t, ctx, "whatif-form-"+v.name+"-id", false)
	}
	emulate(t, ctx, phone)
	clickNav(t, ctx, "#whatif-go")
	waitJS(t, ctx, "the pair page", `document.getElementById("difference") !== null`)
	for _, v := range sizes {
		emulate(t, ctx, v)
		// The resize events and their handlers have run by the second
		// frame after the new size.
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise)); err != nil {
			t.Fatal(err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("difference").innerText`))
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(got) != want {
			t.Errorf("%s: the page says %q, the engine %q", v.name, got, want)
		}
		if !strings.Contains(got, "detik ke-29") || !strings.Contains(got, "W1") {
			t.Errorf("%s: the sentence does not name W1's write at 29 dtk: %q", v.name, got)
		}
		marks, err := chromedp.Run(ctx, chromedp.Evaluate[string](`["run-a","run-b"].map(id => document.querySelectorAll("#" + id + " svg .hl").length).join(",")`))
		if err != nil || marks != "1,1" {
			t.Errorf("%s: marks in A,B = %q, want one each (%v)", v.name, marks, err)
		}
		wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](scrollsSideways))
		if err != nil || wide {
			t.Errorf("%s: the pair page scrolls sideways (%v)", v.name, err)
		}
		lanes, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#run-b .diagram-box svg").textContent.includes("W1")`))
		if err != nil || !lanes {
			t.Errorf("%s: run B's lane names are not drawn (%v)", v.name, err)
		}
		screenshot(t, ctx, "whatif-"+v.name+"-id", false)
		screenshot(t, ctx, "whatif-"+v.name+"-id-full", true)
	}
	// +5s moves both runs on together, without script.
	clickNav(t, ctx, "#pair-adv5")
	waitJS(t, ctx, "the pair at 35s", `location.search.includes("advance+5s") && document.getElementById("run-b") !== null`)
}
