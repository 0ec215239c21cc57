package web

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"leaselab/labs"
)

// The browser tests drive Debian's chromium. Without one they skip, unless
// LEASELAB_BROWSER_TESTS=required (what CI sets), when they fail.
// LEASELAB_SCREENSHOTS=DIR keeps the screenshots they take.
const (
	browserEnv     = "LEASELAB_BROWSER_TESTS"
	screenshotsEnv = "LEASELAB_SCREENSHOTS"
)

// browserSkipped holds why the browser tests skipped, for TestMain to say
// so once: go test shows a skip only with -v.
var browserSkipped atomic.Value

func TestMain(m *testing.M) {
	// Most of this package's tests wait — on Chromium, on play ticks, on
	// sockets — rather than compute: unless -parallel says otherwise, four
	// of its parallel tests run at once, not one a core.
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", "4")
	}
	// Most of the rest is the server's and the engine's work (pages,
	// searches, judgements), whose heap is mostly short-lived: unless GOGC
	// is set, the collector runs a quarter as often as at the default, as
	// in cmd/leaselab's tests, which takes a sixth off this package's own
	// CPU (issue 46). The tests that read the heap collect first and read
	// what is live.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	code := m.Run()
	closeChromium()
	if msg, ok := browserSkipped.Load().(string); ok {
		note := "leaselab/web: browser tests SKIPPED: " + msg + " (" + browserEnv + "=required makes this a failure)"
		fmt.Fprintln(os.Stderr, note)
		// go test ./... shows a passing package's output only with -v;
		// a person at a terminal is told anyway.
		if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			fmt.Fprintln(tty, note)
			tty.Close()
		}
	}
	os.Exit(code)
}

func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium found on PATH (tried chromium, chromium-browser, google-chrome, headless-shell); install Debian's chromium to run the browser tests"
	if os.Getenv(browserEnv) == "required" {
		t.Fatalf("%s, and %s=required", msg, browserEnv)
	}
	browserSkipped.Store(msg)
	t.Skip(msg)
	return ""
}

// chromium is the one headless Chromium the package's browser tests share
// (started by the first that asks, closed by TestMain): each test gets a
// tab in a browser context of its own (browser), as fresh as a new
// profile, without the cost of starting a browser.
var chromium struct {
	once    sync.Once
	ctx     context.Context // the browser's first tab
	cancel  func()
	profile string
	err     error
}

// startChromium starts the shared browser with a fresh profile and no
// background networking: the only traffic is to the test servers on
// 127.0.0.1.
func startChromium(path string) {
	chromium.profile, chromium.err = os.MkdirTemp("", "leaselab-chromium-")
	if chromium.err != nil {
		return
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// Each tab opens in a window of its own, and this Chromium gives
		// every window's address bar two suggestion popups drawn as web
		// pages (chrome://omnibox-popup.top-chrome), each a renderer that
		// loads some hundred script modules, for a popup no test opens:
		// off, the package's tests take a fifth less CPU with Chromium's
		// (issue 46). A page loaded in a tab also had a renderer process
		// of its own, as a page kept for the back button does (back-forward
		// cache, a new document's frame) and a spare started beside it:
		// with those three off, a tab's pages share its process (53 → 20
		// renderers for the accessibility, class and projector tests).
		// chromedp's defaults disable Translate and BlinkGenPropertyTrees;
		// this list replaces theirs.
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,WebUIOmniboxPopup,WebUIOmniboxAimPopup,BackForwardCache,RenderDocument,SpareRendererForSitePerProcess"),
		chromedp.UserDataDir(chromium.profile),
		chromedp.WindowSize(1920, 1080),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	chromium.ctx = ctx
	chromium.cancel = func() {
		cancelC()
		cancelA()
		os.RemoveAll(chromium.profile)
	}
	chromium.err = chromedp.Do(ctx)
}

// clipboard is held by a test that copies with a share button, from the
// click until it is done with what it copied: the shared browser has one
// clipboard for all its contexts, and another test's copy in between
// would change it.
var clipboard sync.Mutex

// holdClipboard locks clipboard and returns its unlock, which the test's
// end calls too if the test has not (a failing test lets go of it).
func holdClipboard(t *testing.T) (unlock func()) {
	clipboard.Lock()
	var once sync.Once
	unlock = func() { once.Do(clipboard.Unlock) }
	t.Cleanup(unlock)
	return unlock
}

// closeChromium ends the shared browser, if a test started it.
func closeChromium() {
	if chromium.cancel != nil {
		chromium.cancel()
	}
}

// browser is a tab of the shared Chromium in a browser context of its own
// (its own cookies, storage and cache), its viewport width × height, and
// three minutes to do its work (a stuck test fails; a slow one, on a
// machine that runs the package's parallel tests beside other work, does
// not).
func browser(t *testing.T, width, height int) context.Context {
	t.Helper()
	ctx, _ := openTab(t, width, height)
	return ctx
}

// openTab is browser with a way to close the tab (and its browser
// context) before the test ends: a tab left open keeps its page running,
// its sockets open and its work charged to the test server's budgets.
func openTab(t *testing.T, width, height int) (context.Context, func()) {
	t.Helper()
	path := findChromium(t)
	chromium.once.Do(func() { startChromium(path) })
	if chromium.err != nil {
		t.Fatalf("start chromium: %v", chromium.err)
	}
	ctx, cancelC := chromedp.NewContext(chromium.ctx, chromedp.WithNewBrowserContext())
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	closeTab := func() {
		cancelT()
		cancelC()
	}
	t.Cleanup(closeTab)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return ctx, closeTab
}

// requests records every URL the page asks for, and every error the
// browser reports: a script exception, a blocked request, a policy
// violation.
type requests struct {
	mu     sync.Mutex
	urls   []string
	errors []string
}

func (r *requests) errorf(format string, args ...any) {
	r.mu.Lock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *requests) problems() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

func recordRequests(t *testing.T, ctx context.Context) *requests {
	t.Helper()
	r := &requests{}
	evs := chromedp.Events(ctx, network.RequestWillBeSent)
	logs := chromedp.Events(ctx, cdplog.EntryAdded)
	exceptions := chromedp.Events(ctx, runtime.ExceptionThrown)
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	go func() {
		for ev, err := range logs {
			if err != nil {
				return
			}
			if ev.Entry.Level == cdplog.EntryLevelError {
				r.errorf("%s: %s (%s)", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			}
		}
	}()
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			r.errorf("script exception at %s:%d: %s", d.URL, d.LineNumber, msg)
		}
	}()
	go func() {
		for ev, err := range evs {
			if err != nil {
				return
			}
			r.mu.Lock()
			r.urls = append(r.urls, ev.Request.URL)
			r.mu.Unlock()
		}
	}()
	return r
}

func (r *requests) foreign(host string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, u := range r.urls {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "data" && p.Host != host) {
			out = append(out, u)
		}
	}
	return out
}

func screenshot(t *testing.T, ctx context.Context, name string, full bool) {
	t.Helper()
	dir := os.Getenv(screenshotsEnv)
	if dir == "" {
		return
	}
	act := chromedp.CaptureScreenshot()
	if full {
		act = chromedp.FullScreenshot(100)
	}
	png, err := chromedp.Run(ctx, act)
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// scrollsSideways is a script that is true when the page is wider than
// the screen. A phone (mobile emulation) widens its layout viewport, and
// with it innerWidth, to hold a page that overflows, so the measure is
// the root's clientWidth, which stays the device's width.
const scrollsSideways = `document.documentElement.scrollWidth > document.documentElement.clientWidth + 1`

// waitJS waits until a JavaScript expression is true. A navigation in
// between only makes it try again. It waits as long as the tab lives
// (openTab's three minutes), less a little to read what the page shows:
// that is for a stuck page. A slow one is not a failure: a search or a
// play on a machine shared by four parallel tests and other work took
// longer than 15 s to show progress, and its 45 s were once not enough.
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(3 * time.Minute)
	}
	deadline = deadline.Add(-10 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		var ok bool
		ok, err = chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.getElementById("events")||document.body).innerText.slice(-1500)`))
	t.Fatalf("waiting for %s (last error %v)\n--- page shows:\n%s", what, err, text)
}

// clickNav clicks a link or a form's button and waits for the page it
// leads to. The click is the element's own (a pointerdown, then
// element.click(): the click event a mouse's makes, and what follows
// it), not a mouse's at the
// point where the element was found: a page's layout may change between
// the two (the lab's text is laid out only once in view), and on a busy
// machine a mouse's click once landed beside the answer's button, no
// page came, and the test waited for one until its tab's time was up.
func clickNav(t *testing.T, ctx context.Context, css string) {
	t.Helper()
	el := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
			const el = document.querySelector(%q);
			el.dispatchEvent(new PointerEvent("pointerdown", {bubbles: true})); // a link's address is brought up to date on it
			el.click();
			return true;
		})()`, css))(ctx, tg)
		return err
	})
	if _, err := chromedp.RunResponse(ctx, el); err != nil {
		t.Fatalf("click %s: %v", css, err)
	}
}

// textOf is the text an element shows, read in one script: a chromedp
// query finds the node first and reads it after, and a page that replaced
// its nodes in between (a queued Submit's refresh arriving with the
// verdict) once made that read fail with "No node with given id found".
// A missing element is an error; a script that failed (a page between
// two documents) is tried again a few times.
func textOf(ctx context.Context, css string) (string, error) {
	var text string
	var err error
	for range 5 {
		text, err = chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(() => {
			const el = document.querySelector(%q);
			return el === null ? "\x00missing" : el.innerText;
		})()`, css)))
		if err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err == nil && text == "\x00missing" {
		return "", fmt.Errorf("no element %s", css)
	}
	return text, err
}

func eventsContain(s string) string {
	return fmt.Sprintf(`document.getElementById("events").textContent.includes(%q)`, s)
}

// click clicks the element css finds with the mouse, where it is. A
// chromedp click finds the node, then scrolls to it and measures it: a
// page that replaced the node in between (a class bar redrawn by itself)
// fails that with "Could not find node with given id" before any mouse
// event is sent, and the click is tried again on the new node.
func click(t *testing.T, ctx context.Context, css string) {
	t.Helper()
	var err error
	for range 5 {
		if err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(css))); err == nil || !strings.Contains(err.Error(), "find node with given id") {
			break
		}
	}
	if err != nil {
		t.Fatalf("click %s: %v", css, err)
	}
}

func key(t *testing.T, ctx context.Context, keys string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.KeyEvent(keys)); err != nil {
		t.Fatalf("key %q: %v", keys, err)
	}
}

// TestBrowserJourney is a student's way through the w1-w2 lab, in
// Indonesian and then in English.
func TestBrowserJourney(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	ctx := browser(t, 1400, 1000)
	_, ts := newTestServer(t, Config{})
	host := strings.TrimPrefix(ts.URL, "http://")
	reqs := recordRequests(t, ctx)

	// Home, in Indonesian. (The site's root follows Accept-Language, and
	// this Chromium asks for English.)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the Indonesian home", `document.documentElement.lang === "id" && document.querySelector(".lessons") !== null`)
	screenshot(t, ctx, "home-id", true)

	// Open the lab and wait for its live world.
	clickNav(t, ctx, `.lab-item[data-lab="w1-w2"] a`)
	waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null`)

	// Fencing on; freeze W1 before it writes; let its lease run out.
	click(t, ctx, `button[value="fencing on"]`)
	waitJS(t, ctx, "fencing on", `document.getElementById("storage-mode").dataset.mode === "fencing"`)
	key(t, ctx, kb.ArrowRight) // +1 s by keyboard
	waitJS(t, ctx, "1 dtk", `document.getElementById("now").textContent === "1 dtk"`)
	click(t, ctx, `button[value="advance 1s"]`)
	click(t, ctx, `button[value="advance 1s"]`)
	waitJS(t, ctx, "3 dtk", `document.getElementById("now").textContent === "3 dtk"`)
	key(t, ctx, "1") // freeze W1 by keyboard
	waitJS(t, ctx, "W1 frozen", eventsContain("W1 dibekukan"))
	for range 4 {
		click(t, ctx, `button[value="advance 5s"]`)
	}
	waitJS(t, ctx, "23 dtk", `document.getElementById("now").textContent === "23 dtk"`)
	waitJS(t, ctx, "W1's lease expired", eventsContain("lease W1 dengan token 7 kedaluwarsa di koordinator"))
	waitJS(t, ctx, "W2 wrote", eventsContain("penyimpanan menerima file dari W2 dengan token 8"))

	// Thaw W1: it finishes the 2 s of work it was frozen in, and then its
	// write with token 7 is rejected, 7 < 8.
	click(t, ctx, `button[value="thaw W1"]`)
	waitJS(t, ctx, "W1 thawed", eventsContain("W1 bangun"))
	click(t, ctx, `button[value="advance 5s"]`)
	waitJS(t, ctx, "W1's write rejected in the list", eventsContain("penyimpanan menolak file dari W1 dengan token 7 (token usang: 7 < 8)"))
	waitJS(t, ctx, "the rejected write in the diagram", `document.querySelector("#diagram .mk.reject") !== null && document.querySelector("#diagram .mk.reject .mlabel").textContent.startsWith("7<8")`)
	waitJS(t, ctx, "the blocked write pinned as safe", `document.querySelector("#diagram p.pin.safe") !== null && document.querySelector("#diagram .pinned.safe") !== null`)

	// Check the goal against this very world.
	click(t, ctx, `#goal-reject-stale button[type="submit"]`)
	waitJS(t, ctx, "goal verdict", `document.querySelector('#goal-verdict-reject-stale .verdict[data-correct="true"]') !== null`)

	// A bad command gets a clear error and changes nothing.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const b = document.querySelector('button[value="thaw W1"]'); b.value = "thaw W7"; b.click(); b.value = "thaw W1"; return true; })()`)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "an error for a bad command", `document.getElementById("cmd-error").textContent.includes("W7")`)

	// Fencing off, reset and replay: the same faults, and the stale write
	// is accepted.
	click(t, ctx, `button[value="fencing off"]`)
	waitJS(t, ctx, "fencing off", `document.getElementById("storage-mode").dataset.mode === "none"`)
	click(t, ctx, `#replay`)
	waitJS(t, ctx, "W1's write accepted after replay", eventsContain("penyimpanan menerima file dari W1 dengan token 7"))
	waitJS(t, ctx, "the accepted stale write in the diagram, as harm", `[...document.querySelectorAll("#diagram .mk.accept.harm .mlabel")].some(m => m.textContent.trim().startsWith("7 "))`)
	waitJS(t, ctx, "the harm pinned", `document.querySelector("#diagram p.pin.harm") !== null && document.getElementById("outcome").dataset.outcome === "harm"`)

	// The three questions: choose, and see the engine's run decide.
	answers := []struct{ q, choice, correct string }{
		{"storage-checks", "rejected", "true"},
		{"storage-blind", "overwrites", "true"},
		{"check-first", "stops", "false"},
	}
	for _, a := range answers {
		click(t, ctx, fmt.Sprintf(`#q-%s input[value=%q]`, a.q, a.choice))
		click(t, ctx, fmt.Sprintf(`#q-%s button[type="submit"]`, a.q))
		waitJS(t, ctx, "verdict on "+a.q, fmt.Sprintf(`document.querySelector('#verdict-%s .verdict[data-correct=%q]') !== null`, a.q, a.correct))
		waitJS(t, ctx, "deciding events highlighted for "+a.q, fmt.Sprintf(`document.querySelectorAll('#verdict-%s .events li.hl').length > 0 && document.querySelectorAll('#verdict-%s svg .hl').length > 0`, a.q, a.q))
	}
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS("#verdict-storage-blind"))); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "verdict-id", false)
	summary, err := textOf(ctx, `#verdict-check-first .summary`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(summary, "Belum tepat") {
		t.Errorf("wrong answer's verdict: %q", summary)
	}
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS("#lab"))); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "lab-id", false)

	// Switch to English: the same place, the same world.
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(loc, "do=reset") {
		t.Errorf("the address does not hold the session: %s", loc)
	}
	clickNav(t, ctx, `#lang-switch`)
	waitJS(t, ctx, "the English lab page", `document.documentElement.lang === "en" && location.pathname === "/en/labs/w1-w2"`)
	waitJS(t, ctx, "the same world in English", eventsContain("the storage accepts file from W1 with token 7"))
	waitJS(t, ctx, "the English live connection", `document.querySelector("#conn.on") !== null`)
	loc2, _ := chromedp.Run(ctx, chromedp.Location())
	if strings.SplitN(loc, "?", 2)[1] != strings.SplitN(loc2, "?", 2)[1] {
		t.Errorf("language switch lost the place:\n%s\n%s", loc, loc2)
	}
	screenshot(t, ctx, "lab-en", false)

	// Play and pause with the space bar.
	key(t, ctx, " ")
	waitJS(t, ctx, "playing", `document.getElementById("play").getAttribute("aria-pressed") === "true"`)
	waitJS(t, ctx, "time moving", `document.getElementById("now").textContent !== "28s"`)
	key(t, ctx, " ")
	waitJS(t, ctx, "paused", `document.getElementById("play").getAttribute("aria-pressed") === "false"`)

	// Home in English shows the progress kept in the browser.
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/en/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "progress on the home page", `document.querySelector('.lab-item[data-lab="w1-w2"] .progress').textContent.includes("3/4")`)
	screenshot(t, ctx, "home-en", true)

	// A design challenge: the engine judges the starting policy.
	if c, err := loadEmbedded("", labs.Options{}); err == nil {
		for _, lab := range c.Labs {
			if lab.Challenge() == nil {
				continue
			}
			if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/en/labs/"+lab.ID)); err != nil {
				t.Fatal(err)
			}
			waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null`)
			click(t, ctx, `form.challengeform button[type="submit"]`)
			waitJS(t, ctx, "the challenge verdict", `document.querySelector("#challenge-verdict .verdict") !== null`)
			if err := chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS("#challenge"))); err != nil {
				t.Fatal(err)
			}
			screenshot(t, ctx, "challenge-en", false)
			break
		}
	}

	if f := reqs.foreign(host); len(f) > 0 {
		t.Errorf("requests that left 127.0.0.1: %v", f)
	}
	for _, p := range reqs.problems() {
		t.Errorf("browser reported: %s", p)
	}
}

// TestBrowserPhone opens the lab on a phone-sized screen and checks that
// the page itself never scrolls sideways (the diagram scrolls in its box).
func TestBrowserPhone(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	ctx := browser(t, 390, 844)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, Config{})
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/w1-w2?do=fencing+on&do=until+4s&do=freeze+W1&do=advance+18s&do=thaw+W1&do=advance+1s")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live page", `document.querySelector("#conn.on") !== null`)
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](scrollsSideways))
	if err != nil {
		t.Fatal(err)
	}
	if wide {
		t.Error("the lab page scrolls sideways on a phone")
	}
	screenshot(t, ctx, "lab-phone-top-id", false)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(window.scrollTo(0, document.querySelector(".world").offsetTop), true)`)); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "lab-phone-world-id", false)
}

// TestBrowserWithoutScript drives the lab with scripts disabled: every
// control and answer is an ordinary form.
func TestBrowserWithoutScript(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	ctx := browser(t, 1200, 900)
	_, ts := newTestServer(t, Config{})
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/en/labs/w1-w2")); err != nil {
		t.Fatal(err)
	}
	clickNav(t, ctx, `button[value="fencing on"]`)
	clickNav(t, ctx, `button[value="advance 1s"]`)
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`select[name="for.W1"]`), "25s")); err != nil {
		t.Fatal(err)
	}
	clickNav(t, ctx, `button[value="freeze W1"]`)
	clickNav(t, ctx, `button[value="advance 5s"]`)
	for range 6 {
		clickNav(t, ctx, `button[value="advance 5s"]`)
	}
	now, err := textOf(ctx, "#now")
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if now != "36s" || !strings.Contains(loc, "do=freeze+W1+for%3D25s") {
		t.Errorf("now %q at %s", now, loc)
	}
	waitJS(t, ctx, "W1's write rejected", eventsContain("the storage rejects file from W1 with token 7 (stale token: 7 < 8)"))

	evalBool(t, ctx, `(document.querySelector('#q-storage-checks input[value="rejected"]').click(), true)`)
	clickNav(t, ctx, `#q-storage-checks button[type="submit"]`)
	waitJS(t, ctx, "the verdict without script", `document.querySelector('#verdict-storage-checks .verdict[data-correct="true"]') !== null`)
	if loc2, _ := chromedp.Run(ctx, chromedp.Location()); !strings.Contains(loc2, "do=freeze") {
		t.Errorf("answering lost the session: %s", loc2)
	}
}

// TestBrowserReloadsOnEdit: in --content mode an open page reloads itself
// when a file of the course changes: an edit shows, and so does a broken
// edit's list of problems (to the author, on loopback).
func TestBrowserReloadsOnEdit(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	ctx := browser(t, 1280, 800)
	dir := copyContent(t)
	_, ts := newTestServer(t, Config{Content: os.DirFS(dir), Watch: true, PollEvery: 20 * time.Millisecond})
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/en/labs/w1-w2")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the lab page", `document.querySelector("script[data-reload]") !== null && document.querySelector("#lab") !== null`)
	// A mark that a reload wipes out.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.notReloaded = true`)); err != nil {
		t.Fatal(err)
	}
	en := filepath.Join(dir, "labs", "w1-w2", "en.md")
	src, err := os.ReadFile(en)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(en, []byte(strings.Replace(string(src), "title: ", "title: Edited — ", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the edited title, without a click", `document.title.startsWith("Edited — ") && window.notReloaded === undefined`)
	screenshot(t, ctx, "reload-edited", false)

	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.notReloaded = true`)); err != nil {
		t.Fatal(err)
	}
	labFile := filepath.Join(dir, "labs", "w1-w2", "lab.yaml")
	good, _ := os.ReadFile(labFile)
	if err := os.WriteFile(labFile, []byte(strings.Replace(string(good), "ttl: 15s", "ttl: fifteen", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the problems of a broken edit", `window.notReloaded === undefined && (document.querySelector(".problems")?.textContent || "").includes("labs/w1-w2/lab.yaml:")`)
	screenshot(t, ctx, "reload-broken", false)
}
