package web

import (
	"errors"
	"fmt"
	"net/url"
	"runtime/debug"
	"time"

	"github.com/a-h/templ"
	"github.com/gorilla/websocket"

	"leaselab/engine"
	"leaselab/labs"
	"leaselab/web/labsession"
)

// The session loop: one goroutine per open lab owns its session and world,
// takes the client's messages one at a time, and queues the answers.

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

// live is one open lab: the goroutine running loop owns the session; one
// goroutine reads the socket and one writes it (live_conn.go).
type live struct {
	srv  *Server
	conn *websocket.Conn
	lab  *labs.Lab
	lang string
	sess *labsession.Session
	// pair, when set, is the what-if pair this connection plays instead
	// of a lab session; sess is then its run A (live_pair.go).
	pair  *labsession.Pair
	shown int // events already in the page's list
	// shownOf is the world those events came from: a reset or a replay
	// makes a new one, whose list the page must show whole.
	shownOf *engine.World

	// work is this session's budget; addr its client address's, shared.
	work, addr *workBudget

	seq     int64
	closing bool            // a close frame was sent
	out     chan *serverMsg // pointers: a full queue of values would cost every session 9 KB
	playing bool
	speed   float64
	// view is what the page shows, kept while the session plays so that
	// a frame sends only what changed (live_frame.go).
	view *shownPage
}

func (l *live) run() {
	in := make(chan clientMsg)
	readErr := make(chan error, 1)
	quit := make(chan struct{})
	go l.read(in, readErr, quit)
	writeDone := make(chan struct{})
	go l.write(writeDone)
	defer func() {
		close(quit) // the reader discards what still comes
		if l.closing {
			// A close frame went out: give the client a moment to answer
			// it, so it reads the reason before the connection goes.
			select {
			case <-readErr:
			case <-time.After(closeGrace):
			}
		}
		// Closing first ends a write stuck on a slow client; what is still
		// queued is lost, and the client's replay recovers it.
		l.conn.Close()
		close(l.out)
		<-writeDone
	}()

	// The page was rendered from the same session; the first frame brings
	// it up to date in case the world moved since (a reconnect).
	l.shown = -1
	var first serverMsg
	start := time.Now()
	l.srv.rendered(func() { first = l.safely(0, func() serverMsg { return l.next(0) }) })
	first.at = start
	if !l.send(first) {
		return
	}
	var tick *time.Ticker
	var tickC <-chan time.Time
	var behind engine.Time // virtual time play mode owes the world
	stopPlay := func() {
		if tick != nil {
			tick.Stop()
			tick, tickC = nil, nil
		}
		l.playing = false
		l.view = nil // a paused session keeps nothing beyond its world
		behind = 0
	}
	defer stopPlay()
	idle := time.NewTimer(l.srv.idleTimeout)
	defer idle.Stop()
	refused := 0
	for {
		select {
		case <-l.srv.ctx.Done():
			l.close(websocket.CloseGoingAway, "server shutting down")
			return
		case <-idle.C:
			l.srv.metrics.error(errIdle)
			l.close(closeIdle, fmt.Sprintf("idle for %s", l.srv.idleTimeout))
			return
		case err := <-readErr:
			if errors.Is(err, websocket.ErrReadLimit) {
				l.srv.metrics.error(errSize)
			}
			return
		case m := <-in:
			idle.Reset(l.srv.idleTimeout)
			if m.kind == msgRefused {
				// Over the rate: answered, not carried out. The answer is
				// left out rather than the client dropped if its queue fills.
				l.srv.metrics.error(errRate)
				if refused++; refused > maxRefused {
					l.close(websocket.ClosePolicyViolation, "too many messages")
					return
				}
				if len(l.out) < sendQueue/2 { // the other half is for real answers
					l.offer(serverMsg{Type: "error", ID: m.ID, Error: fmt.Sprintf("too many messages: at most %d a second", msgRate), at: m.at})
				}
				continue
			}
			refused = 0
			var reply serverMsg
			switch m.kind {
			case msgPlay:
				if m.Speed > 0 {
					l.speed = min(m.Speed, maxSpeed)
				}
				if tick == nil {
					tick = time.NewTicker(playTick)
					tickC = tick.C
				}
				l.playing = true
				reply = serverMsg{Type: "ack", ID: m.ID}
			case msgPause:
				stopPlay()
				reply = serverMsg{Type: "ack", ID: m.ID}
			default:
				reply = l.costly(m)
			}
			reply.at = m.at
			if !l.send(reply) {
				return
			}
		case t := <-tickC:
			// Play frames give way under load: when no renderer is idle, or
			// the session or its address is over its work budget, the tick
			// is skipped and the next one advances the more, so virtual
			// time keeps its speed and only the frame rate drops.
			behind += engine.Time(float64(playTick/time.Millisecond) * l.speed)
			cmd := engine.Command{Kind: engine.CmdAdvance, Dur: max(behind, 1)}
			if waitFor(l.work, l.addr) != nil || !l.addr.take(0) {
				l.srv.metrics.skipped.Add(1)
				continue
			}
			var msg serverMsg
			start := time.Now()
			ok := l.srv.tryRendered(func() {
				msg = l.safely(0, func() serverMsg {
					if err := l.advance(cmd); err != nil {
						return l.fail(0, err)
					}
					l.srv.metrics.commands.Add(1)
					return l.next(0)
				})
			})
			l.addr.give()
			if !ok {
				l.srv.metrics.skipped.Add(1)
				continue
			}
			charge(start, l.work, l.addr)
			behind = 0
			if msg.Type == "error" {
				stopPlay()
			}
			msg.at, msg.play = t, true
			if !l.send(msg) {
				return
			}
		}
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
		l.srv.metrics.error(errBudget)
		var be *busyError
		errors.As(err, &be)
		return serverMsg{Type: "error", ID: m.ID, Error: errorText(l.lang, err), Retry: be.retry.Seconds()}
	}
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
		return serverMsg{Type: "error", ID: m.ID, Error: m.why}
	default:
		l.srv.metrics.error(errMessage)
		return serverMsg{Type: "error", ID: m.ID, Error: "unknown message type " + labsession.Clip(m.Type)}
	}
	html, err := renderString(fragment)
	if err != nil {
		return fail(err)
	}
	return serverMsg{Type: "ack", ID: m.ID, Ops: []op{{Op: "replace", Target: target, HTML: html}}}
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
		m = serverMsg{Type: "error", ID: id, Error: fmt.Sprintf("internal error (%v); the world was rebuilt from its commands", p)}
		if err := l.rebuild(); err != nil {
			m.Error += ", but that failed: " + err.Error()
		}
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
