package web

import (
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"leaselab/content"
)

// submitProgram puts src in the editor and presses a button of its form.
func submitProgram(t *testing.T, ctx context.Context, src, button string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#program-text"), src)); err != nil {
		t.Fatal(err)
	}
	clickNav(t, ctx, button)
}

func scrollTo(t *testing.T, ctx context.Context, css string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector(`+"`"+css+"`"+`).scrollIntoView({block: "start"}), true)`)); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserProgram is issue 30 in the browser, in Indonesian: the
// starting program of write-renewal fails with a counterexample that points
// at its line; the reference passes; a syntax error shows its line; an
// endless loop is stopped with words that say so; Run puts the program in
// the live world and its link.
func TestBrowserProgram(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	for _, vp := range []struct {
		name          string
		width, height int
	}{{"phone", 390, 844}, {"laptop", 1366, 900}} {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			ctx := browser(t, vp.width, vp.height)
			_, ts := newTestServer(t, Config{})
			if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/write-renewal")); err != nil {
				t.Fatal(err)
			}
			waitJS(t, ctx, "the live page", `document.querySelector("#conn.on") !== null`)
			start, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#program-text")))
			if err != nil || !strings.Contains(start, "def on_start(w, ev):") {
				t.Fatalf("the editor holds %q (%v)", start, err)
			}

			clickNav(t, ctx, `#program button[name="submit"]`)
			waitJS(t, ctx, "the starting program's verdict", `document.querySelector('#program-verdict .verdict[data-correct="false"]') !== null`)
			acted, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#program-verdict .acted-line")))
			if err != nil || !strings.Contains(acted, "w.write(") || !strings.HasPrefix(acted, "30 |") {
				t.Fatalf("the verdict points at %q (%v), want line 30, the write", acted, err)
			}
			summary, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#program-verdict .summary")))
			if !strings.Contains(summary, "Belum lulus") {
				t.Errorf("summary %q", summary)
			}
			scrollTo(t, ctx, "#program")
			screenshot(t, ctx, "program-editor-"+vp.name+"-id", false)
			scrollTo(t, ctx, "#program-verdict")
			screenshot(t, ctx, "program-verdict-"+vp.name+"-id", false)
			if vp.name == "laptop" {
				return // the rest is the same on any screen
			}

			ref, err := fs.ReadFile(content.FS, "labs/write-renewal/reference.star")
			if err != nil {
				t.Fatal(err)
			}
			submitProgram(t, ctx, string(ref), `#program button[name="submit"]`)
			waitJS(t, ctx, "the reference's verdict", `document.querySelector('#program-verdict .verdict[data-correct="true"]') !== null`)
			scrollTo(t, ctx, "#program-verdict")
			screenshot(t, ctx, "program-pass-phone-id", false)

			submitProgram(t, ctx, "def on_start(w, ev):\n    w.acquire(\n", `#program button[name="submit"]`)
			waitJS(t, ctx, "the syntax error", `(document.querySelector('#program-verdict .verdict') || {textContent: ""}).textContent.includes("baris 3, kolom 1")`)

			submitProgram(t, ctx, "def on_start(w, ev):\n    for i in range(4000):\n        for j in range(4000):\n            pass\n", `#program button[name="submit"]`)
			waitJS(t, ctx, "the endless loop stopped", `(document.querySelector('#program-verdict .verdict') || {textContent: ""}).textContent.includes("langkah")`)
			scrollTo(t, ctx, "#program-verdict")
			screenshot(t, ctx, "program-loop-phone-id", false)

			// Run: the program goes into the live world and the link.
			submitProgram(t, ctx, string(ref), `#program button:not([name])`)
			waitJS(t, ctx, "the live page with the program", `document.querySelector("#conn.on") !== null && document.getElementById("lab").dataset.query.includes("prog=")`)
			loc, _ := chromedp.Run(ctx, chromedp.Location())
			if !strings.Contains(loc, "program=") {
				t.Errorf("Run left the program out of the address: %s", loc)
			}
		})
	}
}
