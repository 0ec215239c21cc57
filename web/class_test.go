package web

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"leaselab/budget"
	"leaselab/class"
	"leaselab/draw"
	"leaselab/live"
)

// newClassServer serves the embedded course with class mode on, its
// classes in SQLite in dir.
func newClassServer(t testing.TB, dir string) (*Server, string, *class.Service) {
	t.Helper()
	svc, err := class.Open(context.Background(), class.Config{Data: dir, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	s, ts := newTestServer(t, Config{Classes: svc})
	t.Cleanup(func() { svc.Close() })
	return s, ts.URL, svc
}

// client is one browser: its own cookies, redirects not followed.
type client struct {
	t    testing.TB
	base string
	http *http.Client
}

func newClient(t testing.TB, base string) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: base, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *client) do(method, path string, form url.Values, accept string) (int, string, http.Header) {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func (c *client) get(path string) (int, string) {
	c.t.Helper()
	code, body, _ := c.do(http.MethodGet, path, nil, "")
	return code, body
}

// post sends a form and wants a redirect; it returns where to.
func (c *client) post(path string, form url.Values) string {
	c.t.Helper()
	code, body, h := c.do(http.MethodPost, path, form, "")
	if code != http.StatusSeeOther {
		c.t.Fatalf("POST %s %v: %d, want 303\n%s", path, form, code, clipText(body))
	}
	return h.Get("Location")
}

var joinCode = regexp.MustCompile(`id="join-code">([A-Z0-9]+)<`)

// openClass opens a class from the home page's form: the instructor's
// link and the join code.
func openClass(t testing.TB, teacher *client, lang, name string) (teach, code string) {
	t.Helper()
	teach = teacher.post("/"+lang+"/class", url.Values{"name": {name}})
	if !strings.Contains(teach, "/"+lang+"/teach/") {
		t.Fatalf("opening a class led to %q", teach)
	}
	st, body := teacher.get(teach)
	m := joinCode.FindStringSubmatch(body)
	if st != http.StatusOK || m == nil {
		t.Fatalf("dashboard %s: %d\n%s", teach, st, clipText(body))
	}
	return teach, m[1]
}

// openVote sets the class's lab, then its question, and opens a vote on
// it, as the dashboard's forms do.
func openVote(teacher *client, teach, lab, question string) {
	teacher.t.Helper()
	teacher.post(teach+"/activity", url.Values{"lab": {lab}})
	teacher.post(teach+"/activity", url.Values{"lab": {lab}, "question": {question}})
	teacher.post(teach+"/round", nil)
}

// TestClassRound: an instructor opens a class and a vote on a question;
// students join by code and vote from the class bar on any page; the
// dashboard counts; a second vote and the reveal show both distributions
// and the engine's right answer.
func TestClassRound(t *testing.T) {
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Sistem Terdistribusi A & B")
	openVote(teacher, teach, "w1-w2", "storage-checks")

	votes := []string{"rejected", "overwrites", "overwrites"}
	var students []*client
	for i, choice := range votes {
		s := newClient(t, base)
		next := s.post("/id/join", url.Values{"code": {strings.ToLower(code)}, "nick": {"m" + string(rune('a'+i))}})
		if next != "/id/labs/w1-w2" {
			t.Errorf("joining leads to %q, want the class's lab", next)
		}
		_, page := s.get(next)
		if !strings.Contains(page, `class="classbar"`) || !strings.Contains(page, "Suara terbuka") {
			t.Fatalf("the lab page has no class bar with the open vote:\n%s", clipText(page[strings.Index(page, "<body"):]))
		}
		if strings.Contains(page, "A & B") {
			t.Error("the class's name is not escaped")
		}
		round := regexp.MustCompile(`name="round" value="(\d+)"`).FindStringSubmatch(page)
		st, _, _ := s.do(http.MethodPost, "/id/class/vote", url.Values{"round": {round[1]}, "choice": {choice}}, "application/json")
		if st != http.StatusNoContent {
			t.Fatalf("vote: %d", st)
		}
		students = append(students, s)
	}
	// Voting again changes the answer, it does not add one.
	_, page := students[0].get("/id/")
	round := regexp.MustCompile(`name="round" value="(\d+)"`).FindStringSubmatch(page)[1]
	if !strings.Contains(page, "Jawabanmu tersimpan: A") {
		t.Errorf("the bar does not say the answer was kept:\n%s", clipText(page[strings.Index(page, `<aside id="classbar"`):]))
	}
	students[0].post("/id/class/vote", url.Values{"round": {round}, "choice": {"overwrites"}, "back": {"/id/lessons/leases"}})
	// Another device of the same student: the code and the key bring the
	// answer along.
	key := regexp.MustCompile(`Kuncimu: ([A-Z0-9]+)`).FindStringSubmatch(page)
	phone := newClient(t, base)
	if st, body, _ := phone.do(http.MethodPost, "/id/join", url.Values{"code": {code}, "key": {"WRONGKEY"}}, ""); st != http.StatusNotFound || !strings.Contains(body, "Kunci itu tidak dikenal") {
		t.Errorf("a wrong key: %d", st)
	}
	phone.post("/id/join", url.Values{"code": {code}, "key": {strings.ToLower(key[1])}})
	if _, p := phone.get("/id/"); !strings.Contains(p, "Jawabanmu tersimpan: B") {
		t.Error("the other device does not have the student's answer")
	}
	// The page's script gets the words that say what was kept (the rest
	// of the bar is the class's, from its feed).
	if st, bar, _ := students[0].do(http.MethodPost, "/id/class/vote", url.Values{"round": {round}, "choice": {"overwrites"}, "bar": {"1"}}, "application/json"); st != http.StatusOK || !strings.HasPrefix(bar, `{"said":"Jawabanmu tersimpan: B.`) {
		t.Errorf("a vote from the page's script: %d\n%s", st, clipText(bar))
	}
	st, body, _ := students[1].do(http.MethodPost, "/id/class/vote", url.Values{"round": {round}, "choice": {"nonsense"}}, "application/json")
	if st != http.StatusBadRequest || !strings.Contains(body, "Pilihan itu tidak ada") {
		t.Errorf("a choice that is not one: %d %s", st, body)
	}
	outsider := newClient(t, base)
	if st, _, _ := outsider.do(http.MethodPost, "/id/class/vote", url.Values{"round": {round}, "choice": {"rejected"}}, "application/json"); st != http.StatusForbidden {
		t.Errorf("a vote from one who did not join: %d, want 403", st)
	}

	_, dash := teacher.get(teach)
	if !strings.Contains(dash, `data-students="3"`) || !strings.Contains(dash, `data-choice="overwrites" data-count="3"`) {
		t.Errorf("the dashboard does not count 3 students, 3 for overwrites:\n%s", clipText(dash[strings.Index(dash, `id="teach-live"`):]))
	}
	// The second vote, after discussion; then the reveal.
	teacher.post(teach+"/round", nil)
	_, page = students[2].get("/id/labs/w1-w2")
	round2 := regexp.MustCompile(`name="round" value="(\d+)"`).FindStringSubmatch(page)
	if round2 == nil || round2[1] == round || !strings.Contains(page, "Suara kedua terbuka") {
		t.Fatalf("no second vote in the bar")
	}
	for _, s := range students {
		s.post("/id/class/vote", url.Values{"round": {round2[1]}, "choice": {"rejected"}})
	}
	teacher.post(teach+"/reveal", url.Values{"round": {round2[1]}})
	_, dash = teacher.get(teach)
	for _, want := range []string{`id="reveal"`, "Suara pertama", "Suara kedua", "Jawaban benar: 0% sebelum diskusi, 100% sesudahnya.", `class="diagram`} {
		if !strings.Contains(dash, want) {
			t.Errorf("the reveal lacks %q", want)
		}
	}
	_, page = students[1].get("/id/")
	if !strings.Contains(page, "Mesin sudah menjawab: A.") {
		t.Errorf("the student's bar does not show the engine's answer")
	}
	// The instructor's link is the capability: one made up finds nothing.
	if st, _ := newClient(t, base).get("/id/teach/" + strings.Repeat("x", 43)); st != http.StatusNotFound {
		t.Errorf("a forged instructor link: %d, want 404", st)
	}
	// Export, in a spreadsheet's format.
	st, csv, h := teacher.do(http.MethodGet, teach+"/export.csv", nil, "")
	if st != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") || !strings.Contains(csv, "ma") {
		t.Errorf("export: %d %s\n%s", st, h.Get("Content-Type"), csv)
	}
}

// TestClassWrongCodes: a wrong or ended code gets a clear page in the
// student's language, never a stack trace.
func TestClassWrongCodes(t *testing.T) {
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "en", "Ended soon")
	s := newClient(t, base)
	for _, tc := range []struct {
		lang, code string
		status     int
		want       string
	}{
		{"id", "WXYWXY", http.StatusNotFound, "Tidak ada kelas dengan kode WXYWXY"},
		{"en", "nope!", http.StatusNotFound, "There is no class with the code"},
		{"en", strings.Repeat("A", 5000), http.StatusNotFound, "There is no class"},
	} {
		st, body, _ := s.do(http.MethodPost, "/"+tc.lang+"/join", url.Values{"code": {tc.code}}, "")
		if st != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("join %q: %d, want %d and %q", tc.code, st, tc.status, tc.want)
		}
	}
	teacher.post(teach+"/end", url.Values{"confirm": {"1"}}) // asked, and confirmed (classroom.go)
	st, body, _ := s.do(http.MethodPost, "/id/join", url.Values{"code": {code}}, "")
	if st != http.StatusGone || !strings.Contains(body, "sudah diakhiri") {
		t.Errorf("join an ended class: %d\n%s", st, clipText(body))
	}
	if _, dash := teacher.get(teach); !strings.Contains(dash, "has ended") || !strings.Contains(dash, "export.csv") {
		t.Error("the ended class's dashboard does not say so, or lost its export")
	}
}

// TestClassProgress: where the class is, from what students do on the lab
// page without script: one reaches the goal, one is working on it, and
// the dashboard says so with the commonest last step.
func TestClassProgress(t *testing.T) {
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "en", "Progress")
	teacher.post(teach+"/activity", url.Values{"lab": {"w1-w2"}})
	teacher.post(teach+"/activity", url.Values{"lab": {"w1-w2"}, "goal": {"reject-stale"}})
	a, b := newClient(t, base), newClient(t, base)
	a.post("/en/join", url.Values{"code": {code}})
	if _, page := a.get("/en/"); !strings.Contains(page, `href="/en/labs/w1-w2#goal-reject-stale"`) {
		t.Error("the class bar does not name the goal the class works on")
	}
	b.post("/en/join", url.Values{"code": {code}})
	if st, _ := a.get("/en/labs/w1-w2?do=fencing+on&do=until+4s&do=freeze+W1+for%3D25s&do=until+30s&goal=reject-stale"); st != http.StatusOK {
		t.Fatal(st)
	}
	if st, _ := b.get("/en/labs/w1-w2?do=until+4s"); st != http.StatusOK {
		t.Fatal(st)
	}
	// Two more over the live socket, as a page with script does.
	for i, cmds := range [][]string{{"fencing on", "until 4s", "freeze W1 for=25s", "until 30s"}, {"freeze W1", "until 4s"}} {
		st := newClient(t, base)
		st.post("/en/join", url.Values{"code": {code}})
		u, _ := url.Parse(base)
		h := http.Header{}
		for _, ck := range st.http.Jar.Cookies(u) {
			h.Add("Cookie", ck.String())
		}
		conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/en/labs/w1-w2/ws", h)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ws := &wsClient{t: t, conn: conn}
		ws.first = ws.next()
		for _, c := range cmds {
			ws.do(c)
		}
		if i == 0 {
			if r := ws.call(live.ClientMsg{Type: "goal", Goal: "reject-stale"}); r.Type != "ack" || !strings.Contains(opHTML(r, "goal-verdict-reject-stale"), `data-correct="true"`) {
				t.Fatalf("the goal over the socket: %s %s", r.Type, r.Error)
			}
		}
	}
	// The notes reach the store through a queue — goals and last steps
	// apart: wait until all did.
	wants := []string{`data-goal="reject-stale" data-reached="2" data-working="2"`, "2 reached, 2 still working", "Commonest last step of those still working: ", "(2 students)"}
	var dash string
	for range 200 {
		_, dash = teacher.get(teach)
		if !slices.ContainsFunc(wants, func(w string) bool { return !strings.Contains(dash, w) }) {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	for _, want := range wants {
		if !strings.Contains(dash, want) {
			t.Errorf("where the class is lacks %q:\n%s", want, clipText(dash[strings.Index(dash, `class="where"`):]))
		}
	}
	// The list of students: four, none named, two who reached the goal,
	// each with their last step in words.
	i := strings.Index(dash, `id="roster"`)
	if i < 0 {
		t.Fatalf("the dashboard lists no students:\n%s", clipText(dash[strings.Index(dash, `id="teach-live"`):]))
	}
	roster := dash[i:]
	if n := strings.Count(roster, `<td class="who">anonymous `); n != 4 {
		t.Errorf("%d anonymous students listed, want 4", n)
	}
	if n := strings.Count(roster, `data-reached="1"`); n != 2 {
		t.Errorf("%d students listed with a goal reached, want 2", n)
	}
	if !strings.Contains(roster, `<td class="last">`+draw.CommandText("en", "until 30s")+`</td>`) {
		t.Errorf("the list lacks a student's last step %q:\n%s", draw.CommandText("en", "until 30s"), clipText(roster))
	}
	if _, proj := teacher.get(teach + "/projector"); strings.Contains(proj, `id="roster"`) {
		t.Error("the projector view lists the students")
	}
}

// TestClassStoreDown: with the database gone, the lab still plays, the
// class bar says votes cannot be saved now, and a vote is answered so.
func TestClassStoreDown(t *testing.T) {
	_, base, svc := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Turun")
	openVote(teacher, teach, "w1-w2", "storage-checks")
	s := newClient(t, base)
	s.post("/id/join", url.Values{"code": {code}})
	svc.Close()
	st, page := s.get("/id/labs/w1-w2?do=until+4s")
	if st != http.StatusOK || !strings.Contains(page, `class="cb-down"`) || !strings.Contains(page, "Jawaban tidak bisa disimpan sekarang") {
		t.Errorf("lab page with the store down: %d, bar:\n%s", st, clipText(page[strings.Index(page, `<div id="classbar`)+0:]))
	}
	st, body, _ := s.do(http.MethodPost, "/id/class/vote", url.Values{"round": {"1"}, "choice": {"rejected"}}, "application/json")
	if st != http.StatusServiceUnavailable || !strings.Contains(body, "tidak bisa disimpan") {
		t.Errorf("a vote with the store down: %d %s", st, body)
	}
	// From the lab page's socket: the same words, and the lab plays on.
	ws := dialAs(t, s, "/id/labs/w1-w2/ws")
	if r := ws.call(live.ClientMsg{Type: "vote", Round: 1, Choice: "rejected"}); r.Type != "error" || !strings.Contains(r.Error, "tidak bisa disimpan") {
		t.Errorf("a vote over the socket with the store down: %s %q", r.Type, r.Error)
	}
	if r := ws.do("until 6s"); r.Type != "ack" {
		t.Errorf("the lab after the vote: %s", r.Type)
	}
}

// TestClassCreateLimit: one client address opens at most classesPerHour
// classes an hour; the next is refused in the instructor's language.
func TestClassCreateLimit(t *testing.T) {
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	for i := range classesPerHour {
		teacher.post("/en/class", url.Values{"name": {"Class " + strconv.Itoa(i)}})
	}
	st, body, h := teacher.do(http.MethodPost, "/id/class", url.Values{"name": {"Satu lagi"}}, "")
	if st != http.StatusTooManyRequests || h.Get("Retry-After") == "" || !strings.Contains(body, "sudah dibuka banyak kelas") {
		t.Errorf("class %d from one address: %d, want 429 in Indonesian", classesPerHour+1, st)
	}
	if st, _, _ := teacher.do(http.MethodPost, "/id/class", url.Values{"name": {""}}, ""); st != http.StatusTooManyRequests {
		t.Errorf("an empty name past the limit: %d", st)
	}
}

// TestClassVoteBudget: votes fall under the client address's work budget:
// each is charged, and an address in debt is refused until it has paid.
func TestClassVoteBudget(t *testing.T) {
	s, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Anggaran")
	openVote(teacher, teach, "w1-w2", "storage-checks")
	st := newClient(t, base)
	st.post("/id/join", url.Values{"code": {code}})
	b := s.addrBudgets.get("127.0.0.1")
	before := b.Used()
	if status, _, _ := st.do(http.MethodPost, "/id/class/vote", url.Values{"round": {"1"}, "choice": {"rejected"}}, "application/json"); status != http.StatusNoContent {
		t.Fatalf("vote: %d", status)
	}
	if b.Used() <= before || b.Used()-before > maxStoreCharge {
		t.Errorf("a vote charged %v, want some and at most %v", b.Used()-before, maxStoreCharge)
	}
	budget.ChargeFixed(time.Hour, b)
	status, body, h := st.do(http.MethodPost, "/id/class/vote", url.Values{"round": {"1"}, "choice": {"overwrites"}}, "application/json")
	if status != http.StatusTooManyRequests || h.Get("Retry-After") == "" || !strings.Contains(body, `"error":"Dari alamatmu`) {
		t.Errorf("a vote from an address in debt: %d, want 429 with Retry-After", status)
	}
}
