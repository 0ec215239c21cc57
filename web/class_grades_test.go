package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"leaselab/class"
	"leaselab/content"
	"leaselab/live"
)

// The web tests of issue 44. Every right answer is the engine's: the
// tests ask the server's grading (labs.Grading, which runs the question),
// never a key written here.

// studentJoins joins a class from the join form, with a NIM.
func studentJoins(t *testing.T, base, code, nick, nim string) *client {
	t.Helper()
	s := newClient(t, base)
	s.post("/id/join", url.Values{"code": {code}, "nick": {nick}, "nim": {nim}})
	return s
}

var roundField = regexp.MustCompile(`name="round" value="(\d+)"`)

// openRound is the round the student's bar offers a vote in.
func openRound(t *testing.T, s *client) string {
	t.Helper()
	_, page := s.get("/id/")
	m := roundField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no open vote in the bar:\n%s", clipText(page))
	}
	return m[1]
}

// TestClassNIM: a class that requires the NIM asks for it on the join
// page, refuses a join without one, a NIM that is none and one already
// given, and never shows it on the projector; the grades page shows it,
// and hides it with the names.
func TestClassNIM(t *testing.T) {
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Sister")
	teacher.post(teach+"/settings", url.Values{"nim": {"require"}})

	st := newClient(t, base)
	if _, page := st.get("/id/join?code=" + code); !strings.Contains(page, `name="nim" required`) {
		t.Error("the join link's form does not ask for the NIM a class requires")
	}
	// The code typed on /join, whose form had no NIM field: asked first.
	status, page, _ := st.do(http.MethodPost, "/id/join", url.Values{"code": {code}, "nick": {"Ana"}}, "")
	if status != http.StatusOK || !strings.Contains(page, `name="nim" required`) || !strings.Contains(page, "memerlukan NIM") || !strings.Contains(page, `value="Ana"`) {
		t.Errorf("a join without the field: %d\n%s", status, clipText(page))
	}
	for nim, want := range map[string]string{"": "memerlukan NIM", "=1+1": "bukan NIM", "<b>1</b>": "bukan NIM"} {
		status, page, _ := st.do(http.MethodPost, "/id/join", url.Values{"code": {code}, "nim": {nim}}, "")
		if status != http.StatusBadRequest || !strings.Contains(page, want) || strings.Contains(page, "<b>1</b>") {
			t.Errorf("NIM %q: %d, want 400 saying %q", nim, status, want)
		}
	}
	st.post("/id/join", url.Values{"code": {code}, "nick": {"Ana"}, "nim": {"13519001"}})
	status, page, _ = newClient(t, base).do(http.MethodPost, "/id/join", url.Values{"code": {code}, "nim": {"13519001"}}, "")
	if status != http.StatusBadRequest || !strings.Contains(page, "sudah dipakai") {
		t.Errorf("Ana's NIM again: %d", status)
	}

	_, dash := teacher.get(teach)
	_, proj := teacher.get(projectorOf(t, dash))
	if strings.Contains(proj, "13519001") || strings.Contains(dash, "13519001") {
		t.Error("the NIM is on the projector or the dashboard")
	}
	if _, g := teacher.get(teach + "/grades"); !strings.Contains(g, `<td class="nim">13519001</td>`) || !strings.Contains(g, ">Ana<") {
		t.Errorf("the grades page does not show Ana's NIM:\n%s", clipText(g))
	}
	teacher.post(teach+"/settings", url.Values{"nim": {"require"}, "hide": {"1"}})
	if _, g := teacher.get(teach + "/grades"); strings.Contains(g, "13519001") || strings.Contains(g, ">Ana<") {
		t.Error("names hidden, the grades page still shows Ana or her NIM")
	}
	if _, dash := teacher.get(teach); strings.Contains(dash, ">Ana<") {
		t.Error("names hidden, the dashboard's list still shows Ana")
	}
}

// TestClassGradesAndMoodle: two students vote on a lab's question in two
// rounds; the grades page and every export score them as the engine
// decides; the Moodle CSV has an ID number column and one per item.
func TestClassGradesAndMoodle(t *testing.T) {
	s, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Sister, Kelas A")
	teacher.post(teach+"/settings", url.Values{"nim": {"ask"}})
	right, ok := s.grading().Right("w1-w2", "storage-checks")
	if !ok {
		t.Fatal("the engine does not decide storage-checks")
	}
	wrong := "overwrites"
	if right == wrong {
		wrong = "rejected"
	}
	openVote(teacher, teach, "w1-w2", "storage-checks")
	ana := studentJoins(t, base, code, "Ana", "13519001")
	budi := studentJoins(t, base, code, "Budi", "13519002")
	vote := func(c *client, choice string) {
		t.Helper()
		c.post("/id/class/vote", url.Values{"round": {openRound(t, c)}, "choice": {choice}, "back": {"/id/"}})
	}
	vote(ana, right)
	vote(budi, right)
	teacher.post(teach+"/round", nil) // the second vote, after discussion
	vote(ana, wrong)
	vote(budi, right)
	_, dash := teacher.get(teach)
	m := regexp.MustCompile(`action="[^"]*/reveal"[^>]*>\s*<input type="hidden" name="round" value="(\d+)"`).FindStringSubmatch(dash)
	if m == nil {
		t.Fatalf("no reveal button:\n%s", clipText(dash))
	}
	teacher.post(teach+"/reveal", url.Values{"round": {m[1]}})

	_, g := teacher.get(teach + "/grades")
	row := func(nick string) string {
		i := strings.Index(g, ">"+nick+"<")
		if i < 0 {
			t.Fatalf("%s is not on the grades page", nick)
		}
		return g[i:min(len(g), i+400)]
	}
	total := regexp.MustCompile(`class="n total">(\d+)<`)
	if got := total.FindStringSubmatch(row("Ana")); got == nil || got[1] != "0" {
		t.Errorf("Ana, wrong in the final vote, totals %v", got)
	}
	if got := total.FindStringSubmatch(row("Budi")); got == nil || got[1] != "1" {
		t.Errorf("Budi, right in the final vote, totals %v", got)
	}

	status, body, h := teacher.do(http.MethodGet, teach+"/export.moodle.csv", nil, "")
	if status != http.StatusOK || !strings.Contains(h.Get("Content-Disposition"), "moodle.csv") || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") {
		t.Fatalf("Moodle export: %d %v", status, h)
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// Students who joined in the same millisecond come in either order.
	got := map[string]string{}
	for _, r := range rows[1:] {
		got[r[0]] = strings.Join(r[1:], ",")
	}
	head := []string{class.MoodleID, "Sister, Kelas A: soal benar", "Sister, Kelas A: tugas tercapai", "Sister, Kelas A: program lulus", "Sister, Kelas A: total"}
	if fmt.Sprint(rows[0]) != fmt.Sprint(head) || len(rows) != 3 || got["13519001"] != "0,0,0,0" || got["13519002"] != "1,0,0,1" {
		t.Errorf("Moodle CSV:\n%q", rows)
	}
	_, body, _ = teacher.do(http.MethodGet, teach+"/export.csv", nil, "")
	rows, _ = csv.NewReader(strings.NewReader(body)).ReadAll()
	letter := class.Letter([]string{"rejected", "overwrites", "silent"}, right)
	var anaRow []string
	for _, r := range rows {
		if r[1] == "Ana" {
			anaRow = r
		}
	}
	if len(rows) != 3 || anaRow == nil || anaRow[2] != "13519001" || anaRow[4] != letter || anaRow[5] != "right" || anaRow[8] != "wrong" ||
		!strings.HasSuffix(anaRow[3], "+07:00") {
		t.Errorf("CSV export: %q", rows)
	}
}

// classWithClock is a class server whose clock the test moves: the
// server's (timers) and the class store's (votes' times) are one.
func classWithClock(t *testing.T) (*Server, string, *live.ManualClock) {
	t.Helper()
	clk := live.NewManualClock()
	svc, err := class.Open(context.Background(), class.Config{Data: t.TempDir(), Logf: t.Logf, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	s, ts := newTestServer(t, Config{Classes: svc, Clock: clk})
	t.Cleanup(func() { svc.Close() })
	return s, ts.URL, clk
}

// TestClassTimedVote: a vote opened with a timer counts down on the
// dashboard, the projector and the student's bar, takes votes until its
// time and then closes by itself: moved past it, the clock closes it,
// and a vote is refused.
func TestClassTimedVote(t *testing.T) {
	s, base, clk := classWithClock(t)
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Pewaktu")
	teacher.post(teach+"/activity", url.Values{"lab": {"w1-w2"}})
	teacher.post(teach+"/activity", url.Values{"lab": {"w1-w2"}, "question": {"storage-checks"}})
	teacher.post(teach+"/round", url.Values{"seconds": {"30"}})
	ana := studentJoins(t, base, code, "Ana", "")
	budi := studentJoins(t, base, code, "Budi", "")
	round := openRound(t, ana)
	closes := strconv.FormatInt(clk.Now().Add(30*time.Second).UnixMilli(), 10)
	_, dash := teacher.get(teach)
	_, proj := teacher.get(projectorOf(t, dash))
	_, bar := ana.get("/id/")
	for name, page := range map[string]string{"dashboard": dash, "projector": proj, "bar": bar} {
		if !strings.Contains(page, `data-closes="`+closes+`"`) || !strings.Contains(page, `<span class="timer-left">0:30</span>`) {
			t.Errorf("the %s does not count down to the vote's close", name)
		}
	}
	clk.Advance(20 * time.Second)
	ana.post("/id/class/vote", url.Values{"round": {round}, "choice": {"rejected"}, "back": {"/id/"}})
	if _, bar := ana.get("/id/"); !strings.Contains(bar, `<span class="timer-left">0:10</span>`) {
		t.Error("20 s on, the bar does not say 0:10")
	}
	clk.Advance(11 * time.Second)
	// The timer's goroutine closes the round: wait for it, however long
	// this machine takes.
	for {
		ts, err := s.classes.Rounds(context.Background(), roundClass(t, s, code))
		if err != nil {
			t.Fatal(err)
		}
		if ts[0].Round.State == class.RoundClosed {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	status, _, _ := budi.do(http.MethodPost, "/id/class/vote", url.Values{"round": {round}, "choice": {"overwrites"}}, "application/json")
	if status != http.StatusConflict {
		t.Errorf("a vote after the timer: %d, want 409", status)
	}
	if _, bar := budi.get("/id/"); strings.Contains(bar, `class="cb-vote"`) || strings.Contains(bar, "timer-left") {
		t.Error("the bar still offers the vote, or its timer, after it closed")
	}
}

// roundClass is the id of the class of a join code.
func roundClass(t *testing.T, s *Server, code string) string {
	t.Helper()
	cl, err := s.classes.ByCode(context.Background(), code)
	if err != nil {
		t.Fatal(err)
	}
	return cl.ID
}

// TestClassTypedQuestion: a question typed on the spot, with markup in
// it, is shown as text on the dashboard, the projector and the bar; it
// goes through a first vote, a second, and the reveal of the choice its
// lecturer marked; a third vote is refused.
func TestClassTypedQuestion(t *testing.T) {
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Ketik")
	teacher.post(teach+"/typed", url.Values{"text": {`<script>alert("q")</script> W1 or W2?`}, "choice1": {"<b>W1</b>"}, "choice2": {"W2"}, "choice3": {""}, "right": {"2"}})
	ana := studentJoins(t, base, code, "Ana", "")
	budi := studentJoins(t, base, code, "Budi", "")
	_, dash := teacher.get(teach)
	_, proj := teacher.get(projectorOf(t, dash))
	teacher.post(teach+"/round", nil)
	_, bar := ana.get("/id/")
	for name, page := range map[string]string{"dashboard": dash, "projector": proj, "bar": bar} {
		if strings.Contains(page, `<script>alert("q")`) || strings.Contains(page, "<b>W1</b>") {
			t.Errorf("the %s runs the typed question's markup", name)
		}
		if !strings.Contains(page, `&lt;script&gt;alert(&#34;q&#34;)&lt;/script&gt; W1 or W2?`) {
			t.Errorf("the %s does not show the typed question as text:\n%s", name, clipText(page))
		}
	}
	if !strings.Contains(bar, "A. &lt;b&gt;W1&lt;/b&gt;") {
		t.Errorf("the bar's choices:\n%s", clipText(bar))
	}
	vote := func(c *client, choice string) {
		t.Helper()
		c.post("/id/class/vote", url.Values{"round": {openRound(t, c)}, "choice": {choice}, "back": {"/id/"}})
	}
	vote(ana, "1")
	vote(budi, "1")
	teacher.post(teach+"/round", nil)
	vote(ana, "2")
	vote(budi, "1")
	_, dash = teacher.get(teach)
	m := regexp.MustCompile(`action="[^"]*/reveal"[^>]*>\s*<input type="hidden" name="round" value="(\d+)"`).FindStringSubmatch(dash)
	if m == nil {
		t.Fatal("no reveal button for the typed question")
	}
	teacher.post(teach+"/reveal", url.Values{"round": {m[1]}})
	_, dash = teacher.get(teach)
	if !strings.Contains(dash, "Jawaban yang ditandai pengajar: B. W2") || !strings.Contains(dash, "0%") || !strings.Contains(dash, "50%") {
		t.Errorf("the reveal of the typed question:\n%s", clipText(dash[strings.Index(dash, `id="typed-live"`):]))
	}
	if _, bar := ana.get("/id/"); !strings.Contains(bar, "B. W2") {
		t.Error("the bar does not show the marked choice once revealed")
	}
	if status, _, _ := teacher.do(http.MethodPost, teach+"/round", url.Values{}, ""); status != http.StatusConflict {
		t.Errorf("a third vote on the typed question: %d, want 409", status)
	}
}

// TestClassConfidenceAndWhy: with confidence and "why?" on, the bar asks
// both; votes come by form and over the lab socket; the reveal splits the
// share right between the sure and the not sure (right as the engine
// decides); the whys are listed on the dashboard without names, and one
// goes on the projector only when the lecturer puts it there.
func TestClassConfidenceAndWhy(t *testing.T) {
	s, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Yakin")
	teacher.post(teach+"/settings", url.Values{"nim": {"off"}, "confidence": {"1"}, "why": {"1"}})
	openVote(teacher, teach, "w1-w2", "storage-checks")
	right, _ := s.grading().Right("w1-w2", "storage-checks")
	wrong := "silent"
	if right == wrong {
		wrong = "rejected"
	}
	ana := studentJoins(t, base, code, "Ana", "")
	_, bar := ana.get("/id/")
	if !strings.Contains(bar, `name="sure" value="sure" required`) || !strings.Contains(bar, `name="why"`) {
		t.Fatalf("the bar does not ask how sure and why:\n%s", clipText(bar))
	}
	round := openRound(t, ana)
	// Sure and right, sure and wrong, not sure and right: by form; one
	// more, not sure and wrong, over the lab's socket.
	for i, v := range []struct{ nick, choice, sure, why string }{
		{"Ana", right, "sure", "<i>the token</i> is checked"}, {"Budi", wrong, "sure", ""}, {"Citra", right, "unsure", "W2 writes last"},
	} {
		c := ana
		if i > 0 {
			c = studentJoins(t, base, code, v.nick, "")
		}
		c.post("/id/class/vote", url.Values{"round": {round}, "choice": {v.choice}, "sure": {v.sure}, "why": {v.why}, "back": {"/id/"}})
	}
	dewi := studentJoins(t, base, code, "Dewi", "")
	ws := dialAs(t, dewi, "/id/labs/w1-w2/ws")
	n, _ := strconv.ParseInt(round, 10, 64)
	if r := ws.call(live.ClientMsg{Type: "vote", Round: n, Choice: wrong, Sure: "unsure"}); r.Type != "voted" {
		t.Fatalf("a vote over the socket: %s %q", r.Type, r.Error)
	}
	_, dash := teacher.get(teach)
	if !strings.Contains(dash, "&lt;i&gt;the token&lt;/i&gt; is checked") || !strings.Contains(dash, "W2 writes last") || strings.Contains(dash, "<i>the token</i>") {
		t.Errorf("the dashboard's whys:\n%s", clipText(dash))
	}
	_, proj := teacher.get(projectorOf(t, dash))
	if strings.Contains(proj, "W2 writes last") {
		t.Error("a why is on the projector before the lecturer put it there")
	}
	teacher.post(teach+"/showwhy", url.Values{"why": {"W2 writes last"}})
	if _, proj := teacher.get(projectorOf(t, dash)); !strings.Contains(proj, `id="shown-why"><p>W2 writes last</p>`) || strings.Contains(proj, "Citra") {
		t.Error("the why put on the projector is not there, or has a name")
	}
	teacher.post(teach+"/reveal", url.Values{"round": {round}})
	_, dash = teacher.get(teach)
	if want := "Yang yakin: 50% benar (dari 2). Yang tidak yakin: 50% benar (dari 2)."; !strings.Contains(dash, want) {
		t.Errorf("the reveal does not say %q", want)
	}
	if _, proj := teacher.get(projectorOf(t, dash)); !strings.Contains(proj, `id="sure-split"`) {
		t.Error("the projector's reveal has no confidence split")
	}
}

// TestClassListUpload: a class list uploaded as a file, with rows a
// spreadsheet gets wrong, is taken row by row, each refusal naming its
// row; thousands of rows (more than a form of the dashboard may carry)
// are taken; the grades page says who has not joined.
func TestClassListUpload(t *testing.T) {
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Daftar")
	teacher.post(teach+"/settings", url.Values{"nim": {"ask"}})
	studentJoins(t, base, code, "Ana", "13500002")
	upload := func(data []byte) (int, string) {
		t.Helper()
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		f, _ := w.CreateFormFile("file", "kelas.csv")
		f.Write(data)
		w.Close()
		req, _ := http.NewRequest(http.MethodPost, base+teach+"/list", &b)
		req.Header.Set("Content-Type", w.FormDataContentType())
		resp, err := teacher.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out bytes.Buffer
		out.ReadFrom(resp.Body)
		return resp.StatusCode, out.String()
	}
	status, page := upload([]byte("\xEF\xBB\xBFNIM;Nama\n13519001;Ana\n=1+1;B\n13519001;C\n1.35E+07;D\n"))
	if status != http.StatusUnprocessableEntity {
		t.Errorf("a list with refused rows: %d, want 422", status)
	}
	for _, want := range []string{"1 baris diterima.", "baris 3: «=1+1» adalah rumus spreadsheet", "baris 4: NIM 13519001 sudah ada di baris 2", "baris 5: «1.35E+07» adalah angka yang dibulatkan"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	var big strings.Builder
	big.WriteString("NIM,Nama\n")
	for i := range 3000 {
		fmt.Fprintf(&big, "%d,Mahasiswa Nomor %d\n", 13500000+i, i)
	}
	if big.Len() <= maxFormBytes {
		t.Fatalf("the big list is only %d bytes", big.Len())
	}
	status, page = upload([]byte(big.String()))
	if status != http.StatusOK || !strings.Contains(page, "3000 baris diterima.") || !strings.Contains(page, "3000 mahasiswa di daftar: 1 sudah bergabung, 2999 belum.") {
		t.Errorf("3000 rows: %d\n%s", status, clipText(page))
	}
}

// TestClassProgramPassed: a student of a class whose program the engine
// passes in a program lab scores it on the grades page; one whose
// program fails does not. The lab is the course's cheapest to judge
// (about 15 ms of CPU a program): the grades are any program lab's.
func TestClassProgramPassed(t *testing.T) {
	t.Parallel()
	const lab = "write-idempotency-key"
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Program")
	teacher.post(teach+"/activity", url.Values{"lab": {lab}})
	for nick, file := range map[string]string{"Ana": "reference.star", "Budi": "start.star"} {
		src, err := fs.ReadFile(content.FS, "labs/"+lab+"/"+file)
		if err != nil {
			t.Fatal(err)
		}
		st := studentJoins(t, base, code, nick, "")
		// The page asks again by itself while the Submit waits in the
		// judging queue (on a busy machine it may); so does the test.
		for waits := 0; ; waits++ {
			status, page := st.get("/id/labs/" + lab + "?submit=1&program=" + url.QueryEscape(string(src)))
			if status != http.StatusOK || !strings.Contains(page, `id="program-verdict"`) {
				t.Fatalf("%s's program: %d", nick, status)
			}
			if !strings.Contains(page, `id="program-queued"`) {
				break
			}
			if waits == 6000 { // a hang guard, not a bar
				t.Fatalf("%s's program was still queued after %d asks", nick, waits)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	_, g := teacher.get(teach + "/grades")
	for nick, want := range map[string]string{"Ana": "1", "Budi": "0"} {
		i := strings.Index(g, ">"+nick+"<")
		cells := regexp.MustCompile(`<td class="n">(\d+)</td>`).FindAllStringSubmatch(g[i:], 3)
		if i < 0 || len(cells) < 3 || cells[2][1] != want {
			t.Errorf("%s's programs passed: %v, want %s", nick, cells, want)
		}
	}
}

// sse is one server-sent event: its name and its data.
type sse struct{ name, data string }

// streamEvents opens an event stream as c and returns its events as they
// come.
func streamEvents(t *testing.T, c *client, path string) <-chan sse {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{Jar: c.http.Jar, Transport: &http.Transport{}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", path, resp.Status)
	}
	out := make(chan sse, 64)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		var ev sse
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data += strings.TrimPrefix(line, "data: ") + "\n"
			case line == "" && ev.name != "":
				out <- ev
				ev = sse{}
			}
		}
	}()
	return out
}

// TestDashboardRoundFollowsTimer: the dashboard's side, where the
// lecturer closes, shows and reveals the vote, follows the vote when its
// timer closes it, as it does when the lecturer closes it by hand (the
// page is loaded again then): the dashboard's stream sends it again
// (event "round") once it changed, without the Close button and the
// timer.
func TestDashboardRoundFollowsTimer(t *testing.T) {
	s, base, clk := classWithClock(t)
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "en", "Timer")
	teacher.post(teach+"/activity", url.Values{"lab": {"w1-w2"}})
	teacher.post(teach+"/activity", url.Values{"lab": {"w1-w2"}, "question": {"storage-checks"}})
	teacher.post(teach+"/round", url.Values{"seconds": {"30"}})
	if _, dash := teacher.get(teach); !strings.Contains(dash, `id="teach-round"`) || !strings.Contains(dash, `data-act="close"`) {
		t.Fatal("the dashboard has no vote to close beside its live part")
	}
	events := streamEvents(t, teacher, teach+"/events")
	next := func(what string) sse {
		t.Helper()
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatalf("the stream ended before %s", what)
				}
				if ev.name == "round" {
					return ev
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no round event: %s", what)
			}
		}
	}
	if ev := next("the vote's controls as the stream began"); !strings.Contains(ev.data, `data-act="close"`) || !strings.Contains(ev.data, "timer-left") {
		t.Errorf("the open vote's controls: %s", clipText(ev.data))
	}
	clk.Advance(31 * time.Second)
	for {
		ts, err := s.classes.Rounds(context.Background(), roundClass(t, s, code))
		if err != nil {
			t.Fatal(err)
		}
		if ts[0].Round.State == class.RoundClosed {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	ev := next("the timer closed the vote")
	if !strings.HasPrefix(ev.data, `<div id="teach-round">`) || strings.Contains(ev.data, `data-act="close"`) || strings.Contains(ev.data, "timer") {
		t.Errorf("after the timer closed the vote, the dashboard's side still offers to close it, or counts down:\n%s", clipText(ev.data))
	}
	if !strings.Contains(ev.data, `data-act="reveal"`) {
		t.Errorf("after the timer closed the vote, the dashboard's side does not offer the reveal:\n%s", clipText(ev.data))
	}
}
