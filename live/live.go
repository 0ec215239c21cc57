// Package live is the live lab's connection: the websocket's reader,
// writer and keep timer (conn.go), the session loop that carries out a
// client's messages and draws its frames (session.go), the what-if pair's
// frames (pair.go), play mode's players (play.go), the wire format
// (wire.go, docs/protocol.md) and the clock the live code reads (clock.go).
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
	// Render runs f on one of the server's render goroutines (a fixed
	// pool, so that decoding and rendering never outnumber the cores),
	// or on the caller's own when none is idle.
	Render func(f func())
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

// Pair makes c drive a what-if pair.
func (c *Conn) Pair(p *labsession.Pair) { c.runs, c.sess = &pairRun{Pair: p}, p.Session() }

// Query is the session's query, for a log line.
func (c *Conn) Query() string { return c.sess.Query() }

// Run runs the session on conn until the connection ends.
func (c *Conn) Run(conn *websocket.Conn) {
	c.conn = conn
	c.run()
}

// hold tells the memory ledger what the session holds now.
func (c *Conn) hold() {
	if c.mem != nil {
		c.mem.Set(SessionOverhead + c.sess.Footprint())
	}
}
