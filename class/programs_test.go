package class

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// The store's side of issue 49: every Submit of a class's student is
// kept (the last per lab), counted, grouped by its schedule, shown on
// the projector without its student, exported, and kept across a
// restart. Which verdict and schedule a program gets is the engine's
// (web's TestClassProgramsThirtyStudents judges them); here they are
// given.

// TestClassPrograms: 30 students submit to one lab; the counts, the
// schedules commonest first (ties in byte order), a student's later
// program replacing the earlier one, the projector's picks going round,
// the export, and a restart in the middle.
func TestClassPrograms(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		clk := newClock()
		s := open(t, d, Config{Now: clk.Now})
		nicks := make([]string, 30)
		for i := range nicks {
			nicks[i] = fmt.Sprintf("m%02d", i)
		}
		c, _, st := classOf(t, s, nicks...)
		const lab = "write-renewal"
		pause, spike := "pause 6s at 14s", "spike 2s at 3s; pause 1.5s at 9s"
		// i%6: 0 and 1 pass; 2 and 3 break on pause; 4 on spike; 5 fails
		// by itself. Students 0 to 14 now, the rest after a restart.
		subOf := func(i int) Submission {
			sub := Submission{Lab: lab, Text: fmt.Sprintf("# m%02d\ndef on_start(w, ev):\n    w.acquire()\n", i)}
			switch i % 6 {
			case 0, 1:
				sub.Verdict = VerdictPass
			case 2, 3:
				sub.Verdict, sub.Schedule, sub.Line, sub.Moment = VerdictFail, pause, 3, 20_000
			case 4:
				sub.Verdict, sub.Schedule, sub.Line, sub.Moment = VerdictFail, spike, 2, 9_500
			default:
				sub.Verdict, sub.Line = VerdictFault, 3
			}
			return sub
		}
		for i := range 15 {
			clk.Add(time.Second)
			ok(t, s.Submitted(ctx, c.ID, st[i].ID, subOf(i)))
		}
		ok(t, s.ShowProgram(ctx, c.ID, lab, 0))
		s.Close()
		s = open(t, d, Config{Now: clk.Now})
		shown := must(s.Shown(ctx, c.ID))
		if shown == nil || shown.Schedule != pause || shown.Pick != 1 || shown.Of != 7 || !strings.HasPrefix(shown.Text, "# m02") {
			t.Fatalf("shown after the restart: %+v", shown)
		}
		for i := 15; i < 30; i++ {
			clk.Add(time.Second)
			ok(t, s.Submitted(ctx, c.ID, st[i].ID, subOf(i)))
		}
		tally := must(s.Programs(ctx, c.ID, lab))
		want := ProgramTally{Lab: lab, Submitted: 30, Passed: 10, Failed: 15, Errors: 5,
			Schedules: []ScheduleCount{{pause, 10}, {spike, 5}}}
		if fmt.Sprint(tally) != fmt.Sprint(want) {
			t.Errorf("tally %+v, want %+v", tally, want)
		}
		// Student 2 fixes their program: their pass replaces the failure;
		// the same program again is not counted again.
		clk.Add(time.Second)
		fixed := Submission{Lab: lab, Text: "def on_start(w, ev):\n    pass\n", Verdict: VerdictPass}
		ok(t, s.Submitted(ctx, c.ID, st[2].ID, fixed))
		ok(t, s.Submitted(ctx, c.ID, st[2].ID, fixed))
		if tally := must(s.Programs(ctx, c.ID, lab)); tally.Passed != 11 || tally.Failed != 14 || tally.Schedules[0] != (ScheduleCount{pause, 9}) {
			t.Errorf("after a fix: %+v", tally)
		}
		g := must(s.Grades(ctx, c.ID, testCourse(t)))
		if i := slices.IndexFunc(g.Students, func(x StudentGrade) bool { return x.ID == st[2].ID }); g.Students[i].Last[lab].Submits != 2 || g.Students[i].ProgramsPassed != 1 {
			t.Errorf("student 2's last program: %+v", g.Students[i])
		}
		// The picks go round the 14 failing programs: the 9 of the
		// commonest schedule first, oldest first, then the 5 of the other.
		var seen []string
		ok(t, s.ShowProgram(ctx, c.ID, lab, 0))
		for range 14 {
			p := must(s.Shown(ctx, c.ID))
			seen = append(seen, p.Schedule+" "+strings.SplitN(p.Text, "\n", 2)[0])
			ok(t, s.ShowProgram(ctx, c.ID, lab, 1))
		}
		if p := must(s.Shown(ctx, c.ID)); p.Pick != 1 || p.Of != 14 || !strings.HasPrefix(p.Text, "# m03") {
			t.Errorf("after going round: %+v", p)
		}
		if seen[0] != pause+" # m03" || seen[9] != spike+" # m04" || len(slices.Compact(slices.Clone(seen))) != 14 {
			t.Errorf("the order shown: %q", seen)
		}
		ok(t, s.ShowProgram(ctx, c.ID, lab, -1))
		if p := must(s.Shown(ctx, c.ID)); p.Pick != 14 || p.Schedule != spike {
			t.Errorf("the one before the first: %+v", p)
		}
		is(t, "no failing program in another lab", s.ShowProgram(ctx, c.ID, "write-one-loop", 0), ErrNoProgram)
		ok(t, s.HideProgram(ctx, c.ID))
		if p := must(s.Shown(ctx, c.ID)); p != nil {
			t.Errorf("hidden, still shown: %+v", p)
		}
		exportHoldsPrograms(t, s, c.ID, st)
	})
}

// exportHoldsPrograms: the JSON and CSV exports hold every student's last
// program, its verdict and schedule.
func exportHoldsPrograms(t *testing.T, s *Service, classID string, st []Student) {
	t.Helper()
	var b bytes.Buffer
	ok(t, s.Export(ctx, classID, &b, JSON, testCourse(t)))
	var x exportClass
	ok(t, json.Unmarshal(b.Bytes(), &x))
	n := 0
	for _, es := range x.Students {
		for _, sub := range es.Submitted {
			n++
			if sub.Lab != "write-renewal" || sub.Program == "" || sub.Verdict == VerdictFail && sub.Schedule == "" {
				t.Errorf("%s's program in the JSON: %+v", es.Nick, sub)
			}
		}
	}
	if n != len(st) {
		t.Errorf("the JSON holds %d programs, want %d", n, len(st))
	}
	b.Reset()
	ok(t, s.Export(ctx, classID, &b, CSV, testCourse(t)))
	rows, err := csv.NewReader(&b).ReadAll()
	ok(t, err)
	prog, verdict := slices.Index(rows[0], "write-renewal / last program"), slices.Index(rows[0], "write-renewal / last verdict")
	if prog < 0 || verdict < 0 {
		t.Fatalf("no program columns in %q", rows[0])
	}
	for _, r := range rows[1:] {
		if r[verdict] == "" || !strings.Contains(r[prog], "def on_start") {
			t.Errorf("%s's program in the CSV: %q / %q", r[1], r[verdict], r[prog])
		}
	}
}

// TestSubmittedLimits: a program is cut to MaxProgram bytes at a rune's
// start; an unknown verdict, a student of no class and an ended class
// are refused.
func TestSubmittedLimits(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		s := open(t, d, Config{})
		c, _, st := classOf(t, s, "Ana")
		long := strings.Repeat("é", MaxProgram) // two bytes each
		ok(t, s.Submitted(ctx, c.ID, st[0].ID, Submission{Lab: "write-renewal", Text: long, Verdict: VerdictCompile}))
		g := must(s.Grades(ctx, c.ID, testCourse(t)))
		if got := g.Students[0].Last["write-renewal"].Text; len(got) != MaxProgram || !strings.HasPrefix(long, got) {
			t.Errorf("kept %d bytes", len(got))
		}
		is(t, "an unknown verdict", s.Submitted(ctx, c.ID, st[0].ID, Submission{Lab: "write-renewal", Verdict: "maybe"}), ErrBadInput)
		is(t, "no student", s.Submitted(ctx, c.ID, "nobody", Submission{Lab: "write-renewal", Verdict: VerdictPass}), ErrNotJoined)
		ok(t, s.End(ctx, c.ID))
		is(t, "an ended class", s.Submitted(ctx, c.ID, st[0].ID, Submission{Lab: "write-renewal", Verdict: VerdictPass}), ErrEnded)
	})
}

// TestMigrationToPrograms: a database at schema 3 with a class, a student
// and a program lab passed opens at schema 4; its rows are kept, and its
// student's Submit is kept and counted.
func TestMigrationToPrograms(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		raw := rawDB(t, d)
		ms := must(migrations())
		qs := []string{"CREATE TABLE schema_version (version INTEGER NOT NULL)"}
		for _, m := range ms {
			if m.version <= 3 {
				qs = append(qs, m.sql, fmt.Sprintf("INSERT INTO schema_version VALUES (%d)", m.version))
			}
		}
		qs = append(qs, "INSERT INTO classes (id, code, token_hash, name, lang, created) VALUES ('old', 'ACEFGH', 'h', 'Lama', 'id', 1)",
			"INSERT INTO students (class_id, id, nick, restore_key, joined) VALUES ('old', 's1', 'Ana', 'KEYKEYKE', 1)",
			"INSERT INTO passed (class_id, lab, student_id, at) VALUES ('old', 'write-renewal', 's1', 2)")
		for _, q := range qs {
			_, err := raw.Exec(q)
			ok(t, err)
		}
		raw.Close()
		s := open(t, d, Config{})
		g := must(s.Grades(ctx, "old", testCourse(t)))
		if len(g.Students) != 1 || g.Students[0].ProgramsPassed != 1 || len(g.Students[0].Last) != 0 {
			t.Fatalf("the old class's grades: %+v", g.Students)
		}
		ok(t, s.Submitted(ctx, "old", "s1", Submission{Lab: "write-renewal", Text: "def on_start(w, ev):\n    w.aquire()\n", Verdict: VerdictFault, Line: 2}))
		if tally := must(s.Programs(ctx, "old", "write-renewal")); tally.Submitted != 1 || tally.Errors != 1 {
			t.Errorf("tally after the migration: %+v", tally)
		}
	})
}
