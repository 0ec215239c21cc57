package class

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"leaselab/content"
	"leaselab/labs"
)

// The tests of issue 44: grades a lecturer can hand in, and what every
// clicker does. Every right answer is the engine's (labs.Grading runs
// the question in it); none is written down here.

var (
	courseOnce sync.Once
	course     *labs.Course
	courseErr  error
)

// testCourse is the embedded course, as the server grades with it.
func testCourse(t *testing.T) labs.Grading {
	t.Helper()
	courseOnce.Do(func() { course, courseErr = labs.Load(content.FS) })
	if courseErr != nil {
		t.Fatal(courseErr)
	}
	return labs.Grading{Course: course}
}

// TestNIMAtJoin: a class that does not ask ignores a number; one that
// asks takes it or none; one that requires it refuses a join without;
// a number that is no number, or is another student's, is refused.
func TestNIMAtJoin(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		s := open(t, d, Config{})
		c, _, _ := classOf(t, s)
		st := must(s.JoinAs(ctx, c.Code, "", "Ana", "13519001"))
		if st.NIM != "" {
			t.Errorf("a class that does not ask kept NIM %q", st.NIM)
		}
		ok(t, s.SetSettings(ctx, c.ID, Settings{NIM: NIMAsk}))
		ana := must(s.JoinAs(ctx, c.Code, st.ID, "", " 13519001 "))
		if ana.NIM != "13519001" || ana.ID != st.ID || ana.Nick != "Ana" {
			t.Errorf("joining again with a NIM: %+v", ana)
		}
		budi := must(s.JoinAs(ctx, c.Code, "", "Budi", ""))
		if budi.NIM != "" {
			t.Errorf("an optional NIM not given: %q", budi.NIM)
		}
		_, err := s.JoinAs(ctx, c.Code, "", "Citra", "13519001")
		is(t, "Ana's NIM again", err, ErrNIMTaken)
		for _, bad := range []string{"=1+2", "12", "135 190", "<b>1</b>", "-135190", strings.Repeat("1", MaxNIM+1)} {
			_, err := s.JoinAs(ctx, c.Code, "", "Dewi", bad)
			is(t, fmt.Sprintf("NIM %q", bad), err, ErrNIMBad)
		}
		for _, good := range []string{"H071191001", "22/493823/PA/21279", "1301-19.001"} {
			st := must(s.JoinAs(ctx, c.Code, "", "", good))
			if st.NIM != good {
				t.Errorf("NIM %q kept as %q", good, st.NIM)
			}
		}

		ok(t, s.SetSettings(ctx, c.ID, Settings{NIM: NIMRequire}))
		_, err = s.JoinAs(ctx, c.Code, "", "Eka", "")
		is(t, "a join without the NIM a class requires", err, ErrNIMRequired)
		_, err = s.Join(ctx, c.Code, budi.ID, "")
		is(t, "Budi, who gave none, joining again", err, ErrNIMRequired)
		if again := must(s.JoinAs(ctx, c.Code, ana.ID, "", "")); again.NIM != "13519001" {
			t.Errorf("Ana joining again without typing it: NIM %q", again.NIM)
		}
		is(t, "a NIM mode that is none", s.SetSettings(ctx, c.ID, Settings{NIM: "maybe"}), ErrBadInput)
		is(t, "a zone that is none", s.SetSettings(ctx, c.ID, Settings{NIM: NIMOff, Zone: "Mars/Olympus"}), ErrBadInput)
		if n := must(s.StudentCount(ctx, c.ID)); n != 5 {
			t.Errorf("%d students, want Ana, Budi and the three numbers", n)
		}
	})
}

// scoredClass plays a class through everything that scores: w1-w2's
// question storage-checks in two votes, a typed question marked right,
// one not marked, a goal of w1-w2, and a program lab passed. It returns
// the class and its students Ana, Budi, Citra (who gave no NIM), Dewi.
func scoredClass(t *testing.T, s *Service, clk *clock) (Class, []Student, string) {
	t.Helper()
	c, _, _ := classOf(t, s)
	ok(t, s.SetSettings(ctx, c.ID, Settings{NIM: NIMAsk, Confidence: true}))
	var st []Student
	for _, p := range [][2]string{{"Ana", "13519001"}, {"Budi", "13519002"}, {"Citra", ""}, {"Dewi", "13519004"}} {
		clk.Add(time.Second)
		st = append(st, must(s.JoinAs(ctx, c.Code, "", p[0], p[1])))
	}
	right, decided := testCourse(t).Right("w1-w2", "storage-checks")
	if !decided {
		t.Fatal("the engine does not decide w1-w2's storage-checks")
	}
	q := course.Lab("w1-w2").Question("storage-checks")
	ids := make([]string, len(q.Choices))
	wrong := ""
	for i, ch := range q.Choices {
		ids[i] = ch.ID
		if ch.ID != right && wrong == "" {
			wrong = ch.ID
		}
	}
	vote := func(r Round, who int, choice string, sure Confidence) {
		t.Helper()
		clk.Add(time.Second)
		must(s.Cast(ctx, c.ID, st[who].ID, r.ID, choice, sure))
	}
	r1 := must(s.OpenRound(ctx, c.ID, "w1-w2", "storage-checks", ids))
	vote(r1, 0, right, Sure)   // Ana: right, then wrong in the final vote
	vote(r1, 1, wrong, Unsure) // Budi: wrong, then right
	vote(r1, 2, right, Sure)   // Citra: right, and no final vote
	ok(t, s.CloseRound(ctx, c.ID, r1.ID))
	r2 := must(s.OpenRound(ctx, c.ID, "w1-w2", "storage-checks", ids))
	vote(r2, 0, wrong, Unsure)
	vote(r2, 1, right, Sure)
	vote(r2, 3, right, NotAsked) // Dewi: right in the final vote only
	ok(t, s.Reveal(ctx, c.ID, r2.ID))

	marked := must(s.Type(ctx, c.ID, `=HYPERLINK("x") <script>alert(1)</script>`, []string{"yes", " ", "no"}, 2))
	rt := must(s.OpenRound(ctx, c.ID, "", marked.ID, marked.ChoiceIDs()))
	vote(rt, 0, "2", NotAsked) // Ana: right ("no")
	vote(rt, 1, "1", NotAsked)
	ok(t, s.CloseRound(ctx, c.ID, rt.ID))
	open := must(s.Type(ctx, c.ID, "Which do you prefer?", []string{"W1", "W2"}, 0))
	ro := must(s.OpenRound(ctx, c.ID, "", open.ID, open.ChoiceIDs()))
	vote(ro, 1, "1", NotAsked)
	ok(t, s.CloseRound(ctx, c.ID, ro.ID))

	ok(t, s.Reached(ctx, c.ID, st[1].ID, "w1-w2", "reject-stale"))
	ok(t, s.Passed(ctx, c.ID, st[3].ID, "write-one-loop"))
	return c, st, right
}

// TestScores: each student's columns and total, as docs/teaching.md
// says they are made.
func TestScores(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		clk := newClock()
		s := open(t, d, Config{Now: clk.Now})
		c, _, _ := scoredClass(t, s, clk)
		g := must(s.Grades(ctx, c.ID, testCourse(t)))
		if len(g.Questions) != 3 || g.Questions[0].Right == "" || g.Questions[1].Right != "2" || g.Questions[2].Graded() {
			t.Fatalf("questions: %+v", g.Questions)
		}
		// Ana: storage-checks wrong in its final vote, the typed one
		// right. Budi: storage-checks right in the final vote, the goal.
		// Citra: right in the first vote only. Dewi: right in the final
		// vote, and her program passed.
		want := map[string][4]int{"Ana": {1, 0, 0, 1}, "Budi": {1, 1, 0, 2}, "Citra": {0, 0, 0, 0}, "Dewi": {1, 0, 1, 2}}
		for _, st := range g.Students {
			got := [4]int{st.QuestionsRight, st.GoalsReached, st.ProgramsPassed, st.Total}
			if got != want[st.Nick] {
				t.Errorf("%s scores %v (questions, goals, programs, total), want %v", st.Nick, got, want[st.Nick])
			}
		}
		q, goals, programs := g.Possible()
		if q != 2 || goals != len(course.Lab("w1-w2").Goals)+len(course.Lab("write-one-loop").Goals) || programs != 1 {
			t.Errorf("possible: %d questions, %d goals, %d programs", q, goals, programs)
		}
	})
}

// TestGradeExports: the CSV has the letters the students saw, right or
// wrong, how sure, times with the class's offset, and the score; the
// JSON the same; a formula in a typed question is not one in the CSV.
func TestGradeExports(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		clk := newClock()
		s := open(t, d, Config{Now: clk.Now})
		c, _, right := scoredClass(t, s, clk)
		var b bytes.Buffer
		ok(t, s.Export(ctx, c.ID, &b, CSV, testCourse(t)))
		rows, err := csv.NewReader(&b).ReadAll()
		ok(t, err)
		head := rows[0]
		col := func(name string) int {
			t.Helper()
			i := slices.Index(head, name)
			if i < 0 {
				t.Fatalf("no column %q in %q", name, head)
			}
			return i
		}
		byNick := map[string][]string{}
		for _, r := range rows[1:] {
			byNick[r[1]] = r
		}
		ana, budi := byNick["Ana"], byNick["Budi"]
		letter := Letter(choiceIDsOf("w1-w2", "storage-checks"), right)
		if ana[col("w1-w2 / storage-checks / vote 1")] != letter || ana[col("w1-w2 / storage-checks / right 1")] != "right" ||
			ana[col("w1-w2 / storage-checks / sure 1")] != "sure" || ana[col("w1-w2 / storage-checks / right 2")] != "wrong" ||
			ana[col("w1-w2 / storage-checks / sure 2")] != "unsure" {
			t.Errorf("Ana's storage-checks: %q", ana)
		}
		if ana[col("NIM")] != "13519001" || ana[col("total")] != "1" || budi[col("goals reached")] != "1" || budi[col("total")] != "2" {
			t.Errorf("Ana's and Budi's NIM and score: %q, %q", ana, budi)
		}
		// 8:00 UTC on the test's clock is 15:00 in Jakarta (the default
		// for a class in Indonesian), written with its offset.
		if at := ana[col("joined")]; !strings.HasSuffix(at, "+07:00") || !strings.HasPrefix(at, "2026-03-02T15:00:01") {
			t.Errorf("Ana joined at %q, want Jakarta's time with its offset", at)
		}
		if budi[col("w1-w2 / reject-stale / reached")] == "" || ana[col("write-one-loop / program passed")] != "" || byNick["Dewi"][col("write-one-loop / program passed")] == "" {
			t.Errorf("goal and program columns: %q / %q", budi, byNick["Dewi"])
		}
		for _, r := range rows {
			for _, cell := range r {
				if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
					t.Errorf("cell %q starts a formula", cell)
				}
			}
		}
		typed := head[col("questions right")-1]
		if !slices.ContainsFunc(head, func(h string) bool { return strings.HasPrefix(h, "typed:1 =HYPERLINK") }) {
			t.Errorf("the typed question's columns: %q … %q", head, typed)
		}

		ok(t, s.SetSettings(ctx, c.ID, Settings{NIM: NIMAsk, Zone: "Asia/Makassar"}))
		b.Reset()
		ok(t, s.Export(ctx, c.ID, &b, JSON, testCourse(t)))
		var x exportClass
		ok(t, json.Unmarshal(b.Bytes(), &x))
		if x.Zone != "Asia/Makassar" || len(x.Questions) != 3 || x.Questions[1].Text == "" || x.Possible.Questions != 2 {
			t.Errorf("JSON export: zone %q, questions %+v, possible %+v", x.Zone, x.Questions, x.Possible)
		}
		raw := b.String()
		if !strings.Contains(raw, `"joined": "2026-03-02T16:00:01+08:00"`) {
			t.Errorf("JSON times are not in Makassar's time with its offset:\n%s", raw[:min(len(raw), 1500)])
		}
		for _, st := range x.Students {
			if st.Nick != "Ana" {
				continue
			}
			a := st.Answers[0]
			if a.Letter != letter || a.Right == nil || !*a.Right || a.Final || a.Sure != "sure" || !st.Answers[1].Final || st.Score.Total != 1 {
				t.Errorf("Ana in JSON: %+v", st)
			}
		}
	})
}

func choiceIDsOf(lab, q string) []string {
	var out []string
	for _, ch := range course.Lab(lab).Question(q).Choices {
		out = append(out, ch.ID)
	}
	return out
}

// moodleFile reads a file as Moodle's gradebook CSV import does
// (grade/import/csv: csv_import_reader and gradeimport_csv_load_data),
// and fails t on what it would refuse. It returns the head and rows.
func moodleFile(t *testing.T, b []byte) ([]string, [][]string) {
	t.Helper()
	if !utf8.Valid(b) {
		t.Fatal("not UTF-8, the importer's default encoding")
	}
	if bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")) {
		t.Error("a BOM (the importer strips it, a spreadsheet may not)")
	}
	r := csv.NewReader(bytes.NewReader(b)) // comma, enclosure "
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("fgetcsv would not read it: %v", err)
	}
	if len(rows) == 0 {
		t.Fatal("csvemptyfile")
	}
	head := rows[0]
	seen := map[string]bool{}
	for _, h := range head {
		h = strings.TrimSpace(h)
		if h == "" || seen[h] {
			t.Errorf("column %q is empty or twice: the lecturer cannot map it", h)
		}
		seen[h] = true
	}
	if head[0] != MoodleID {
		t.Errorf("first column %q, want %q", head[0], MoodleID)
	}
	for i, row := range rows[1:] {
		if len(row) != len(head) {
			t.Errorf("row %d has %d fields, the head %d (csvweirdcolumns)", i+2, len(row), len(head))
		}
		if strings.TrimSpace(row[0]) == "" {
			t.Errorf("row %d has no ID number (usermappingerrorusernotfound aborts the import)", i+2)
		}
		for j, v := range row[1:] {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 || n > 100 {
				t.Errorf("row %d, %q: %q is not a grade 0–100 (badgrade, gradevaluetoobig)", i+2, head[j+1], v)
			}
		}
	}
	return head, rows[1:]
}

// TestMoodleExport: the Moodle-shaped export passes the importer's rules,
// has only the students with a NIM, and with a class list only those on it.
func TestMoodleExport(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		clk := newClock()
		s := open(t, d, Config{Now: clk.Now})
		c, _, _ := scoredClass(t, s, clk)
		var b bytes.Buffer
		ok(t, s.Export(ctx, c.ID, &b, Moodle, testCourse(t)))
		head, rows := moodleFile(t, b.Bytes())
		if len(head) != 5 || head[4] != c.Name+": total" {
			t.Errorf("head %q", head)
		}
		got := map[string]string{}
		for _, r := range rows {
			got[r[0]] = strings.Join(r[1:], ",")
		}
		want := map[string]string{"13519001": "1,0,0,1", "13519002": "1,1,0,2", "13519004": "1,0,1,2"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Moodle rows %v, want %v (Citra gave no NIM)", got, want)
		}
		list, problems, err := ParseList([]byte("NIM;Nama\n13519001;Ana Putri\n13519004;Dewi\n13519009;Belum Datang\n"))
		if err != nil || len(problems) != 0 {
			t.Fatal(err, problems)
		}
		ok(t, s.SetList(ctx, c.ID, list))
		b.Reset()
		ok(t, s.Export(ctx, c.ID, &b, Moodle, testCourse(t)))
		_, rows = moodleFile(t, b.Bytes())
		if len(rows) != 2 || rows[0][0] != "13519001" || rows[1][0] != "13519004" {
			t.Errorf("with a class list, Moodle rows %q, want Ana's and Dewi's only", rows)
		}
	})
}

// TestClassList: a class list as spreadsheets write it, each row taken
// or refused with its row number; thousands of rows; deleted with the
// class.
func TestClassList(t *testing.T) {
	cp1252 := func(s string) []byte { // the few letters the test writes
		var b []byte
		for _, r := range s {
			switch r {
			case 'é':
				b = append(b, 0xE9)
			case '’':
				b = append(b, 0x92)
			case 'Ñ':
				b = append(b, 0xD1)
			default:
				b = append(b, byte(r))
			}
		}
		return b
	}
	utf16le := func(s string) []byte {
		b := []byte{0xFF, 0xFE}
		for _, r := range s {
			b = append(b, byte(r), byte(r>>8))
		}
		return b
	}
	for _, tt := range []struct {
		name     string
		data     []byte
		want     []Listed
		problems []ListProblem
	}{
		{"UTF-8 with a BOM, commas, a head", []byte("\xEF\xBB\xBFNIM,Nama\r\n13519001,Ana Putri\r\n13519002,\"Budi, S.\"\r\n"),
			[]Listed{{NIM: "13519001", Name: "Ana Putri", Line: 2}, {NIM: "13519002", Name: "Budi, S.", Line: 3}}, nil},
		{"Windows-1252, semicolons", cp1252("NIM;Nama\n13519001;José\n13519002;O’Neil Ñ\n"),
			[]Listed{{NIM: "13519001", Name: "José", Line: 2}, {NIM: "13519002", Name: "O’Neil Ñ", Line: 3}}, nil},
		{"UTF-16 with tabs, names first", utf16le("Nama\tNIM\nAna\t13519001\n"),
			[]Listed{{NIM: "13519001", Name: "Ana", Line: 2}}, nil},
		{"no head, NIMs only, blank rows", []byte("13519001\n\n 13519002 \n"),
			[]Listed{{NIM: "13519001", Line: 1}, {NIM: "13519002", Line: 3}}, nil},
		{"formulas, rounded numbers, duplicates, not numbers", []byte("NIM;Nama\n=HYPERLINK(\"http://x\");A\n1.3519E+07;B\n13519001;=cmd|' /C calc'!A0\n13519001;D\nana putri;E\n+62;F\n"),
			[]Listed{{NIM: "13519001", Name: "=cmd|' /C calc'!A0", Line: 4}},
			[]ListProblem{{Line: 2, Why: ListFormula, Value: `=HYPERLINK("http://x")`}, {Line: 3, Why: ListNumber, Value: "1.3519E+07"},
				{Line: 5, Why: ListDuplicate, Value: "13519001", Other: 4}, {Line: 6, Why: ListBadNIM, Value: "ana putri"}, {Line: 7, Why: ListFormula, Value: "+62"}}},
	} {
		got, problems, err := ParseList(tt.data)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.want) || fmt.Sprint(problems) != fmt.Sprint(tt.problems) {
			t.Errorf("%s:\n got %+v %+v %v\nwant %+v %+v", tt.name, got, problems, err, tt.want, tt.problems)
		}
	}
	var big strings.Builder
	big.WriteString("NIM;Nama\n")
	for i := range MaxList + 10 {
		fmt.Fprintf(&big, "%d;Mahasiswa %d\n", 13500000+i, i)
	}
	got, problems, err := ParseList([]byte(big.String()))
	if err != nil || len(got) != MaxList || len(problems) != 1 || problems[0].Why != ListTooMany || problems[0].Line != MaxList+2 {
		t.Errorf("%d rows: %d taken, problems %+v, %v", MaxList+10, len(got), problems, err)
	}
	if _, _, err := ParseList(bytes.Repeat([]byte("1"), MaxListSize+1)); !errors.Is(err, ErrBadInput) {
		t.Errorf("a list over %d bytes: %v", MaxListSize, err)
	}

	eachStore(t, func(t *testing.T, d db) {
		clk := newClock()
		s := open(t, d, Config{Now: clk.Now, Retention: time.Hour})
		c, _, _ := classOf(t, s)
		ok(t, s.SetSettings(ctx, c.ID, Settings{NIM: NIMAsk}))
		must(s.JoinAs(ctx, c.Code, "", "Ana", "13500002"))
		list := got[:3000]
		start := time.Now()
		ok(t, s.SetList(ctx, c.ID, list))
		t.Logf("3000 rows stored in %v", time.Since(start))
		back := must(s.ClassList(ctx, c.ID))
		if len(back) != 3000 || back[2].NIM != "13500002" || !back[2].Joined || back[0].Joined || back[0].Name != "Mahasiswa 0" {
			t.Errorf("class list read back: %d rows, %+v", len(back), back[:3])
		}
		ok(t, s.SetList(ctx, c.ID, list[:1]))
		if n := len(must(s.ClassList(ctx, c.ID))); n != 1 {
			t.Errorf("a second list keeps %d rows, want it to replace the first", n)
		}
		ok(t, s.End(ctx, c.ID))
		clk.Add(2 * time.Hour)
		must(s.Purge(ctx))
		var n int
		ok(t, s.db.QueryRow(inDialect(s, "SELECT COUNT(*) FROM roster WHERE class_id = ?", "SELECT COUNT(*) FROM roster WHERE class_id = $1"), c.ID).Scan(&n))
		if n != 0 {
			t.Errorf("%d names left after the class was deleted", n)
		}
	})
}

// TestTimedVote: a vote with a timer takes no vote from its time on, and
// CloseDue closes it then, not before.
func TestTimedVote(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		clk := newClock()
		s := open(t, d, Config{Now: clk.Now})
		c, _, st := classOf(t, s, "Ana", "Budi")
		r := must(s.OpenRound(ctx, c.ID, "w1-w2", "storage-checks", []string{"a", "b"}))
		ok(t, s.SetTimer(ctx, c.ID, r.ID, 30*time.Second))
		if tl := must(s.Rounds(ctx, c.ID)); !tl[0].Round.Closes.Equal(clk.Now().Add(30 * time.Second)) {
			t.Errorf("closes at %v, want 30 s from now", tl[0].Round.Closes)
		}
		if ts := must(s.Timed(ctx)); len(ts) != 1 || ts[0].Round != r.ID {
			t.Errorf("timed rounds: %+v", ts)
		}
		clk.Add(29 * time.Second)
		ok(t, s.Vote(ctx, c.ID, st[0].ID, r.ID, "a"))
		if closed := must(s.CloseDue(ctx, c.ID, r.ID)); closed {
			t.Error("closed a second early")
		}
		clk.Add(time.Second)
		is(t, "a vote at the timer's time", s.Vote(ctx, c.ID, st[1].ID, r.ID, "b"), ErrRoundClosed)
		if closed := must(s.CloseDue(ctx, c.ID, r.ID)); !closed {
			t.Error("not closed at its time")
		}
		if tl := must(s.Rounds(ctx, c.ID)); tl[0].Round.State != RoundClosed || tl[0].Voters != 1 {
			t.Errorf("after the timer: %+v", tl[0])
		}
		if ts := must(s.Timed(ctx)); len(ts) != 0 {
			t.Errorf("a closed round is still timed: %+v", ts)
		}
		is(t, "a timer on a closed vote", s.SetTimer(ctx, c.ID, r.ID, time.Minute), ErrRoundClosed)
		is(t, "a timer of nothing", s.SetTimer(ctx, c.ID, r.ID, 0), ErrBadInput)
	})
}

// TestConfidenceCounts: the counts of a round say, per choice, how many
// were sure and how many not.
func TestConfidenceCounts(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		s := open(t, d, Config{})
		c, _, st := classOf(t, s, "Ana", "Budi", "Citra", "Dewi")
		r := must(s.OpenRound(ctx, c.ID, "w1-w2", "storage-checks", []string{"a", "b"}))
		for i, v := range []struct {
			choice string
			sure   Confidence
		}{{"a", Sure}, {"a", Unsure}, {"b", Sure}, {"b", NotAsked}} {
			must(s.Cast(ctx, c.ID, st[i].ID, r.ID, v.choice, v.sure))
		}
		must(s.Cast(ctx, c.ID, st[0].ID, r.ID, "a", Unsure)) // Ana changes her mind about how sure
		tl := must(s.Rounds(ctx, c.ID))[0]
		if tl.Sure["a"] != 0 || tl.Unsure["a"] != 2 || tl.Sure["b"] != 1 || tl.Unsure["b"] != 0 || tl.Voters != 4 {
			t.Errorf("sure %v, unsure %v, voters %d", tl.Sure, tl.Unsure, tl.Voters)
		}
	})
}

// TestTypedQuestion: a typed question keeps its text as typed (markup
// too: the pages show it as text), has 2 to 5 choices, and goes through
// the same two votes.
func TestTypedQuestion(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		s := open(t, d, Config{})
		c, _, st := classOf(t, s, "Ana")
		for _, bad := range [][]string{{"one"}, {"a", "b", "c", "d", "e", "f"}, {"same", "same"}, {"", " "}} {
			_, err := s.Type(ctx, c.ID, "Q?", bad, 0)
			is(t, fmt.Sprintf("choices %q", bad), err, ErrBadInput)
		}
		_, err := s.Type(ctx, c.ID, " ", []string{"a", "b"}, 0)
		is(t, "no text", err, ErrBadInput)
		_, err = s.Type(ctx, c.ID, "Q?", []string{"a", "b"}, 3)
		is(t, "a right choice that is none", err, ErrBadInput)
		ty := must(s.Type(ctx, c.ID, "<img src=x onerror=alert(1)> W1 or W2?", []string{"W1", "<b>W2</b>"}, 0))
		if !IsTyped(ty.ID) || ty.Right != "" || ty.Choice("2") != "<b>W2</b>" {
			t.Errorf("typed: %+v", ty)
		}
		if now := must(s.ByID(ctx, c.ID)); now.Now.Question != ty.ID {
			t.Errorf("the class works on %q, want the typed question", now.Now.Question)
		}
		back := must(s.TypedQuestion(ctx, c.ID, ty.ID))
		if back.Text != ty.Text || !slices.Equal(back.Choices, ty.Choices) {
			t.Errorf("read back: %+v", back)
		}
		for range 2 {
			r := must(s.OpenRound(ctx, c.ID, "", ty.ID, ty.ChoiceIDs()))
			ok(t, s.Vote(ctx, c.ID, st[0].ID, r.ID, "2"))
			ok(t, s.CloseRound(ctx, c.ID, r.ID))
		}
		_, err = s.OpenRound(ctx, c.ID, "", ty.ID, ty.ChoiceIDs())
		is(t, "a third vote", err, ErrRoundLimit)
		_, err = s.OpenRound(ctx, c.ID, "", "no-lab-question", []string{"a", "b"})
		is(t, "a lab's question without its lab", err, ErrBadInput)
	})
}

// TestWhys: a student explains their vote; the list has no name; one
// shown on the projector is kept with the class.
func TestWhys(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		clk := newClock()
		s := open(t, d, Config{Now: clk.Now})
		c, _, st := classOf(t, s, "Ana", "Budi")
		r := must(s.OpenRound(ctx, c.ID, "w1-w2", "storage-checks", []string{"a", "b"}))
		is(t, "a why without a vote", s.SetWhy(ctx, c.ID, st[0].ID, r.ID, "because"), ErrBadChoice)
		ok(t, s.Vote(ctx, c.ID, st[0].ID, r.ID, "a"))
		ok(t, s.Vote(ctx, c.ID, st[1].ID, r.ID, "b"))
		ok(t, s.SetWhy(ctx, c.ID, st[0].ID, r.ID, "the token is <b>checked</b>"))
		clk.Add(time.Second)
		ok(t, s.SetWhy(ctx, c.ID, st[1].ID, r.ID, "W1 paused"))
		is(t, "a why too long", s.SetWhy(ctx, c.ID, st[1].ID, r.ID, strings.Repeat("x", MaxWhy+1)), ErrBadInput)
		ws := must(s.Whys(ctx, c.ID, r.ID, 10))
		if len(ws) != 2 || ws[0].Choice != "a" || ws[0].Text != "the token is <b>checked</b>" || ws[1].Choice != "b" {
			t.Errorf("whys: %+v", ws)
		}
		ok(t, s.ShowWhy(ctx, c.ID, ws[1].Text))
		if got := must(s.ByID(ctx, c.ID)).Settings.ShownWhy; got != "W1 paused" {
			t.Errorf("shown why %q", got)
		}
		ok(t, s.Reveal(ctx, c.ID, r.ID))
		is(t, "a why after the reveal", s.SetWhy(ctx, c.ID, st[0].ID, r.ID, "changed"), ErrRoundClosed)
	})
}

// TestMigrationGaps: a database that ran the first and the last schema
// step (say 001 and 003, without 002 in between) gets the ones between
// when it opens; its rows are kept.
func TestMigrationGaps(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		raw := rawDB(t, d)
		ms := must(migrations())
		if len(ms) < 2 {
			t.Skip("one schema step only")
		}
		first, last := ms[0], ms[len(ms)-1]
		for _, q := range []string{"CREATE TABLE schema_version (version INTEGER NOT NULL)", first.sql,
			fmt.Sprintf("INSERT INTO schema_version VALUES (%d)", first.version),
			"INSERT INTO classes (id, code, token_hash, name, lang, created) VALUES ('old', 'ACEFGH', 'h', 'Lama', 'id', 1)"} {
			_, err := raw.Exec(q)
			ok(t, err)
		}
		if _, err := raw.Exec(last.sql); err == nil {
			_, err = raw.Exec(fmt.Sprintf("INSERT INTO schema_version VALUES (%d)", last.version))
			ok(t, err)
		} else {
			t.Fatalf("step %03d does not run right after %03d: %v", last.version, first.version, err)
		}
		raw.Close()
		s := open(t, d, Config{})
		var got []int
		rows, err := s.db.Query("SELECT version FROM schema_version ORDER BY version")
		ok(t, err)
		for rows.Next() {
			var v int
			ok(t, rows.Scan(&v))
			got = append(got, v)
		}
		rows.Close()
		var want []int
		for _, m := range ms {
			want = append(want, m.version)
		}
		if !slices.Equal(got, want) {
			t.Errorf("steps run %v, want %v", got, want)
		}
		if c := must(s.ByID(ctx, "old")); c.Name != "Lama" || c.Settings.NIM != NIMOff {
			t.Errorf("the old class: %+v", c)
		}
	})
}
