package class

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// baseClassColumns are the classes' columns of 001, in scanClass's order;
// classColumns are all scanClass reads.
const (
	baseClassColumns = "id, code, name, lang, created, ended, lesson, lab, question, goal, pushed"
	classColumns     = baseClassColumns + ", " + settingsColumns
)

func scanClass(row interface{ Scan(...any) error }) (Class, error) {
	var c Class
	var created int64
	var ended sql.NullInt64
	var st settingsRow
	err := row.Scan(append([]any{&c.ID, &c.Code, &c.Name, &c.Lang, &created, &ended,
		&c.Now.Lesson, &c.Now.Lab, &c.Now.Question, &c.Now.Goal, &c.Pushed}, st.dest()...)...)
	c.Settings = st.settings()
	if errors.Is(err, sql.ErrNoRows) {
		return Class{}, ErrNoClass
	}
	if err != nil {
		return Class{}, err
	}
	c.Created = time.UnixMilli(created).UTC()
	if ended.Valid {
		t := time.UnixMilli(ended.Int64).UTC()
		c.Ended = &t
	}
	return c, nil
}

func (s *Service) ms() int64 { return s.now().UnixMilli() }

// Create opens a class and returns it with its instructor token: whoever
// holds the token runs the class (ByToken). The token is not stored, only
// its hash, so it cannot be asked for again.
func (s *Service) Create(ctx context.Context, className, lang string) (Class, string, error) {
	return s.create(ctx, className, lang, nil)
}

// create opens a class, for a lecturer key's holder when own is not nil
// (lecturer.go): the token is then sealed to the key, to be shown again.
func (s *Service) create(ctx context.Context, className, lang string, own *Lecturer) (Class, string, error) {
	n, err := name(className)
	if err != nil {
		return Class{}, "", err
	}
	if !validLang(lang) {
		return Class{}, "", fmt.Errorf("%w: language %q", ErrBadInput, lang)
	}
	token := newToken()
	c := Class{ID: randomHex(12), Name: n, Lang: lang, Created: time.UnixMilli(s.ms()).UTC()}
	// A code taken by a running class is drawn again; with 21^6 codes
	// and a few hundred classes, a second draw is rare and a tenth never.
	for range 10 {
		c.Code = randomCode(CodeLength)
		var added int64
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, s.sql.insertClass,
				c.ID, c.Code, tokenHash(token), c.Name, c.Lang, c.Created.UnixMilli(),
				tokenHash(ProjectorToken(token)), own.id(), own.seal(token))
			if err != nil {
				return err
			}
			added, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return Class{}, "", err
		}
		if added == 1 {
			return c, token, nil
		}
	}
	return Class{}, "", s.fail(errors.New("no free join code after 10 draws"))
}

// ByCode finds the running class of a join code as a student typed it;
// a running class is kept until it changes, like its rounds.
// ErrEnded when the code's latest class has ended, ErrNoClass when no
// class ever had it.
func (s *Service) ByCode(ctx context.Context, code string) (Class, error) {
	code = NormalizeCode(code, CodeLength)
	if code == "" {
		return Class{}, ErrNoClass
	}
	if c, ok := s.hub.cachedCode(code); ok {
		return c, nil
	}
	st := s.hub.codeStamp()
	c, err := scanClass(s.rdb.QueryRowContext(ctx, s.sql.classByCode, code))
	if err != nil {
		return Class{}, s.fail(err)
	}
	if c.Ended != nil {
		return c, ErrEnded
	}
	s.hub.keepCode(st, c)
	return c, nil
}

// ByToken finds the class an instructor token runs, ended or not; a
// forged or mistyped token is ErrNoClass.
func (s *Service) ByToken(ctx context.Context, token string) (Class, error) {
	if len(token) < 16 || len(token) > 100 {
		return Class{}, ErrNoClass
	}
	c, err := scanClass(s.rdb.QueryRowContext(ctx, s.sql.classByToken, tokenHash(token)))
	return c, s.fail(err)
}

// ByID finds a class by its id, ended or not.
func (s *Service) ByID(ctx context.Context, classID string) (Class, error) {
	c, err := scanClass(s.rdb.QueryRowContext(ctx, s.sql.classByID, classID))
	return c, s.fail(err)
}

// running checks, inside a transaction, that the class exists and runs.
func (s *Service) running(ctx context.Context, tx *sql.Tx, classID string) error {
	var ended sql.NullInt64
	err := tx.QueryRowContext(ctx, s.sql.classEnded, classID).Scan(&ended)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNoClass
	}
	if err != nil {
		return err
	}
	if ended.Valid {
		return ErrEnded
	}
	return nil
}

// Join puts a student in the running class of a code. studentID is the
// anonymous id the browser kept ("" for a new one); joining again with
// the same id returns the same student (and a new nickname, if one is
// given, replaces the old). A class that requires a student number
// refuses it (ErrNIMRequired): JoinAs gives one.
func (s *Service) Join(ctx context.Context, code, studentID, nick string) (Student, error) {
	return s.JoinAs(ctx, code, studentID, nick, "")
}

// JoinAs is Join with the student number (NIM) the student gave, ""
// for none; a class that does not ask for it ignores it (issue 44).
// Joining again with a number replaces the one kept; one already given
// by another student of the class is ErrNIMTaken.
func (s *Service) JoinAs(ctx context.Context, code, studentID, nick, nim string) (Student, error) {
	nick, err := Nick(nick)
	if err != nil {
		return Student{}, err
	}
	if nim, err = NIM(nim); err != nil {
		return Student{}, err
	}
	if studentID == "" {
		studentID = newStudentID()
	} else if !validStudentID(studentID) {
		return Student{}, fmt.Errorf("%w: student id", ErrBadInput)
	}
	c, err := s.ByCode(ctx, code)
	if err != nil {
		return Student{}, err
	}
	if c.Settings.NIM == NIMOff {
		nim = ""
	}
	st := Student{ID: studentID, Nick: nick, NIM: nim}
	joined := false
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, c.ID); err != nil {
			return err
		}
		if err := s.nimFree(ctx, tx, c.ID, studentID, nim); err != nil {
			return err
		}
		var had, hadNIM string
		err := tx.QueryRowContext(ctx, s.sql.studentToJoin,
			c.ID, studentID).Scan(&had, &st.Key, &hadNIM)
		if err == nil {
			return s.rejoin(ctx, tx, c, &st, had, hadNIM)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var count int
		if err := tx.QueryRowContext(ctx, s.sql.countStudents, c.ID).Scan(&count); err != nil {
			return err
		}
		if count >= maxStudents {
			return ErrClassFull
		}
		if nim == "" && c.Settings.NIM == NIMRequire {
			return ErrNIMRequired
		}
		for range 10 {
			st.Key = randomCode(KeyLength)
			res, err := tx.ExecContext(ctx, s.sql.insertStudent, c.ID, studentID, nick, st.Key, s.ms(), nim)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			if n == 1 {
				joined = true
				return s.notify(ctx, tx, Change{Class: c.ID, What: ChangedJoin})
			}
		}
		return errors.New("no free student key after 10 draws")
	})
	if err != nil {
		return Student{}, err
	}
	s.members.add(c.ID, studentID)
	if joined {
		s.hub.publish(Change{Class: c.ID, What: ChangedJoin})
	}
	return st, nil
}

// Restore finds a student by the class's join code and the student's
// key, for a student on another device; the browser then keeps the
// returned ID.
func (s *Service) Restore(ctx context.Context, code, key string) (Student, error) {
	key = NormalizeCode(key, KeyLength)
	c, err := s.ByCode(ctx, code)
	if err != nil {
		return Student{}, err
	}
	if key == "" {
		return Student{}, ErrNoKey
	}
	st := Student{Key: key}
	err = s.rdb.QueryRowContext(ctx, s.sql.studentByKey,
		c.ID, key).Scan(&st.ID, &st.Nick)
	if errors.Is(err, sql.ErrNoRows) {
		return Student{}, ErrNoKey
	}
	return st, s.fail(err)
}

// Student returns the student of a class with this id, ErrNotJoined if
// there is none.
func (s *Service) Student(ctx context.Context, classID, studentID string) (Student, error) {
	st := Student{ID: studentID}
	err := s.rdb.QueryRowContext(ctx, s.sql.student,
		classID, studentID).Scan(&st.Nick, &st.Key)
	if errors.Is(err, sql.ErrNoRows) {
		return Student{}, ErrNotJoined
	}
	return st, s.fail(err)
}

// StudentCount counts the students of a class.
func (s *Service) StudentCount(ctx context.Context, classID string) (int, error) {
	var n int
	err := s.rdb.QueryRowContext(ctx, s.sql.countStudents, classID).Scan(&n)
	return n, s.fail(err)
}

// SetActivity says what the class works on now.
func (s *Service) SetActivity(ctx context.Context, classID string, a Activity) error {
	var err error
	for _, f := range []struct {
		what string
		v    *string
	}{{"lesson", &a.Lesson}, {"lab", &a.Lab}, {"question", &a.Question}, {"goal", &a.Goal}} {
		if *f.v, err = field(f.what, *f.v); err != nil {
			return err
		}
	}
	return s.change(ctx, Change{Class: classID, What: ChangedActivity}, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.sql.setActivity,
			a.Lesson, a.Lab, a.Question, a.Goal, classID)
		return err
	})
}

// OpenRound opens a vote on a question of a lab. The first open of a
// question is its round 1, the second its round 2 (after discussion); a
// third is ErrRoundLimit. Opening a round closes any other open round of
// the class: a class votes on one thing at a time.
func (s *Service) OpenRound(ctx context.Context, classID, lab, question string, choices []string) (Round, error) {
	var err error
	if lab, question, err = labField(lab, "question", question); err != nil {
		return Round{}, err
	}
	if question == "" || lab == "" && !IsTyped(question) {
		return Round{}, fmt.Errorf("%w: a round needs a lab and a question", ErrBadInput)
	}
	if len(choices) < 2 || len(choices) > MaxChoices {
		return Round{}, fmt.Errorf("%w: a round has 2 to %d choices", ErrBadInput, MaxChoices)
	}
	clean := make([]string, len(choices))
	for i, ch := range choices {
		if clean[i], err = field("choice", ch); err != nil {
			return Round{}, err
		}
		if clean[i] == "" || slices.Contains(clean[:i], clean[i]) {
			return Round{}, fmt.Errorf("%w: choices are not empty and differ", ErrBadInput)
		}
	}
	r := Round{Lab: lab, Question: question, Choices: clean, State: RoundOpen, Opened: time.UnixMilli(s.ms()).UTC()}
	js, _ := json.Marshal(clean)
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		var before int
		if err := tx.QueryRowContext(ctx, s.sql.countRounds,
			classID, lab, question).Scan(&before); err != nil {
			return err
		}
		if before >= 2 {
			return ErrRoundLimit
		}
		r.N = before + 1
		var last sql.NullInt64
		if err := tx.QueryRowContext(ctx, s.sql.lastRound, classID).Scan(&last); err != nil {
			return err
		}
		r.ID = last.Int64 + 1
		if _, err := tx.ExecContext(ctx, s.sql.closeOpenRounds, RoundClosed, classID, RoundOpen); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.sql.insertRound, classID, r.ID, lab, question, string(js), r.N, RoundOpen, r.Opened.UnixMilli()); err != nil {
			return err
		}
		return s.notify(ctx, tx, Change{Class: classID, What: ChangedRound, Round: r.ID})
	})
	if err != nil {
		return Round{}, err
	}
	s.hub.publish(Change{Class: classID, What: ChangedRound, Round: r.ID})
	return r, nil
}

// setRound changes a round of a running class: query is one of
// closeRound, showCounts and reveal, with its arguments before the class
// and the round.
func (s *Service) setRound(ctx context.Context, classID string, roundID int64, query string, args ...any) error {
	return s.change(ctx, Change{Class: classID, What: ChangedRound, Round: roundID}, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, query, append(args, classID, roundID)...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, ErrNoRound)
		}
		return nil
	})
}

// CloseRound stops the votes of a round; a revealed round stays revealed.
func (s *Service) CloseRound(ctx context.Context, classID string, roundID int64) error {
	return s.setRound(ctx, classID, roundID, s.sql.closeRound, RoundOpen, RoundClosed)
}

// ShowCounts shows or hides the live counts of a round to the class.
func (s *Service) ShowCounts(ctx context.Context, classID string, roundID int64, shown bool) error {
	v := 0
	if shown {
		v = 1
	}
	return s.setRound(ctx, classID, roundID, s.sql.showCounts, v)
}

// Reveal closes a round and marks it revealed: the pages show the
// engine's answer and the counts.
func (s *Service) Reveal(ctx context.Context, classID string, roundID int64) error {
	return s.setRound(ctx, classID, roundID, s.sql.reveal, RoundRevealed)
}

// Votes returns a student's own answers, by round id.
func (s *Service) Votes(ctx context.Context, classID, studentID string) (map[int64]string, error) {
	rows, err := s.rdb.QueryContext(ctx, s.sql.votesOf, classID, studentID)
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var ch string
		if err := rows.Scan(&id, &ch); err != nil {
			return nil, s.fail(err)
		}
		out[id] = ch
	}
	return out, s.fail(rows.Err())
}

// Rounds returns the rounds of a class, oldest first, with their counts.
// Every page that shows a class asks for them after each change, a whole
// class at once after a vote: the answer is kept until the class changes
// (a change made here, or told by another replica).
func (s *Service) Rounds(ctx context.Context, classID string) ([]Tally, error) {
	if t, ok := s.hub.cached(classID); ok {
		return t, nil
	}
	st := s.hub.roundsStamp(classID)
	t, err := s.rounds(ctx, classID)
	if err == nil {
		s.hub.keep(classID, st, t)
	}
	return t, err
}

func (s *Service) rounds(ctx context.Context, classID string) ([]Tally, error) {
	rows, err := s.rdb.QueryContext(ctx, s.sql.roundsOf, classID)
	if err != nil {
		return nil, s.fail(err)
	}
	var out []Tally
	at := map[int64]int{}
	for rows.Next() {
		var r Round
		var js string
		var shown int
		var opened int64
		var closes sql.NullInt64
		if err := rows.Scan(&r.ID, &r.Lab, &r.Question, &js, &r.N, &r.State, &shown, &opened, &closes); err != nil {
			rows.Close()
			return nil, s.fail(err)
		}
		if err := json.Unmarshal([]byte(js), &r.Choices); err != nil {
			rows.Close()
			return nil, s.fail(err)
		}
		r.Shown, r.Opened = shown != 0, time.UnixMilli(opened).UTC()
		if closes.Valid {
			r.Closes = time.UnixMilli(closes.Int64).UTC()
		}
		t := Tally{Round: r, Counts: map[string]int{}, Sure: map[string]int{}, Unsure: map[string]int{}}
		for _, ch := range r.Choices {
			t.Counts[ch] = 0
		}
		at[r.ID] = len(out)
		out = append(out, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.fail(err)
	}
	rows, err = s.rdb.QueryContext(ctx, s.sql.voteCounts, classID)
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var ch string
		var sure sql.NullInt64
		var n int
		if err := rows.Scan(&id, &ch, &sure, &n); err != nil {
			return nil, s.fail(err)
		}
		if i, ok := at[id]; ok {
			out[i].Counts[ch] += n
			out[i].Voters += n
			switch {
			case sure.Valid && sure.Int64 != 0:
				out[i].Sure[ch] += n
			case sure.Valid:
				out[i].Unsure[ch] += n
			}
		}
	}
	return out, s.fail(rows.Err())
}

func (s *Service) member(ctx context.Context, tx *sql.Tx, classID, studentID string) error {
	var one int
	err := tx.QueryRowContext(ctx, s.sql.isMember, classID, studentID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotJoined
	}
	return err
}

// Progress says, for each goal of a lab in the order given, how many
// students reached it, how many worked in the lab (sent a command) and
// have not, and the commonest last command of those (ties: the first in
// byte order).
func (s *Service) Progress(ctx context.Context, classID, lab string, goals []string) ([]GoalProgress, error) {
	if err := s.flushSteps(ctx, classID); err != nil {
		return nil, err
	}
	out := make([]GoalProgress, 0, len(goals))
	for _, g := range goals {
		p := GoalProgress{Goal: g}
		if err := s.rdb.QueryRowContext(ctx, s.sql.countReached,
			classID, lab, g).Scan(&p.Reached); err != nil {
			return nil, s.fail(err)
		}
		rows, err := s.rdb.QueryContext(ctx, s.sql.lastStepsNotReached, classID, lab, g)
		if err != nil {
			return nil, s.fail(err)
		}
		for rows.Next() {
			var cmd string
			var n int
			if err := rows.Scan(&cmd, &n); err != nil {
				rows.Close()
				return nil, s.fail(err)
			}
			p.Working += n
			if p.CommonLastStep == "" {
				p.CommonLastStep, p.CommonLastStepN = cmd, n
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, s.fail(err)
		}
		out = append(out, p)
	}
	return out, nil
}

// Roster lists the students of a class in the order they joined, each
// with the goals of lab they reached and their last command in it; at
// most limit students.
func (s *Service) Roster(ctx context.Context, classID, lab string, limit int) ([]RosterRow, error) {
	if err := s.flushSteps(ctx, classID); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, s.sql.rosterSteps, lab, classID, limit)
	if err != nil {
		return nil, s.fail(err)
	}
	var out []RosterRow
	at := map[string]int{}
	for rows.Next() {
		var r RosterRow
		if err := rows.Scan(&r.ID, &r.Nick, &r.LastStep); err != nil {
			rows.Close()
			return nil, s.fail(err)
		}
		at[r.ID] = len(out)
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.fail(err)
	}
	rows, err = s.rdb.QueryContext(ctx, s.sql.rosterReached, classID, lab)
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, goal string
		if err := rows.Scan(&id, &goal); err != nil {
			return nil, s.fail(err)
		}
		if i, ok := at[id]; ok {
			out[i].Reached = append(out[i].Reached, goal)
		}
	}
	return out, s.fail(rows.Err())
}

// Push puts a world (a permalink of the site, a path starting with "/")
// on every student's screen as an invitation.
func (s *Service) Push(ctx context.Context, classID, permalink string) error {
	if len(permalink) > MaxLink || (permalink != "" && (permalink[0] != '/' || len(permalink) > 1 && permalink[1] == '/')) {
		return fmt.Errorf("%w: a pushed world is a path of this site", ErrBadInput)
	}
	if _, err := field("permalink", permalink[:min(len(permalink), MaxText)]); err != nil {
		return err
	}
	return s.change(ctx, Change{Class: classID, What: ChangedPush}, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.sql.setPushed, permalink, classID)
		return err
	})
}

// End ends a class: no more joins, votes or steps; its data is kept for
// the retention and then purged. Ending an ended class changes nothing.
func (s *Service) End(ctx context.Context, classID string) error {
	s.flushSteps(ctx, classID) // what its students did last counts; the store logs its own trouble
	return s.change(ctx, Change{Class: classID, What: ChangedEnd}, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.sql.endClass, s.ms(), classID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		if err := s.running(ctx, tx, classID); !errors.Is(err, ErrEnded) {
			return err
		}
		return nil
	})
}

// Purge deletes the classes that ended longer than the retention ago,
// with all they hold, and returns how many.
func (s *Service) Purge(ctx context.Context) (int, error) {
	cutoff := s.now().Add(-s.retention).UnixMilli()
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.sql.purgeClasses, cutoff)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		// A lecturer key whose classes are all gone goes too.
		_, err = tx.ExecContext(ctx, s.sql.purgeLecturers, cutoff)
		return err
	})
	if n > 0 {
		s.hub.forget(s.hub.hearing())
	}
	return int(n), err
}
