package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"leaselab/class"
)

// restartable serves whichever server is current: a restart closes the
// server and its class store and opens new ones on the same data folder,
// behind the same address, as a redeploy does.
type restartable struct {
	t   *testing.T
	dir string
	cur atomic.Pointer[Server]
	svc *class.Service
	// gate, while the server restarts, holds the requests that come
	// (a stream's browser comes back after a second), as a load
	// balancer in front of a redeploy does.
	gate atomic.Pointer[chan struct{}]
}

func (r *restartable) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if g := r.gate.Load(); g != nil {
		<-*g
	}
	r.cur.Load().ServeHTTP(w, req)
}

func (r *restartable) start() {
	svc, err := class.Open(context.Background(), class.Config{Data: r.dir, Logf: r.t.Logf})
	if err != nil {
		r.t.Fatal(err)
	}
	s, err := New(sharedCourse(Config{Classes: svc, SessionWork: 1000, AddrWork: 1000}))
	if err != nil {
		r.t.Fatal(err)
	}
	r.svc = svc
	r.cur.Store(s)
	if g := r.gate.Swap(nil); g != nil {
		close(*g)
	}
}

func (r *restartable) stop() {
	g := make(chan struct{})
	r.gate.Store(&g)
	r.cur.Load().Close()
	if err := r.svc.Close(); err != nil {
		r.t.Error(err)
	}
}

// TestBrowserClass is a class in four browsers: an instructor at a
// projector's size and three students in browser contexts of their own,
// one on a phone, one in English. They join by code, vote from the class
// bar, the dashboard counts as they vote (no reload), a second vote
// follows, the reveal shows both distributions and the engine's answer, a
// pushed world reaches the students; then the server restarts on the same
// SQLite folder and the class, its votes and the students' places are
// still there.
func TestBrowserClass(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	teacher := browser(t, 1920, 1080)
	rs := &restartable{t: t, dir: t.TempDir()}
	rs.start()
	ts := httptest.NewServer(rs)
	t.Cleanup(func() {
		// The shared browser's tabs outlive the test: end the streams
		// and sockets first, or Close waits on them.
		rs.stop()
		ts.CloseClientConnections()
		ts.Close()
	})
	reqs := recordRequests(t, teacher)
	emulate(t, teacher, projector)

	nav := func(ctx context.Context, path string) {
		t.Helper()
		if _, err := chromedp.RunResponse(ctx, chromedp.Navigate(ts.URL+path)); err != nil {
			t.Fatalf("navigate %s: %v", path, err)
		}
	}
	submit := func(ctx context.Context, css string) {
		t.Helper()
		// Found and clicked in one step in the page: the dashboard's
		// stream may replace a form's panel between a query and a click
		// (its round event), which left chromedp's click a stale node.
		waitJS(t, ctx, css, fmt.Sprintf(`!!document.querySelector(%q)`, css))
		clickNav(t, ctx, css)
	}
	text := func(ctx context.Context, js string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return s
	}

	// The instructor opens a class from the home page.
	nav(teacher, "/id/")
	if err := chromedp.Do(teacher, chromedp.SendKeys(chromedp.CSS(".classopen input[name=name]"), "Sistem Terdistribusi")); err != nil {
		t.Fatal(err)
	}
	submit(teacher, ".classopen button")
	code := text(teacher, `document.getElementById("join-code").textContent`)
	teach := text(teacher, `location.pathname`)
	if len(code) != class.CodeLength || !evalBool(t, teacher, `!!document.querySelector(".join-qr svg.qr path")`) {
		t.Fatalf("dashboard: code %q, or no QR code", code)
	}
	// It chooses the lab, then its question, then opens the vote.
	if err := chromedp.Do(teacher, chromedp.SetValue(chromedp.CSS("#teach-lab"), "w1-w2")); err != nil {
		t.Fatal(err)
	}
	submit(teacher, "form.activity button")
	if err := chromedp.Do(teacher, chromedp.SetValue(chromedp.CSS("#teach-question"), "storage-checks")); err != nil {
		t.Fatal(err)
	}
	submit(teacher, "form.activity button")
	submit(teacher, `form[data-act="round"] button`)

	// Three students, each a browser context of its own (cookies apart).
	type student struct {
		ctx  context.Context
		lang string
		v    viewport
	}
	var students []student
	for i, st := range []struct {
		lang string
		v    viewport
	}{{"id", phone}, {"en", laptop}, {"id", laptop}} {
		ctx, cancel := chromedp.NewContext(teacher, chromedp.WithNewBrowserContext())
		t.Cleanup(cancel)
		emulate(t, ctx, st.v)
		nav(ctx, "/"+st.lang+"/join")
		// The code as a student types it from the projector: lower case, a space.
		if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(".joinform input[name=code]"), strings.ToLower(code[:3]+" "+code[3:]))); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(".joinform input[name=nick]"), fmt.Sprintf("siswa%d", i+1))); err != nil {
			t.Fatal(err)
		}
		submit(ctx, ".joinform button")
		waitJS(t, ctx, "the lab page with the class bar's vote", `location.pathname.endsWith("/labs/w1-w2") && !!document.querySelector("#classbar form.cb-vote")`)
		students = append(students, student{ctx, st.lang, st.v})
	}
	vote := func(s student, choice string) {
		t.Helper()
		// A lab page votes over its socket: the form is never posted.
		if _, err := chromedp.Run(s.ctx, chromedp.Evaluate[int](`window.votePosts = 0; if (!window.countedFetch) { window.countedFetch = fetch; window.fetch = (u, o) => { if (String(u).includes("/class/vote")) window.votePosts++; return window.countedFetch(u, o); }; } 0`)); err != nil {
			t.Fatal(err)
		}
		click(t, s.ctx, fmt.Sprintf(`#classbar input[name=choice][value=%q]`, choice))
		click(t, s.ctx, `#classbar form.cb-vote button`)
		letter := map[string]string{"rejected": "A", "overwrites": "B"}[choice]
		waitJS(t, s.ctx, "the bar saying which choice was saved", fmt.Sprintf(`document.querySelector("#classbar .cb-said").textContent.includes(": %s.")`, letter))
		if posts, err := chromedp.Run(s.ctx, chromedp.Evaluate[int](`window.votePosts`)); err != nil || posts != 0 {
			t.Errorf("a vote from the lab page posted the form %d times (%v), want it over the socket", posts, err)
		}
	}
	counts := func(ctx context.Context, n int, want string) string {
		return fmt.Sprintf(`[...document.querySelectorAll('#teach-live .dist[data-n="%d"] .tally-row')].map(r => r.dataset.choice + "=" + r.dataset.count).join(" ") === %q`, n, want)
	}
	// First vote: one right, two wrong. The dashboard counts without a reload.
	vote(students[0], "overwrites")
	vote(students[1], "rejected")
	vote(students[2], "overwrites")
	waitJS(t, teacher, "the dashboard counting the first vote", counts(teacher, 1, "rejected=1 overwrites=2 silent=0"))
	waitJS(t, teacher, "the dashboard listing the three students", `[...document.querySelectorAll("#roster tbody td.who")].map(td => td.textContent).sort().join(" ") === "siswa1 siswa2 siswa3"`)
	screenshot(t, students[0].ctx, "class-phone-vote-id", false)
	screenshot(t, students[1].ctx, "class-laptop-vote-en", false)

	// Discussion, and the second vote: the students' bars change by themselves.
	submit(teacher, `form[data-act="round"] button`)
	for _, s := range students {
		waitJS(t, s.ctx, "the second vote in the bar", `!!document.querySelector("#classbar form.cb-vote") && /2|kedua|Second/.test(document.querySelector("#classbar legend").textContent) && document.querySelector("#classbar .cb-said").textContent.trim() === ""`)
		vote(s, "rejected")
	}
	waitJS(t, teacher, "the dashboard counting the second vote", counts(teacher, 2, "rejected=3 overwrites=0 silent=0"))
	// The reveal: both distributions side by side, the share right before
	// and after, and the engine's run that decided.
	submit(teacher, `form[data-act="reveal"] button`)
	waitJS(t, teacher, "the reveal", `!!document.querySelector("#reveal .verdict.correct svg") && document.querySelectorAll("#teach-live .dist").length === 2`)
	if got := text(teacher, `document.getElementById("share-right").textContent`); got != "Jawaban benar: 33% sebelum diskusi, 100% sesudahnya." {
		t.Errorf("share right: %q", got)
	}
	if !evalBool(t, teacher, `(() => { const d = [...document.querySelectorAll("#teach-live .dist")].map(e => e.getBoundingClientRect()); return Math.abs(d[0].top - d[1].top) < 2 && d[0].right <= d[1].left; })()`) {
		t.Error("the two distributions are not side by side at 1920×1080")
	}
	screenshot(t, teacher, "class-dashboard-1920-id", false)
	emulate(t, teacher, laptop)
	screenshot(t, teacher, "class-dashboard-1280-id", false)
	nav(teacher, strings.Replace(teach, "/id/", "/en/", 1))
	screenshot(t, teacher, "class-dashboard-1280-en", false)
	emulate(t, teacher, projector)
	screenshot(t, teacher, "class-dashboard-1920-en", false)
	nav(teacher, teach+"/projector")
	emulate(t, teacher, projector)
	screenshot(t, teacher, "class-projector-1920-id", false)
	for _, s := range students {
		waitJS(t, s.ctx, "the engine's answer in the bar", `!!document.querySelector("#classbar .cb-revealed") && !!document.querySelector('#classbar .tally-row.right[data-choice="rejected"]')`)
	}

	// The instructor pushes a world; it arrives as an invitation.
	nav(teacher, teach)
	world := "/id/labs/w1-w2/at?do=until+4s&do=freeze+W1+for%3D25s&do=until+30s"
	if err := chromedp.Do(teacher, chromedp.SendKeys(chromedp.CSS(`.teach-push input[name=link]`), ts.URL+world)); err != nil {
		t.Fatal(err)
	}
	submit(teacher, ".teach-push button")
	for _, s := range students {
		waitJS(t, s.ctx, "the pushed world in the bar", `!!document.querySelector("#classbar .cb-push a")`)
	}
	screenshot(t, students[0].ctx, "class-phone-push-id", false)
	if got := text(students[1].ctx, `document.querySelector("#classbar .cb-push a").getAttribute("href")`); got != strings.Replace(world, "/id/", "/en/", 1) {
		t.Errorf("the English student is invited to %q", got)
	}
	submit(students[0].ctx, "#classbar .cb-push a")
	waitJS(t, students[0].ctx, "the pushed world", `location.pathname.endsWith("/labs/w1-w2/at") && !!document.querySelector(".snapshot svg")`)

	// The server restarts on the same folder: nothing of the class is lost.
	rs.stop()
	rs.start()
	nav(teacher, teach)
	for _, want := range []string{
		`document.getElementById("students").dataset.students === "3"`,
		counts(teacher, 1, "rejected=1 overwrites=2 silent=0"),
		counts(teacher, 2, "rejected=3 overwrites=0 silent=0"),
		`!!document.querySelector("#reveal")`,
	} {
		waitJS(t, teacher, "after the restart: "+want, want)
	}
	for _, s := range students {
		nav(s.ctx, "/"+s.lang+"/lessons/leases")
		waitJS(t, s.ctx, "the student's place in the class after the restart", `!!document.querySelector("#classbar .cb-revealed") && !!document.querySelector("#classbar .cb-push a") && /[A-Z0-9]{8}/.test(document.querySelector("#classbar .cb-more summary").textContent)`)
	}
	screenshot(t, students[1].ctx, "class-laptop-bar-en", false)
	nav(students[0].ctx, "/en/labs/w1-w2")
	screenshot(t, students[0].ctx, "class-phone-bar-en", false)
	for _, p := range reqs.problems() {
		t.Errorf("browser reported: %s", p)
	}
	if f := reqs.foreign(strings.TrimPrefix(ts.URL, "http://")); len(f) > 0 {
		t.Errorf("requests elsewhere: %v", f)
	}
}

// TestBrowserClassAxe runs axe-core on the class pages: the join page, a
// student's lab page with the class bar and an open vote, the dashboard
// with a revealed round and the projector view. Each page is loaded once
// on a phone and checked there in light and then (switched in place) in
// dark by the rules that read colours, then resized in place to a
// projector and checked in light (checkSizes, as TestBrowserAxe does). A
// laptop's width has the dashboard's two columns the projector's has
// (app.css, 1100px).
func TestBrowserClassAxe(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	findChromium(t)
	axe := axeScript(t)
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Kelas A")
	openVote(teacher, teach, "w1-w2", "storage-checks")
	teacher.post(teach+"/activity", url.Values{"lab": {"w1-w2"}, "question": {"storage-checks"}, "goal": {"reject-stale"}})
	teacher.post(teach+"/show", url.Values{"round": {"1"}})
	revealed, _ := openClass(t, teacher, "en", "Class B")
	openVote(teacher, revealed, "w1-w2", "storage-checks")
	teacher.post(revealed+"/round", nil)
	teacher.post(revealed+"/reveal", url.Values{"round": {"2"}})
	// One tab goes through the pages; each is checked at both sizes in
	// place (checkSizes).
	sizes := []sizeCheck{{phone, true}, {projector, false}}
	ctx := browser(t, int(phone.width), int(phone.height))
	withAxe(t, ctx, axe)
	for _, p := range []string{"/en/join?code=" + code, "JOIN", "/id/", teach, teach + "/projector", revealed, revealed + "/projector"} {
		emulate(t, ctx, sizes[0].viewport)
		colourScheme(t, ctx, false)
		if p == "JOIN" {
			if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(".joinform input[name=code]"), "")); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(".joinform button"))); err != nil {
				t.Fatal(err)
			}
			waitJS(t, ctx, "the lab page with the class bar", `!!document.querySelector("#classbar .cb-vote")`)
			screenshot(t, ctx, "class-phone-light-vote-en", false)
		} else if _, err := chromedp.RunResponse(ctx, chromedp.Navigate(base+p)); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "the page", `document.readyState === "complete"`)
		checkSizes(t, ctx, p, sizes, func(v viewport, scheme string) {
			// The projector view is black on white in either scheme
			// (html.projector in static/app.css).
			if strings.HasSuffix(p, "/projector") {
				if bg := evalString(t, ctx, `getComputedStyle(document.documentElement).backgroundColor`); bg != "rgb(255, 255, 255)" {
					t.Errorf("%s %s %s: the page's background is %s, want white", v.name, scheme, p, bg)
				}
			}
		})
	}
}
