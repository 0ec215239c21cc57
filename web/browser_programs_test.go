package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"leaselab/class"
)

// TestBrowserClassPrograms: the class's programs in Chromium (issue 49).
// Six students submit to a program lab (the reference, the start, the
// start again, a typo); the lecturer's dashboard counts them and names
// the commonest breaking schedule; "show a failing program" puts one on
// the projector, whose page names no student and marks the line that
// acted; neither page scrolls sideways, on a laptop (1280×800) or a
// phone (390×844). Screenshots of the dashboard's panel and the
// projector at both sizes, in Indonesian.
func TestBrowserClassPrograms(t *testing.T) {
	t.Parallel()
	svc, err := class.Open(context.Background(), class.Config{Data: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	s, ts := newTestServer(t, Config{Classes: svc})
	s.judging.judged = classProgramsJudged // TestClassProgramsThirtyStudents's programs
	teacher := newClient(t, ts.URL)
	teach, code := openClass(t, teacher, "id", "Sistem Terdistribusi")
	teacher.post(teach+"/activity", url.Values{"lab": {classProgramsLab}})
	progs := classPrograms(t)
	for i, name := range []string{"reference", "start", "start", "start-again", "typo", "from-answer"} {
		st := newClient(t, ts.URL)
		st.post("/id/join", url.Values{"code": {code}, "nick": {fmt.Sprintf("Rara%02d", i)}})
		for {
			status, body := st.get("/id/labs/" + classProgramsLab + "?" + url.Values{"program": {progs[name]}, "submit": {"1"}}.Encode())
			if status != http.StatusOK {
				t.Fatalf("Submit: %d", status)
			}
			if !strings.Contains(body, `id="program-queued"`) {
				break
			}
		}
	}
	token := strings.TrimPrefix(teach, "/id/teach/")
	for _, vp := range []viewport{laptop, phone} {
		ctx := browser(t, int(vp.width), int(vp.height))
		emulate(t, ctx, vp)
		if _, err := chromedp.RunResponse(ctx, chromedp.Navigate(ts.URL+teach)); err != nil {
			t.Fatal(err)
		}
		if vp == laptop {
			waitJS(t, ctx, "the show button", `!!document.querySelector("form[data-act=showprogram] button")`)
			clickNav(t, ctx, "form[data-act=showprogram] button")
		}
		waitJS(t, ctx, "the shown program on the dashboard", `!!document.getElementById("shown-program")`)
		if got := evalAs[string](t, ctx, `document.getElementById("programs-n").dataset.submitted`); got != "6" {
			t.Errorf("the dashboard counts %s programs, want 6", got)
		}
		if evalBool(t, ctx, scrollsSideways) {
			t.Errorf("the dashboard scrolls sideways at %s", vp.name)
		}
		evalBool(t, ctx, `(document.getElementById("programs").scrollIntoView(), true)`)
		screenshot(t, ctx, "programs-dashboard-"+vp.name+"-id", false)

		if _, err := chromedp.RunResponse(ctx, chromedp.Navigate(ts.URL+s.projectorHref("id", token))); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "the shown program on the projector", `!!document.getElementById("shown-program")`)
		if evalBool(t, ctx, `document.body.innerText.includes("Rara")`) {
			t.Error("the projector names a student")
		}
		if !evalBool(t, ctx, `!!document.querySelector("#shown-program .ln.acted")`) {
			t.Error("the projector marks no line that acted")
		}
		if evalBool(t, ctx, scrollsSideways) {
			t.Errorf("the projector scrolls sideways at %s", vp.name)
		}
		evalBool(t, ctx, `(document.getElementById("shown-program").scrollIntoView(), true)`)
		screenshot(t, ctx, "programs-projector-"+vp.name+"-id", false)
	}
}
