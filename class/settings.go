package class

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
	_ "time/tzdata" // the exports' time zones, on a server without a zone database
	"unicode"
	"unicode/utf8"
)

// Settings are what an instructor chooses for a class beyond what it
// works on (issue 44): whether joining asks for the student number, the
// time zone of the exports, and what a vote asks and the dashboard shows.
type Settings struct {
	// NIM is whether joining asks for the student number: NIMOff,
	// NIMAsk (optional) or NIMRequire.
	NIM string
	// Zone is the IANA time zone of the times the exports write; ""
	// means the default of the class's language (DefaultZone).
	Zone string
	// HideNames hides the students' nicknames and numbers wherever the
	// instructor's screen shows them (it may be on a projector).
	HideNames bool
	// Confidence asks, with each vote, how sure the student is.
	Confidence bool
	// AskWhy asks, with each vote, for a short "why?".
	AskWhy bool
	// ShownWhy is the one "why?" the instructor shows on the projector,
	// "" for none; it carries no name.
	ShownWhy string
}

// Whether joining asks for the student number.
const (
	NIMOff     = "off"
	NIMAsk     = "ask"
	NIMRequire = "require"
)

// Limits of the grading texts.
const (
	MaxNIM     = 30  // characters of a student number
	MaxWhy     = 280 // runes of a "why?"
	maxZone    = 64  // bytes of a time zone's name
	MaxTyped   = 500 // runes of a typed question
	MaxTypedCh = 120 // runes of a typed question's choice
)

// Errors of joining with a student number; both are ErrBadInput too.
var (
	// ErrNIMRequired: the class requires a student number and none was given.
	ErrNIMRequired = fmt.Errorf("%w: the class requires a student number", ErrBadInput)
	// ErrNIMTaken: another student of the class gave this number.
	ErrNIMTaken = fmt.Errorf("%w: another student of the class gave this student number", ErrBadInput)
	// ErrNIMBad: not a student number (letters, digits and . - / _ only).
	ErrNIMBad = fmt.Errorf("%w: not a student number", ErrBadInput)
)

// DefaultZone is the time zone of a class's exports when its instructor
// chose none: Western Indonesia for a class in Indonesian, else UTC.
func DefaultZone(lang string) string {
	if lang == "id" {
		return "Asia/Jakarta"
	}
	return "UTC"
}

// Location is the time zone of the class's exports.
func (c Class) Location() *time.Location {
	name := c.Settings.Zone
	if name == "" {
		name = DefaultZone(c.Lang)
	}
	if loc, err := time.LoadLocation(name); err == nil {
		return loc
	}
	return time.UTC
}

// settingsColumns are the classes' columns of Settings, in settingsRow's
// order.
const settingsColumns = "nim_mode, zone, hide_names, confidence, ask_why, shown_why"

// settingsRow is Settings as the database keeps them.
type settingsRow struct {
	nim, zone, shown         string
	hide, confidence, askWhy int
}

func (r *settingsRow) dest() []any {
	return []any{&r.nim, &r.zone, &r.hide, &r.confidence, &r.askWhy, &r.shown}
}

func (r *settingsRow) settings() Settings {
	return Settings{NIM: r.nim, Zone: r.zone, HideNames: r.hide != 0, Confidence: r.confidence != 0, AskWhy: r.askWhy != 0, ShownWhy: r.shown}
}

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SetSettings changes a class's settings (ShownWhy is ShowWhy's and is
// kept). A zone time does not know, or a NIM mode not one of the three,
// is ErrBadInput. Every page of the class draws again.
func (s *Service) SetSettings(ctx context.Context, classID string, st Settings) error {
	switch st.NIM {
	case NIMOff, NIMAsk, NIMRequire:
	default:
		return fmt.Errorf("%w: NIM mode %q", ErrBadInput, st.NIM)
	}
	if st.Zone != "" {
		if len(st.Zone) > maxZone {
			return fmt.Errorf("%w: time zone too long", ErrBadInput)
		}
		if _, err := time.LoadLocation(st.Zone); err != nil || st.Zone == "Local" {
			return fmt.Errorf("%w: time zone %q", ErrBadInput, st.Zone)
		}
	}
	return s.change(ctx, Change{Class: classID, What: ChangedActivity}, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.sql.setSettings, st.NIM, st.Zone, flag(st.HideNames), flag(st.Confidence), flag(st.AskWhy), classID)
		return err
	})
}

// NIM checks and tidies a student number as typed: spaces around it
// trimmed, then 3 to MaxNIM letters, digits and . - / _, starting with a
// letter or digit (so never read as a formula). "" is allowed (none).
func NIM(typed string) (string, error) {
	if !utf8.ValidString(typed) {
		return "", ErrNIMBad
	}
	n := trimSpace(typed)
	if n == "" {
		return "", nil
	}
	if len(n) < 3 || len(n) > MaxNIM {
		return "", ErrNIMBad
	}
	for i, r := range n {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
		case i > 0 && (r == '.' || r == '-' || r == '/' || r == '_'):
		default:
			return "", ErrNIMBad
		}
	}
	return n, nil
}

// trimSpace trims white space, the no-break space a spreadsheet leaves
// included.
func trimSpace(s string) string {
	start, end := 0, len(s)
	for start < end {
		r, n := utf8.DecodeRuneInString(s[start:])
		if !unicode.IsSpace(r) && r != '\u00a0' && r != '\ufeff' {
			break
		}
		start += n
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(s[start:end])
		if !unicode.IsSpace(r) && r != '\u00a0' && r != '\ufeff' {
			break
		}
		end -= n
	}
	return s[start:end]
}

// nimFree refuses a number another student of the class gave.
func (s *Service) nimFree(ctx context.Context, tx *sql.Tx, classID, studentID, nim string) error {
	if nim == "" {
		return nil
	}
	var other string
	err := tx.QueryRowContext(ctx, s.sql.nimTaken, classID, nim, studentID).Scan(&other)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err == nil {
		return ErrNIMTaken
	}
	return err
}

// keepNIM is a student's number after joining again: the new one if
// given, else the one kept; none at all in a class that requires one is
// ErrNIMRequired.
func (s *Service) keepNIM(ctx context.Context, tx *sql.Tx, c Class, studentID, had, nim string) (string, error) {
	if nim == "" || nim == had {
		if had == "" && c.Settings.NIM == NIMRequire {
			return "", ErrNIMRequired
		}
		return had, nil
	}
	_, err := tx.ExecContext(ctx, s.sql.setNIM, nim, c.ID, studentID)
	return nim, err
}

// rejoin is a student joining a class again (JoinAs): a nickname given
// replaces the one kept (had), and so does a NIM (hadNIM, keepNIM); st
// holds what was given and gets what is kept.
func (s *Service) rejoin(ctx context.Context, tx *sql.Tx, c Class, st *Student, had, hadNIM string) error {
	var err error
	if st.Nick == "" {
		st.Nick = had
	} else if st.Nick != had {
		_, err = tx.ExecContext(ctx, s.sql.setNick, st.Nick, c.ID, st.ID)
	}
	if err == nil {
		st.NIM, err = s.keepNIM(ctx, tx, c, st.ID, hadNIM, st.NIM)
	}
	return err
}
