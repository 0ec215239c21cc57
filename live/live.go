// Package live is the live lab's connection over a websocket, from a
// client's message to the frames it draws. It holds the reader,
// writer and keep timer (conn.go), the session loop that carries out a
// client's messages and draws its frames (session.go), the what-if pair's
// frames (pair.go), play mode's players (play.go), the wire format
// (wire.go, docs/protocol.md), and the clock the live code reads (Clock;
// clock.go is the one tests move by hand).
//
// The web server decides who may open a connection (origin, caps, memory,
// budgets), rebuilds the session a URL describes, upgrades the request and
// hands the connection here (New, Lab or Pair, Run). What this package
// needs of the server comes in a Config, through small interfaces.
package live

import (
	"context"
	"log/slog"
	"time"

	"github.com/a-h/templ"
	"github.com/gorilla/websocket"

	"leaselab/budget"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/labsession"
)

// Config is what a server gives its live connections, one for them all.
type Config struct {
	Clock Clock
	Log   *slog.Logger
	// Metrics counts what the connections do.
	Metrics Metrics
	// Renderers are where the connections decode and render (Render).
	Renderers *Renderers
	// Players draw the play frames of every playing session (play.go).
	Players     *Players
	IdleTimeout time.Duration
	// Done ends every session: the server is shutting down.
	Done context.Context
	// Base is the site's base path, for the links a frame draws.
	Base string
	// Verdicts judge a lab page's answers, challenges and goals.
	Verdicts Verdicts
	// BeforeHandle, when set (by tests, before any session), sees each
	// message the session is about to handle.
	BeforeHandle func(ClientMsg)
}

// Error kinds a live connection counts (Metrics.Error).
const (
	ErrCommand = "command" // a command or question the engine refused
	ErrMessage = "message" // not JSON, or an unknown type
	ErrSize    = "size"    // a message over MaxMessageSize
	ErrRate    = "rate"    // over the per-connection message rate
	ErrSlow    = "slow"    // dropped: could not keep up with its frames, or a write timed out
	ErrIdle    = "idle"    // closed: no message for IdleTimeout
	ErrLimit   = "limit"   // the session's virtual time, event or command cap
	ErrBudget  = "budget"  // refused: the session or its address used its work budget
	ErrPanic   = "panic"   // a bug, contained to its session
)

// Metrics is what the server counts of its live connections.
type Metrics interface {
	// Error counts one error of a kind above.
	Error(kind string)
	// Command counts a command applied to a world, a play step included.
	Command()
	// Skipped counts play ticks that passed without a frame.
	Skipped(n int64)
	// Answered is the time from a message's arrival to its answer written.
	Answered(d time.Duration)
	// Played is the time from a play tick to its frame written.
	Played(d time.Duration)
}

// Verdicts judge what a lab page asks and draw the verdict as the page
// draws it (its templ blocks are the server's), or say why they cannot.
type Verdicts interface {
	Answer(lab *labs.Lab, question, choice, lang string) (templ.Component, error)
	Challenge(lab *labs.Lab, values map[string]string, lang string) (templ.Component, error)
	Goal(lab *labs.Lab, goal string, w *engine.World, lang string) (templ.Component, error)
}

// Observer hears what a student does in a lab session: each command
// applied, and each goal checked, with the world it was checked on. The
// server fills it for a student of a class (class mode); it must not
// block, as it runs under the session's lock.
type Observer interface {
	Step(command string)
	Goal(goal string, w *engine.World)
}

// Mover is an Observer that also hears the world each time it moved: a
// command applied, a replay, a play frame (frame true). Class mode counts
// a goal reached as soon as the student's world meets it, without the
// student asking (issue 43). It runs under the session's lock, on the
// session's own work budget.
type Mover interface {
	Moved(w *engine.World, frame bool)
}

// Voter takes a class vote sent from the lab page (class mode): a lecture
// room votes over the sockets its pages hold open, not over as many new
// connections. The server fills it for a student of a class. Vote must
// not wait for the store: it calls then once the vote is stored (votes
// are written together), from another goroutine or at once, so that a
// class voting in one second holds no goroutine a vote. said is what
// tells the student their vote was kept; an error is Readable
// (catalog.Error), or says why in general words. sure is how sure the
// student said they were ("sure", "unsure", "" not asked).
type Voter interface {
	Vote(round int64, choice, sure string, then func(said string, err error))
}

// Memory is a session's entry in the server's memory ledger: it says how
// many bytes the session holds now.
type Memory interface{ Set(n int) }

// SessionOverhead is what a live session holds beyond its
// labsession.Footprint: the Conn, its kept picture and its connection's
// buffers and stack, measured with the heap benchmarks (about 13 KB of
// picture and state, 4 KB of stack, a read buffer).
const SessionOverhead = 24 << 10

// releaseAbove is the world size past which a session at rest lets its
// world go (labsession.Release): smaller worlds cost less to keep than to
// rebuild at the next command.
const releaseAbove = 64 << 10

// New is a connection to a lab, in lang, not yet driving anything: Lab or
// Pair says what it drives, Run runs it. work is the session's budget,
// addr its client address's (shared), mem its entry in the memory ledger.
func New(cfg *Config, lab *labs.Lab, lang string, work, addr *budget.Work, mem Memory) *Conn {
	return &Conn{cfg: cfg, lab: lab, lang: lang, out: make(chan *outMsg, sendQueue), speed: 1, work: work, addr: addr, mem: mem}
}

// Lab makes c drive a lab session.
func (c *Conn) Lab(sess *labsession.Session) { c.sess, c.runs = sess, labRun{sess} }

// Have says that the page shows the lab session's world as a fresh
// render of its address does (its first connection says have=1): the
// first frame carries the session's query and time but no copy of what
// the page has, and later frames change the page from there.
func (c *Conn) Have() { c.have = true }

// Observe makes o hear c's commands and goal checks; call it before Run.
func (c *Conn) Observe(o Observer) { c.obs = o }

// Votes makes v take the class votes the page sends; call it before Run.
// Without one a vote is refused: the student is in no class.
func (c *Conn) Votes(v Voter) { c.voter = v }

// Pair makes c drive a what-if pair.
func (c *Conn) Pair(p *labsession.Pair) { c.runs, c.sess = &pairRun{Pair: p}, p.Session() }

// Query is the session's query, for a log line.
func (c *Conn) Query() string { return c.sess.Query() }

// Run runs the session on conn until the connection ends.
func (c *Conn) Run(conn *websocket.Conn) {
	c.conn = conn
	c.run()
}

// Clock is where the live code reads the time and sets its timers: when a
// message came, when a session falls idle, when a play frame is due. A
// server runs on the wall clock; a test of idle timeouts or players hands
// in a ManualClock (clock.go) and moves it, instead of sleeping. The
// socket's own deadlines stay on the wall clock: the network keeps it.
type Clock interface {
	Now() time.Time
	// AfterFunc runs f in its own goroutine once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a timer a Clock set: time.Timer's Stop and Reset.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// WallClock is the Clock of a server: the time package's.
type WallClock struct{}

// Now is time.Now.
func (WallClock) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (WallClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Renderers are a server's render goroutines, where its live connections
// decode messages and render frames: a few goroutines whose stacks grow
// deep in templ and encoding/json once, instead of every connection's, and
// a fixed number of them (Run), so that decoding and rendering never
// outnumber the cores.
type Renderers struct{ jobs chan func() }

// NewRenderers is a pool with no goroutine yet: each Run adds one.
func NewRenderers() *Renderers { return &Renderers{jobs: make(chan func())} }

// Run is one render goroutine: it runs the work handed to it until ctx
// ends.
func (r *Renderers) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-r.jobs:
			f()
		}
	}
}

// try runs f on an idle render goroutine and waits for it, or reports
// false at once when none is idle: the server is busy. A panic in f is
// carried back to the caller, whose session it belongs to.
func (r *Renderers) try(f func()) bool {
	var p any
	done := make(chan struct{})
	job := func() {
		defer close(done)
		defer func() { p = recover() }()
		f()
	}
	select {
	case r.jobs <- job:
	default:
		return false
	}
	<-done
	if p != nil {
		panic(p)
	}
	return true
}

// Render runs f on an idle render goroutine, or on the caller's own when
// none is idle: an answer to a student never waits for the play frames of
// others.
func (r *Renderers) Render(f func()) {
	if !r.try(f) {
		f()
	}
}
