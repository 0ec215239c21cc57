package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// postSeen is a form post the class server answered.
type postSeen struct {
	path, origin, site string
	status             int
}

// postLog records the form posts a server answers.
type postLog struct {
	mu    sync.Mutex
	posts []postSeen
}

func (l *postLog) add(p postSeen) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.posts = append(l.posts, p)
}

func (l *postLog) list() []postSeen {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]postSeen(nil), l.posts...)
}

// statusWriter keeps the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// TestBrowserHostilePages (issue 50): a student joins a class and votes
// from the server's own pages in Chromium. Then pages elsewhere try what
// the issue found: a page on another port of the same host changes the
// student's vote from a hidden frame and makes them leave the class; a
// page on another site, as a top-level navigation, moves them into the
// attacker's class. Each post reaches the server and is refused, the
// last with the page in the student's language; the student is still in
// the class with the same answer, and the export is the same byte for
// byte. Last, a link from another site (a chat app) opens the class's
// lab: the page comes without the cookie (SameSite Strict), and the
// student's next click on the site has the class bar again.
func TestBrowserHostilePages(t *testing.T) {
	t.Parallel()
	ctx := browser(t, 1280, 900)
	svc := openClasses(t)
	s, err := New(sharedCourse(Config{Classes: svc, SessionWork: 1000, AddrWork: 1000}))
	if err != nil {
		t.Fatal(err)
	}
	var posts postLog
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			s.ServeHTTP(w, r)
			return
		}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		s.ServeHTTP(sw, r)
		posts.add(postSeen{r.URL.Path, r.Header.Get("Origin"), r.Header.Get("Sec-Fetch-Site"), sw.status})
	}))
	t.Cleanup(func() {
		s.Close()
		ts.CloseClientConnections()
		ts.Close()
	})
	teacher := newClient(t, ts.URL)
	teach, code := openClass(t, teacher, "id", "Kelas asli")
	openVote(teacher, teach, "w1-w2", "storage-checks")
	_, evilCode := openClass(t, newClient(t, ts.URL), "id", "Kelas penyerang")

	// The hostile pages: served from 127.0.0.1 on another port (the same
	// site as the class server) and as localhost (another site).
	var round string
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/frame":
			fmt.Fprintf(w, `<!doctype html><title>hostile</title>
<iframe name="a" hidden></iframe><iframe name="b" hidden></iframe>
<form id="vote" target="a" method="post" action="%[1]s/id/class/vote"><input name="round" value="%[2]s"><input name="choice" value="overwrites"></form>
<form id="leave" target="b" method="post" action="%[1]s/id/class/leave"></form>
<script>document.getElementById("vote").submit(); setTimeout(() => document.getElementById("leave").submit(), 50);</script>`, ts.URL, round)
		case "/join":
			fmt.Fprintf(w, `<!doctype html><title>hostile</title>
<form method="post" action="%s/id/join"><input name="code" value="%s"><input name="nick" value="korban"></form>
<script>document.forms[0].submit();</script>`, ts.URL, evilCode)
		case "/link":
			fmt.Fprintf(w, `<!doctype html><title>chat</title><a id="go" href="%s/id/labs/w1-w2">lab</a>`, ts.URL)
		}
	}))
	t.Cleanup(hostile.Close)
	samePort := hostile.URL                                                // http://127.0.0.1:P2
	otherSite := strings.Replace(hostile.URL, "127.0.0.1", "localhost", 1) // http://localhost:P2

	nav := func(u string) {
		t.Helper()
		if _, err := chromedp.RunResponse(ctx, chromedp.Navigate(u)); err != nil {
			t.Fatalf("navigate %s: %v", u, err)
		}
	}
	// The student joins from the join page and votes from the class bar.
	nav(ts.URL + "/id/join?code=" + code)
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(".joinform input[name=nick]"), "ana")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(".joinform button"))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the lab page with the class bar's vote", `!!document.querySelector("#classbar form.cb-vote")`)
	round, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#classbar input[name=round]").value`))
	if err != nil {
		t.Fatal(err)
	}
	click(t, ctx, `#classbar input[name=choice][value="rejected"]`)
	click(t, ctx, `#classbar form.cb-vote button`)
	waitJS(t, ctx, "the bar saying the answer was kept", `document.querySelector("#classbar .cb-said").textContent.includes(": A.")`)
	_, before, _ := teacher.do(http.MethodGet, teach+"/export.json", nil, "")
	own := len(posts.list())

	// The attacks.
	nav(samePort + "/frame")
	waitPosts(t, &posts, own+2)
	nav(otherSite + "/join")
	waitPosts(t, &posts, own+3)
	waitJS(t, ctx, "the refusal in Indonesian", `document.body.innerText.includes("datang dari halaman situs lain")`)
	for _, p := range posts.list()[own:] {
		t.Logf("attack: POST %s from %s (Sec-Fetch-Site %q): %d", p.path, p.origin, p.site, p.status)
		if p.status != http.StatusForbidden {
			t.Errorf("POST %s from %s: %d, want 403", p.path, p.origin, p.status)
		}
	}

	// Nothing changed.
	nav(ts.URL + "/id/")
	waitJS(t, ctx, "the student still in the class with answer A",
		`document.querySelector("#classbar .cb-name")?.textContent === "Kelas asli" && document.querySelector("#classbar .cb-said").textContent.includes(": A.")`)
	if _, after, _ := teacher.do(http.MethodGet, teach+"/export.json", nil, ""); after != before {
		t.Errorf("the export changed:\nbefore %s\nafter  %s", before, after)
	}

	// A link from a chat app to the class's lab.
	nav(otherSite + "/link")
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("#go"))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the lab page opened from another site", `location.pathname === "/id/labs/w1-w2" && !!document.getElementById("lab")`)
	// The page came without the cookie: no bar yet, and the lab's socket
	// brings the bar only when the class changes. The student's next
	// click on the site carries the cookie again.
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("a.brand"))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the class bar after a click on the site", `document.querySelector("#classbar .cb-name")?.textContent === "Kelas asli"`)
}

// waitPosts waits until the server has answered n form posts: a hostile
// page's script sends them once it has loaded.
func waitPosts(t *testing.T, posts *postLog, n int) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second) // for a stuck browser, not a slow one
	for len(posts.list()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the server saw %d form posts, want %d: %+v", len(posts.list()), n, posts.list())
		}
		time.Sleep(25 * time.Millisecond)
	}
}
