package web

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
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
	ctx := browser(t, int(programSizes[0].width), int(programSizes[0].height))
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
	waitJS(t, ctx, "the starting program's verdict", `document.querySelector('#program-verdict .verdict[data-correct="false"]') !== null && document.querySelector("#program-verdict .acted-line") !== null`)
	// The verdict at a laptop's width too, the tab resized in place: the
	// rest is the same on any screen.
	for _, vp := range []programSize{programSizes[1], programSizes[0]} {
		resizeTab(t, ctx, vp)
		acted, err := textOf(ctx, "#program-verdict .acted-line")
		if err != nil || !strings.Contains(acted, "w.write(") || !strings.HasPrefix(acted, "30 |") {
			t.Fatalf("%s: the verdict points at %q (%v), want line 30, the write", vp.name, acted, err)
		}
		summary, _ := textOf(ctx, "#program-verdict .summary")
		if !strings.Contains(summary, "Belum lulus") {
			t.Errorf("%s: summary %q", vp.name, summary)
		}
		scrollTo(t, ctx, "#program")
		screenshot(t, ctx, "program-editor-"+vp.name+"-id", false)
		scrollTo(t, ctx, "#program-verdict")
		screenshot(t, ctx, "program-verdict-"+vp.name+"-id", false)
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

	// Every event the program caused says its line; pointing at
	// one, or focusing it with the keyboard, highlights that line
	// in the editor.
	page, _, _ := strings.Cut(loc, "#")
	if err := chromedp.Do(ctx, chromedp.Navigate(page+"&do=until+12s")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "an event the program caused", `document.querySelector("#conn.on") !== null && document.querySelector('#events li[data-line]') !== null`)
	hoverLine(t, ctx, string(ref))
}

// programSize is a width the program tests read a page at (no mobile
// emulation: the page's own layout at that width).
type programSize struct {
	name          string
	width, height int64
}

// programSizes: a phone's width first, then a laptop's.
var programSizes = []programSize{{"phone", 390, 844}, {"laptop", 1280, 800}}

// resizeTab resizes the page ctx shows to vp in place, and waits until
// its resize handlers have run (the second frame after).
func resizeTab(t *testing.T, ctx context.Context, vp programSize) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(vp.width, vp.height)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
}

// hoverLine points at an event the program caused and then focuses
// another: each time the editor's highlight bar stands on the event's line
// (its data-line, and its place: that many line heights down), and
// leaving the event takes the bar away.
func hoverLine(t *testing.T, ctx context.Context, src string) {
	t.Helper()
	type box struct {
		Line  int     `json:"line"`
		X     float64 `json:"x"`
		Y     float64 `json:"y"`
		Count int     `json:"count"`
		Write bool    `json:"write"`
	}
	// The first write event of W1 the program caused: its line must be a
	// w.write( line of the program. The live page may move under the
	// pointer (a frame, a scroll), so the pointer is moved onto the event
	// again until its line shows.
	find := `(() => {
		const all = [...document.querySelectorAll('#events li[data-line]')];
		const el = all.find(e => e.classList.contains('k-write')) || all[0];
		const box = el.closest("details");
		if (box && !box.open) box.open = true; // the phone folds the event list
		let r = el.getBoundingClientRect();
		if (document.elementFromPoint(r.left + 5, r.top + r.height / 2) !== el && !el.contains(document.elementFromPoint(r.left + 5, r.top + r.height / 2))) {
			el.scrollIntoView({block: "center", behavior: "instant"});
			r = el.getBoundingClientRect();
		}
		return {line: +el.dataset.line, x: r.left + 5, y: r.top + r.height / 2, count: all.length, write: el.classList.contains('k-write')};
	})()`
	bar := `(() => { const b = document.querySelector('#program .line-hl'); const t = document.getElementById('program-text');
		if (!b || b.hidden) return 0;
		const cs = getComputedStyle(t);
		const want = t.offsetTop + parseFloat(cs.paddingTop) + (b.dataset.line - 1) * parseFloat(cs.lineHeight);
		return Math.abs(parseFloat(b.style.top) - want) < 1 ? +b.dataset.line : -1; })()`
	var b box
	shown := 0
	for try := 0; try < 40 && shown == 0; try++ {
		var err error
		if b, err = chromedp.Run(ctx, chromedp.Evaluate[box](find)); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, b.X, b.Y)); err != nil {
			t.Fatal(err)
		}
		if shown, err = chromedp.Run(ctx, chromedp.Evaluate[int](bar)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	lines := strings.Split(src, "\n")
	if b.Line < 1 || b.Line > len(lines) {
		t.Fatalf("event's line %d is outside the program", b.Line)
	}
	if b.Write && !strings.Contains(lines[b.Line-1], "w.write(") {
		t.Fatalf("a write event points at line %d %q", b.Line, lines[b.Line-1])
	}
	screenshot(t, ctx, "program-hover-phone-id", false)
	if shown != b.Line {
		t.Fatalf("pointing at an event of line %d, the editor highlights %d (0: nothing, -1: misplaced)", b.Line, shown)
	}
	if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 1, 1)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the highlight gone when the pointer leaves", bar+` === 0`)

	// The keyboard: focus the last such event.
	want, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(() => { const all = document.querySelectorAll('#events li[data-line]'); const el = all[all.length - 1]; el.focus(); return +el.dataset.line; })()`))
	if err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the focused event's line highlighted", fmt.Sprintf(`%s === %d`, bar, want))
}

// TestBrowserStorageProgram is issue 49 in the browser: a program that
// decides for the storage. The starting program of write-fencing-check
// fails; the verdict's line is the one that refused the holder's write,
// and pointing at it highlights it in the editor. Run with a pause of W1
// puts the refusal in the live world, whose event says the same line and
// highlights it when pointed at.
func TestBrowserStorageProgram(t *testing.T) {
	t.Parallel()
	ctx := browser(t, 1280, 800)
	_, ts := newTestServer(t, Config{})
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/write-fencing-check")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live page", `document.querySelector("#conn.on") !== null`)
	start, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#program-text")))
	if err != nil || !strings.Contains(start, "def on_write(s, ev):") {
		t.Fatalf("the editor holds %q (%v)", start, err)
	}
	lines := strings.Split(start, "\n")
	refusal := 0
	for i, l := range lines {
		if strings.Contains(l, "s.reject(") {
			refusal = i + 1
		}
	}
	title, _ := textOf(ctx, "#program h2")
	if !strings.Contains(title, "penyimpanan") {
		t.Errorf("the editor's heading %q", title)
	}

	clickNav(t, ctx, `#program button[name="submit"]`)
	waitJS(t, ctx, "the starting program's verdict", `document.querySelector('#program-verdict .verdict[data-correct="false"]') !== null && document.querySelector("#program-verdict .acted-line") !== null`)
	acted, err := textOf(ctx, "#program-verdict .acted-line")
	if err != nil || !strings.HasPrefix(acted, fmt.Sprintf("%d |", refusal)) || !strings.Contains(acted, "s.reject(") {
		t.Fatalf("the verdict points at %q (%v), want line %d, the refusal", acted, err, refusal)
	}
	why, _ := textOf(ctx, "#program-verdict .why")
	if !strings.Contains(why, "menolak") || !strings.Contains(why, "pemegang lease") {
		t.Errorf("the deciding event reads %q, want the holder's write refused", why)
	}
	if got := pointAt(t, ctx, "#program-verdict .acted-line"); got != refusal {
		t.Fatalf("pointing at the verdict's line, the editor highlights %d, want %d", got, refusal)
	}
	scrollTo(t, ctx, "#program-verdict")
	screenshot(t, ctx, "program-storage-verdict-laptop-id", false)

	// Run, then a pause of W1 long enough for S to take the lease and
	// write: the starting program refuses S, and says so at its line.
	clickNav(t, ctx, `#program button:not([name])`)
	waitJS(t, ctx, "the live page with the program", `document.querySelector("#conn.on") !== null && document.getElementById("lab").dataset.query.includes("prog=")`)
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	page, _, _ := strings.Cut(loc, "#")
	if err := chromedp.Do(ctx, chromedp.Navigate(page+"&do=until+200ms&do=freeze+W1+for%3D12s&do=until+12s")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the refusal in the live world", `document.querySelector("#conn.on") !== null && document.querySelector('#events li.k-reject[data-line]') !== null`)
	line, err := chromedp.Run(ctx, chromedp.Evaluate[int](`+document.querySelector('#events li.k-reject[data-line]').dataset.line`))
	if err != nil || line != refusal {
		t.Fatalf("the refusal's event says line %d (%v), want %d", line, err, refusal)
	}
	if got := pointAt(t, ctx, "#events li.k-reject[data-line]"); got != refusal {
		t.Fatalf("pointing at the refusal, the editor highlights %d, want %d", got, refusal)
	}
	screenshot(t, ctx, "program-storage-hover-laptop-id", false)
}

// pointAt moves the pointer onto the first element css finds (again,
// while the live page moves it) and returns the line the editor's
// highlight bar stands on, placed where that line is (0: none).
func pointAt(t *testing.T, ctx context.Context, css string) int {
	t.Helper()
	type box struct{ X, Y float64 }
	find := `(() => {
		const el = document.querySelector(` + "`" + css + "`" + `);
		const fold = el.closest("details");
		if (fold && !fold.open) fold.open = true;
		let r = el.getBoundingClientRect();
		const hit = document.elementFromPoint(r.left + 5, r.top + r.height / 2);
		if (hit !== el && !el.contains(hit)) { el.scrollIntoView({block: "center", behavior: "instant"}); r = el.getBoundingClientRect(); }
		return {X: r.left + 5, Y: r.top + r.height / 2};
	})()`
	bar := `(() => { const b = document.querySelector('#program .line-hl'); const t = document.getElementById('program-text');
		if (!b || b.hidden) return 0;
		const cs = getComputedStyle(t);
		const want = t.offsetTop + parseFloat(cs.paddingTop) + (b.dataset.line - 1) * parseFloat(cs.lineHeight);
		return Math.abs(parseFloat(b.style.top) - want) < 1 ? +b.dataset.line : -1; })()`
	shown := 0
	for try := 0; try < 40 && shown <= 0; try++ {
		b, err := chromedp.Run(ctx, chromedp.Evaluate[box](find))
		if err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, b.X, b.Y)); err != nil {
			t.Fatal(err)
		}
		if shown, err = chromedp.Run(ctx, chromedp.Evaluate[int](bar)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return shown
}
