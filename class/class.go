// Package class keeps the classes an instructor runs (issue 27): who joined,
// what the class works on, the vote rounds and their answers, the goals the
// students reached and their last step in each lab, and the world the
// instructor pushed. It stores them in a database, SQLite in a data folder
// by default or PostgreSQL when several replicas share one, and tells the
// pages that watch a class when something in it changed.
//
// The live student sessions are not here: a lab plays without a database.
// Class mode's live half (package classroom) reports a student's commands
// and the goals their world meets through Step and Reached, which queue
// them and return.
//
// Every method that touches the database returns ErrUnavailable (wrapped,
// so errors.Is finds it) when the database is down, full or otherwise
// refuses; the domain errors below are returned for what a caller or a
// student did wrong. Nothing in this package reads the wall clock except
// through Config.Now.
package class

import (
	"errors"
	"time"
)

// Config says where a Service keeps its classes.
type Config struct {
	// Data is the folder of the SQLite file (class.db), made if missing.
	// Empty means DefaultData. Ignored when DatabaseURL is set.
	Data string
	// DatabaseURL "postgres://…" (or "postgresql://…") stores the classes
	// in PostgreSQL, which several replicas may share; empty means SQLite.
	DatabaseURL string
	// Retention is how long an ended class is kept before Purge deletes
	// it; zero means DefaultRetention.
	Retention time.Duration
	// Now is the clock of every time stored; nil means time.Now.
	Now func() time.Time
	// Logf receives the database's trouble, at most once a minute; nil
	// means the standard logger.
	Logf func(format string, args ...any)
}

// DefaultData is the data folder when Config.Data is empty: relative to
// the working directory of the server.
const DefaultData = "leaselab-data"

// DefaultRetention keeps an ended class 30 days.
const DefaultRetention = 30 * 24 * time.Hour

// Class is one class an instructor runs.
type Class struct {
	ID      string     // internal id, stable; never shown to students
	Code    string     // join code, CodeLength letters of CodeAlphabet
	Name    string     // the instructor's name for it, validated text
	Lang    string     // the language it was opened in ("id", "en")
	Created time.Time  //
	Ended   *time.Time // nil while the class runs
	Now     Activity   // what the class works on now
	Pushed  string     // the permalink the instructor pushed last, "" if none
	// Settings are the instructor's choices for grading and voting
	// (issue 44, settings.go).
	Settings Settings
}

// Activity is what the instructor asks the class to work on; any field
// may be empty.
type Activity struct {
	Lesson, Lab, Question, Goal string
}

// Student is one student of one class.
type Student struct {
	// ID is the anonymous id the browser keeps; the same id in two
	// classes is two students.
	ID string
	// Nick is the nickname the student gave, "" if none.
	Nick string
	// Key is the short "your key" (KeyLength letters of CodeAlphabet) that
	// restores the student on another device, with the join code.
	Key string
	// NIM is the student number given when joining, "" if none (issue 44).
	NIM string
}

// Round states.
const (
	RoundOpen     = "open"     // students vote
	RoundClosed   = "closed"   // votes stop, result not revealed
	RoundRevealed = "revealed" // the engine's answer is shown
)

// Round is one vote of a class on one question of a lab. A question has at
// most two rounds: the first vote, and the second after discussion.
type Round struct {
	ID       int64 // unique within the class, rising
	Lab      string
	Question string
	Choices  []string
	N        int    // 1 for the first vote on the question, 2 for the second
	State    string // RoundOpen, RoundClosed or RoundRevealed
	Shown    bool   // the instructor shows the live counts to the class
	Opened   time.Time
	// Closes is when a timed vote closes by itself (SetTimer); zero for
	// a vote without a timer.
	Closes time.Time
}

// Tally is a round with its counts: votes per choice (every choice is a
// key, zero included) and the number of students who voted. Sure and
// Unsure count, per choice, the votes sent with "sure" and with "not
// sure" (a class that asks for confidence, issue 44).
type Tally struct {
	Round        Round
	Counts       map[string]int
	Voters       int
	Sure, Unsure map[string]int
}

// GoalProgress says where the class is on one goal of a lab: how many
// students reached it, how many worked in the lab without reaching it,
// and the commonest last command of those, with how many share it.
type GoalProgress struct {
	Goal            string
	Reached         int
	Working         int
	CommonLastStep  string
	CommonLastStepN int
}

// RosterRow is one student as the instructor's dashboard lists them:
// the anonymous id, the nickname if one was given, the goals of a lab
// they reached (in the order reached) and their last command in it.
type RosterRow struct {
	ID       string
	Nick     string
	Reached  []string
	LastStep string // "" if they sent none in the lab
}

// Change says that something in a class changed; a page that watches the
// class reads again what it shows. What is one of the Changed constants;
// Round is set for round and vote changes.
type Change struct {
	Class string
	What  string
	Round int64
}

// What changed.
const (
	ChangedActivity = "activity"
	ChangedJoin     = "join"
	ChangedRound    = "round" // opened, closed, counts shown or hidden, revealed
	ChangedVote     = "vote"
	ChangedProgress = "progress" // a step or a goal reached
	ChangedPush     = "push"
	ChangedEnd      = "end"
)

// Join codes and keys: easy to read aloud and to type on a phone. The
// alphabet leaves out the look-alikes 0/O/Q/D, 1/I/L, 2/Z, 5/S, 8/B and
// U/V: what remains cannot be misread for another of its letters.
const (
	CodeAlphabet = "ACEFGHJKMNPRTWXY34679"
	CodeLength   = 6
	KeyLength    = 8
)

// Limits of what a caller may store.
const (
	MaxNick     = 24 // runes
	MaxName     = 60 // runes
	MaxChoices  = 8
	MaxText     = 200 // runes of a lab, lesson, question, goal, choice or command
	MaxLink     = 500 // bytes of a pushed permalink
	TokenBytes  = 32  // random bytes of an instructor token (256 bits)
	maxStudents = 2000
)

// Errors a caller tells apart with errors.Is.
var (
	// ErrUnavailable: the database is down, full or refuses; what was
	// saved before is kept, this change was not made.
	ErrUnavailable = errors.New("class: the database is unavailable")
	// ErrClosed: the service was closed (the server is shutting down);
	// an error that is ErrClosed is ErrUnavailable too.
	ErrClosed = errors.New("class: the class service is closed")
	// ErrNoClass: no class has this code, token or id.
	ErrNoClass = errors.New("class: no such class")
	// ErrEnded: the class was ended by its instructor.
	ErrEnded = errors.New("class: the class has ended")
	// ErrNotJoined: the student did not join this class.
	ErrNotJoined = errors.New("class: the student did not join this class")
	// ErrNoKey: no student of the class has this key.
	ErrNoKey = errors.New("class: no student has this key")
	// ErrClassFull: the class has maxStudents students.
	ErrClassFull = errors.New("class: the class is full")
	// ErrNoRound: the class has no round with this id.
	ErrNoRound = errors.New("class: no such round")
	// ErrRoundClosed: the round no longer takes votes.
	ErrRoundClosed = errors.New("class: the vote is closed")
	// ErrRoundLimit: the question had its two rounds already.
	ErrRoundLimit = errors.New("class: the question was voted on twice already")
	// ErrBadChoice: the vote is not one of the round's choices.
	ErrBadChoice = errors.New("class: not a choice of this round")
	// ErrBadInput: a name, nickname, id, text or format the package
	// refuses (too long, not text, empty where needed).
	ErrBadInput = errors.New("class: input refused")
	// ErrNewerSchema: the database was written by a newer leaselab.
	ErrNewerSchema = errors.New("class: the database has a newer schema than this leaselab knows")
)
