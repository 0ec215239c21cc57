package web

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// serveAt serves a fresh Server on addr ("127.0.0.1:0" for any port) and
// returns it with a function that stops it.
func serveAt(t *testing.T, addr string) (string, func()) {
	t.Helper()
	// Budgets out of the way, as newTestServer has them: a student of
	// this test is not to be refused as busy while other tests run.
	s, err := New(sharedCourse(Config{SessionWork: 1000, AddrWork: 1000}))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s}
	go hs.Serve(ln)
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			s.Close()
			hs.Close()
		}
	}
	t.Cleanup(stop)
	return ln.Addr().String(), stop
}

func evalString(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBrowserSurvivesServerRestart stops the server under a student's open
// lab and starts a new one on the same address: the page reconnects by
// itself and the new server, which never saw the student, rebuilds the
// same world from the commands the page holds. Then the session's
// permalink shows that world without script, its share button copies it,
// and "continue live" goes on from it.
func TestBrowserSurvivesServerRestart(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	ctx := browser(t, 1400, 1000)
	addr, stop := serveAt(t, "127.0.0.1:0")
	base := "http://" + addr
	reqs := recordRequests(t, ctx)

	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/en/labs/w1-w2")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live connection", `document.querySelector("#conn.on") !== null`)
	click(t, ctx, `button[value="fencing on"]`)
	waitJS(t, ctx, "fencing on", `document.getElementById("storage-mode").dataset.mode === "fencing"`)
	click(t, ctx, `button[value="advance 1s"]`)
	click(t, ctx, `button[value="freeze W1"]`)
	waitJS(t, ctx, "W1 frozen", eventsContain("W1 is frozen"))
	for range 4 {
		click(t, ctx, `button[value="advance 5s"]`)
	}
	waitJS(t, ctx, "21s", `document.getElementById("now").textContent === "21s"`)
	events := evalString(t, ctx, `document.getElementById("events").textContent`)
	query := evalString(t, ctx, `location.search`)

	stop()
	waitJS(t, ctx, "the page to notice", `document.querySelector("#conn.on") === null`)
	serveAt(t, addr)
	waitJS(t, ctx, "the page to reconnect by itself", `document.querySelector("#conn.on") !== null`)
	if got := evalString(t, ctx, `document.getElementById("events").textContent`); got != events {
		t.Errorf("after the restart the events differ:\n got %s\nwant %s", got, events)
	}
	if got := evalString(t, ctx, `location.search`); got != query {
		t.Errorf("after the restart the address is %s, want %s", got, query)
	}
	click(t, ctx, `button[value="thaw W1"]`)
	click(t, ctx, `button[value="advance 5s"]`)
	waitJS(t, ctx, "the story to go on in the new server", eventsContain("with token 7 (stale token: 7 < 8)"))

	// Share copies the permalink.
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		p := cdpbrowser.SetPermissionParams{Permission: &cdpbrowser.PermissionDescriptor{Name: name}, Setting: cdpbrowser.PermissionSettingGranted, Origin: base,
			BrowserContextID: chromedp.FromContext(ctx).BrowserContextID} // the test's own
		if _, err := chromedp.Call(ctx, cdpbrowser.SetPermission, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#session details").open = true`)); err != nil {
		t.Fatal(err)
	}
	unlock := holdClipboard(t) // the browser's one clipboard, until it is read below
	click(t, ctx, `#session button[data-share]`)
	waitJS(t, ctx, "the share button to say copied", `document.querySelector("#session button[data-share]").textContent.startsWith("✓")`)
	screenshot(t, ctx, "lab-shared-en", false)
	permalink := evalString(t, ctx, `document.getElementById("permalink").href`)
	if !strings.Contains(permalink, "/en/labs/w1-w2/at?") || !strings.Contains(permalink, "do=thaw+W1") {
		t.Errorf("permalink %s", permalink)
	}
	got := evalString(t, ctx, `navigator.clipboard.readText()`)
	unlock()
	if got != permalink {
		t.Errorf("clipboard holds %q, want %q", got, permalink)
	}
	liveEvents := evalString(t, ctx, `document.getElementById("events").textContent`)

	// The permalink draws the same world; continue live goes on from it.
	if err := chromedp.Do(ctx, chromedp.Navigate(permalink)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the permalink's diagram", `document.querySelector(".diagram-box svg .mk.reject") !== null`)
	if got := evalString(t, ctx, `document.getElementById("events").textContent`); got != liveEvents {
		t.Errorf("the permalink's events differ from the live world's:\n got %s\nwant %s", got, liveEvents)
	}
	screenshot(t, ctx, "permalink-en", true)
	clickNav(t, ctx, `#continue`)
	waitJS(t, ctx, "live again from the permalink's state", `document.querySelector("#conn.on") !== null && document.getElementById("events").textContent.includes("stale token: 7 < 8")`)

	// While the server was down the page's reconnects were refused: the
	// browser logs each, and that is what this test expects. Anything else
	// is a problem.
	var p []string
	for _, msg := range reqs.problems() {
		if strings.Contains(msg, "/labs/w1-w2/ws") && strings.Contains(msg, "ERR_CONNECTION_REFUSED") {
			continue
		}
		p = append(p, msg)
	}
	if len(p) > 0 {
		t.Errorf("the browser reported problems:\n%s", strings.Join(p, "\n"))
	}
}
