package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"leaselab/class"
	"leaselab/live"
)

var projectorLink = regexp.MustCompile(`id="projector-link"[^>]*href="([^"]+)"|href="([^"]+)"[^>]*id="projector-link"`)

// projectorOf is the projector link a dashboard page shows.
func projectorOf(t *testing.T, body string) string {
	t.Helper()
	m := projectorLink.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the dashboard has no projector link")
	}
	return m[1] + m[2]
}

// TestProjectorCapability: the projector's link is not the instructor's
// and leads nowhere near it: its page holds neither the instructor token
// nor a link under /teach/, it shows no counts of a round the instructor
// has not shown (only how many voted), and after "show" it does. The old
// projector address under the instructor link sends to the new one. A
// made-up projector link, or the instructor token in its place, is 404,
// and the projector token runs nothing. Rotating the instructor link
// retires both old links.
func TestProjectorCapability(t *testing.T) {
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Sistem Terdistribusi")
	token := strings.TrimPrefix(teach, "/id/teach/")
	_, dash := teacher.get(teach)
	proj := projectorOf(t, dash)
	if want := "/id/projector/" + class.ProjectorToken(token); proj != want {
		t.Fatalf("projector link %q, want %q", proj, want)
	}
	openVote(teacher, teach, "w1-w2", "storage-checks")
	for i, choice := range []string{"overwrites", "rejected", "overwrites"} {
		st := newClient(t, base)
		st.post("/id/join", url.Values{"code": {code}, "nick": {"s" + string(rune('1'+i))}})
		_, bar := st.get("/id/")
		round := regexp.MustCompile(`name="round" value="(\d+)"`).FindStringSubmatch(bar)
		if round == nil {
			t.Fatal("no open vote in the student's bar")
		}
		st.post("/id/class/vote", url.Values{"round": {round[1]}, "choice": {choice}, "back": {"/id/"}})
	}
	wall := NewCheckedWall()
	screen := newClient(t, base) // the room's PC: no cookie of the instructor's
	status, page := screen.get(proj)
	if status != http.StatusOK {
		t.Fatalf("projector: %d", status)
	}
	for _, leak := range []string{token, "/teach/"} {
		if strings.Contains(page, leak) {
			t.Errorf("the projector page holds %q", leak)
		}
	}
	wall.check(t, page, code)
	if !strings.Contains(page, `data-shown="false"`) || strings.Contains(page, `class="tally`) || strings.Contains(page, "data-count=") {
		t.Errorf("the projector shows the first round's counts before the instructor did:\n%s", clipText(page[strings.Index(page, `id="hall-live"`):]))
	}
	if !strings.Contains(page, "3 dari 3 mahasiswa menjawab") {
		t.Error("the projector does not say how many answered")
	}
	// The instructor shows the counts: the projector has them.
	round := regexp.MustCompile(`action="[^"]*/show"[^>]*>\s*<input type="hidden" name="round" value="(\d+)"`).FindStringSubmatch(mustGet(t, teacher, teach))
	if round == nil {
		t.Fatal("no Show button on the dashboard")
	}
	teacher.post(teach+"/show", url.Values{"round": {round[1]}})
	_, page = screen.get(proj)
	for _, want := range []string{`data-shown="true"`, `data-choice="rejected" data-count="1"`, `data-choice="overwrites" data-count="2"`} {
		if !strings.Contains(page, want) {
			t.Errorf("after Show, the projector lacks %s", want)
		}
	}
	// The old address sends to the projector's own.
	if st, _, h := teacher.do(http.MethodGet, teach+"/projector", nil, ""); st != http.StatusSeeOther || h.Get("Location") != proj {
		t.Errorf("%s/projector: %d to %q, want 303 to %s", teach, st, h.Get("Location"), proj)
	}
	for _, bad := range []string{
		"/id/projector/" + token,                                  // the instructor token is no projector token
		"/id/projector/" + class.ProjectorToken(token) + "x",      // nor a made-up one
		"/id/teach/" + class.ProjectorToken(token),                // a projector token runs nothing
		"/id/teach/" + class.ProjectorToken(token) + "/projector", // nor leads there
	} {
		if st, _ := screen.get(bad); st != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", bad, st)
		}
	}
	if code, _, _ := screen.do(http.MethodPost, "/id/teach/"+class.ProjectorToken(token)+"/end", url.Values{"confirm": {"1"}}, ""); code != http.StatusNotFound && code != http.StatusForbidden {
		t.Errorf("ending the class with the projector token: %d", code)
	}
	// Rotating: new links, the old ones lead nowhere.
	fresh := teacher.post(teach+"/rotate", nil)
	if !strings.HasPrefix(fresh, "/id/teach/") || fresh == teach {
		t.Fatalf("rotating led to %q", fresh)
	}
	for _, old := range []string{teach, proj} {
		if st, _ := screen.get(old); st != http.StatusNotFound {
			t.Errorf("after rotating, the old %s: %d, want 404", old, st)
		}
	}
	_, dash = teacher.get(fresh)
	if p := projectorOf(t, dash); p == proj {
		t.Error("rotating kept the projector link")
	} else if st, _ := screen.get(p); st != http.StatusOK {
		t.Errorf("the new projector link: %d", st)
	}
}

// checkedWall checks what a page for the room's wall must show.
type checkedWall struct{}

func NewCheckedWall() checkedWall { return checkedWall{} }

func (checkedWall) check(t *testing.T, page, code string) {
	t.Helper()
	for _, want := range []string{`id="join-code">` + code + `<`, `<svg class="qr"`, `id="join-url"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the projector lacks %s", want)
		}
	}
}

func mustGet(t *testing.T, c *client, path string) string {
	t.Helper()
	st, body := c.get(path)
	if st != http.StatusOK {
		t.Fatalf("GET %s: %d", path, st)
	}
	return body
}

// TestClassEndAskedAndUndone: End asks first (the class still runs after
// the first press), ends on the second, and the dashboard offers to undo
// it for class.UndoEnd: undone, the code joins again; past that, it is
// too late, and the undo button is gone.
func TestClassEndAskedAndUndone(t *testing.T) {
	clk := live.NewManualClock()
	svc, err := class.Open(context.Background(), class.Config{Data: t.TempDir(), Logf: t.Logf, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	_, ts := newTestServer(t, Config{Classes: svc, Clock: clk})
	teacher := newClient(t, ts.URL)
	teach, code := openClass(t, teacher, "en", "Distributed systems")
	join := func() int {
		st, _, _ := newClient(t, ts.URL).do(http.MethodPost, "/en/join", url.Values{"code": {code}}, "")
		return st
	}
	st, ask, _ := teacher.do(http.MethodPost, teach+"/end", url.Values{}, "")
	if st != http.StatusOK || !strings.Contains(ask, `name="confirm" value="1"`) || !strings.Contains(ask, "10 minutes") {
		t.Fatalf("the first End: %d, want a page asking (confirm, 10 minutes)\n%s", st, clipText(ask))
	}
	if st := join(); st != http.StatusSeeOther {
		t.Fatalf("after the first End the class should still run: join %d", st)
	}
	teacher.post(teach+"/end", url.Values{"confirm": {"1"}})
	if st := join(); st != http.StatusGone {
		t.Fatalf("join after ending: %d, want 410", st)
	}
	clk.Advance(4 * time.Minute)
	dash := mustGet(t, teacher, teach)
	if !strings.Contains(dash, `data-act="reopen"`) || !strings.Contains(dash, "for 6 minutes") {
		t.Fatalf("the ended dashboard offers no undo for 6 more minutes")
	}
	teacher.post(teach+"/reopen", nil)
	if st := join(); st != http.StatusSeeOther {
		t.Fatalf("join after the undo: %d", st)
	}
	teacher.post(teach+"/end", url.Values{"confirm": {"1"}})
	clk.Advance(class.UndoEnd + time.Second)
	if strings.Contains(mustGet(t, teacher, teach), `data-act="reopen"`) {
		t.Error("the undo is offered after class.UndoEnd")
	}
	if st, _, _ := teacher.do(http.MethodPost, teach+"/reopen", url.Values{}, ""); st != http.StatusConflict {
		t.Errorf("a late undo: %d, want 409", st)
	}
	if st := join(); st != http.StatusGone {
		t.Errorf("join after a late undo: %d, want 410", st)
	}
}

// TestLecturerKeyPage: opening a class without a key makes one, shown once
// on the dashboard (never in a URL); the "My classes" page lists, for that
// key, the classes opened with it and their dashboards; a second class
// opened with the key typed joins the list; a wrong key is refused.
func TestLecturerKeyPage(t *testing.T) {
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach := teacher.post("/id/class", url.Values{"name": {"Pagi"}})
	dash := mustGet(t, teacher, teach)
	code := joinCode.FindStringSubmatch(dash)[1]
	m := regexp.MustCompile(`id="lecturer-key">([A-Z0-9-]+)<`).FindStringSubmatch(dash)
	if m == nil {
		t.Fatal("the dashboard does not show the new lecturer key")
	}
	key := m[1]
	if strings.Contains(mustGet(t, teacher, teach), key) {
		t.Error("the key is shown a second time")
	}
	teach2 := teacher.post("/id/class", url.Values{"name": {"Siang"}, "lecturer": {strings.ToLower(key)}})
	if strings.Contains(mustGet(t, teacher, teach2), `id="lecturer-key"`) {
		t.Error("a class opened with a key shows a new one")
	}
	other := newClient(t, base)
	st, list, _ := other.do(http.MethodPost, "/id/lecturer", url.Values{"key": {key}}, "")
	if st != http.StatusOK {
		t.Fatalf("My classes: %d", st)
	}
	for _, want := range []string{`data-code="` + code + `"`, `href="` + teach + `"`, `href="` + teach2 + `"`, ">Pagi<", ">Siang<"} {
		if !strings.Contains(list, want) {
			t.Errorf("My classes lacks %s", want)
		}
	}
	if strings.Index(list, ">Siang<") > strings.Index(list, ">Pagi<") {
		t.Error("My classes is not newest first")
	}
	if st, _, _ := other.do(http.MethodPost, "/id/lecturer", url.Values{"key": {"ACEFG-HJKMN-PRTWX-Y3467"}}, ""); st != http.StatusNotFound {
		t.Errorf("a wrong key: %d, want 404", st)
	}
	if st, _, _ := teacher.do(http.MethodPost, "/id/class", url.Values{"name": {"Sore"}, "lecturer": {"ACEFG-HJKMN-PRTWX-Y3467"}}, ""); st != http.StatusNotFound {
		t.Errorf("opening a class with a wrong key: %d, want 404", st)
	}
}

// TestUnreachableWarning: a dashboard says plainly when phones cannot open
// its join link, and how to fix it: on a server that listens on loopback
// only, and when the link names this machine (the lecturer's browser
// used 127.0.0.1); not when the students' address is set (classroom mode).
func TestUnreachableWarning(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // in the warning; "" for none
	}{
		{"loopback only", Config{LoopbackOnly: true}, "leaselab serve --classroom"},
		{"a loopback name", Config{}, "127.0.0.1"},
		{"classroom", Config{LoopbackOnly: false, StudentURL: "http://192.168.10.7:8080"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, err := class.Open(context.Background(), class.Config{Data: t.TempDir(), Logf: t.Logf})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { svc.Close() })
			tc.cfg.Classes = svc
			_, ts := newTestServer(t, tc.cfg)
			teacher := newClient(t, ts.URL)
			teach, _ := openClass(t, teacher, "en", "Hall")
			dash := mustGet(t, teacher, teach)
			m := regexp.MustCompile(`id="unreachable" role="alert">([^<]*)<`).FindStringSubmatch(dash)
			switch {
			case tc.want == "" && m != nil:
				t.Errorf("a warning where phones reach the class: %q", m[1])
			case tc.want != "" && (m == nil || !strings.Contains(htmlUnescape(m[1]), tc.want)):
				t.Errorf("want a warning naming %q, got %v", tc.want, m)
			}
			if tc.cfg.StudentURL != "" && !strings.Contains(dash, `href="http://192.168.10.7:8080/en/join?code=`) {
				t.Error("the join link is not on the students' address")
			}
		})
	}
}
