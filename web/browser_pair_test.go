package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// pairLiveJS is the pair page's live part as the browser holds it, less
// what fitting a diagram to its box adds (the same on any page, but not
// part of what the server draws).
const pairLiveJS = `(() => {
	const c = document.getElementById("pair-live").cloneNode(true);
	c.querySelectorAll("[data-fitted]").forEach(e => e.removeAttribute("data-fitted"));
	c.querySelectorAll(".lanes-fixed").forEach(e => e.removeAttribute("transform"));
	c.querySelectorAll("[id$='-ticks'] > text").forEach(e => e.removeAttribute("visibility"));
	return c.innerHTML })()`

// TestBrowserLivePair opens the W1/W2 pair forked at 4s with fencing on,
// presses +5 s and play on the pair page and sees both runs move on live,
// the difference still marked at W1's write; the page after live frames
// is what the server draws for its new address. On a phone, the lab
// page's share field follows the address as the session changes.
func TestBrowserLivePair(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	findChromium(t)
	want := w1w2Pair(t)
	_, ts := newTestServer(t, Config{})
	for _, v := range []viewport{laptop, phone} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel() // a tab each, in the one browser
			ctx := browser(t, int(v.width), int(v.height))
			emulate(t, ctx, v)
			if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/w1-w2/whatif?"+w1w2PairQuery)); err != nil {
				t.Fatal(err)
			}
			waitJS(t, ctx, "the pair socket", `document.getElementById("conn").classList.contains("on")`)
			click(t, ctx, "#pair-adv5")
			waitJS(t, ctx, "both runs at 35s", `document.getElementById("difference").dataset.now === "35s" && location.search.includes("advance+5s")`)
			check := func(when string) {
				t.Helper()
				got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("difference").innerText`))
				if err != nil || strings.TrimSpace(got) != want {
					t.Errorf("%s %s: the page says %q, the engine %q (%v)", v.name, when, got, want, err)
				}
				marks, err := chromedp.Run(ctx, chromedp.Evaluate[string](`["run-a","run-b"].map(id => document.querySelectorAll("#" + id + " svg .hl").length).join(",")`))
				if err != nil || marks != "1,1" {
					t.Errorf("%s %s: marks in A,B = %q, want one each at W1's write (%v)", v.name, when, marks, err)
				}
				share, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("share-here").value === location.origin + location.pathname + location.search`))
				if err != nil || !share {
					t.Errorf("%s %s: the share field is not the page's address (%v)", v.name, when, err)
				}
				links, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("pair-adv5").href.startsWith(location.href + "&do=advance+5s")`))
				if err != nil || !links {
					t.Errorf("%s %s: the time links do not go on from the address (%v)", v.name, when, err)
				}
			}
			check("after +5 s")
			screenshot(t, ctx, "whatif-live-"+v.name+"-id", false)
			screenshot(t, ctx, "whatif-live-"+v.name+"-id-full", true)

			click(t, ctx, "#play")
			waitJS(t, ctx, "both runs playing past 35s", `document.getElementById("play").getAttribute("aria-pressed") === "true" && !["35s"].includes(document.getElementById("difference").dataset.now)`)
			click(t, ctx, "#play")
			waitJS(t, ctx, "the pair paused", `document.getElementById("play").getAttribute("aria-pressed") === "false"`)
			check("after play")
			live, err := chromedp.Run(ctx, chromedp.Evaluate[string](pairLiveJS))
			if err != nil {
				t.Fatal(err)
			}
			at, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("difference").dataset.now`))
			// A fresh page at the same address draws the same.
			if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
				t.Fatal(err)
			}
			waitJS(t, ctx, "the reloaded pair", `document.getElementById("conn").classList.contains("on")`)
			fresh, err := chromedp.Run(ctx, chromedp.Evaluate[string](pairLiveJS))
			if err != nil {
				t.Fatal(err)
			}
			if fresh != live {
				t.Errorf("%s: after live frames to %s the page differs from a fresh render of its address", v.name, at)
			}
		})
	}

	// The lab page's share field, on a phone, follows the session.
	ctx := browser(t, int(phone.width), int(phone.height))
	emulate(t, ctx, phone)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/w1-w2?do=until+4s")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the lab socket", `document.getElementById("conn").classList.contains("on")`)
	click(t, ctx, `#controls button[value="advance 1s"]`)
	waitJS(t, ctx, "the share field at the new address", `location.search.includes("advance") && document.getElementById("share-here").value === location.origin + location.pathname + location.search`)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("share-here").scrollIntoView({block: "center"}); true`)); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "share-phone-id", false)
	// The clipboard is let go of once the copy is done, not at the
	// test's end: that comes after its parallel subtests, which wait for
	// their turn at the end of the package, and TestBrowserSurvivesServerRestart
	// waited for the clipboard all that while (72 s of its 11 under load).
	unlock := holdClipboard(t)
	click(t, ctx, `button[data-share="#share-here"]`)
	waitJS(t, ctx, "the link copied or selected", `document.querySelector('button[data-share="#share-here"]').textContent.startsWith("✓") || document.activeElement === document.getElementById("share-here")`)
	unlock()
}
