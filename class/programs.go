package class

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// What a class's students submit in a program lab (issue 49): each
// student's last program per lab and the engine's verdict on it, what
// the dashboard counts of them, and the one failing program the lecturer
// puts on the projector, without its student.

// Verdicts of a submitted program, as the engine judged it.
const (
	VerdictPass    = "pass"    // every schedule and the search: passed
	VerdictFail    = "fail"    // a schedule broke it (Submission.Schedule)
	VerdictFault   = "fault"   // the program failed by itself (an error, a runaway)
	VerdictSlow    = "slow"    // more steps than a judgement allows
	VerdictCompile = "compile" // it did not compile
)

// Limits of a submission: the program's text is cut to MaxProgram bytes
// (the program package refuses a longer one anyway: its source limit is
// the same, which web's tests check), its schedule to MaxSchedule.
const (
	MaxProgram  = 16 << 10
	MaxSchedule = 1000
)

// Submission is a student's last program in a lab and its verdict.
type Submission struct {
	Lab  string
	Text string
	// Verdict is one of the Verdict constants.
	Verdict string
	// Schedule is the deciding schedule of a failure in the engine's short
	// form ("pause 6s at 14s; cut 2s at 3s"), "" for one without faults.
	Schedule string
	Line     int   // the program's line that acted, 0 none
	Moment   int64 // the deciding event's time in the world, in milliseconds
	// Submits counts the different programs the student submitted in the
	// lab (the same program again is not counted again).
	Submits int
	At      time.Time
}

// ErrNoProgram: no program of the lab fails, none to show.
var ErrNoProgram = errors.New("class: no failing program to show")

// Failed reports a verdict that a schedule decided.
func (s Submission) Failed() bool { return s.Verdict == VerdictFail }

func validVerdict(v string) bool {
	switch v {
	case VerdictPass, VerdictFail, VerdictFault, VerdictSlow, VerdictCompile:
		return true
	}
	return false
}

// clipBytes cuts s to at most n bytes, at a rune's start.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Submitted records a student's program in a program lab and the
// engine's verdict on it, in place of their last one there; a pass also
// counts as the lab passed (Passed). The text is cut to MaxProgram bytes.
func (s *Service) Submitted(ctx context.Context, classID, studentID string, sub Submission) error {
	lab, err := field("lab", sub.Lab)
	if err != nil {
		return err
	}
	if !validVerdict(sub.Verdict) || !utf8.ValidString(sub.Text) || !utf8.ValidString(sub.Schedule) {
		return fmt.Errorf("%w: a submission's verdict or text", ErrBadInput)
	}
	text, schedule := clipBytes(sub.Text, MaxProgram), clipBytes(sub.Schedule, MaxSchedule)
	if sub.Verdict != VerdictFail {
		schedule = ""
	}
	at := s.ms()
	return s.change(ctx, Change{Class: classID, What: ChangedProgress}, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		if err := s.member(ctx, tx, classID, studentID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.sql.upsertProgram, classID, lab, studentID, text, sub.Verdict, schedule,
			sub.Line, sub.Moment, at); err != nil {
			return err
		}
		if sub.Verdict == VerdictPass {
			_, err := tx.ExecContext(ctx, s.sql.insertPassed, classID, lab, studentID, at)
			return err
		}
		return nil
	})
}

// ScheduleCount is one deciding schedule and how many failing programs
// it broke.
type ScheduleCount struct {
	Schedule string
	N        int
}

// ProgramTally is what a class's students submitted in one lab, counted:
// how many submitted, passed, were broken by a schedule (Failed) or
// failed by themselves, too slow or not compiled (Errors), and the
// schedules that broke the failing ones, commonest first (ties: the
// first in byte order), at most maxSchedules.
type ProgramTally struct {
	Lab                               string
	Submitted, Passed, Failed, Errors int
	Schedules                         []ScheduleCount
}

// maxSchedules bounds the schedules a tally lists.
const maxSchedules = 5

// Programs counts what the class's students submitted in lab.
func (s *Service) Programs(ctx context.Context, classID, lab string) (ProgramTally, error) {
	t := ProgramTally{Lab: lab}
	rows, err := s.rdb.QueryContext(ctx, s.sql.programVerdicts, classID, lab)
	if err != nil {
		return t, s.fail(err)
	}
	for rows.Next() {
		var verdict string
		var n int
		if err := rows.Scan(&verdict, &n); err != nil {
			rows.Close()
			return t, s.fail(err)
		}
		t.Submitted += n
		switch verdict {
		case VerdictPass:
			t.Passed += n
		case VerdictFail:
			t.Failed += n
		default:
			t.Errors += n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return t, s.fail(err)
	}
	rows, err = s.rdb.QueryContext(ctx, s.sql.programSchedules, classID, lab, VerdictFail, maxSchedules)
	if err != nil {
		return t, s.fail(err)
	}
	defer rows.Close()
	for rows.Next() {
		var sc ScheduleCount
		if err := rows.Scan(&sc.Schedule, &sc.N); err != nil {
			return t, s.fail(err)
		}
		t.Schedules = append(t.Schedules, sc)
	}
	return t, s.fail(rows.Err())
}

// ShownProgram is the failing program on the projector: a copy, with no
// student; Pick is its place (from 1) among the lab's Of failing
// programs when it was picked.
type ShownProgram struct {
	Submission
	Pick, Of int
}

// failingOf lists the students whose programs of a lab fail, in the
// order the projector goes through them: those of the commonest schedule
// first, each schedule's oldest first.
func (s *Service) failingOf(ctx context.Context, tx *sql.Tx, classID, lab string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, s.sql.failingPrograms, classID, lab, VerdictFail)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var sid string
		if err := rows.Scan(&sid); err != nil {
			return nil, err
		}
		out = append(out, sid)
	}
	return out, rows.Err()
}

// ShowProgram puts one of lab's failing programs on the projector,
// without its student: step 0 the first (one broken by the commonest
// schedule), +1 the one after the program shown now, -1 the one before
// (round the list). ErrNoRound when no program of lab fails.
func (s *Service) ShowProgram(ctx context.Context, classID, lab string, step int) error {
	lab, err := field("lab", lab)
	if err != nil {
		return err
	}
	return s.change(ctx, Change{Class: classID, What: ChangedActivity}, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		list, err := s.failingOf(ctx, tx, classID, lab)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			return ErrNoProgram
		}
		pick := 0
		if step != 0 {
			var shownLab string
			var cur int
			err := tx.QueryRowContext(ctx, s.sql.shownPick, classID).Scan(&shownLab, &cur)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if err == nil && shownLab == lab {
				pick = ((cur-1+step)%len(list) + len(list)) % len(list)
			}
		}
		var p Submission
		if err := tx.QueryRowContext(ctx, s.sql.programOf, classID, lab, list[pick]).Scan(&p.Text, &p.Verdict, &p.Schedule,
			&p.Line, &p.Moment); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.sql.deleteShown, classID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.sql.insertShown, classID, lab, p.Text, p.Verdict, p.Schedule, p.Line, p.Moment, pick+1, len(list))
		return err
	})
}

// HideProgram takes the program off the projector.
func (s *Service) HideProgram(ctx context.Context, classID string) error {
	return s.change(ctx, Change{Class: classID, What: ChangedActivity}, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.sql.deleteShown, classID)
		return err
	})
}

// Shown is the program on the projector, nil when none.
func (s *Service) Shown(ctx context.Context, classID string) (*ShownProgram, error) {
	p := &ShownProgram{}
	err := s.rdb.QueryRowContext(ctx, s.sql.shownProgram, classID).Scan(&p.Lab, &p.Text, &p.Verdict, &p.Schedule,
		&p.Line, &p.Moment, &p.Pick, &p.Of)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, s.fail(err)
	}
	return p, nil
}

// gradePrograms adds each student's last program per lab; the labs
// join labs.
func (s *Service) gradePrograms(ctx context.Context, g *Grades, at map[string]int, labs map[string]bool) error {
	rows, err := s.rdb.QueryContext(ctx, s.sql.gradePrograms, g.Class.ID)
	if err != nil {
		return s.fail(err)
	}
	defer rows.Close()
	for rows.Next() {
		var sid string
		var sub Submission
		var ms int64
		if err := rows.Scan(&sid, &sub.Lab, &sub.Text, &sub.Verdict, &sub.Schedule, &sub.Line, &sub.Moment, &sub.Submits, &ms); err != nil {
			return s.fail(err)
		}
		sub.At = time.UnixMilli(ms).UTC()
		labs[sub.Lab] = true
		if i, ok := at[sid]; ok {
			g.Students[i].Last[sub.Lab] = sub
		}
	}
	return s.fail(rows.Err())
}

// scheduleText is a schedule as the export writes it: "none" for a
// failure without faults.
func scheduleText(sub Submission) string {
	if sub.Verdict == VerdictFail && strings.TrimSpace(sub.Schedule) == "" {
		return "none"
	}
	return sub.Schedule
}
