// Package classroom is class mode's live half: the feeds that push a
// class's changes to the browsers following it, the votes a lab page
// sends over its socket, and what a student does in a lab.
//
// Each class with listeners has one feed, the voter takes a lab page's
// votes to the store, and the observer tells the class the student's
// commands and the goals their world meets.
//
// A browser follows its class over its lab socket (live.Conn.Tell: the
// class bar) or, without one, over an event stream the room takes over
// from the HTTP server (the bar, a dashboard, a projector): one way each,
// both fed by the class's one feed. The room draws nothing itself: the
// web layer hands it what it draws (Pages, View) and how an error reads.
package classroom

import (
	"context"
	"sync"
	"time"

	"leaselab/class"
	"leaselab/live"
)

// Config is what a Room is built from.
type Config struct {
	// Classes is the class store.
	Classes *class.Service
	// Pages draws the class bar and says how a vote's outcome reads.
	Pages Pages
	// Clock paces the goal checks of playing worlds (Observer).
	Clock live.Clock
	// Done ends the room's feeds: the server closes.
	Done context.Context
	// WriteWait bounds one write to a student's event stream: a client
	// that takes no bytes for this long is dropped (its browser comes back
	// by itself). Zero: DefaultWriteWait.
	WriteWait time.Duration

	// throttle is Throttle unless a test sets it (zero: Throttle).
	throttle time.Duration
}

// DefaultWriteWait is Config.WriteWait's default.
const DefaultWriteWait = 2 * time.Second

// Throttle: a class's browsers get at most one update in this time, so a
// class voting at once costs one drawing of each view, not one per vote.
const Throttle = 250 * time.Millisecond

// Room is the live classes of one server: the feeds of the classes that
// have listeners.
type Room struct {
	cfg   Config
	mu    sync.Mutex
	feeds map[string]*feed
}

// New makes a room; its feeds end when cfg.Done ends.
func New(cfg Config) *Room {
	if cfg.WriteWait <= 0 {
		cfg.WriteWait = DefaultWriteWait
	}
	if cfg.throttle <= 0 {
		cfg.throttle = Throttle
	}
	return &Room{cfg: cfg, feeds: map[string]*feed{}}
}

// Member is a student of a running class, as a request's cookie names
// them.
type Member struct{ ClassID, Code, StudentID string }

// Pages is what the room asks of the web layer: the class bar it draws,
// and the words of a vote's outcome in a page's language.
type Pages interface {
	// Bar draws the class bar in lang as every student of the class of
	// code sees it, without what is a student's own; ok is false when the
	// class is gone (or the bar could not be drawn).
	Bar(ctx context.Context, lang, code string) (b Bar, ok bool)
	// Voted is what a student's bar says once their vote (choice, of
	// choices) was kept.
	Voted(lang string, choices []string, choice string) string
	// Refused is why a vote was not kept, as the page of a student of the
	// class of code says it (catalog.Readable).
	Refused(lang, code string, err error) error
}

// Bar is the class bar as every student of a class sees it.
type Bar struct {
	Class  string // the class it shows; "" when the store could not say
	HTML   string
	Counts bool // it shows the vote's counts (or its answer)
	Down   bool // the store could not be read, or cannot save
}

// View is what a dashboard or a projector shows of its class and draws
// again after each change.
type View interface {
	// Draw writes the view's events (Event) after the class changed:
	// changed says what changed since it last drew, nil when anything may
	// have. ok is false when it has nothing to send (its link no longer
	// leads to the class).
	Draw(ctx context.Context, changed map[string]bool) (events []byte, ok bool)
}
