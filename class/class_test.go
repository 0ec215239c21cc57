package class

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var ctx = context.Background()

// must takes a value and an error from a call; an error fails the test
// run (by a panic: Go passes a call's two results to a function only
// when they are all it takes).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func is(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: got %v, want %v", what, err, want)
	}
}

// classOf makes a class with the students named (nicknames) joined.
func classOf(t *testing.T, s *Service, nicks ...string) (Class, string, []Student) {
	t.Helper()
	c, token, err := s.Create(ctx, "Sistem Terdistribusi A", "id")
	ok(t, err)
	var sts []Student
	for _, n := range nicks {
		sts = append(sts, must(s.Join(ctx, strings.ToLower(c.Code), "", n)))
	}
	return c, token, sts
}

func TestVoteRounds(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		s := open(t, d, Config{})
		c, _, st := classOf(t, s, "Ana", "Budi", "")
		other, _, outsider := classOf(t, s, "Citra")
		choices := []string{"W1", "W2", "keduanya"}
		r1 := must(s.OpenRound(ctx, c.ID, "w1-w2", "siapa yang menulis?", choices))
		if r1.N != 1 || r1.State != RoundOpen {
			t.Fatalf("first round: %+v", r1)
		}
		ok(t, s.Vote(ctx, c.ID, st[0].ID, r1.ID, "W1"))
		ok(t, s.Vote(ctx, c.ID, st[1].ID, r1.ID, "W1"))
		ok(t, s.Vote(ctx, c.ID, st[1].ID, r1.ID, "W2")) // changes Budi's answer
		ok(t, s.Vote(ctx, c.ID, st[2].ID, r1.ID, "W2"))
		is(t, "a choice the round lacks", s.Vote(ctx, c.ID, st[0].ID, r1.ID, "W3"), ErrBadChoice)
		is(t, "a student of another class", s.Vote(ctx, c.ID, outsider[0].ID, r1.ID, "W1"), ErrNotJoined)
		is(t, "a round of another class", s.Vote(ctx, other.ID, outsider[0].ID, r1.ID, "W1"), ErrNoRound)

		ok(t, s.CloseRound(ctx, c.ID, r1.ID))
		is(t, "a closed round", s.Vote(ctx, c.ID, st[0].ID, r1.ID, "W2"), ErrRoundClosed)
		r2 := must(s.OpenRound(ctx, c.ID, "w1-w2", "siapa yang menulis?", choices))
		if r2.N != 2 || r2.ID == r1.ID {
			t.Fatalf("second round: %+v after %+v", r2, r1)
		}
		ok(t, s.Vote(ctx, c.ID, st[0].ID, r2.ID, "W2"))
		ok(t, s.Vote(ctx, c.ID, st[1].ID, r2.ID, "W2"))
		_, err := s.OpenRound(ctx, c.ID, "w1-w2", "siapa yang menulis?", choices)
		is(t, "a third round", err, ErrRoundLimit)
		r3 := must(s.OpenRound(ctx, c.ID, "w1-w2", "token berapa?", []string{"33", "34"}))
		ok(t, s.ShowCounts(ctx, c.ID, r3.ID, true))
		is(t, "showing a round that is not there", s.ShowCounts(ctx, c.ID, 99, true), ErrNoRound)

		tallies := must(s.Rounds(ctx, c.ID))
		if len(tallies) != 3 {
			t.Fatalf("%d rounds, want 3", len(tallies))
		}
		want := []struct {
			state  string
			shown  bool
			counts map[string]int
		}{
			{RoundClosed, false, map[string]int{"W1": 1, "W2": 2, "keduanya": 0}},
			{RoundClosed, false, map[string]int{"W1": 0, "W2": 2, "keduanya": 0}}, // closed by opening r3
			{RoundOpen, true, map[string]int{"33": 0, "34": 0}},
		}
		for i, w := range want {
			got := tallies[i]
			voters := 0
			for _, n := range w.counts {
				voters += n
			}
			if got.Round.State != w.state || got.Round.Shown != w.shown || !maps.Equal(got.Counts, w.counts) || got.Voters != voters {
				t.Errorf("round %d: %+v, want state %s shown %v counts %v", i+1, got, w.state, w.shown, w.counts)
			}
		}
		ok(t, s.Reveal(ctx, c.ID, r1.ID))
		tallies = must(s.Rounds(ctx, c.ID))
		if r := tallies[0].Round; r.State != RoundRevealed || !r.Shown {
			t.Errorf("revealed round: %+v", r)
		}
		mine := must(s.Votes(ctx, c.ID, st[1].ID))
		if !maps.Equal(mine, map[int64]string{r1.ID: "W2", r2.ID: "W2"}) {
			t.Errorf("Budi's own votes: %v", mine)
		}
	})
}

func TestJoinCodesAndKeys(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		s := open(t, d, Config{})
		c, token, st := classOf(t, s, "Ana")
		if len(c.Code) != CodeLength || NormalizeCode(c.Code, CodeLength) != c.Code {
			t.Errorf("code %q is not %d signs of %s", c.Code, CodeLength, CodeAlphabet)
		}
		if len(token) < 22 { // 128 bits in base64 is 22 signs
			t.Errorf("instructor token %q is shorter than 128 bits", token)
		}
		spaced := strings.ToLower(c.Code[:3]) + " - " + c.Code[3:]
		if got := must(s.ByCode(ctx, spaced)); got.ID != c.ID {
			t.Errorf("ByCode(%q) = %+v", spaced, got)
		}
		if got := must(s.ByToken(ctx, token)); got.ID != c.ID {
			t.Errorf("ByToken: %+v", got)
		}
		forged := token[:len(token)-1] + "A"
		if forged == token {
			forged = token[:len(token)-1] + "B"
		}
		_, err := s.ByToken(ctx, forged)
		is(t, "a forged token", err, ErrNoClass)
		_, err = s.ByCode(ctx, "OOOOOO")
		is(t, "a code with look-alike letters", err, ErrNoClass)

		again := must(s.Join(ctx, c.Code, st[0].ID, ""))
		if again != st[0] {
			t.Errorf("joining again gave %+v, want %+v", again, st[0])
		}
		renamed := must(s.Join(ctx, c.Code, st[0].ID, "Ana K"))
		if renamed.Nick != "Ana K" || renamed.Key != st[0].Key {
			t.Errorf("joining with a new nickname gave %+v", renamed)
		}
		if n := must(s.StudentCount(ctx, c.ID)); n != 1 {
			t.Errorf("%d students after one joined twice", n)
		}
		typed := strings.ToLower(st[0].Key[:4]) + " " + st[0].Key[4:]
		if got := must(s.Restore(ctx, c.Code, typed)); got.ID != st[0].ID {
			t.Errorf("Restore(%q) = %+v, want %+v", typed, got, st[0])
		}
		_, err = s.Restore(ctx, c.Code, "AAAAAAAA")
		is(t, "a wrong key", err, ErrNoKey)
		_, err = s.Join(ctx, c.Code, "short", "")
		is(t, "a student id of the wrong shape", err, ErrBadInput)
		_, err = s.Student(ctx, c.ID, newStudentID())
		is(t, "a student who did not join", err, ErrNotJoined)

		ok(t, s.End(ctx, c.ID))
		ok(t, s.End(ctx, c.ID))
		ended, err := s.ByCode(ctx, c.Code)
		is(t, "the code of an ended class", err, ErrEnded)
		if ended.ID != c.ID || ended.Ended == nil {
			t.Errorf("ByCode of an ended class gave %+v", ended)
		}
		_, err = s.Join(ctx, c.Code, "", "")
		is(t, "joining an ended class", err, ErrEnded)
		if got := must(s.ByToken(ctx, token)); got.Ended == nil {
			t.Errorf("ByToken of an ended class: %+v", got)
		}
		is(t, "ending a class that is not there", s.End(ctx, "nope"), ErrNoClass)
	})
}

func TestProgress(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		s := open(t, d, Config{})
		c, _, st := classOf(t, s, "a", "b", "c", "d", "e")
		steps := []struct {
			who int
			cmd string
		}{
			{0, "freeze W1"}, {1, "freeze W1"}, {2, "advance 5s"}, {3, "freeze W1"}, {0, "thaw W1"},
		}
		for _, x := range steps {
			ok(t, s.Step(ctx, c.ID, st[x.who].ID, "w1-w2", x.cmd))
		}
		ok(t, s.Step(ctx, c.ID, st[4].ID, "other-lab", "advance 1s"))
		ok(t, s.Reached(ctx, c.ID, st[0].ID, "w1-w2", "stale-write"))
		ok(t, s.Reached(ctx, c.ID, st[0].ID, "w1-w2", "stale-write"))
		ok(t, s.Reached(ctx, c.ID, st[3].ID, "w1-w2", "stale-write"))
		ok(t, s.Step(ctx, c.ID, newStudentID(), "w1-w2", "x")) // not a student: dropped when written
		got := must(s.Progress(ctx, c.ID, "w1-w2", []string{"stale-write", "fenced"}))
		want := []GoalProgress{
			{Goal: "stale-write", Reached: 2, Working: 2, CommonLastStep: "advance 5s", CommonLastStepN: 1},
			{Goal: "fenced", Reached: 0, Working: 4, CommonLastStep: "freeze W1", CommonLastStepN: 2},
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Progress:\n got %+v\nwant %+v", got, want)
		}
		// The dashboard's list: each student, their goals and last step.
		roster := must(s.Roster(ctx, c.ID, "w1-w2", 100))
		wantRoster := []RosterRow{
			{st[0].ID, "a", []string{"stale-write"}, "thaw W1"}, {st[1].ID, "b", nil, "freeze W1"},
			{st[2].ID, "c", nil, "advance 5s"}, {st[3].ID, "d", []string{"stale-write"}, "freeze W1"}, {st[4].ID, "e", nil, ""},
		}
		// In the order they joined: here all in the same millisecond.
		byID := func(a, b RosterRow) int { return strings.Compare(a.ID, b.ID) }
		slices.SortFunc(roster, byID)
		slices.SortFunc(wantRoster, byID)
		if fmt.Sprint(roster) != fmt.Sprint(wantRoster) {
			t.Errorf("Roster:\n got %+v\nwant %+v", roster, wantRoster)
		}
		if n := len(must(s.Roster(ctx, c.ID, "w1-w2", 2))); n != 2 {
			t.Errorf("Roster with a limit of 2: %d rows", n)
		}
		// An ended class takes no more steps.
		ok(t, s.End(ctx, c.ID))
		ok(t, s.Step(ctx, c.ID, st[2].ID, "w1-w2", "freeze W1"))
		if got := must(s.Progress(ctx, c.ID, "w1-w2", []string{"fenced"})); got[0].CommonLastStepN != 2 {
			t.Errorf("a step after the end was kept: %+v", got)
		}
	})
}

func TestSurvivesRestart(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		s, err := Open(ctx, d.cfg(Config{}))
		ok(t, err)
		c, token, st := classOf(t, s, "Ana")
		r := must(s.OpenRound(ctx, c.ID, "lab", "q", []string{"a", "b"}))
		ok(t, s.Vote(ctx, c.ID, st[0].ID, r.ID, "b"))
		ok(t, s.Push(ctx, c.ID, "/id/labs/w1-w2?seed=7"))
		ok(t, s.Close())

		s = open(t, d, Config{})
		again := must(s.ByToken(ctx, token))
		if again.Code != c.Code || again.Pushed != "/id/labs/w1-w2?seed=7" {
			t.Errorf("after a restart: %+v", again)
		}
		if got := must(s.Votes(ctx, c.ID, st[0].ID)); got[r.ID] != "b" {
			t.Errorf("after a restart the vote is %v", got)
		}
		if got := must(s.Restore(ctx, c.Code, st[0].Key)); got.ID != st[0].ID {
			t.Errorf("after a restart the key restores %+v", got)
		}
	})
}

func TestNewerSchemaRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		s, err := Open(ctx, d.cfg(Config{}))
		ok(t, err)
		_, err = s.db.Exec("INSERT INTO schema_version (version) VALUES (99)")
		ok(t, err)
		ok(t, s.Close())
		_, err = Open(ctx, d.cfg(Config{}))
		is(t, "a database of a newer leaselab", err, ErrNewerSchema)
		if err != nil && !strings.Contains(err.Error(), "schema 99") {
			t.Errorf("the message does not say which schema: %v", err)
		}
	})
}

func TestPurgeAfterRetention(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		clk := newClock()
		s := open(t, d, Config{Now: clk.Now, Retention: 30 * 24 * time.Hour})
		ended, _, st := classOf(t, s, "Ana")
		running, _, _ := classOf(t, s, "Budi")
		ok(t, s.Reached(ctx, ended.ID, st[0].ID, "lab", "goal"))
		ok(t, s.End(ctx, ended.ID))
		clk.Add(30*24*time.Hour - time.Minute)
		if n := must(s.Purge(ctx)); n != 0 {
			t.Errorf("purged %d classes before the retention ran out", n)
		}
		clk.Add(2 * time.Minute)
		if n := must(s.Purge(ctx)); n != 1 {
			t.Errorf("purged %d classes, want the ended one", n)
		}
		_, err := s.ByID(ctx, ended.ID)
		is(t, "a purged class", err, ErrNoClass)
		var left int
		ok(t, s.db.QueryRow(inDialect(s, "SELECT COUNT(*) FROM reached WHERE class_id = ?", "SELECT COUNT(*) FROM reached WHERE class_id = $1"), ended.ID).Scan(&left))
		if left != 0 {
			t.Errorf("%d goals of the purged class left", left)
		}
		if _, err := s.ByID(ctx, running.ID); err != nil {
			t.Errorf("the running class: %v", err)
		}
	})
}

func TestExport(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		clk := newClock()
		s := open(t, d, Config{Now: clk.Now})
		c, _, _ := classOf(t, s)
		var st []Student
		for _, nick := range []string{"Ana", "Budi"} {
			clk.Add(time.Second) // the export lists students in the order they joined
			st = append(st, must(s.Join(ctx, c.Code, "", nick)))
		}
		r1 := must(s.OpenRound(ctx, c.ID, "=lab", "@q", []string{"-1", "+1"}))
		ok(t, s.Vote(ctx, c.ID, st[0].ID, r1.ID, "-1"))
		ok(t, s.CloseRound(ctx, c.ID, r1.ID))
		r2 := must(s.OpenRound(ctx, c.ID, "=lab", "@q", []string{"-1", "+1"}))
		ok(t, s.Vote(ctx, c.ID, st[0].ID, r2.ID, "+1"))
		ok(t, s.Vote(ctx, c.ID, st[1].ID, r2.ID, "-1"))
		ok(t, s.Reached(ctx, c.ID, st[1].ID, "=lab", "goal"))

		var b bytes.Buffer
		ok(t, s.Export(ctx, c.ID, &b, CSV, testCourse(t)))
		rows, err := csv.NewReader(&b).ReadAll()
		ok(t, err)
		if len(rows) != 3 {
			t.Fatalf("%d rows, want a head and two students:\n%v", len(rows), rows)
		}
		for _, row := range rows {
			for _, cell := range row {
				if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
					t.Errorf("cell %q starts a formula", cell)
				}
			}
		}
		// student, nickname, NIM, joined; vote, right, time of each of
		// the two votes (no right: the course has no such lab); the goal
		// (listed, scoring nothing in a lab the course lacks); the score.
		ana, budi := rows[1], rows[2]
		if len(ana) != 15 || ana[1] != "Ana" || ana[4] != "A" || ana[5] != "" || ana[7] != "B" || ana[10] != "" || ana[14] != "0" {
			t.Errorf("Ana's row: %q", ana)
		}
		if budi[4] != "" || budi[7] != "A" || budi[10] == "" || budi[12] != "0" {
			t.Errorf("Budi's row: %q", budi)
		}

		b.Reset()
		ok(t, s.Export(ctx, c.ID, &b, JSON, testCourse(t)))
		var x exportClass
		ok(t, json.Unmarshal(b.Bytes(), &x))
		if len(x.Students) != 2 || len(x.Students[0].Answers) != 2 || x.Students[0].Answers[1].Round != 2 || len(x.Students[1].Goals) != 1 {
			t.Errorf("JSON export: %+v", x)
		}
		is(t, "an unknown format", s.Export(ctx, c.ID, &b, "xlsx", testCourse(t)), ErrBadInput)
	})
}

func TestSubscribe(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		s := open(t, d, Config{})
		c, _, st := classOf(t, s, "Ana")
		other, _, _ := classOf(t, s, "Budi")
		changes, stop := s.Subscribe(c.ID)
		_, stopOther := s.Subscribe(other.ID)
		defer stopOther()
		r := must(s.OpenRound(ctx, c.ID, "lab", "q", []string{"a", "b"}))
		ok(t, s.Vote(ctx, c.ID, st[0].ID, r.ID, "a"))
		ok(t, s.SetActivity(ctx, other.ID, Activity{Lab: "lab"}))
		for _, want := range []Change{{c.ID, ChangedRound, r.ID}, {c.ID, ChangedVote, r.ID}} {
			select {
			case got := <-changes:
				if got != want {
					t.Errorf("change %+v, want %+v", got, want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no change %+v", want)
			}
		}
		// Each stored vote is told at once: the throttle between the votes
		// and the pages is the class's feed's (classroom).
		for i := range 3 {
			ok(t, s.Vote(ctx, c.ID, st[0].ID, r.ID, []string{"a", "b"}[i%2]))
			select {
			case got := <-changes:
				if got != (Change{c.ID, ChangedVote, r.ID}) {
					t.Errorf("change %+v, want a vote", got)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("vote %d was not told", i)
			}
		}
		// Many changes and nobody reading: the newest is kept.
		for range 3 * subscriberBuffer {
			ok(t, s.SetActivity(ctx, c.ID, Activity{Lab: "lab"}))
		}
		ok(t, s.Push(ctx, c.ID, "/en/labs/x"))
		var last Change
		for range subscriberBuffer {
			last = <-changes
		}
		if last.What != ChangedPush {
			t.Errorf("the last change kept is %+v, want the push", last)
		}
		stop()
		stop()
		if _, open := <-changes; open {
			t.Errorf("the channel is open after stop")
		}
	})
}

func TestUnavailable(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		clk := newClock()
		var logged []string
		s := open(t, d, Config{Now: clk.Now, Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
		c, token, st := classOf(t, s, "Ana")
		r := must(s.OpenRound(ctx, c.ID, "lab", "q", []string{"a", "b"}))
		ok(t, s.Vote(ctx, c.ID, st[0].ID, r.ID, "a"))
		// The database goes away under the service.
		ok(t, s.closeDB())
		for range 50 {
			is(t, "a vote with the database down", s.Vote(ctx, c.ID, st[0].ID, r.ID, "b"), ErrUnavailable)
		}
		_, err := s.ByCode(ctx, "ACEFGH") // a code not looked up before
		is(t, "a look-up with the database down", err, ErrUnavailable)
		if len(logged) != 1 {
			t.Errorf("logged %d times in one minute, want once: %q", len(logged), logged)
		}
		clk.Add(time.Minute)
		s.Vote(ctx, c.ID, st[0].ID, r.ID, "b")
		if len(logged) != 2 || !strings.Contains(logged[1], "50 more") {
			t.Errorf("a minute later: %q", logged)
		}
		// What was saved before is there when the database is back.
		s2 := open(t, d, Config{})
		if got := must(s2.Votes(ctx, must(s2.ByToken(ctx, token)).ID, st[0].ID)); got[r.ID] != "a" {
			t.Errorf("the vote saved before: %v", got)
		}
	})
}

func TestNicknames(t *testing.T) {
	for _, x := range []struct {
		in, want string
		ok       bool
	}{
		{"  Ana   Budi ", "Ana Budi", true},
		{"", "", true},
		{"O'Neil-2_x.", "O'Neil-2_x.", true},
		{"Dwi Ayu Wulandari", "Dwi Ayu Wulandari", true},
		{"=HYPERLINK(x)", "", false},
		{"-1", "", false},
		{"<script>", "", false},
		{"a\x00b", "", false},
		{strings.Repeat("a", MaxNick+1), "", false},
		{"\xff", "", false},
	} {
		got, err := Nick(x.in)
		if (err == nil) != x.ok || got != x.want {
			t.Errorf("Nick(%q) = %q, %v", x.in, got, err)
		}
		if err != nil && !errors.Is(err, ErrBadInput) {
			t.Errorf("Nick(%q): %v is not ErrBadInput", x.in, err)
		}
	}
}

func TestCodeAlphabet(t *testing.T) {
	for _, lookAlike := range "0OQD1IL2Z5S8BUV" {
		if strings.ContainsRune(CodeAlphabet, lookAlike) {
			t.Errorf("the alphabet has the look-alike %q", lookAlike)
		}
	}
	seen := map[byte]int{}
	for range 2000 {
		for _, ch := range []byte(randomCode(CodeLength)) {
			seen[ch]++
		}
	}
	if len(seen) != len(CodeAlphabet) {
		t.Errorf("12,000 signs drawn used %d of the %d", len(seen), len(CodeAlphabet))
	}
	for _, typed := range []string{"", "ACEFG", "ACEFGHJ", "ACEFG0", "ÄCEFGH"} {
		if got := NormalizeCode(typed, CodeLength); got != "" {
			t.Errorf("NormalizeCode(%q) = %q, want none", typed, got)
		}
	}
}

// TestVoteFlood: a class votes at once, with some votes refused among
// them; each vote gets its own answer and the counts are exact.
func TestVoteFlood(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		s := open(t, d, Config{})
		nicks := make([]string, 300)
		c, _, st := classOf(t, s, nicks...)
		other, _, outsiders := classOf(t, s, "x")
		r := must(s.OpenRound(ctx, c.ID, "lab", "q", []string{"a", "b", "c"}))
		ro := must(s.OpenRound(ctx, other.ID, "lab", "q", []string{"a", "b"}))
		errs := make([]error, len(st)+3)
		var wg sync.WaitGroup
		for i := range st {
			wg.Go(func() { errs[i] = s.Vote(ctx, c.ID, st[i].ID, r.ID, []string{"a", "b", "c"}[i%3]) })
		}
		wg.Go(func() { errs[300] = s.Vote(ctx, c.ID, st[0].ID, r.ID, "z") })
		wg.Go(func() { errs[301] = s.Vote(ctx, c.ID, outsiders[0].ID, r.ID, "a") })
		wg.Go(func() { errs[302] = s.Vote(ctx, other.ID, outsiders[0].ID, ro.ID, "b") })
		wg.Wait()
		for i, err := range errs[:300] {
			if err != nil {
				t.Errorf("vote %d: %v", i, err)
			}
		}
		is(t, "a bad choice among the flood", errs[300], ErrBadChoice)
		is(t, "an outsider among the flood", errs[301], ErrNotJoined)
		if errs[302] != nil {
			t.Errorf("a vote in another class during the flood: %v", errs[302])
		}
		tallies := must(s.Rounds(ctx, c.ID))
		if got := tallies[0]; got.Voters != 300 || !maps.Equal(got.Counts, map[string]int{"a": 100, "b": 100, "c": 100}) {
			t.Errorf("after the flood: %+v", got)
		}
		if got := must(s.Rounds(ctx, other.ID))[0]; got.Voters != 1 || got.Counts["b"] != 1 {
			t.Errorf("the other class: %+v", got)
		}
		// Every statement the writer ran was prepared once, at start.
		if n := s.txPrepares.Load(); n != 0 || len(s.stmts) != len(s.voteStmts()) {
			t.Errorf("%d of %d statements prepared at start; %d prepared in a transaction", len(s.stmts), len(s.voteStmts()), n)
		}
	})
}

// TestVotesOfStudentsJoinedElsewhere: a service that did not see a
// student join (another replica, or before a restart) reads whether they
// did, and then knows it; one who never joined is still refused, each
// time.
func TestVotesOfStudentsJoinedElsewhere(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		here := open(t, d, Config{})
		c, _, st := classOf(t, here, "a", "b")
		_, _, outsider := classOf(t, here, "x")
		there := open(t, d, Config{})
		r := must(here.OpenRound(ctx, c.ID, "lab", "q", []string{"a", "b"}))
		if there.members.has(c.ID, st[0].ID) || !here.members.has(c.ID, st[0].ID) {
			t.Fatal("a join is known to the service it went through only")
		}
		for range 2 {
			ok(t, there.Vote(ctx, c.ID, st[0].ID, r.ID, "a"))
			is(t, "a vote from a student of another class", there.Vote(ctx, c.ID, outsider[0].ID, r.ID, "a"), ErrNotJoined)
		}
		if !there.members.has(c.ID, st[0].ID) || there.members.has(c.ID, outsider[0].ID) {
			t.Error("the service did not learn who joined, or learnt a student who did not")
		}
		if got := must(here.Rounds(ctx, c.ID))[0]; got.Voters != 1 {
			t.Errorf("voters: %d", got.Voters)
		}
	})
}

// TestMemberCacheBounded: the cache of students known to have joined
// starts anew past maxMembers.
func TestMemberCacheBounded(t *testing.T) {
	var c memberCache
	for i := range maxMembers {
		c.add("c", strconv.Itoa(i))
	}
	if !c.has("c", "0") || len(c.m) != maxMembers {
		t.Fatalf("%d held", len(c.m))
	}
	c.add("c", "new")
	if len(c.m) != 1 || c.has("c", "0") || !c.has("c", "new") {
		t.Errorf("past the bound: %d held", len(c.m))
	}
}

// TestChunks: lists go to the store in parts whose sizes are powers of
// two up to the most, the largest first, adding up to the whole.
func TestChunks(t *testing.T) {
	if got := chunks(100, 64); !slices.Equal(got, []int{64, 32, 4}) {
		t.Errorf("chunks(100, 64) = %v", got)
	}
	for n := range 300 {
		sum, last := 0, 64
		for _, c := range chunks(n, 64) {
			if c > last || c&(c-1) != 0 {
				t.Fatalf("chunks(%d, 64) = %v", n, chunks(n, 64))
			}
			sum, last = sum+c, c
		}
		if sum != n {
			t.Fatalf("chunks(%d, 64) adds up to %d", n, sum)
		}
	}
}

// TestReplicasSeeEachOther: two services on one PostgreSQL, as two
// replicas: a vote on one reaches the other's watchers, and the other's
// rounds, read before the vote, are read again after it.
func TestReplicasSeeEachOther(t *testing.T) {
	url := postgresURL(t)
	a := open(t, db{"postgres", func(c Config) Config { c.DatabaseURL = url; return c }}, Config{})
	b := open(t, db{"postgres", func(c Config) Config { c.DatabaseURL = url; return c }}, Config{})
	c, _, st := classOf(t, a, "Ana")
	r := must(a.OpenRound(ctx, c.ID, "lab", "q", []string{"a", "b"}))
	changes, stop := a.Subscribe(c.ID)
	defer stop()
	// Wait until a's listener listens (its first Rounds is then kept).
	for deadline := time.Now().Add(10 * time.Second); !a.hub.hearing(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a never listened")
		}
	}
	if got := must(a.Rounds(ctx, c.ID)); got[0].Voters != 0 {
		t.Fatalf("before the vote: %+v", got[0])
	}
	ok(t, b.Vote(ctx, c.ID, st[0].ID, r.ID, "b"))
	select {
	case ch := <-changes:
		if ch != (Change{c.ID, ChangedVote, r.ID}) {
			t.Errorf("a heard %+v", ch)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a vote on b never reached a's watcher")
	}
	if got := must(a.Rounds(ctx, c.ID)); got[0].Voters != 1 || got[0].Counts["b"] != 1 {
		t.Errorf("a's rounds after b's vote: %+v", got[0])
	}
	// The class as a looks it up by its code follows b's changes too.
	must(a.ByCode(ctx, c.Code))
	ok(t, b.SetActivity(ctx, c.ID, Activity{Lab: "w1-w2"}))
	<-changes
	if got := must(a.ByCode(ctx, c.Code)); got.Now.Lab != "w1-w2" {
		t.Errorf("a's class after b set the lab: %+v", got.Now)
	}
	ok(t, b.End(ctx, c.ID))
	<-changes
	_, err := a.ByCode(ctx, c.Code)
	is(t, "a's look-up after b ended the class", err, ErrEnded)
}

// TestKeptReadsRace: a read that began before a change is not kept after
// it (it may hold what the change replaced).
func TestKeptReadsRace(t *testing.T) {
	h := &hub{hears: true, subs: map[string]map[*subscriber]struct{}{}}
	old := Class{ID: "c1", Code: "ACEFGH"}
	st := h.codeStamp()
	h.publish(Change{Class: "c1", What: ChangedActivity})
	h.keepCode(st, old)
	if _, ok := h.cachedCode("ACEFGH"); ok {
		t.Error("a class read before a change was kept")
	}
	rs := h.roundsStamp("c1")
	h.publish(Change{Class: "c1", What: ChangedVote, Round: 1})
	h.keep("c1", rs, []Tally{{Voters: 0}})
	if _, ok := h.cached("c1"); ok {
		t.Error("rounds read before a vote were kept")
	}
	// A change of another class, or a join, keeps what it did not touch.
	rs = h.roundsStamp("c1")
	h.publish(Change{Class: "c2", What: ChangedVote, Round: 1})
	h.publish(Change{Class: "c1", What: ChangedJoin})
	h.keep("c1", rs, []Tally{{Voters: 3}})
	if got, ok := h.cached("c1"); !ok || got[0].Voters != 3 {
		t.Errorf("rounds of c1 after c2's vote and a join: %v, %v", got, ok)
	}
}
