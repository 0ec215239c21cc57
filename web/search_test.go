package web

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"leaselab/catalog"
)

// sseEvent is one server-sent event.
type sseEvent struct{ name, data string }

// openSearch asks for a search as the page's script does and returns its
// events as they come, and a function that hangs up.
func openSearch(t *testing.T, u string) (<-chan sseEvent, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	out := make(chan sseEvent, 64)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				if ev.data != "" {
					ev.data += "\n"
				}
				ev.data += line[len("data: "):]
			case line == "":
				out <- ev
				ev = sseEvent{}
			}
		}
	}()
	return out, cancel
}

// last reads events until the stream's end and returns the last one.
func last(t *testing.T, events <-chan sseEvent) (sseEvent, int) {
	t.Helper()
	var ev sseEvent
	n := 0
	for e := range events {
		ev = e
		n++
	}
	return ev, n
}

// A "break it" goal's shortest schedule comes as the stream's verdict,
// in the student's language, beside the number of faults the student
// used; its replay link, opened, reaches the same harm. Asked again, it is
// answered from the cache without running the engine.
func TestSearchShortestForABreakGoal(t *testing.T) {
	s, ts := newTestServer(t, Config{})
	session := url.Values{"seed": {"0"}, "do": {"until 1s", "freeze W1 for=5s", "until 7s", "freeze W1 for=25s", "until 40s"}}
	u := ts.URL + "/id/labs/break-fencing/search?goal=one-pause&" + session.Encode()
	events, stop := openSearch(t, u)
	defer stop()
	v, _ := last(t, events)
	if v.name != "verdict" {
		t.Fatalf("the stream ended with %q: %s", v.name, v.data)
	}
	for _, want := range []string{`data-broken="true"`, "Kamu memakai 2 gangguan", "jeda ", " dtk pada ", `/id/labs/break-fencing/at?`} {
		if !strings.Contains(v.data, want) {
			t.Errorf("verdict lacks %q:\n%s", want, v.data)
		}
	}
	if s.searches.runs.Load() != 1 {
		t.Errorf("%d searches ran, want 1", s.searches.runs.Load())
	}
	// The replay link opens the lab at the harm the search found.
	link := v.data[strings.Index(v.data, `/id/labs/break-fencing/at?`):]
	link = htmlUnescape(link[:strings.IndexByte(link, '"')])
	harm := v.data[strings.Index(v.data, `<p class="why">`):]
	harm = harm[strings.Index(harm, ": ")+2 : strings.Index(harm, "</p>")]
	code, page, _ := get(t, ts.URL+link)
	if code != http.StatusOK || !strings.Contains(htmlUnescape(page), htmlUnescape(harm)) {
		t.Errorf("the replay %s (status %d) does not show the harm %q", link, code, harm)
	}

	again, stop2 := openSearch(t, u)
	defer stop2()
	v2, n := last(t, again)
	if v2.name != "verdict" || n != 1 || !strings.Contains(v2.data, catalog.T("id", "search.cached")) {
		t.Errorf("asked again: %d event(s), the last %q, cached note missing", n, v2.name)
	}
	if s.searches.runs.Load() != 1 {
		t.Errorf("asked again, %d searches ran, want 1", s.searches.runs.Load())
	}
}

// "Prove it within bounds" without script: the form's GET waits and
// answers a page with the verdict, in English on /en/.
func TestSearchProveWithoutScript(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{})
	code, page, _ := get(t, ts.URL+"/en/labs/renew-policy/search?prove=1&faults=1")
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, page)
	}
	if !strings.Contains(page, "search-verdict") || !strings.Contains(page, "schedules decided") {
		t.Errorf("no verdict on the page:\n%s", page)
	}
	code, _, _ = get(t, ts.URL+"/en/labs/renew-policy/search?prove=1&faults=9")
	if code != http.StatusNotFound {
		t.Errorf("faults=9 answered %d, want 404", code)
	}
	code, _, _ = get(t, ts.URL+"/en/labs/w1-w2/search?prove=1")
	if code != http.StatusNotFound {
		t.Errorf("a lab without search bounds answered %d, want 404", code)
	}
}

// A search shows its progress, and stops between parts when its page
// hangs up; a search asked again after that runs anew and is not handed
// the stopped one's end. One address runs at most maxSearchesPerAddr
// searches; the pool never runs more parts at once than it has places.
func TestSearchProgressCancelAndLimits(t *testing.T) {
	t.Parallel()
	s, ts := newTestServer(t, Config{})
	prove := func(margin string) string {
		return ts.URL + "/en/labs/renew-policy/search?prove=1&p.renew-margin=" + margin
	}
	events, hangUp := openSearch(t, prove("3s"))
	var parts int
	for e := range events {
		if e.name != "progress" {
			t.Fatalf("before hanging up: %q %s", e.name, e.data)
		}
		if strings.Contains(e.data, `"done":1,`) {
			parts = 1
			break
		}
	}
	if parts == 0 {
		t.Fatal("no progress event told a part done")
	}
	second, stop2 := openSearch(t, prove("4s"))
	defer stop2()
	third, stop3 := openSearch(t, prove("5s"))
	defer stop3()
	if v, _ := last(t, third); v.name != "failed" || !strings.Contains(v.data, "too many searches") {
		t.Errorf("a third search from one address: %q %s", v.name, v.data)
	}
	hangUp()
	stop2()
	for e := range second {
		_ = e
	}
	waitUntil(t, func() bool {
		s.searches.mu.Lock()
		defer s.searches.mu.Unlock()
		return len(s.searches.running) == 0
	})
	if ran, most := s.searches.parts.Load(), s.searches.most.Load(); ran >= 2*61 || most > int64(cap(s.searches.slots)) {
		t.Errorf("stopped searches ran %d parts, at most %d at once (pool %d)", ran, most, cap(s.searches.slots))
	}
	if _, ok := s.searches.cache.get(searchKey{}); ok {
		t.Error("cache holds an empty key")
	}
}

// waitUntil polls cond until it holds, failing the test after a long
// while: for what another goroutine finishes, not a timing claim.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatal("waited 30 s in vain")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestBrowserSearch: on a phone, in Indonesian, a student who broke the
// design handed to them asks for the engine's shortest schedule and reads
// it beside their own; on a laptop, "prove it within bounds" shows its
// progress and can be cancelled.
func TestBrowserSearch(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	ctx := browser(t, 390, 844)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	s, ts := newTestServer(t, Config{})
	reqs := recordRequests(t, ctx)
	q := url.Values{"do": {"until 1s", "freeze W1 for=5s", "until 7s", "freeze W1 for=25s", "until 40s"}}
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/break-fencing?"+q.Encode())); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live page", `document.querySelector("#conn.on") !== null`)
	// The engine's answer is offered only once the student has checked
	// their own try.
	if hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#goal-one-pause .after-try").hidden`)); err != nil || !hidden {
		t.Fatalf("the shortest schedule is offered before a try (hidden %v, %v)", hidden, err)
	}
	click(t, ctx, `#goal-one-pause form.goalcheck button[type=submit]:not(.search-ask)`)
	waitJS(t, ctx, "the goal's verdict", `document.querySelector("#goal-verdict-one-pause .verdict") !== null`)
	click(t, ctx, `button[data-search="goal-search-one-pause"]`)
	waitJS(t, ctx, "the shortest schedule", `document.querySelector("#goal-search-one-pause .search-verdict") !== null`)
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#goal-search-one-pause").innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "Kamu memakai 2 gangguan; 1 sudah cukup") || !strings.Contains(text, "jeda ") {
		t.Errorf("the verdict on the page:\n%s", text)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector("#goal-search-one-pause").scrollIntoView(), true)`)); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "search-break-phone-id", false)

	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(ts.URL+"/en/labs/renew-policy")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live page", `document.querySelector("#conn.on") !== null`)
	click(t, ctx, `button[data-search="challenge-search"]`)
	waitJS(t, ctx, "the search's progress", `(() => { const r = document.getElementById("challenge-search-run"); return !r.hidden && r.querySelector("progress").value > 0; })()`)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.getElementById("challenge-search-run").scrollIntoView({block: "center"}), true)`)); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "search-progress-laptop-en", false)
	click(t, ctx, `#challenge-search-run .search-cancel`)
	waitJS(t, ctx, "the cancelled search", `document.getElementById("challenge-search-run").hidden && document.getElementById("challenge-search").textContent.includes("cancelled")`)
	waitUntil(t, func() bool {
		s.searches.mu.Lock()
		defer s.searches.mu.Unlock()
		return len(s.searches.running) == 0
	})
	if p := reqs.problems(); len(p) > 0 {
		t.Errorf("the browser reported: %v", p)
	}
}

// A "break it" goal offers the engine's shortest schedule only after the
// student's own try: hidden on a fresh page, shown once the goal was
// checked (the page the no-script form comes back to).
func TestShortestOfferedAfterATry(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{})
	for _, tc := range []struct {
		query  string
		hidden bool
	}{{"", true}, {"?goal=one-pause", false}} {
		resp, err := http.Get(ts.URL + "/id/labs/break-fencing" + tc.query)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		page := string(body)
		i := strings.Index(page, `class="after-try"`)
		if i < 0 {
			t.Fatalf("%q: no shortest-schedule button", tc.query)
		}
		tag := page[i : i+strings.IndexByte(page[i:], '>')]
		if got := strings.Contains(tag, "hidden"); got != tc.hidden {
			t.Errorf("%q: the button's span %q, hidden %v, want %v", tc.query, tag, got, tc.hidden)
		}
	}
}
