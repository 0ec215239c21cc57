package web

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a-h/templ"
	"github.com/gorilla/websocket"

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
	// maxRefused is how many messages over the rate, in a row, end the
	// session: whoever sends them is not a person waiting for answers.
	maxRefused = 100
)

// Close codes the client acts on (docs/protocol.md).
const (
	// closeIdle: no message for the idle timeout; the client reconnects
	// only when the student acts again.
	closeIdle = 4000
)

// live is one open lab. The connection's goroutine reads the socket and
// carries out each message under mu; the writer runs in a goroutine of its
// own only while it has work (live_conn.go), and play mode's frames are
// drawn by the server's players (play.go).
type live struct {
	srv  *Server
	conn *websocket.Conn
	lab  *labs.Lab
	lang string
	sess *labsession.Session
	// pair, when set, is the what-if pair this connection plays instead
	// of a lab session; sess is then its run A (live_pair.go).
	pair *labsession.Pair
	// pairShown is what the pair's page shows: its next frame lays its
	// pictures out from these.
	pairShown draw.PairPictures
	shown     int // events already in the page's list
	// shownRun is the run those events came from (labsession.Run): a
	// reset or a replay starts a new one, whose list the page must show
	// whole.
	shownRun uint64
	// mem is the session's entry in the server's memory ledger (memory.go).
	mem *memHold

	// work is this session's budget; addr its client address's, shared.
	work, addr *workBudget

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
	// lastDue is when the last play frame was due (or play started), and
	// owed the virtual time play mode has not yet moved the world on.
	lastDue time.Time
	owed    engine.Time
	refused int         // messages over the rate in a row
	active  time.Time   // the last message
	pingAt  time.Time   // when the next ping is due
	keeper  *time.Timer // runs keep: pings and the idle timeout
	tasks   sync.WaitGroup
	// view is what the page shows, kept while the session plays so that
	// a frame sends only what changed (live_frame.go).
	view *draw.LivePage
}

func (l *live) run() {
	// The page was rendered from the same session; the first frame brings
	// it up to date in case the world moved since (a reconnect).
	l.shown = -1
	var first serverMsg
	start := time.Now()
	l.srv.rendered(func() { first = l.safely(0, func() serverMsg { return l.next(0) }) })
	first.at = start
	l.mu.Lock()
	l.active, l.pingAt = start, start.Add(pingPeriod)
	l.keeper = time.AfterFunc(min(pingPeriod, l.srv.idleTimeout), l.keep)
	l.send(first)
	l.rest()
	l.mu.Unlock()
	stop := context.AfterFunc(l.srv.ctx, func() {
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
func (l *live) receive(m clientMsg) {
	l.active = m.at
	if m.kind == msgRefused {
		// Over the rate: answered, not carried out. The answer is left
		// out rather than the client dropped if its queue fills.
		l.srv.metrics.error(errRate)
		chargeFixed(refuseCost, l.work, l.addr)
		if l.refused++; l.refused > maxRefused {
			l.close(websocket.ClosePolicyViolation, "too many messages")
			return
		}
		if len(l.out) < sendQueue/2 { // the other half is for real answers
			tooMany := &wireError{"err.too-many", []any{msgRate}, fmt.Sprintf("too many messages: at most %d a second", msgRate)}
			l.offer(serverMsg{Type: "error", ID: m.ID, Error: errorText(l.lang, tooMany), at: m.at})
		}
		return
	}
	var reply serverMsg
	switch m.kind {
	case msgPlay:
		l.refused = 0
		l.startPlay(m.at, m.Speed)
		reply = serverMsg{Type: "ack", ID: m.ID}
	case msgPause:
		l.refused = 0
		l.stopPlay()
		reply = serverMsg{Type: "ack", ID: m.ID}
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
func (l *live) rest() {
	if !l.playing && l.pair == nil && l.sess.Held() && l.sess.Footprint() > releaseAbove {
		l.sess.Release()
	}
	l.mem.set(sessionOverhead + l.sess.Footprint())
}

// startPlay starts play mode, or only changes its speed when the session
// plays already. Called with l.mu held.
func (l *live) startPlay(at time.Time, speed float64) {
	if speed > 0 {
		l.speed = min(speed, maxSpeed)
	}
	if l.playing {
		return
	}
	l.playing = true
	l.playGen++
	l.lastDue, l.owed = at, 0
	l.srv.players.add(playEntry{due: at.Add(playTick), l: l, gen: l.playGen})
}

// stopPlay ends play mode: the frame queued for it is stale from now.
// Called with l.mu held.
func (l *live) stopPlay() {
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
func (l *live) playFrame(e playEntry) {
	// The next frame is due a tick after this one; ticks already past
	// pass without a frame.
	next := e.due.Add(playTick)
	if late := time.Since(next); late >= 0 {
		n := late/playTick + 1
		next = next.Add(n * playTick)
		l.srv.metrics.skipped.Add(int64(n))
	}
	again := playEntry{due: next, l: l, gen: e.gen}
	if !l.mu.TryLock() {
		// A player never waits for one session: its reader is carrying
		// out a message, so this tick passes. Whether the session still
		// plays is seen when the next one is drawn.
		l.srv.metrics.skipped.Add(1)
		l.srv.players.add(again)
		return
	}
	defer l.mu.Unlock()
	if l.ended || !l.playing || e.gen != l.playGen {
		return // paused, closed, or playing again from a later entry
	}
	defer func() {
		// A panic that safely could not contain ends this session only.
		if p := recover(); p != nil {
			l.srv.metrics.error(errPanic)
			l.srv.log.Error("live lab session ended by a panic", "lab", l.lab.ID, "panic", p, "session", l.sess.Query())
			l.stopPlay()
			l.conn.Close()
		}
	}()
	l.owed += engine.Time(float64(e.due.Sub(l.lastDue)/time.Millisecond) * l.speed)
	l.lastDue = e.due
	if waitFor(l.work, l.addr) != nil || !l.addr.take(0) {
		l.srv.metrics.skipped.Add(1)
		l.srv.players.add(again)
		return
	}
	start := time.Now()
	msg := l.safely(0, func() serverMsg {
		if err := l.advance(engine.Command{Kind: engine.CmdAdvance, Dur: max(l.owed, 1)}); err != nil {
			return l.fail(0, err)
		}
		l.srv.metrics.commands.Add(1)
		return l.next(0)
	})
	l.addr.give()
	charge(start, l.work, l.addr)
	l.owed = 0
	if msg.Type == "error" {
		l.stopPlay()
	}
	msg.at, msg.play = e.due, true
	l.mem.set(sessionOverhead + l.sess.Footprint())
	if l.send(msg) && l.playing {
		l.srv.players.add(again)
	}
}

// costly answers a message that runs the engine or renders, within the
// session's and its address's work budgets.
func (l *live) costly(m clientMsg) serverMsg {
	if !m.kind.costly() {
		return l.handle(m) // an unknown or invalid message: an error, at once
	}
	err := waitFor(l.work, l.addr)
	if err == nil && !l.addr.take(slotWait) {
		err = &busyError{retry: time.Second}
	}
	if err != nil {
		// Over budget: answered "busy", which costs a little too; a client
		// that keeps asking regardless is not a person waiting.
		l.srv.metrics.error(errBudget)
		chargeFixed(refuseCost, l.work, l.addr)
		if l.refused++; l.refused > maxRefused {
			l.close(websocket.ClosePolicyViolation, "too many messages")
			return serverMsg{}
		}
		var be *busyError
		errors.As(err, &be)
		return serverMsg{Type: "error", ID: m.ID, Error: errorText(l.lang, err), Retry: be.retry.Seconds()}
	}
	l.refused = 0
	defer l.addr.give()
	factor := 1
	if m.kind == msgChallenge {
		factor = verdictFactor
	}
	defer chargeTimes(time.Now(), factor, l.work, l.addr)
	var reply serverMsg
	switch m.kind {
	case msgDo, msgReplay:
		l.srv.rendered(func() { reply = l.safely(m.ID, func() serverMsg { return l.handle(m) }) })
	default: // answers and challenges run engines of their own: not in the shared renderers
		reply = l.safely(m.ID, func() serverMsg { return l.handle(m) })
	}
	return reply
}

// fail is the error answer to message id, counted by kind.
func (l *live) fail(id int64, err error) serverMsg {
	var le *labsession.LimitError
	kind := errCommand
	if errors.As(err, &le) {
		kind = errLimit
	}
	l.srv.metrics.error(kind)
	return serverMsg{Type: "error", ID: id, Error: errorText(l.lang, err)}
}

// handle answers one client message with an ack carrying the frame it
// caused, or an error; the session is unchanged by a message that fails.
func (l *live) handle(m clientMsg) serverMsg {
	fail := func(err error) serverMsg { return l.fail(m.ID, err) }
	if l.srv.beforeHandle != nil {
		l.srv.beforeHandle(m)
	}
	if l.pair != nil && m.kind != msgInvalid && m.kind != msgUnknown {
		return l.handlePair(m)
	}
	var fragment templ.Component
	var target string
	switch m.kind {
	case msgDo:
		if err := l.sess.Do(m.Cmd); err != nil {
			return fail(err)
		}
		l.srv.metrics.commands.Add(1)
		return l.ack(m.ID)
	case msgReplay:
		if err := l.sess.Replay(); err != nil {
			return fail(err)
		}
		return l.ack(m.ID)
	case msgAnswer:
		a, err := l.srv.answer(l.lab, m.Question, m.Choice, l.lang)
		if err != nil {
			return fail(err)
		}
		fragment, target = answerBlock(a), "verdict-"+m.Question
	case msgChallenge:
		j, err := l.srv.judge(l.lab, m.Values, l.lang)
		if err != nil {
			return fail(err)
		}
		fragment, target = challengeVerdict(j), "challenge-verdict"
	case msgGoal:
		g, err := checkGoal(l.lab, m.Goal, l.sess.World(), l.lang)
		if err != nil {
			return fail(err)
		}
		fragment, target = goalVerdict(g), "goal-verdict-"+m.Goal
	case msgInvalid:
		l.srv.metrics.error(errMessage)
		return serverMsg{Type: "error", ID: m.ID, Error: errorText(l.lang, &wireError{"err.message", nil, m.why})}
	default:
		l.srv.metrics.error(errMessage)
		typ := labsession.Clip(m.Type)
		return serverMsg{Type: "error", ID: m.ID, Error: errorText(l.lang, &wireError{"err.message-type", []any{typ}, "unknown message type " + typ})}
	}
	reply := serverMsg{Type: "ack", ID: m.ID}
	if err := reply.body().Render(draw.OpReplace, target, fragment); err != nil {
		reply.free()
		return fail(err)
	}
	return reply
}

// safely runs f, turning a panic — a bug, in the engine or here — into an
// error for the client. The world may be half-changed then, so it is
// rebuilt from the session's query, which reached a good state before.
func (l *live) safely(id int64, f func() serverMsg) (m serverMsg) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		l.srv.metrics.error(errPanic)
		l.srv.log.Error("live lab panicked", "lab", l.lab.ID, "panic", p, "session", l.sess.Query(), "stack", string(debug.Stack()))
		// What the bug was goes to the log, not to the student.
		bug := &wireError{"err.internal", nil, fmt.Sprintf("internal error (%v); the world was rebuilt from its commands", p)}
		if err := l.rebuild(); err != nil {
			l.srv.log.Error("rebuilding the world after a panic failed", "lab", l.lab.ID, "err", err)
			bug = &wireError{"err.internal.lost", nil, bug.msg + ", but that failed: " + err.Error()}
		}
		m = serverMsg{Type: "error", ID: id, Error: errorText(l.lang, bug)}
	}()
	return f()
}

// rebuild makes the session anew from its query.
func (l *live) rebuild() error {
	if l.pair != nil {
		return l.rebuildPair()
	}
	q, _ := url.ParseQuery(l.sess.Query())
	sess, _, err := labsession.FromQuery(l.lab, q)
	if err != nil {
		return err
	}
	l.sess, l.shown = sess, -1
	return nil
}

func (l *live) ack(id int64) serverMsg {
	f := l.next(id)
	f.Type = "ack"
	return f
}
