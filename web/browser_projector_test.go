package web

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"leaselab/class"
)

// TestBrowserProjector is a lecture hall in Chromium (issue 43). The
// server runs in classroom mode: it listens on every interface and the
// students' address is this machine's LAN address (ClassroomURL). The
// instructor opens a class from a browser that used localhost; the
// dashboard says nothing about phones not reaching it, and its join link,
// like the projector's link and QR code, carries the LAN address, which
// answers. The projector is opened on another browser (the room's PC) by
// its own link: its HTML holds no instructor token and no link under
// /teach/. Three phones join by the LAN address and vote; during round 1
// the projector shows how many voted and no counts, until the instructor
// presses "show"; after a second vote and the reveal it shows the
// engine's answer and its diagram. Everything the room must read (code,
// QR code, question, counts, diagram) is on one screen without scrolling
// at 1920×1080 and at 1280×720, the QR code at least 500 px wide at
// 1920×1080 before the reveal. Screenshots: the projector during the
// vote and after the reveal at both sizes, and a phone during the vote,
// in Indonesian and English.
func TestBrowserProjector(t *testing.T) {
	t.Parallel()
	svc, err := class.Open(context.Background(), class.Config{Data: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	lan, err := ClassroomURL(ln.Addr().String(), "")
	if err != nil {
		t.Fatalf("classroom mode needs a LAN address: %v", err)
	}
	s, err := New(sharedCourse(Config{Classes: svc, StudentURL: lan, SessionWork: 1000, AddrWork: 1000}))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s)
	ts.Listener = ln
	ts.Start()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	local := "http://localhost:" + port
	t.Cleanup(func() {
		s.Close()
		ts.CloseClientConnections()
		ts.Close()
		svc.Close()
	})

	teacher := browser(t, 1920, 1080)
	reqs := recordRequests(t, teacher)
	nav := func(ctx context.Context, u string) {
		t.Helper()
		if _, err := chromedp.RunResponse(ctx, chromedp.Navigate(u)); err != nil {
			t.Fatalf("navigate %s: %v", u, err)
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
	str := func(ctx context.Context, js string) string {
		t.Helper()
		return evalAs[string](t, ctx, js)
	}

	// The instructor, on the laptop itself, by localhost.
	nav(teacher, local+"/id/")
	if err := chromedp.Do(teacher, chromedp.SendKeys(chromedp.CSS(".classopen input[name=name]"), "Sistem Terdistribusi")); err != nil {
		t.Fatal(err)
	}
	submit(teacher, ".classopen button")
	code := str(teacher, `document.getElementById("join-code").textContent`)
	teach := str(teacher, `location.pathname`)
	token := strings.TrimPrefix(teach, "/id/teach/")
	join := lan + "/id/join?code=" + code
	if evalBool(t, teacher, `!!document.getElementById("unreachable")`) {
		t.Errorf("the dashboard says phones cannot reach a classroom server: %s", str(teacher, `document.getElementById("unreachable").textContent`))
	}
	if got := str(teacher, `document.querySelector(".join-url a").href`); got != join {
		t.Errorf("the dashboard's join link is %q, want %q (the LAN address, not localhost)", got, join)
	}
	proj := str(teacher, `document.getElementById("projector-link").href`)
	if !strings.HasPrefix(proj, local+"/id/projector/") || strings.Contains(proj, token) {
		t.Fatalf("projector link %q", proj)
	}
	if resp, err := http.Get(join); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the join link at the LAN address does not answer: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// The room's PC: another browser, the projector's link only.
	room, cancel := chromedp.NewContext(teacher, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	emulate(t, room, projector)
	nav(room, proj)
	html := str(room, `document.documentElement.outerHTML`)
	for _, leak := range []string{token, "/teach/"} {
		if strings.Contains(html, leak) {
			t.Errorf("the projector's HTML holds %q", leak)
		}
	}
	if got := str(room, `document.getElementById("join-url").dataset.url`); got != join {
		t.Errorf("the projector's join link is %q, want %q", got, join)
	}
	wantQR, err := qrSVG(join, "")
	if err != nil {
		t.Fatal(err)
	}
	path := regexp.MustCompile(` d="([^"]+)"`)
	if got := str(room, `document.querySelector("#join-qr svg path").getAttribute("d")`); got != path.FindStringSubmatch(wantQR)[1] {
		t.Errorf("the projector's QR code is not the LAN join link's")
	}

	// A question, and a vote.
	if err := chromedp.Do(teacher, chromedp.SetValue(chromedp.CSS("#teach-lab"), "w1-w2")); err != nil {
		t.Fatal(err)
	}
	submit(teacher, "form.activity button")
	if err := chromedp.Do(teacher, chromedp.SetValue(chromedp.CSS("#teach-question"), "storage-checks")); err != nil {
		t.Fatal(err)
	}
	submit(teacher, "form.activity button")
	submit(teacher, `form[data-act="round"] button`)

	type phoneT struct {
		ctx  context.Context
		lang string
	}
	var phones []phoneT
	for i, lang := range []string{"id", "en", "id"} {
		ctx, cancel := chromedp.NewContext(teacher, chromedp.WithNewBrowserContext())
		t.Cleanup(cancel)
		emulate(t, ctx, phone)
		// The phone scans the QR code: the LAN address.
		nav(ctx, strings.Replace(join, "/id/", "/"+lang+"/", 1))
		if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(".joinform input[name=nick]"), fmt.Sprintf("hp%d", i+1))); err != nil {
			t.Fatal(err)
		}
		submit(ctx, ".joinform button")
		waitJS(t, ctx, "the joined confirmation and the vote", `!!document.getElementById("cb-joined") && !!document.querySelector("#classbar form.cb-vote .cb-prompt")`)
		joined := str(ctx, `document.getElementById("cb-joined").textContent`)
		if !strings.Contains(joined, "Sistem Terdistribusi") || !strings.Contains(joined, fmt.Sprintf("hp%d", i+1)) {
			t.Errorf("the confirmation does not name the class and the nickname: %q", joined)
		}
		phones = append(phones, phoneT{ctx, lang})
	}
	// The phone's vote: the question's words, the choices lettered as the
	// dashboard and projector letter them.
	for _, p := range phones[:2] {
		if got := str(p.ctx, `[...document.querySelectorAll("#classbar .cb-choice")].map(l => l.textContent.trim().slice(0, 2)).join(" ")`); got != "A. B. C." {
			t.Errorf("%s phone: the choices read %q, want A. B. C.", p.lang, got)
		}
		screenshot(t, p.ctx, "hall-phone-vote-"+p.lang, false)
	}
	vote := func(p phoneT, choice string) {
		t.Helper()
		click(t, p.ctx, fmt.Sprintf(`#classbar input[name=choice][value=%q]`, choice))
		click(t, p.ctx, `#classbar form.cb-vote button`)
		waitJS(t, p.ctx, "the vote kept", `document.querySelector("#classbar .cb-said").textContent.trim() !== ""`)
	}
	vote(phones[0], "overwrites")
	vote(phones[1], "rejected")
	vote(phones[2], "overwrites")

	// Round 1 on the projector: how many voted, no counts.
	waitJS(t, room, "the projector counting voters", `document.querySelector('#hall-live .dist[data-n="1"] .votes').textContent.startsWith("3 ")`)
	if evalBool(t, room, `!!document.querySelector("#hall-live .tally-row, #hall-live [data-count]") || document.querySelector('#hall-live .dist[data-n="1"]').dataset.shown !== "false"`) {
		t.Error("the projector shows round 1's counts before the instructor showed them")
	}
	fits(t, room, false)
	screenshot(t, room, "hall-projector-vote-1920-id", false)
	emulate(t, room, viewport{"720p", 1280, 720, false})
	fits(t, room, false)
	screenshot(t, room, "hall-projector-vote-1280-id", false)
	nav(room, strings.Replace(proj, "/id/", "/en/", 1))
	emulate(t, room, projector)
	fits(t, room, false)
	screenshot(t, room, "hall-projector-vote-1920-en", false)
	nav(room, proj)

	// "Show the counts": the projector has them without a reload.
	submit(teacher, `form[data-act="show"] button`)
	waitJS(t, room, "the counts shown", `[...document.querySelectorAll('#hall-live .dist[data-n="1"] .tally-row')].map(r => r.dataset.choice + "=" + r.dataset.count).join(" ") === "rejected=1 overwrites=2 silent=0"`)

	// Discussion, a second vote, the reveal.
	submit(teacher, `form[data-act="round"] button`)
	for _, p := range phones {
		waitJS(t, p.ctx, "the second vote", `!!document.querySelector("#classbar form.cb-vote") && document.querySelector("#classbar .cb-said").textContent.trim() === ""`)
		vote(p, "rejected")
	}
	waitJS(t, room, "round 2's voters", `!!document.querySelector('#hall-live .dist[data-n="2"]') && document.querySelector('#hall-live .dist[data-n="2"] .votes').textContent.startsWith("3 ")`)
	if evalBool(t, room, `!!document.querySelector('#hall-live .dist[data-n="2"] .tally-row')`) {
		t.Error("the projector shows round 2's counts before the reveal")
	}
	submit(teacher, `form[data-act="reveal"] button`)
	waitJS(t, room, "the reveal on the projector", `!!document.querySelector("#reveal .diagram-box svg") && document.getElementById("hall").classList.contains("revealed") && !!document.querySelector('#hall-live .dist[data-n="2"] .tally-row.right')`)
	if got := str(room, `document.getElementById("share-right").textContent`); got != "Jawaban benar: 33% sebelum diskusi, 100% sesudahnya." {
		t.Errorf("share right: %q", got)
	}
	fits(t, room, true)
	screenshot(t, room, "hall-projector-reveal-1920-id", false)
	emulate(t, room, viewport{"720p", 1280, 720, false})
	fits(t, room, true)
	screenshot(t, room, "hall-projector-reveal-1280-id", false)
	nav(room, strings.Replace(proj, "/id/", "/en/", 1))
	emulate(t, room, projector)
	fits(t, room, true)
	screenshot(t, room, "hall-projector-reveal-1920-en", false)
	for _, p := range reqs.problems() {
		t.Errorf("browser reported: %s", p)
	}
}

// fits fails unless what the room reads is on the projector's one screen:
// no scrolling, and the code, QR code, question, votes and (revealed) the
// diagram inside the viewport; before the reveal at 1920 px the QR code
// is at least 500 px wide.
func fits(t *testing.T, ctx context.Context, revealed bool) {
	t.Helper()
	parts := []string{"#join-code", "#join-qr svg", "#hall-live .hall-prompt", "#hall-live .hall-choices", "#dists"}
	if revealed {
		parts = append(parts, "#reveal .diagram-box svg", "#share-right")
	}
	for _, css := range parts {
		r := evalAs[[]float64](t, ctx, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return [-1, -1, -1, -1]; const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()`, css))
		w, h := evalAs[float64](t, ctx, `innerWidth`), evalAs[float64](t, ctx, `innerHeight`)
		if r[0] < 0 || r[1] < 0 || r[2] > w+1 || r[3] > h+1 || r[3]-r[1] < 8 {
			t.Errorf("at %.0f×%.0f, %s is not on the screen: %v", w, h, css, r)
		}
	}
	if evalBool(t, ctx, `document.scrollingElement.scrollHeight > innerHeight + 1 || document.scrollingElement.scrollWidth > innerWidth + 1`) {
		t.Errorf("the projector scrolls at %v×%v", evalAs[float64](t, ctx, `innerWidth`), evalAs[float64](t, ctx, `innerHeight`))
	}
	if evalAs[float64](t, ctx, `innerWidth`) >= 1900 && !revealed {
		if w := evalAs[float64](t, ctx, `document.querySelector("#join-qr svg").getBoundingClientRect().width`); w < 500 {
			t.Errorf("the QR code is %.0f px wide at 1920×1080, want at least 500 (10 m from a 3.5 m screen)", w)
		}
	}
}
