package web

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"leaselab/content"
)

// TestBrowserProgramCompare is issue 49's verdict in the browser, in
// Indonesian, on a phone and a laptop: the starting program's verdict
// says the line that acted and the line that set what it went by (the
// chain); a fresh page and a failing verdict offer no comparison; a
// program that passes is offered "compare with the reference", and
// pressing it shows where the two first behave differently. One page,
// each verdict read at a phone's width and a laptop's (the tab resized in
// place, as a window dragged wider): the verdicts are the server's, and a
// page and two judgements a size were the same work twice (issue 46).
func TestBrowserProgramCompare(t *testing.T) {
	t.Parallel()
	ref, err := fs.ReadFile(content.FS, "labs/write-renewal/reference.star")
	if err != nil {
		t.Fatal(err)
	}
	wider := strings.Replace(string(ref), "MARGIN = 3 * SECOND", "MARGIN = 4 * SECOND", 1)
	ctx := browser(t, int(programSizes[0].width), int(programSizes[0].height))
	_, ts := newTestServer(t, Config{AddrWork: 1e6})
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/write-renewal")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live page", `document.querySelector("#conn.on") !== null`)
	noOffer := `document.querySelector('button[name="compare"]') === null`
	waitJS(t, ctx, "no offer on a fresh page", noOffer)

	clickNav(t, ctx, `#program button[name="submit"]`)
	waitJS(t, ctx, "the starting program's verdict", `document.querySelector('#program-verdict .verdict[data-correct="false"]') !== null && document.querySelector("#program-verdict .cause") !== null`)
	waitJS(t, ctx, "no offer after a failing verdict", noOffer)
	for _, vp := range programSizes {
		resizeTab(t, ctx, vp)
		cause, err := textOf(ctx, "#program-verdict .cause")
		if err != nil || !strings.Contains(cause, `timer "work"`) || !strings.Contains(cause, "baris 31") {
			t.Fatalf("%s: the chain says %q (%v), want the timer work set at line 31", vp.name, cause, err)
		}
		scrollTo(t, ctx, "#program-verdict .acted")
		screenshot(t, ctx, "program-chain-"+vp.name+"-id", false)
	}

	submitProgram(t, ctx, wider, `#program button[name="submit"]`)
	waitJS(t, ctx, "the pass and its offer", `document.querySelector('#program-verdict .verdict[data-correct="true"]') !== null && document.querySelector('button[name="compare"]') !== null`)
	clickNav(t, ctx, `button[name="compare"]`)
	waitJS(t, ctx, "the comparison", `document.querySelector("#program-compare .why") !== null`)
	for _, vp := range programSizes {
		resizeTab(t, ctx, vp)
		diff, err := textOf(ctx, "#program-compare .why")
		if err != nil || !strings.Contains(diff, "programmu") || !strings.Contains(diff, "program rujukan") {
			t.Fatalf("%s: the comparison says %q (%v)", vp.name, diff, err)
		}
		scrollTo(t, ctx, "#program-compare")
		screenshot(t, ctx, "program-compare-"+vp.name+"-id", false)
	}
}
