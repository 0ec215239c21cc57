package live

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a-h/templ"
	"github.com/gorilla/websocket"

	"leaselab/budget"
	"leaselab/catalog"
	"leaselab/draw"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/labsession"
)

// The live session: the connection's reader carries out the client's
// messages one at a time under the session's lock and queues the answers;
// in play mode the server's players move the world on (play.go).

const (
	// playTick is how often play mode advances the world, in real time.
	playTick = 200 * time.Millisecond
	// maxSpeed bounds play speed: virtual seconds per real second.
	maxSpeed = 20
	// maxEvery is the longest a page may ask play frames to be apart
	// (the play message's every): a slow phone that cannot show five
	// frames a second takes fewer, but still sees time move each second.
	maxEvery = time.Second
	// maxRefused is how many messages over the rate, in a row, end the
	// session: whoever sends them is not a person waiting for answers.
	maxRefused = 100
)

// Close codes the client acts on (docs/protocol.md).
const (
	// CloseIdle: no message for the idle timeout; the client reconnects
	// only when the student acts again.
	CloseIdle = 4000
)

// Conn is one open lab. Who holds its world, and why: no goroutine owns
// it; three take mu in turn and touch the world (runs, sess, view) only
// while they hold it:
//
//   - the connection's reader (read, conn.go), which carries out each
//     client message under mu, from the command to its frame;
//   - a player (play.go), which draws a play frame under mu, and never
//     waits for it: a session busy with a message lets the tick pass
//     (TryLock), so that a student's answer is never queued behind play;
//   - the keep timer (keep, conn.go), which pings and ends an idle
//     session under mu.
//
// A frame leaves mu as bytes (offer encodes it under mu), and the writer,
// a goroutine only while it has work, holds no lock to send them: no world
// and no picture is shared with it.
type Conn struct {
	cfg  *Config
	conn *websocket.Conn
	lab  *labs.Lab
	lang string
	// runs is what the connection drives: the lab session sess, or a
	// what-if pair whose run A is sess (pair.go).
	runs  driven
	sess  *labsession.Session
	shown int // events already in the page's list
	// shownRun is the run those events came from (labsession.Run): a
	// reset or a replay starts a new one, whose list the page must show
	// whole.
	shownRun uint64
	// noRows says the page's event list is closed: while the world plays,
	// frames leave its new rows out (play's rows), and the play or pause
	// that opens it or stops brings them.
	noRows bool
	// have says the page shows the session as its address draws it (the
	// page's first connection): the first frame sends none of it (Have).
	have bool
	// second is the second of the world's time the last frame was in: a
	// play frame within it leaves out the words the page shows once a
	// second (frame).
	second engine.Time
	ncmds  int  // the session's commands then
	late   bool // the last frame was within its second
	// mem is the session's entry in the server's memory ledger.
	mem Memory
	// obs hears the student's commands and goal checks; nil for most.
	obs Observer

	// work is this session's budget; addr its client address's, shared.
	work, addr *budget.Work

	// mu guards the session and everything below: the reader, the players
	// and the keep timer take it in turn.
	mu      sync.Mutex
	seq     int64
	closing bool // a close frame was sent, or is queued (closeAfter)
	// closeAfter is the close frame the writer sends once the answers
	// queued before it have gone out.
	closeAfter []byte
	out        chan *outMsg // encoded (offer); pointers, pooled: a full queue of values would cost every session 9 KB
	writing    bool         // a writer goroutine is running
	ended      bool         // the reader has returned: nothing starts again
	// ending is set once close has run: the reader discards what still
	// comes, and nothing more is queued.
	ending  atomic.Bool
	playing bool
	// playGen counts the times play mode started and stopped: a queued
	// frame of another generation is stale (play.go).
	playGen uint64
	speed   float64
	// every is how far apart in real time play frames are due (a
	// time.Duration, at least playTick), as the page asked: atomic, since
	// a player reads it before it takes mu.
	every atomic.Int64
	// lastDue is when the last play frame was due (or play started), and
	// owed the virtual time play mode has not yet moved the world on.
	lastDue time.Time
	owed    engine.Time
	// voter takes the page's class votes (nil outside a class); voting
	// are those waiting for the store (vote.go).
	voter   Voter
	voting  int
	refused int       // messages over the rate in a row
	active  time.Time // the last message
	pingAt  time.Time // when the next ping is due
	keeper  Timer     // runs keep: pings and the idle timeout
	tasks   sync.WaitGroup
	// view is what the page shows, kept while the session plays so that
	// a frame sends only what changed (draw.LivePage).
	view *draw.LivePage
	// notice waits to be sent (Tell); telling is set while a goroutine
	// waits for mu to send it; started once the first frame is queued.
	notice  atomic.Pointer[Notice]
	telling atomic.Bool
	started bool
	// undo takes back the last command, sent with hold while the
	// student's finger was down, if the touch turns out to be a scroll:
	// set by a held do on a paused lab session, let go at the next
	// message of any other kind.
	undo *undoPoint
}

// undoPoint is a lab session, and what its page was shown, before a held
// command (undo).
type undoPoint struct {
	id       int64 // the held do's
	mark     labsession.Mark
	shown    int
	shownRun uint64
	second   engine.Time
	ncmds    int
	late     bool
}

func (l *Conn) run() {
	// The page was rendered from the same session; the first frame brings
	// it up to date in case the world moved since (a reconnect).
	l.shown = -1
	var first serverMsg
	start := l.cfg.Clock.Now()
	l.cfg.Renderers.Render(func() { first = l.safely(0, func() serverMsg { return l.runs.frame(l, 0) }) })
	first.at = start
	l.mu.Lock()
	l.active, l.pingAt = start, start.Add(pingPeriod)
	l.keeper = l.cfg.Clock.AfterFunc(min(pingPeriod, l.cfg.IdleTimeout), l.keep)
	l.send(first)
	l.started = true
	l.tellPending()
	l.rest()
	l.mu.Unlock()
	stop := context.AfterFunc(l.cfg.Done, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.close(websocket.CloseGoingAway, "server shutting down")
	})
	l.read()
	stop()
	l.mu.Lock()
	l.ended = true
	l.stopPlay()
	l.keeper.Stop()
	l.mu.Unlock()
	// Closing ends a write stuck on a slow client; what is still queued is
	// lost, and the client's replay recovers it.
	l.conn.Close()
	l.tasks.Wait()
}

// receive carries out one client message and queues its answer. Called
// with l.mu held.
func (l *Conn) receive(m ClientMsg) {
	l.active = m.at
	if m.kind == msgRefused {
		// Over the rate: answered, not carried out. The answer is left
		// out rather than the client dropped if its queue fills.
		l.cfg.Metrics.Error(ErrRate)
		budget.ChargeFixed(budget.RefuseCost, l.work, l.addr)
		if l.refused++; l.refused > maxRefused {
			l.close(websocket.ClosePolicyViolation, "too many messages")
			return
		}
		if len(l.out) < sendQueue/2 { // the other half is for real answers
			tooMany := &wireError{"err.too-many", []any{MsgRate}, fmt.Sprintf("too many messages: at most %d a second", MsgRate)}
			l.offer(serverMsg{Type: "error", ID: m.ID, Error: catalog.Error(l.lang, tooMany), at: m.at})
		}
		return
	}
	if m.kind != msgUndo {
		l.undo = nil // the held command stands
	}
	var reply serverMsg
	switch m.kind {
	case msgUndo:
		reply = l.takeBack(m)
	case msgPlay:
		l.refused = 0
		l.pace(m.Every)
		if m.Rows != nil {
			l.noRows = !*m.Rows
		}
		l.startPlay(m.at, m.Speed)
		reply = l.rowsAck(m.ID)
	case msgPause:
		l.refused = 0
		reply = l.pauseAck(m.ID)
		l.moved(false) // a goal met by a frame the check skipped is told now
	case msgVote:
		l.vote(m)
		return
	default:
		reply = l.costly(m)
	}
	if l.ending.Load() {
		return // refused too often: closed
	}
	reply.at = m.at
	l.send(reply)
	l.rest()
}

// rest runs after each message: a session that does not play and holds a
// large world lets it go (the next command rebuilds it by replay), and the
// memory ledger learns what the session holds now. A what-if pair keeps
// its worlds: its runs are forked, not replayed. Called with l.mu held.
func (l *Conn) rest() {
	if _, lab := l.runs.(labRun); !l.playing && lab && l.sess.Held() && l.sess.Footprint() > releaseAbove {
		l.sess.Release()
	}
	l.hold()
}

// hold tells the memory ledger what the session holds now: its world,
// and where a held command would take it back to (undo).
func (c *Conn) hold() {
	if c.mem != nil {
		n := SessionOverhead + c.sess.Footprint()
		if c.undo != nil {
			n += c.undo.mark.Footprint()
		}
		c.mem.Set(n)
	}
}

// pace sets how far apart play frames are due, from a play message's
// every (seconds): within playTick and maxEvery; 0 keeps the last.
func (l *Conn) pace(every float64) {
	if every <= 0 {
		return
	}
	d := time.Duration(math.Ceil(every*1000)) * time.Millisecond
	l.every.Store(int64(min(max(d, playTick), maxEvery)))
}

// interval is how far apart play frames are due.
func (l *Conn) interval() time.Duration {
	return max(time.Duration(l.every.Load()), playTick)
}

// startPlay starts play mode, or only changes its speed when the session
// plays already. Called with l.mu held.
func (l *Conn) startPlay(at time.Time, speed float64) {
	if speed > 0 {
		l.speed = min(speed, maxSpeed)
	}
	if l.playing {
		return
	}
	l.playing = true
	l.playGen++
	l.lastDue, l.owed = at, 0
	l.cfg.Players.add(playEntry{due: at.Add(l.interval()), l: l, gen: l.playGen})
}

// stopPlay ends play mode: the frame queued for it is stale from now.
// Called with l.mu held.
func (l *Conn) stopPlay() {
	if l.playing {
		l.playGen++
	}
	l.playing = false
	l.owed = 0
	l.view = nil // a paused session keeps nothing beyond its world
}

// playFrame draws the frame e, on a player (play.go), and queues the
// session's next one. A session busy with a student's message, or over
// its work budget, lets the tick pass: its next frame advances the more.
func (l *Conn) playFrame(e playEntry) {
	// The next frame is due an interval after this one; intervals
	// already past pass without a frame.
	every := l.interval()
	next := e.due.Add(every)
	if late := l.cfg.Clock.Now().Sub(next); late >= 0 {
		n := late/every + 1
		next = next.Add(n * every)
		l.cfg.Metrics.Skipped(int64(n))
	}
	again := playEntry{due: next, l: l, gen: e.gen}
	if !l.mu.TryLock() {
		// A player never waits for one session: its reader is carrying
		// out a message, so this tick passes. Whether the session still
		// plays is seen when the next one is drawn.
		l.cfg.Metrics.Skipped(1)
		l.cfg.Players.add(again)
		return
	}
	defer l.mu.Unlock()
	if l.ended || !l.playing || e.gen != l.playGen {
		return // paused, closed, or playing again from a later entry
	}
	defer func() {
		// A panic that safely could not contain ends this session only.
		if p := recover(); p != nil {
			l.cfg.Metrics.Error(ErrPanic)
			l.cfg.Log.Error("live lab session ended by a panic", "lab", l.lab.ID, "panic", p, "session", l.sess.Query())
			l.stopPlay()
			l.conn.Close()
		}
	}()
	l.owed += engine.Time(float64(e.due.Sub(l.lastDue)/time.Millisecond) * l.speed)
	l.lastDue = e.due
	if budget.Wait(l.work, l.addr) != nil || !l.addr.Take(0) {
		l.cfg.Metrics.Skipped(1)
		l.cfg.Players.add(again)
		return
	}
	start := time.Now()
	msg := l.safely(0, func() serverMsg {
		l.keepShown()
		if err := l.runs.Apply(engine.Command{Kind: engine.CmdAdvance, Dur: max(l.owed, 1)}); err != nil {
			return l.fail(0, err)
		}
		l.cfg.Metrics.Command()
		l.moved(true)
		return l.runs.frame(l, 0)
	})
	l.addr.Give()
	budget.Charge(start, l.work, l.addr)
	l.owed = 0
	if msg.Type == "error" {
		l.stopPlay()
	}
	msg.at, msg.play = e.due, true
	l.hold()
	if l.send(msg) && l.playing {
		l.cfg.Players.add(again)
	}
}

// keepShown, before a play frame or a paused session's command moves
// the world on, keeps the page a lab session's last frame drew (whole, or
// brought up to what a whole frame draws) when it keeps none: the session
// was paused, and keeps nothing then. The frame then sends what changed
// since, not the page again (a renew-load page's first play frame was
// 15 KB, a tap's answer on a paused page a whole picture). A play
// frame's is laid out on the player, as the frame is: 2,000 students
// pressing play at once cost their readers nothing. Called with l.mu held.
func (l *Conn) keepShown() {
	if _, lab := l.runs.(labRun); !lab || l.view != nil || l.shown < 0 || l.have ||
		l.shownRun != l.sess.Run() || len(l.sess.World().Events()) != l.shown {
		return
	}
	l.view = draw.Shown(&draw.Live{Lang: l.lang, Base: l.cfg.Base, Lab: l.lab, Session: l.sess})
}

// costly answers a message that runs the engine or renders, within the
// session's and its address's work budgets.
func (l *Conn) costly(m ClientMsg) serverMsg {
	if !m.kind.costly() {
		return l.handle(m) // an unknown or invalid message: an error, at once
	}
	if err := budget.Start(l.addr, l.work); err != nil {
		// Over budget: answered "busy", which costs a little too; a client
		// that keeps asking regardless is not a person waiting.
		l.cfg.Metrics.Error(ErrBudget)
		budget.ChargeFixed(budget.RefuseCost, l.work, l.addr)
		if l.refused++; l.refused > maxRefused {
			l.close(websocket.ClosePolicyViolation, "too many messages")
			return serverMsg{}
		}
		var be *budget.Busy
		errors.As(err, &be)
		return serverMsg{Type: "error", ID: m.ID, Error: catalog.Error(l.lang, err), Retry: be.Retry.Seconds()}
	}
	l.refused = 0
	defer l.addr.Give()
	factor := 1
	if m.kind == msgChallenge {
		factor = budget.VerdictFactor
	}
	defer budget.ChargeTimes(time.Now(), factor, l.work, l.addr)
	var reply serverMsg
	switch m.kind {
	case msgDo, msgReplay:
		l.cfg.Renderers.Render(func() { reply = l.safely(m.ID, func() serverMsg { return l.handle(m) }) })
	default: // answers and challenges run engines of their own: not in the shared renderers
		reply = l.safely(m.ID, func() serverMsg { return l.handle(m) })
	}
	return reply
}

// moved tells a Mover that a lab session's world moved. Called with l.mu
// held.
func (l *Conn) moved(frame bool) {
	if mv, ok := l.obs.(Mover); ok {
		if _, lab := l.runs.(labRun); lab {
			mv.Moved(l.sess.World(), frame)
		}
	}
}

// fail is the error answer to message id, counted by kind.
func (l *Conn) fail(id int64, err error) serverMsg {
	var le *labsession.LimitError
	kind := ErrCommand
	if errors.As(err, &le) {
		kind = ErrLimit
	}
	l.cfg.Metrics.Error(kind)
	return serverMsg{Type: "error", ID: id, Error: catalog.Error(l.lang, err)}
}

// handle answers one client message with an ack carrying the frame it
// caused, or an error; the session is unchanged by a message that fails.
func (l *Conn) handle(m ClientMsg) serverMsg {
	if l.cfg.BeforeHandle != nil {
		l.cfg.BeforeHandle(m)
	}
	switch m.kind {
	case msgInvalid:
		l.cfg.Metrics.Error(ErrMessage)
		return serverMsg{Type: "error", ID: m.ID, Error: catalog.Error(l.lang, &wireError{"err.message", nil, m.why})}
	case msgUnknown:
		l.cfg.Metrics.Error(ErrMessage)
		typ := labsession.Clip(m.Type)
		return serverMsg{Type: "error", ID: m.ID, Error: catalog.Error(l.lang, &wireError{"err.message-type", []any{typ}, "unknown message type " + typ})}
	}
	return l.runs.handle(l, m)
}

// driven is what a live connection drives: a lab session (labRun) or a
// what-if pair (pairRun, pair.go). The reader, the writer, the
// budgets, play mode and the recovery from a panic are the same for
// both; what differs is here.
type driven interface {
	// Apply moves it on by one command; play mode's are time.
	Apply(c engine.Command) error
	// frame draws what changed on l's page since the last frame.
	frame(l *Conn, id int64) serverMsg
	// handle carries out a client message that asks for work.
	handle(l *Conn, m ClientMsg) serverMsg
	// rebuild makes it anew from its query, after a panic.
	rebuild(l *Conn) error
}

// labRun is a lab session as its live page drives it.
type labRun struct{ *labsession.Session }

func (labRun) frame(l *Conn, id int64) serverMsg { return l.frame(id) }

// handle answers a lab page's message: a command, a replay, an answer, a
// goal or a challenge to judge.
func (labRun) handle(l *Conn, m ClientMsg) serverMsg {
	fail := func(err error) serverMsg { return l.fail(m.ID, err) }
	var fragment templ.Component
	var target string
	switch m.kind {
	case msgDo:
		// A paused page shows its world as its last frame drew it: kept
		// for this command, the answer sends what the command changed,
		// not the page again (a tap's answer was a whole picture, which a
		// slow phone parsed and laid out anew: issue 48).
		if !l.playing {
			l.keepShown()
		}
		u := l.undoPointFor(m)
		if err := l.sess.Do(m.Cmd); err != nil {
			if !l.playing {
				l.view = nil
			}
			return fail(err)
		}
		l.cfg.Metrics.Command()
		if l.obs != nil {
			l.obs.Step(m.Cmd)
		}
		l.moved(false)
		reply := l.ack(m.ID)
		if reply.Type == "ack" {
			l.undo = u
		}
		return reply
	case msgReplay:
		if err := l.sess.Replay(); err != nil {
			return fail(err)
		}
		l.moved(false)
		return l.ack(m.ID)
	case msgAnswer:
		f, err := l.cfg.Verdicts.Answer(l.lab, m.Question, m.Choice, l.lang)
		if err != nil {
			return fail(err)
		}
		fragment, target = f, "verdict-"+m.Question
	case msgChallenge:
		f, err := l.cfg.Verdicts.Challenge(l.lab, m.Values, l.lang)
		if err != nil {
			return fail(err)
		}
		fragment, target = f, "challenge-verdict"
	case msgGoal:
		f, err := l.cfg.Verdicts.Goal(l.lab, m.Goal, l.sess.World(), l.lang)
		if err != nil {
			return fail(err)
		}
		if l.obs != nil {
			l.obs.Goal(m.Goal, l.sess.World())
		}
		fragment, target = f, "goal-verdict-"+m.Goal
	default:
		l.cfg.Metrics.Error(ErrMessage)
		typ := labsession.Clip(m.Type)
		return serverMsg{Type: "error", ID: m.ID, Error: catalog.Error(l.lang, &wireError{"err.message-type", []any{typ}, "unknown message type " + typ})}
	}
	reply := serverMsg{Type: "ack", ID: m.ID}
	if err := reply.body().Render(draw.OpReplace, target, fragment); err != nil {
		reply.free()
		return fail(err)
	}
	return reply
}

// undoPointFor is where a held do may take the session back to (undo);
// nil when it cannot be taken back: a do without hold, one on a world
// that plays, and one in class mode, whose observer has heard the
// command (a goal it reached stays counted).
func (l *Conn) undoPointFor(m ClientMsg) *undoPoint {
	if !m.Hold || l.playing || l.obs != nil {
		return nil
	}
	return &undoPoint{id: m.ID, mark: l.sess.Mark(), shown: l.shown, shownRun: l.shownRun, second: l.second, ncmds: l.ncmds, late: l.late}
}

// takeBack answers an undo: the session and what its page was shown go
// back to before the held do m.Of, if that is still the session's last
// message; the page then keeps what it showed. Called with l.mu held.
func (l *Conn) takeBack(m ClientMsg) serverMsg {
	u := l.undo
	l.undo = nil
	if u == nil || u.id != m.Of {
		return serverMsg{Type: "error", ID: m.ID, Error: catalog.Error(l.lang, &wireError{"err.undo", []any{m.Of}, fmt.Sprintf("command %d can no longer be taken back", m.Of)})}
	}
	l.sess.Restore(u.mark)
	l.shown, l.shownRun, l.second, l.ncmds, l.late = u.shown, u.shownRun, u.second, u.ncmds, u.late
	l.view = nil
	return serverMsg{Type: "ack", ID: m.ID}
}

// safely runs f, turning a panic — a bug, in the engine or here — into an
// error for the client. The world may be half-changed then, so it is
// rebuilt from the session's query, which reached a good state before.
func (l *Conn) safely(id int64, f func() serverMsg) (m serverMsg) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		l.cfg.Metrics.Error(ErrPanic)
		l.cfg.Log.Error("live lab panicked", "lab", l.lab.ID, "panic", p, "session", l.sess.Query(), "stack", string(debug.Stack()))
		// What the bug was goes to the log, not to the student.
		bug := &wireError{"err.internal", nil, fmt.Sprintf("internal error (%v); the world was rebuilt from its commands", p)}
		if err := l.runs.rebuild(l); err != nil {
			l.cfg.Log.Error("rebuilding the world after a panic failed", "lab", l.lab.ID, "err", err)
			bug = &wireError{"err.internal.lost", nil, bug.msg + ", but that failed: " + err.Error()}
		}
		m = serverMsg{Type: "error", ID: id, Error: catalog.Error(l.lang, bug)}
	}()
	return f()
}

// rebuild makes the session anew from its query.
func (labRun) rebuild(l *Conn) error {
	q, _ := url.ParseQuery(l.sess.Query())
	sess, _, err := labsession.FromQuery(l.lab, q)
	if err != nil {
		return err
	}
	l.sess, l.runs, l.shown = sess, labRun{sess}, -1
	return nil
}

func (l *Conn) ack(id int64) serverMsg {
	f := l.runs.frame(l, id)
	f.Type = "ack"
	return f
}

// frame renders what changed: the picture, the state, the session, and
// the events the list does not show yet (draw.LivePage).
func (l *Conn) frame(id int64) serverMsg {
	w := l.sess.World()
	p := l.view
	if !l.playing {
		l.view = nil // a paused session keeps nothing beyond its world
	}
	if !p.Shows(w) || l.shown < 0 || l.shownRun != l.sess.Run() {
		p = nil
	}
	// A play frame within the second of the last frame leaves out what
	// the page shows once a second (draw.Live.Within): the time's words,
	// the last command's, and the session's query, which the address
	// takes every 5 s.
	// (A new command is the student's: its frame brings them all.)
	sec, ncmds := w.Now()/engine.Second, len(l.sess.Commands())
	within := id == 0 && l.playing && p != nil && !l.have && sec == l.second && ncmds == l.ncmds
	if l.late = within; !within {
		l.second, l.ncmds = sec, ncmds
	}
	m := serverMsg{Type: "frame", ID: id}
	out := m.body()
	if !within {
		l.stampQuery(out)
	}
	l.stampNow(out)
	if l.have {
		// The first frame to a page that shows what Whole would draw:
		// nothing to send but the session's query and time.
		l.have = false
		l.shown, l.shownRun = len(w.Events()), l.sess.Run()
		return m
	}
	v := draw.Live{Lang: l.lang, Base: l.cfg.Base, Lab: l.lab, Session: l.sess, Within: within}
	if p == nil {
		p = draw.Whole(&out.Edits, &v)
	} else if err := p.Next(&out.Edits, &v); err != nil {
		l.view = nil
		m.free()
		return serverMsg{Type: "error", ID: id, Error: catalog.Error(l.lang, err)}
	}
	if l.playing {
		l.view = p
	} else {
		p.Release()
	}
	events := w.Events()
	whole := l.shown < 0 || l.shown > len(events) || l.shownRun != l.sess.Run()
	if whole || !l.playing || !l.noRows {
		draw.EventEdits(&out.Edits, l.lang, w, l.shown, whole)
		l.shown, l.shownRun = len(events), l.sess.Run()
	}
	return m
}

// pauseAck stops play and answers the pause (rowsAck). When the last
// play frame was within its second it left out the words the page shows
// once a second (frame), and the page would stay on those of the
// second's first frame: the answer brings the session's query, the time
// and its words, and the last command's words.
func (l *Conn) pauseAck(id int64) serverMsg {
	late := l.playing && l.late
	l.stopPlay()
	m := l.rowsAck(id)
	if !late {
		return m
	}
	out := m.body()
	l.stampQuery(out)
	l.stampNow(out)
	draw.TimeWords(&out.Edits, l.lang, l.sess)
	return m
}

// stampQuery writes the session's query into a message's body.
func (l *Conn) stampQuery(b *msgBody) {
	at := b.At()
	b.B = l.sess.AppendQuery(b.B)
	b.query = b.Since(at)
}

// stampNow writes the world's time into a message's body.
func (l *Conn) stampNow(b *msgBody) {
	at := b.At()
	b.B = l.sess.World().Now().AppendTo(b.B)
	b.clock = b.Since(at)
}

// rowsAck answers play and pause: with the event rows that play frames
// left out while the list was closed, when the page is to have them now
// (the list opened, or the world stopped). Without them, a paused
// session's next play frame would draw the page whole (keepShown).
func (l *Conn) rowsAck(id int64) serverMsg {
	m := serverMsg{Type: "ack", ID: id}
	if _, lab := l.runs.(labRun); !lab || l.playing && l.noRows || l.shown < 0 || l.shownRun != l.sess.Run() || !l.sess.Held() {
		return m
	}
	w := l.sess.World()
	if n := len(w.Events()); l.shown < n {
		draw.EventEdits(&m.body().Edits, l.lang, w, l.shown, false)
		l.shown = n
	}
	return m
}
