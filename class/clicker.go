package class

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

// What every clicker does (issue 44): how sure a student is of a vote, a
// vote that closes by itself, a question typed on the spot, a short
// "why?" with a vote, and the program labs a student passed.

// Confidence is how sure a student said they were of a vote.
type Confidence int8

// Confidences; NotAsked is a vote sent without one.
const (
	NotAsked Confidence = iota
	Sure
	Unsure
)

// ParseConfidence reads a vote form's "sure" field: "sure", "unsure",
// anything else is NotAsked.
func ParseConfidence(s string) Confidence {
	switch s {
	case "sure":
		return Sure
	case "unsure":
		return Unsure
	}
	return NotAsked
}

// String is the form's word for c, "" for NotAsked.
func (c Confidence) String() string {
	switch c {
	case Sure:
		return "sure"
	case Unsure:
		return "unsure"
	}
	return ""
}

// value is c as the votes' sure column keeps it.
func (c Confidence) value() any {
	switch c {
	case Sure:
		return 1
	case Unsure:
		return 0
	}
	return nil
}

// MaxTimer bounds a vote's timer.
const MaxTimer = time.Hour

// SetTimer has an open round close by itself d from now; a round that
// is not open is ErrRoundClosed. From that moment the store takes no vote
// in it (even before CloseDue closes it), and the pages count down to it.
func (s *Service) SetTimer(ctx context.Context, classID string, roundID int64, d time.Duration) error {
	if d <= 0 || d > MaxTimer {
		return fmt.Errorf("%w: a timer of %v", ErrBadInput, d)
	}
	closes := s.ms() + d.Milliseconds()
	return s.change(ctx, Change{Class: classID, What: ChangedRound, Round: roundID}, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.sql.setTimer,
			closes, classID, roundID, RoundOpen)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		return ErrRoundClosed
	})
}

// TimedRound is an open round with a timer: when it closes.
type TimedRound struct {
	Class  string
	Round  int64
	Closes time.Time
}

// Timed lists the open rounds of running classes that have a timer, for
// a server starting to set their timers again.
func (s *Service) Timed(ctx context.Context) ([]TimedRound, error) {
	rows, err := s.rdb.QueryContext(ctx, s.sql.timedRounds, RoundOpen)
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	var out []TimedRound
	for rows.Next() {
		var t TimedRound
		var ms int64
		if err := rows.Scan(&t.Class, &t.Round, &ms); err != nil {
			return nil, s.fail(err)
		}
		t.Closes = time.UnixMilli(ms).UTC()
		out = append(out, t)
	}
	return out, s.fail(rows.Err())
}

// CloseDue closes a timed round whose time has come, and tells its class;
// a round not yet due, untimed, or closed already is left as it is
// (false).
func (s *Service) CloseDue(ctx context.Context, classID string, roundID int64) (bool, error) {
	closed := false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.sql.closeDue,
			RoundClosed, classID, roundID, RoundOpen, s.ms())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil || n == 0 {
			return err
		}
		closed = true
		return s.notify(ctx, tx, Change{Class: classID, What: ChangedRound, Round: roundID})
	})
	if closed && err == nil {
		s.hub.publish(Change{Class: classID, What: ChangedRound, Round: roundID})
	}
	return closed, err
}

// Typed is a question the instructor typed on the spot: its text, its
// choices' texts (their ids are "1", "2", … in order), and the choice
// the instructor marked right, "" for none. No engine runs it.
type Typed struct {
	ID      string
	Text    string
	Choices []string
	Right   string
}

// ChoiceIDs are the ids of the typed question's choices.
func (t Typed) ChoiceIDs() []string {
	out := make([]string, len(t.Choices))
	for i := range t.Choices {
		out[i] = strconv.Itoa(i + 1)
	}
	return out
}

// Choice is the text of the choice with this id, "" if none.
func (t Typed) Choice(id string) string {
	i, err := strconv.Atoi(id)
	if err != nil || i < 1 || i > len(t.Choices) {
		return ""
	}
	return t.Choices[i-1]
}

// typedPrefix starts every typed question's id; no lab question's id has
// a colon.
const typedPrefix = "typed:"

// IsTyped says whether a question id is a typed question's.
func IsTyped(question string) bool { return strings.HasPrefix(question, typedPrefix) }

// Type keeps a question the instructor typed: its text (at most
// MaxTyped), 2 to 5 choices (each at most MaxTypedCh, not empty, all
// different) and the number of the choice marked right (1…, 0 for none).
// The class then works on it, in the lab it works on: its vote opens
// with OpenRound(classID, "", t.ID, t.ChoiceIDs()).
func (s *Service) Type(ctx context.Context, classID, text string, choices []string, right int) (Typed, error) {
	t := Typed{}
	var err error
	if t.Text, err = typedText("question", text, MaxTyped); err != nil {
		return t, err
	}
	if t.Text == "" {
		return t, fmt.Errorf("%w: a typed question has a text", ErrBadInput)
	}
	for _, ch := range choices {
		c, err := typedText("choice", ch, MaxTypedCh)
		if err != nil {
			return t, err
		}
		if c == "" {
			continue
		}
		if slices.Contains(t.Choices, c) {
			return t, fmt.Errorf("%w: two choices say %q", ErrBadInput, c)
		}
		t.Choices = append(t.Choices, c)
	}
	if len(t.Choices) < 2 || len(t.Choices) > 5 {
		return t, fmt.Errorf("%w: a typed question has 2 to 5 choices", ErrBadInput)
	}
	if right < 0 || right > len(t.Choices) {
		return t, fmt.Errorf("%w: the right choice is not one of the choices", ErrBadInput)
	}
	if right > 0 {
		t.Right = strconv.Itoa(right)
	}
	js, _ := json.Marshal(t.Choices)
	err = s.change(ctx, Change{Class: classID, What: ChangedActivity}, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.sql.countTyped, classID).Scan(&n); err != nil {
			return err
		}
		if n >= maxTyped {
			return fmt.Errorf("%w: a class types at most %d questions", ErrBadInput, maxTyped)
		}
		t.ID = typedPrefix + strconv.Itoa(n+1)
		if _, err := tx.ExecContext(ctx, s.sql.insertTyped,
			classID, t.ID, t.Text, string(js), t.Right, s.ms()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.sql.setQuestion, t.ID, classID)
		return err
	})
	if err != nil {
		return Typed{}, err
	}
	s.typed.keep(classID, t)
	return t, nil
}

// maxTyped bounds the questions one class types.
const maxTyped = 500

// typedText checks a typed question's text or choice: printable text and
// line breaks (kept as spaces), at most n runes. Markup is kept as the
// characters it is: the pages show it as text.
func typedText(what, typed string, n int) (string, error) {
	t, err := text(typed, n, unicode.IsPrint)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrBadInput, what, err)
	}
	return t, nil
}

// TypedQuestion returns a typed question of a class, ErrNoRound if it has
// none with this id. A typed question never changes: it is kept in memory
// once read.
func (s *Service) TypedQuestion(ctx context.Context, classID, id string) (Typed, error) {
	if t, ok := s.typed.get(classID, id); ok {
		return t, nil
	}
	t := Typed{ID: id}
	var js string
	err := s.rdb.QueryRowContext(ctx, s.sql.typedQuestion,
		classID, id).Scan(&t.Text, &js, &t.Right)
	if errors.Is(err, sql.ErrNoRows) {
		return Typed{}, ErrNoRound
	}
	if err != nil {
		return Typed{}, s.fail(err)
	}
	if err := json.Unmarshal([]byte(js), &t.Choices); err != nil {
		return Typed{}, s.fail(err)
	}
	s.typed.keep(classID, t)
	return t, nil
}

// typedCache keeps the typed questions read, which never change; bounded,
// it starts anew past maxTypedCached.
type typedCache struct {
	mu sync.Mutex
	m  map[[2]string]Typed
}

const maxTypedCached = 10_000

func (c *typedCache) get(classID, id string) (Typed, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.m[[2]string{classID, id}]
	return t, ok
}

func (c *typedCache) keep(classID string, t Typed) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxTypedCached {
		c.m = map[[2]string]Typed{}
	}
	c.m[[2]string{classID, t.ID}] = t
}

// Why is a student's short reason for their vote in a round, as the
// instructor's list shows it: no name, the choice it explains, when.
type Why struct {
	Choice string
	Text   string
	At     time.Time
}

// SetWhy keeps a student's "why?" for their vote in a round (replacing
// an earlier one); "" takes it back. A student who did not vote in the
// round is ErrNotJoined's kin, ErrBadChoice: there is no vote to explain.
func (s *Service) SetWhy(ctx context.Context, classID, studentID string, roundID int64, why string) error {
	why, err := text(why, MaxWhy, unicode.IsPrint)
	if err != nil {
		return fmt.Errorf("%w: why: %w", ErrBadInput, err)
	}
	return s.change(ctx, Change{Class: classID, What: ChangedProgress}, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		var state string
		err := tx.QueryRowContext(ctx, s.sql.votedRoundState, classID, roundID, studentID).Scan(&state)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrBadChoice
		}
		if err != nil {
			return err
		}
		if state == RoundRevealed {
			return ErrRoundClosed
		}
		if why == "" {
			_, err = tx.ExecContext(ctx, s.sql.deleteWhy, classID, roundID, studentID)
			return err
		}
		_, err = tx.ExecContext(ctx, s.sql.upsertWhy,
			classID, roundID, studentID, why, s.ms())
		return err
	})
}

// Whys lists a round's "why?"s, oldest first, each with the choice the
// student voted; at most limit.
func (s *Service) Whys(ctx context.Context, classID string, roundID int64, limit int) ([]Why, error) {
	rows, err := s.rdb.QueryContext(ctx, s.sql.whys, classID, roundID, limit)
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	var out []Why
	for rows.Next() {
		var w Why
		var ms int64
		if err := rows.Scan(&w.Choice, &w.Text, &ms); err != nil {
			return nil, s.fail(err)
		}
		w.At = time.UnixMilli(ms).UTC()
		out = append(out, w)
	}
	return out, s.fail(rows.Err())
}

// ShowWhy puts one "why?" (its text, no name) on the projector, or ""
// none.
func (s *Service) ShowWhy(ctx context.Context, classID, why string) error {
	why, err := text(why, MaxWhy, unicode.IsPrint)
	if err != nil {
		return fmt.Errorf("%w: why: %w", ErrBadInput, err)
	}
	return s.change(ctx, Change{Class: classID, What: ChangedActivity}, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.sql.showWhy, why, classID)
		return err
	})
}

// Passed records that a student's program passed a program lab, as the
// engine judged it; the first time counts.
func (s *Service) Passed(ctx context.Context, classID, studentID, lab string) error {
	lab, err := field("lab", lab)
	if err != nil {
		return err
	}
	return s.change(ctx, Change{Class: classID, What: ChangedProgress}, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		if err := s.member(ctx, tx, classID, studentID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.sql.insertPassed, classID, lab, studentID, s.ms())
		return err
	})
}
