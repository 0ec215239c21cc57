package web

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// viewport is a screen the lab page is held to.
type viewport struct {
	name          string
	width, height int64
	mobile        bool
}

var (
	phone     = viewport{"phone", 390, 844, true}
	laptop    = viewport{"laptop", 1280, 800, false}
	projector = viewport{"projector", 1920, 1080, false}
)

func emulate(t *testing.T, ctx context.Context, v viewport) {
	t.Helper()
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
	if v.mobile {
		opts = []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(v.width, v.height, opts...)); err != nil {
		t.Fatal(err)
	}
}

func evalBool(t *testing.T, ctx context.Context, expr string) bool {
	t.Helper()
	return evalAs[bool](t, ctx, expr)
}

// evalAs is the value of a JavaScript expression, as a T.
func evalAs[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// inView is a script that is true when the element css finds is wholly
// inside the viewport (and, when box is given, inside that element's
// visible rectangle too).
func inView(css, box string) string {
	return fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		if (!el) return false;
		const r = el.getBoundingClientRect();
		let b = {left: 0, top: 0, right: innerWidth, bottom: innerHeight};
		if (%q) { const o = document.querySelector(%q).getBoundingClientRect(); b = {left: Math.max(0, o.left), top: Math.max(0, o.top), right: Math.min(innerWidth, o.right), bottom: Math.min(innerHeight, o.bottom)}; }
		return (r.width > 0 || r.height > 0) && r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
	})()`, css, box, box)
}

// englishFromEngine finds words of the engine's English in a text shown
// on an Indonesian page.
var englishFromEngine = regexp.MustCompile(`\b(thaw|freeze|frozen|is not|already|crashed|running|unknown command|expected|coord|storage|write|token=)\b`)

// TestBrowserLabTeaches walks the w1-w2 lab in Indonesian on a phone and a
// laptop: the steps and the world's controls in view, lane names and "now"
// in view after a freeze, a refused command in Indonesian, a blocked write
// shown as safe, and answers kept across a reload and a language switch.
func TestBrowserLabTeaches(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	for _, v := range []viewport{laptop, phone} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			ctx := browser(t, int(v.width), int(v.height))
			emulate(t, ctx, v)
			_, ts := newTestServer(t, Config{})
			reqs := recordRequests(t, ctx)
			if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/w1-w2")); err != nil {
				t.Fatal(err)
			}
			waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null`)

			if v == laptop {
				// The goal, the steps and the world's controls, all without scrolling.
				for _, css := range []string{"#steps", "#steps .goalcheck button", "#steps .steplist li:last-child", "#diagram .diagram-box", `button[value="fencing on"]`, `button[value="freeze W2"]`, `button[value="advance 5s"]`, "#replay"} {
					if !evalBool(t, ctx, inView(css, "")) {
						t.Errorf("%s is not in view on a laptop without scrolling", css)
					}
				}
			} else {
				// The world comes right after the short intro, before the steps.
				if !evalBool(t, ctx, `(() => { const h = document.querySelector(".labhead").getBoundingClientRect(), w = document.querySelector(".world").getBoundingClientRect(), s = document.querySelector("#steps").getBoundingClientRect(); return w.top >= h.bottom && w.top - h.bottom < 40 && w.bottom <= s.top; })()`) {
					t.Error("on a phone the world does not come right after the intro")
				}
				if !evalBool(t, ctx, `[...document.querySelectorAll("button, select, summary, .top nav a")].filter(b => b.offsetParent).every(b => { const r = b.getBoundingClientRect(); return r.height >= 44 && r.width >= 44; })`) {
					t.Error("a tap target smaller than 44 px on a phone")
				}
				if evalBool(t, ctx, `document.querySelector(".keys.js-only").offsetParent !== null`) {
					t.Error("the keyboard hint shows on a phone")
				}
			}
			if evalBool(t, ctx, `document.querySelector('button[value="freeze W1"]').getAttribute("aria-label") !== "Bekukan W1"`) {
				t.Error(`the freeze button's accessible name does not say which worker`)
			}

			// Fencing on; W1 takes the lease; freeze it until thawed.
			click(t, ctx, `button[value="fencing on"]`)
			waitJS(t, ctx, "fencing on", `document.getElementById("storage-mode").dataset.mode === "fencing"`)
			click(t, ctx, `button[value="advance 1s"]`)
			click(t, ctx, `button[value="advance 1s"]`)
			click(t, ctx, `button[value="advance 1s"]`)
			waitJS(t, ctx, "3 dtk", `document.getElementById("now").textContent === "3 dtk"`)
			click(t, ctx, `button[aria-label="Bekukan W1"]`)
			waitJS(t, ctx, "W1 frozen", `document.querySelector('#status [data-worker="W1"]').dataset.frozen === "true"`)
			for range 4 {
				click(t, ctx, `button[value="advance 5s"]`)
			}
			waitJS(t, ctx, "23 dtk", `document.getElementById("now").textContent === "23 dtk"`)
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector("#diagram .diagram-box").scrollIntoView({block: "center"}), true)`)); err != nil {
				t.Fatal(err)
			}
			waitJS(t, ctx, "the diagram settled", `document.querySelector("#diagram .diagram-box").dataset.fitted === "1"`)
			box := "#diagram .diagram-box"
			for _, css := range []string{"#diagram .lanes-fixed .worker.w0 .lname", "#diagram .lanes-fixed .worker.w1 .lname", "#diagram .lanes-fixed .coord .lname", "#diagram .lanes-fixed .lstate.frozen", "#diagram .nowlayer", "#diagram .nowlayer span"} {
				if !evalBool(t, ctx, inView(css, box)) {
					t.Errorf("%s: not in view after a freeze", css)
				}
			}
			small := evalString(t, ctx, `(() => { const svg = document.querySelector("#diagram svg.diagram"); const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width; return [...svg.querySelectorAll("text")].map(x => [x.textContent, parseFloat(getComputedStyle(x).fontSize) * k]).filter(([_, px]) => px < 11.95).map(([s, px]) => s + " " + px.toFixed(1) + "px").join("; "); })()`)
			if small != "" {
				t.Errorf("diagram text under 12 px: %s", small)
			}
			if got := evalString(t, ctx, `document.querySelector("#diagram .nowline text").textContent`); !strings.HasPrefix(got, "kini") {
				t.Errorf(`the "now" label reads %q`, got)
			}
			screenshot(t, ctx, "lab-frozen-"+v.name+"-id", false)

			// A refused command is told in Indonesian, with no English from the engine.
			click(t, ctx, `button[value="thaw W2"]`)
			waitJS(t, ctx, "the refusal", `document.getElementById("cmd-error").textContent.length > 0`)
			msg := evalString(t, ctx, `document.getElementById("cmd-error").textContent`)
			if !strings.Contains(msg, "W2 tidak sedang beku") {
				t.Errorf("refusal %q", msg)
			}
			if m := englishFromEngine.FindString(msg); m != "" {
				t.Errorf("English %q in the refusal on /id/: %q", m, msg)
			}

			// Thaw W1: its stale write is blocked, and the page says safe.
			// The thaw's frame clears the refusal above the buttons, which
			// moves them: a click before it lands may miss its button.
			click(t, ctx, `button[value="thaw W1"]`)
			waitJS(t, ctx, "W1 thawed", `document.querySelector('#status [data-worker="W1"]').dataset.frozen === "false" && document.getElementById("cmd-error").textContent === ""`)
			click(t, ctx, `button[value="advance 5s"]`)
			waitJS(t, ctx, "the blocked write", `document.querySelector("#diagram .mk.reject.blocked") !== null`)
			waitJS(t, ctx, "the outcome safe", `document.getElementById("outcome").dataset.outcome === "safe" && document.querySelector("#diagram p.pin.safe") !== null && document.querySelector("#diagram p.pin.harm") === null`)
			if evalBool(t, ctx, `getComputedStyle(document.querySelector("#diagram .mk.reject.blocked circle")).fill === getComputedStyle(document.querySelector("#diagram .pin.safe")).color`) == false {
				// Both green: compare hue families loosely.
				fill := evalString(t, ctx, `getComputedStyle(document.querySelector("#diagram .mk.reject.blocked circle")).fill`)
				if !strings.Contains(fill, "21, 128, 61") && !strings.Contains(fill, "74, 222, 128") {
					t.Errorf("the blocked write is drawn in %s, not the safe green", fill)
				}
			}
			screenshot(t, ctx, "lab-blocked-"+v.name+"-id", false)

			// The goal, then a question and a hint.
			click(t, ctx, `#goal-reject-stale button[type="submit"]`)
			waitJS(t, ctx, "goal reached", `document.querySelector('#goal-verdict-reject-stale .verdict[data-correct="true"]') !== null`)
			click(t, ctx, `#q-storage-checks input[value="rejected"]`)
			click(t, ctx, `#q-storage-checks button[type="submit"]`)
			waitJS(t, ctx, "verdict", `document.querySelector('#verdict-storage-checks .verdict[data-correct="true"]') !== null`)
			click(t, ctx, `#q-storage-blind details.hint summary`)
			waitJS(t, ctx, "hint open", `document.querySelector("#q-storage-blind details.hint").open`)
			if !evalBool(t, ctx, `(() => { const b = document.querySelector("#verdict-storage-checks .diagram-box"); return b.scrollWidth <= b.clientWidth + 1 || b.scrollLeft > 0; })()`) {
				t.Error("the answer's diagram is neither fitted nor opened on its deciding events")
			}
			if !evalBool(t, ctx, inView("#verdict-storage-checks .lanes-fixed .worker.w0 .lname", "#verdict-storage-checks .diagram-box")+` || (document.querySelector("#verdict-storage-checks .diagram-box").scrollIntoView(), `+inView("#verdict-storage-checks .lanes-fixed .worker.w0 .lname", "#verdict-storage-checks .diagram-box")+`)`) {
				t.Error("the answer's diagram hides its lane names")
			}

			// A later visit (no session in the address), then the other language.
			for _, u := range []string{ts.URL + "/id/labs/w1-w2", ts.URL + "/en/labs/w1-w2"} {
				if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
					t.Fatal(err)
				}
				waitJS(t, ctx, "the answer kept at "+u, `document.querySelector('#verdict-storage-checks .verdict[data-correct="true"]') !== null && document.querySelector('#q-storage-checks input[value="rejected"]').checked`)
				waitJS(t, ctx, "the hint kept open", `document.querySelector("#q-storage-blind details.hint").open`)
				waitJS(t, ctx, "the goal kept", `!document.querySelector("#goal-reject-stale .kept").hidden`)
			}
			waitJS(t, ctx, "the English verdict", `document.querySelector("#verdict-storage-checks .summary").textContent.startsWith("Right")`)
			c := embeddedCourse(t)
			if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/lessons/"+c.Lab("w1-w2").Lesson)); err != nil {
				t.Fatal(err)
			}
			waitJS(t, ctx, "progress on the lesson page", `document.querySelector('.lab-item[data-lab="w1-w2"] .progress').textContent.startsWith("✓ 2/")`)
			for _, p := range reqs.problems() {
				t.Errorf("browser reported: %s", p)
			}
		})
	}
}

// axeScript is axe-core's browser build: LEASELAB_AXE names the file, or
// it is found where `npm install -g axe-core` puts it.
func axeScript(t *testing.T) string {
	t.Helper()
	var tried []string
	if p := os.Getenv("LEASELAB_AXE"); p != "" {
		tried = append(tried, p)
	}
	if out, err := exec.Command("npm", "root", "-g").Output(); err == nil {
		tried = append(tried, filepath.Join(strings.TrimSpace(string(out)), "axe-core", "axe.min.js"))
	}
	for _, p := range tried {
		if b, err := os.ReadFile(p); err == nil {
			return string(b)
		}
	}
	msg := fmt.Sprintf("axe-core not found (tried %v); install it with `npm install -g axe-core` or set LEASELAB_AXE to axe.min.js", tried)
	if os.Getenv(browserEnv) == "required" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// TestBrowserAxe runs axe-core on every kind of page at phone, laptop and
// projector sizes: no violations of WCAG 2.1 A and AA.
//
// Each page is loaded once and checked at each size in turn, the tab
// resized in place (checkSizes): the page draws itself for a new size on
// its own (the resize handlers of static/play.js, CSS media queries), as
// it does when a phone turns or a window is dragged wider. The dark scheme
// changes colours only (static/app.css; no script reads the scheme): at
// phone and laptop size the page is switched to dark in place and checked
// again by the rules that read colours. One load a page, not one a size
// and look: axe's first run in a page costs three times its next.
func TestBrowserAxe(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	findChromium(t)
	axe := axeScript(t)
	_, ts := newTestServer(t, Config{})
	// Three tabs, each with a share of the pages.
	shards := [][]string{
		{"/id/", "/en/", "/id/lessons/leases", "/id/lessons/fencing"},
		{"/id/labs/w1-w2", "/en/labs/w1-w2", "/id/labs/renew-margin", "/id/no-such-page"},
		{
			"/id/labs/w1-w2?do=until+4s&do=freeze+W1&do=advance+18s&do=thaw+W1&do=advance+3s&q=storage-blind&choice=overwrites&goal=reject-stale",
			"/id/labs/w1-w2/at?do=fencing+on&do=until+4s&do=freeze+W1+for%3D25s&do=until+30s",
			"/id/labs/w1-w2/whatif?do=until+4s&do=freeze+W1+for%3D25s&do=until+30s&vs=fencing+on&vs-at=4s",
		},
	}
	sizes := []sizeCheck{{phone, true}, {laptop, true}, {projector, false}}
	for i, pages := range shards {
		t.Run(fmt.Sprint("tab", i+1), func(t *testing.T) {
			t.Parallel() // a tab each, in the one browser
			ctx := browser(t, int(phone.width), int(phone.height))
			withAxe(t, ctx, axe)
			for _, p := range pages {
				emulate(t, ctx, sizes[0].viewport)
				colourScheme(t, ctx, false)
				if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+p)); err != nil {
					t.Fatal(err)
				}
				waitJS(t, ctx, "the page", `document.readyState === "complete"`)
				const bg = `getComputedStyle(document.documentElement).getPropertyValue("--bg")`
				var light string
				checkSizes(t, ctx, p, sizes, func(v viewport, scheme string) {
					if scheme == "light" {
						light = evalString(t, ctx, bg)
					} else if dark := evalString(t, ctx, bg); dark == light {
						t.Errorf("%s %s: the page's --bg is %s in both schemes", v.name, p, dark)
					}
				})
			}
		})
	}
}

// sizeCheck is a size a page is checked at, and whether in the dark
// scheme too.
type sizeCheck struct {
	viewport
	dark bool
}

// checkSizes runs axe-core (withAxe) on the page ctx shows at each size,
// resized in place, in the light scheme and, where asked, the dark one;
// each violation is an error naming the size, the look and the page.
// also, when given, runs after each look's axe run.
func checkSizes(t *testing.T, ctx context.Context, page string, sizes []sizeCheck, also func(v viewport, scheme string)) {
	t.Helper()
	for _, v := range sizes {
		emulate(t, ctx, v.viewport)
		// The resize events and their handlers have run by the second
		// frame after the new size.
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise)); err != nil {
			t.Fatal(err)
		}
		// What the viewport shows, in CSS pixels at the page's zoom (a
		// phone zooms out a page wider than itself).
		if w := evalAs[int64](t, ctx, `Math.round(visualViewport.width * visualViewport.scale)`); w != v.width {
			t.Fatalf("%s %s: the viewport is %d wide, want %d", v.name, page, w, v.width)
		}
		for _, dark := range []bool{false, true} {
			if dark && !v.dark {
				break
			}
			scheme := colourScheme(t, ctx, dark)
			if evalBool(t, ctx, `matchMedia("(prefers-color-scheme: dark)").matches`) != dark {
				t.Fatalf("%s %s: the page does not see the %s scheme", v.name, page, scheme)
			}
			for _, x := range axeViolations(t, ctx, dark) {
				t.Errorf("%s %s %s: %s", v.name, scheme, page, x)
			}
			if also != nil {
				also(v.viewport, scheme)
			}
		}
		colourScheme(t, ctx, false)
	}
}

// colourScheme makes the page prefer dark or light, and names it.
func colourScheme(t *testing.T, ctx context.Context, dark bool) string {
	t.Helper()
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
		t.Fatal(err)
	}
	return scheme
}

// withAxe puts axe-core in every page the tab opens from now on, without
// sending its half megabyte again for each.
func withAxe(t *testing.T, ctx context.Context, axe string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: axe}); err != nil {
		t.Fatalf("add axe: %v", err)
	}
}

// colourRules are the rules of WCAG 2.1 A and AA that axe-core judges by
// colour.
const colourRules = `{type: "rule", values: ["color-contrast", "link-in-text-block"]}`

// axeViolations runs axe-core (withAxe) on the page ctx shows: the
// violations of WCAG 2.1 A and AA (only those judged by colour when
// colourOnly), each as one line. It asks for the violations only: axe
// then keeps one node of each passing rule, not all (a fifth less time
// on a lab page).
func axeViolations(t *testing.T, ctx context.Context, colourOnly bool) []string {
	t.Helper()
	rules := `{type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}`
	if colourOnly {
		rules = colourRules
	}
	res, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, {runOnly: `+rules+`, resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations.map(v => ({id: v.id, help: v.help, nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + " " + n.failureSummary)}))))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe: %v", err)
	}
	var vs []struct {
		ID, Help string
		Nodes    []string
	}
	if err := json.Unmarshal([]byte(res), &vs); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range vs {
		out = append(out, fmt.Sprintf("%s (%s)\n  %s", x.ID, x.Help, strings.Join(x.Nodes, "\n  ")))
	}
	return out
}

// BenchmarkBrowserFirstFrame measures, in Chromium, how soon a lab page
// shows its world after navigation: the first frame is in the HTML, so
// first contentful paint is when the student sees it; "live-ms" is when
// the socket has taken over. Reported as medians over b.N navigations.
func BenchmarkBrowserFirstFrame(b *testing.B) {
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		b.Skip("no Chromium")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(b.TempDir()), chromedp.WindowSize(1280, 800))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	_, ts := newTestServer(b, Config{})
	u := ts.URL + "/id/labs/w1-w2?do=fencing+on&do=until+4s&do=freeze+W1&do=advance+18s&do=thaw+W1&do=advance+3s"
	if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil { // warm: the assets are cached, as for a student's second lab
		b.Fatal(err)
	}
	var fcp, live, resp, dcl []float64
	b.ResetTimer()
	for range b.N {
		if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
			b.Fatal(err)
		}
		var got []float64
		for {
			r, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const p = performance.getEntriesByName("first-contentful-paint")[0]; const on = document.querySelector("#conn.on"); const n = performance.getEntriesByType("navigation")[0]; return p && on && n && n.domContentLoadedEventEnd > 0 && document.querySelector("#diagram svg") ? [p.startTime, performance.now(), n.responseEnd, n.domContentLoadedEventEnd] : []; })()`))
			if err != nil {
				b.Fatal(err)
			}
			if len(r) == 4 {
				got = r
				break
			}
		}
		fcp = append(fcp, got[0])
		live = append(live, got[1])
		resp = append(resp, got[2])
		dcl = append(dcl, got[3])
	}
	b.StopTimer()
	b.ReportMetric(median(fcp), "first-frame-ms")
	b.ReportMetric(median(live), "live-ms")
	b.ReportMetric(median(resp), "html-ms")
	b.ReportMetric(median(dcl), "dom-ms")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
