package web

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"leaselab/catalog"
	"leaselab/class"
	"leaselab/content"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/program"
)

// The class's programs (issue 49), end to end: students of a class press
// Submit on a program lab's page, the class keeps each program with the
// engine's verdict, the dashboard counts them and names the commonest
// breaking schedule, one failing program goes on the projector without
// its student, and the exports hold every program.

// classProgramsLab is the lab the class works in.
const classProgramsLab = "write-renewal"

// classPrograms are the programs the students submit: the lab's
// reference and start, the start again with a comment of its own, the
// reference counting its lease from when the answer arrived, the
// reference with no guard before a write, the start with a typo, and one
// that does not compile.
func classPrograms(t *testing.T) map[string]string {
	t.Helper()
	read := func(name string) string {
		b, err := fs.ReadFile(content.FS, "labs/"+classProgramsLab+"/"+name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ref, start := read("reference.star"), read("start.star")
	replace := func(src, old, new string) string {
		if !strings.Contains(src, old) {
			t.Fatalf("%q is not in the lab's program", old)
		}
		return strings.Replace(src, old, new, 1)
	}
	return map[string]string{
		"reference":   ref,
		"start":       start,
		"start-again": "# my first try\n" + start,
		"from-answer": replace(ref, `w.state["until"] = w.state["sent"] + ev.ttl`, `w.state["until"] = w.now + ev.ttl`),
		"no-guard":    replace(ref, "GUARD = SECOND // 2", "GUARD = 0"),
		"typo":        replace(start, "def on_start(w, ev):\n    w.acquire()", "def on_start(w, ev):\n    w.aquire()"),
		"syntax":      start + "\ndef broken(:\n",
	}
}

// classProgramOf is which program student i of 30 submits.
func classProgramOf(i int) string {
	switch i % 10 {
	case 0, 1, 2:
		return "reference"
	case 3, 4:
		return "start"
	case 5:
		return "start-again"
	case 6, 7:
		return "from-answer"
	case 8:
		return "no-guard"
	}
	if i < 15 {
		return "typo"
	}
	return "syntax"
}

// classProgramsJudged is the verdict cache of the servers the class's
// programs are submitted to, here and in TestBrowserClassPrograms: the
// same programs on the same lab, judged by a server once for both tests
// (each test holds what its class keeps and shows, not how soon a
// verdict comes).
var classProgramsJudged = newLRU[programKey](256, 256, func(*labs.ProgramVerdict) int { return 1 })

var classVerdicts struct {
	once sync.Once
	by   map[string]class.Submission
	took time.Duration
}

// expectedSubmissions judges each program in the engine, as the lab's
// page does (the course's own judge, every core), apart from any server.
func expectedSubmissions(t *testing.T, progs map[string]string) map[string]class.Submission {
	classVerdicts.once.Do(func() {
		course, err := labs.Load(content.FS)
		if err != nil {
			t.Fatal(err)
		}
		lab := course.Lab(classProgramsLab)
		start := time.Now()
		classVerdicts.by = map[string]class.Submission{}
		for name, src := range progs {
			v, err := lab.Program().Judge(src, 0)
			if err != nil {
				t.Fatal(err)
			}
			classVerdicts.by[name] = submissionOf(lab, src, v)
		}
		classVerdicts.took = time.Since(start)
	})
	if classVerdicts.by == nil {
		t.Fatal("the programs could not be judged")
	}
	return classVerdicts.by
}

// TestClassProgramsThirtyStudents: 30 students submit a mix of programs
// to one program lab, half before the server restarts and half after.
// The dashboard's counts and its commonest breaking schedule are those
// of the engine's verdicts, judged here apart from the server; the
// projector shows a failing program without any student's nickname; the
// JSON and CSV exports hold every student's program. On SQLite and on
// PostgreSQL (LEASELAB_TEST_POSTGRES), side by side.
func TestClassProgramsThirtyStudents(t *testing.T) {
	// Beside the other tests: it asserts counts, not how soon (issue 46).
	t.Parallel()
	progs := classPrograms(t)
	want := expectedSubmissions(t, progs)
	t.Logf("the %d programs judged apart in %v", len(progs), classVerdicts.took.Round(time.Millisecond))
	if want["reference"].Verdict != class.VerdictPass || want["start"].Verdict != class.VerdictFail ||
		want["syntax"].Verdict != class.VerdictCompile || want["typo"].Verdict != class.VerdictFault {
		t.Fatalf("the engine's verdicts: %+v", want)
	}
	if program.DefaultLimits.Source != class.MaxProgram {
		t.Errorf("a class keeps %d bytes of a program, the program package allows %d", class.MaxProgram, program.DefaultLimits.Source)
	}
	// The servers of both rooms, before and after their restarts, keep
	// their verdicts in one cache, as one server does: a program is judged
	// by a server once (once a room when both Submit it at the same time),
	// not again on each store and after each restart, the same work for
	// the same claim. What the class keeps and counts is each room's own.
	judged := classProgramsJudged
	// The two stores side by side in this test's own turn: parallel
	// subtests would wait until every other parallel test of the package
	// had had its turn, and this long test would start last.
	var rooms sync.WaitGroup
	for _, store := range []string{"sqlite", "postgres"} {
		rooms.Go(func() {
			t.Run(store, func(t *testing.T) {
				cfg := class.Config{Data: t.TempDir(), Logf: t.Logf}
				if store == "postgres" {
					cfg.DatabaseURL = testPostgres(t)
				}
				classProgramsRoom(t, cfg, judged, progs, want)
			})
		})
	}
	rooms.Wait()
}

var (
	programsNRE  = regexp.MustCompile(`id="programs-n" data-submitted="(\d+)" data-passed="(\d+)" data-failed="(\d+)" data-errors="(\d+)"`)
	shownOpenRE  = regexp.MustCompile(`<a href="([^"]+)" id="shown-open">`)
	programsCoRE = regexp.MustCompile(`id="programs-common" data-schedule="([^"]*)" data-n="(\d+)"`)
)

// classProgramsRoom runs the class on one store.
func classProgramsRoom(t *testing.T, cfg class.Config, judged *lru[programKey, *labs.ProgramVerdict], progs map[string]string, want map[string]class.Submission) {
	open := func() (*class.Service, *Server, string) {
		svc, err := class.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, ts := newTestServer(t, Config{Classes: svc})
		s.judging.judged = judged
		t.Cleanup(func() { svc.Close() })
		return svc, s, ts.URL
	}
	svc, _, base := open()
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Sistem Terdistribusi")
	teacher.post(teach+"/activity", url.Values{"lab": {classProgramsLab}})
	sent := map[string]string{} // nickname → the program sent
	judging := time.Duration(0)
	submit := func(i int) {
		nick := fmt.Sprintf("Rara%02d", i)
		st := newClient(t, base)
		st.post("/id/join", url.Values{"code": {code}, "nick": {nick}})
		src := progs[classProgramOf(i)]
		sent[nick] = src
		began := time.Now()
		for {
			status, body := st.get("/id/labs/" + classProgramsLab + "?" + url.Values{"program": {src}, "submit": {"1"}}.Encode())
			if status != http.StatusOK {
				t.Fatalf("%s's Submit: %d", nick, status)
			}
			if !strings.Contains(body, `id="program-queued"`) {
				break
			}
			time.Sleep(200 * time.Millisecond) // the page asks again by itself
		}
		judging += time.Since(began)
	}
	for i := range 15 {
		submit(i)
	}
	checkDashboard(t, teacher, teach, progs, want, 15)
	// The server restarts in the middle of the class.
	svc.Close()
	_, s, base := open()
	teacher.base = base
	checkDashboard(t, teacher, teach, progs, want, 15)
	for i := 15; i < 30; i++ {
		submit(i)
	}
	t.Logf("30 Submits answered in %v", judging.Round(time.Millisecond))
	checkDashboard(t, teacher, teach, progs, want, 30)
	checkProjector(t, s, teacher, teach, sent)
	checkExports(t, teacher, teach, sent, progs, want)
}

// checkDashboard: the dashboard's counts of the first n students'
// programs and its commonest breaking schedule are the engine's.
func checkDashboard(t *testing.T, teacher *client, teach string, progs map[string]string, want map[string]class.Submission, n int) {
	t.Helper()
	var submitted, passed, failed, errs int
	schedules := map[string]int{}
	for i := range n {
		sub := want[classProgramOf(i)]
		submitted++
		switch sub.Verdict {
		case class.VerdictPass:
			passed++
		case class.VerdictFail:
			failed++
			schedules[sub.Schedule]++
		default:
			errs++
		}
	}
	common, most := "", 0
	for sc, k := range schedules {
		if k > most || k == most && sc < common {
			common, most = sc, k
		}
	}
	_, body := teacher.get(teach)
	m := programsNRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no programs panel on the dashboard:\n%s", clipText(body))
	}
	if got, wantN := m[1:], []string{strconv.Itoa(submitted), strconv.Itoa(passed), strconv.Itoa(failed), strconv.Itoa(errs)}; strings.Join(got, " ") != strings.Join(wantN, " ") {
		t.Errorf("after %d students: submitted, passed, failed, errors %v, want %v", n, got, wantN)
	}
	c := programsCoRE.FindStringSubmatch(body)
	if c == nil || html.UnescapeString(c[1]) != common || c[2] != strconv.Itoa(most) {
		t.Errorf("after %d students: the commonest schedule %q, want %q (%d)", n, c, common, most)
	}
	noEnglish(t, fmt.Sprintf("the dashboard after %d students", n), body)
	t.Logf("after %d students: %d passed, %d failed, %d errors; commonest schedule %q (%d)", n, passed, failed, errs, common, most)
}

// checkProjector: the lecturer puts a failing program on the projector;
// it shows the program, its schedule and line, and no nickname.
func checkProjector(t *testing.T, s *Server, teacher *client, teach string, sent map[string]string) {
	t.Helper()
	teacher.post(teach+"/showprogram", url.Values{})
	token := strings.TrimPrefix(teach, "/id/teach/")
	_, body := teacher.get(strings.TrimPrefix(s.projectorHref("id", token), s.base))
	if !strings.Contains(body, `id="shown-program"`) || !strings.Contains(body, "w.state") {
		t.Fatalf("no failing program on the projector:\n%s", clipText(body))
	}
	if strings.Contains(body, "Rara") {
		t.Errorf("the projector names a student")
	}
	noEnglish(t, "the projector with a failing program", body)
	// The dashboard opens the shown program in its lab, with its verdict.
	_, dash := teacher.get(teach)
	m := shownOpenRE.FindStringSubmatch(dash)
	if m == nil {
		t.Fatal("the dashboard has no link to the shown program")
	}
	if st, page := teacher.get(html.UnescapeString(m[1])); st != http.StatusOK || !strings.Contains(page, `data-correct="false" data-program="1"`) {
		t.Errorf("the shown program's link: %d, no failing verdict", st)
	}
	if !strings.Contains(body, `class="ln acted"`) {
		t.Errorf("the projector marks no line that acted")
	}
	teacher.post(teach+"/nextprogram", url.Values{})
	teacher.post(teach+"/hideprogram", url.Values{})
	if _, body := teacher.get(strings.TrimPrefix(s.projectorHref("id", token), s.base)); strings.Contains(body, `id="shown-program"`) {
		t.Errorf("a program taken off is still on the projector")
	}
}

// checkExports: the JSON and CSV exports hold every student's program and
// the engine's verdict on it.
func checkExports(t *testing.T, teacher *client, teach string, sent map[string]string, progs map[string]string, want map[string]class.Submission) {
	t.Helper()
	byText := map[string]class.Submission{}
	for name, src := range progs {
		byText[src] = want[name]
	}
	_, body := teacher.get(teach + "/export.json")
	var x struct {
		Students []struct {
			Nick      string `json:"nick"`
			Submitted []struct {
				Lab, Program, Verdict, Schedule string
			} `json:"submitted"`
		} `json:"students"`
	}
	if err := json.Unmarshal([]byte(body), &x); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, st := range x.Students {
		for _, sub := range st.Submitted {
			n++
			if w := byText[sub.Program]; sub.Program != sent[st.Nick] || sub.Verdict != w.Verdict {
				t.Errorf("%s's program in the JSON: %s, want %s", st.Nick, sub.Verdict, w.Verdict)
			}
		}
	}
	if n != len(sent) {
		t.Errorf("the JSON holds %d programs, want %d", n, len(sent))
	}
	_, body = teacher.get(teach + "/export.csv")
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range rows[0] {
		if h == classProgramsLab+" / last program" {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("no program column in %q", rows[0])
	}
	for _, r := range rows[1:] {
		if r[col] != sent[r[1]] {
			t.Errorf("%s's program in the CSV differs from the one sent", r[1])
		}
	}
}

// TestScheduleKeys: a kept schedule reads back as the faults it was
// written from, of every kind a search places, and says itself in
// Indonesian without the engine's English.
func TestScheduleKeys(t *testing.T) {
	fs := []engine.SearchFault{
		{At: 14 * engine.Second, Kind: engine.FaultPause, Size: 6 * engine.Second},
		{At: 3200, Kind: engine.FaultSpike, Size: 1500},
		{At: 0, Kind: engine.FaultDrift, Rate: 1_010_000},
		{At: 12 * engine.Minute, Kind: engine.FaultJump, Size: -2 * engine.Second},
		{At: 5 * engine.Second, Kind: engine.FaultReplica, Size: 250},
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	key := strings.Join(parts, "; ")
	back, ok := parseSchedule(key)
	if !ok || fmt.Sprint(back) != fmt.Sprint(fs) {
		t.Errorf("%q read back as %v (%v)", key, back, ok)
	}
	if id := scheduleWords("id", key); strings.Contains(id, " at ") || !strings.Contains(id, "jeda") {
		t.Errorf("in Indonesian: %q", id)
	}
	if _, ok := parseSchedule("pause 6s at"); ok {
		t.Error("a schedule cut short was read")
	}
	if got := scheduleWords("id", ""); got != T("id", "programs.nofault") {
		t.Errorf("no faults: %q", got)
	}
}

// shownCode is a shown program's lines: the student's own code, as
// idProgram is in the editor.
var shownCode = regexp.MustCompile(`(?s)<pre class="shown-code"[^>]*>.*?</pre>`)

// noEnglish: an Indonesian page's text has no English word and its times
// are in the course's forms, as TestIndonesianLessons holds every page.
func noEnglish(t *testing.T, where, body string) {
	t.Helper()
	text := idReadable(idVisibleText(shownCode.ReplaceAllString(body, " ")))
	if words := catalog.Untranslated("id", text); len(words) > 0 {
		t.Errorf("%s: English: %q", where, idContext(text, words))
	}
	if slips := catalog.TimeSlips("id", text); len(slips) > 0 {
		t.Errorf("%s: time not in the course's words: %v", where, slips[:min(len(slips), 5)])
	}
}
