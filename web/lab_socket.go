package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"leaselab/engine"
	"leaselab/labs"
)

// The live connection's limits, after gorilla/websocket's chat example.
const (
	// writeWait bounds one write; a client slower than this is dropped.
	writeWait = 10 * time.Second
	// pongWait is how long the client may stay silent; it answers pings.
	pongWait = 60 * time.Second
	// pingPeriod must be shorter than pongWait so a live client never
	// times out.
	pingPeriod = pongWait * 9 / 10
	// maxMessageSize bounds a client message: a command is one short line.
	maxMessageSize = 4096
	// sendQueue is how many frames may wait for a slow client before the
	// session gives up on it rather than block the world.
	sendQueue = 64
	// playTick is how often play mode advances the world, in real time.
	playTick = 200 * time.Millisecond
	// maxSpeed bounds play speed: virtual seconds per real second.
	maxSpeed = 20
	// msgRate and msgBurst bound how fast one client may send, in messages
	// a second: a student holding a key down sends about 30.
	msgRate  = 30
	msgBurst = 60
	// closeGrace is how long a closing session waits for the client to
	// answer its close frame.
	closeGrace = time.Second
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

// clientMsg is one message from the browser; docs/protocol.md lists them.
type clientMsg struct {
	ID       int64   `json:"id"`
	Type     string  `json:"type"`
	Cmd      string  `json:"cmd,omitempty"`
	Speed    float64 `json:"speed,omitempty"`
	Question string  `json:"question,omitempty"`
	Choice   string  `json:"choice,omitempty"`
	Goal     string  `json:"goal,omitempty"`
	// Values are a design challenge's policy options, by name.
	Values map[string]string `json:"values,omitempty"`

	at time.Time // when it arrived, for the frame latency
}

// serverMsg is one message to the browser. Every one carries the next
// sequence number, so the client can tell a gap. Seq, type and id come
// first: a client may read just those.
type serverMsg struct {
	Seq     int64  `json:"seq"`
	Type    string `json:"type"` // frame, ack, error
	ID      int64  `json:"id,omitempty"`
	Ops     []op   `json:"ops,omitempty"`
	Query   string `json:"query,omitempty"`
	Now     string `json:"now,omitempty"`
	Playing bool   `json:"playing"`
	Error   string `json:"error,omitempty"`

	at   time.Time // when the work it answers began
	play bool      // a play-mode frame
}

// op changes one element of the page: replace its content, or append to it.
type op struct {
	Op     string `json:"op"` // replace | append
	Target string `json:"target"`
	HTML   string `json:"html"`
}

// live is one open lab: the goroutine running loop owns the world; one
// goroutine reads the socket and one writes it.
type live struct {
	srv   *Server
	conn  *websocket.Conn
	lab   *labs.Lab
	lang  string
	sess  session
	world *engine.World
	shown int // events already in the page's list

	seq     int64
	closing bool            // a close frame was sent
	out     chan *serverMsg // pointers: a full queue of values would cost every session 9 KB
	playing bool
	speed   float64
	// sentences keeps the live picture's mark sentences while playing.
	sentences *sentenceCache
}

// sameOrigin accepts a websocket only from a page of this site, so another
// site cannot drive a student's session. Behind a proxy that rewrites Host,
// X-Forwarded-Host names the site.
func (s *Server) sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true // not a browser
	}
	u, err := url.Parse(origin)
	if err == nil && (strings.EqualFold(u.Host, r.Host) || strings.EqualFold(u.Host, r.Header.Get("X-Forwarded-Host"))) {
		return true
	}
	s.metrics.error(errOrigin)
	s.log.Warn("live lab refused: another site's page", "origin", origin, "host", r.Host)
	return false
}

// full reports whether the server holds as many live sessions as it may.
func (s *Server) full() bool { return s.metrics.sessionsOpen.Load() >= int64(s.maxSessions) }

func (s *Server) labSocket(c echo.Context) error {
	lang, _, lab, err := s.labFor(c)
	if err != nil {
		return err
	}
	// A full server says so before it replays anything.
	if n := s.metrics.sessionsOpen.Add(1); n > int64(s.maxSessions) {
		s.metrics.sessionsOpen.Add(-1)
		s.metrics.error(errFull)
		if conn, err := s.upgrader.Upgrade(c.Response(), c.Request(), nil); err == nil {
			conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseTryAgainLater, T(lang, "full.close")), time.Now().Add(time.Second))
			conn.Close()
		}
		return nil
	}
	opened := false
	defer func() {
		if !opened {
			s.metrics.sessionsOpen.Add(-1)
		}
	}()
	sess, world, _, err := replaySession(lab, c.QueryParams())
	if err != nil {
		return err
	}
	conn, err := s.upgrader.Upgrade(c.Response(), c.Request(), nil)
	if err != nil {
		return nil // the upgrader has answered
	}
	opened = true
	s.metrics.sessionsTotal.Add(1)
	l := &live{srv: s, conn: conn, lab: lab, lang: lang, sess: sess, world: world, out: make(chan *serverMsg, sendQueue), speed: 1}
	s.sessions.Add(1)
	go func() {
		defer s.sessions.Done()
		defer s.metrics.sessionsOpen.Add(-1)
		defer func() {
			// A panic that safely could not contain ends this session only.
			if p := recover(); p != nil {
				s.metrics.error(errPanic)
				s.log.Error("live lab session ended by a panic", "lab", lab.ID, "panic", p, "session", l.sess.Query())
				conn.Close()
			}
		}()
		l.run()
	}()
	return nil
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
	l.srv.rendered(func() { first = l.safely(0, func() serverMsg { return l.frame(0) }) })
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
			if m.Type == "refused" {
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
			switch m.Type {
			case "play":
				if m.Speed > 0 {
					l.speed = min(m.Speed, maxSpeed)
				}
				if tick == nil {
					tick = time.NewTicker(playTick)
					tickC = tick.C
				}
				l.playing = true
				reply = serverMsg{Type: "ack", ID: m.ID}
			case "pause":
				stopPlay()
				reply = serverMsg{Type: "ack", ID: m.ID}
			case "do", "replay":
				l.srv.rendered(func() { reply = l.safely(m.ID, func() serverMsg { return l.handle(m) }) })
			default: // answers and challenges run engines of their own: not in the shared renderers
				reply = l.safely(m.ID, func() serverMsg { return l.handle(m) })
			}
			reply.at = m.at
			if !l.send(reply) {
				return
			}
		case t := <-tickC:
			// Play frames give way under load: when no renderer is idle the
			// tick is skipped and the next one advances the more, so virtual
			// time keeps its speed and only the frame rate drops.
			behind += engine.Time(float64(playTick/time.Millisecond) * l.speed)
			cmd := engine.Command{Kind: engine.CmdAdvance, Dur: max(behind, 1)}
			var msg serverMsg
			if !l.srv.tryRendered(func() {
				msg = l.safely(0, func() serverMsg {
					if err := applyCommand(l.lab, l.world, cmd); err != nil {
						return l.fail(0, err)
					}
					l.srv.metrics.commands.Add(1)
					l.sess.add(cmd)
					return l.frame(0)
				})
			}) {
				l.srv.metrics.skipped.Add(1)
				continue
			}
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

// close ends the connection with a reason the client can show. What is
// still queued is dropped so that the close frame goes out next; the
// session is ending, so it may wait for that up to closeGrace.
func (l *live) close(code int, reason string) {
	for len(l.out) > 0 {
		<-l.out
	}
	err := l.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(closeGrace))
	l.closing = err == nil
}

// fail is the error answer to message id, counted by kind.
func (l *live) fail(id int64, err error) serverMsg {
	var le *limitError
	kind := errCommand
	if errors.As(err, &le) {
		kind = errLimit
	}
	l.srv.metrics.error(kind)
	return serverMsg{Type: "error", ID: id, Error: errorText(l.lang, err)}
}

// handle answers one client message with an ack carrying the frame it
// caused, or an error; the world is unchanged by a message that fails.
func (l *live) handle(m clientMsg) serverMsg {
	fail := func(err error) serverMsg { return l.fail(m.ID, err) }
	if l.srv.beforeHandle != nil {
		l.srv.beforeHandle(m)
	}
	switch m.Type {
	case "do":
		cmd, err := parseCommand(m.Cmd)
		if err != nil {
			return fail(err)
		}
		if err := applyCommand(l.lab, l.world, cmd); err != nil {
			return fail(err)
		}
		l.srv.metrics.commands.Add(1)
		l.sess.add(cmd)
		return l.ack(m.ID)
	case "replay":
		cmds := l.sess.replayable()
		if err := applyCommand(l.lab, l.world, engine.Command{Kind: engine.CmdReset}); err != nil {
			return fail(err)
		}
		l.sess.add(engine.Command{Kind: engine.CmdReset})
		for _, src := range cmds {
			cmd, err := parseCommand(src)
			if err == nil {
				err = applyCommand(l.lab, l.world, cmd)
			}
			if err != nil {
				return fail(fmt.Errorf("%q: %w", src, err))
			}
			l.sess.add(cmd)
		}
		return l.ack(m.ID)
	case "answer":
		a, err := answer(l.lab, m.Question, m.Choice, l.lang)
		if err != nil {
			return fail(err)
		}
		html, err := renderString(answerBlock(a))
		if err != nil {
			return fail(err)
		}
		return serverMsg{Type: "ack", ID: m.ID, Ops: []op{{Op: "replace", Target: "verdict-" + m.Question, HTML: html}}}
	case "challenge":
		j, err := judge(l.lab, m.Values, l.lang)
		if err != nil {
			return fail(err)
		}
		html, err := renderString(challengeVerdict(j))
		if err != nil {
			return fail(err)
		}
		return serverMsg{Type: "ack", ID: m.ID, Ops: []op{{Op: "replace", Target: "challenge-verdict", HTML: html}}}
	case "goal":
		g, err := checkGoal(l.lab, m.Goal, l.world, l.lang)
		if err != nil {
			return fail(err)
		}
		html, err := renderString(goalVerdict(g))
		if err != nil {
			return fail(err)
		}
		return serverMsg{Type: "ack", ID: m.ID, Ops: []op{{Op: "replace", Target: "goal-verdict-" + m.Goal, HTML: html}}}
	}
	l.srv.metrics.error(errMessage)
	if m.Type == "invalid" {
		return serverMsg{Type: "error", ID: m.ID, Error: m.Cmd}
	}
	return serverMsg{Type: "error", ID: m.ID, Error: fmt.Sprintf("unknown message type %q", m.Type)}
}

// safely runs f, turning a panic — a bug, in the engine or here — into an
// error for the client. The world may be half-changed then, so it is
// rebuilt from the session's commands, which reached a good state before.
func (l *live) safely(id int64, f func() serverMsg) (m serverMsg) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		l.srv.metrics.error(errPanic)
		l.srv.log.Error("live lab panicked", "lab", l.lab.ID, "panic", p, "session", l.sess.Query(), "stack", string(debug.Stack()))
		m = serverMsg{Type: "error", ID: id, Error: fmt.Sprintf("internal error (%v); the world was rebuilt from its commands", p)}
		q, _ := url.ParseQuery(l.sess.Query())
		sess, w, _, err := replaySession(l.lab, q)
		if err != nil {
			m.Error += ", but that failed: " + err.Error()
			return
		}
		l.sess, l.world, l.shown = sess, w, -1
	}()
	return f()
}

func (l *live) ack(id int64) serverMsg {
	f := l.frame(id)
	f.Type = "ack"
	return f
}

// frame renders what changed: the picture, the state, the session, and the
// events the list does not show yet.
func (l *live) frame(id int64) serverMsg {
	events := l.world.Events()
	names := l.world.Names()
	parts := []struct {
		target string
		comp   templ.Component
	}{
		{"status", statusPanel(newStatus(l.world, l.lang))},
		{"diagram", l.picture(l.world)},
		{"session", sessionPanel(l.page(), l.lab.ID, l.sess)},
	}
	if s := signalsFor(l.lab, "live-signals", l.world, l.lang); s != nil {
		parts = append(parts, struct {
			target string
			comp   templ.Component
		}{"signals", SignalsPanel(s)})
	}
	m := serverMsg{Type: "frame", ID: id, Query: l.sess.Query(), Now: l.world.Now().String()}
	for _, p := range parts {
		html, err := renderString(p.comp)
		if err != nil {
			return serverMsg{Type: "error", ID: id, Error: err.Error()}
		}
		m.Ops = append(m.Ops, op{Op: "replace", Target: p.target, HTML: html})
	}
	// After a reset the log starts again, and a reconnect does not know what
	// the page shows: then the list is replaced whole.
	opName, from := "append", l.shown
	if l.shown < 0 || l.shown > len(events) {
		opName, from = "replace", 0
	}
	if from < len(events) || opName == "replace" {
		html, err := renderString(eventRows(&eventsView{ID: "events", Lang: l.lang, From: from, Events: events[from:], Names: names}))
		if err != nil {
			return serverMsg{Type: "error", ID: id, Error: err.Error()}
		}
		m.Ops = append(m.Ops, op{Op: opName, Target: "events", HTML: html})
	}
	l.shown = len(events)
	return m
}

func (l *live) page() *page { return &page{Lang: l.lang, Base: l.srv.base} }

// send queues a message for the writer. A client too slow to keep up is
// dropped rather than waited on.
func (l *live) send(m serverMsg) bool {
	if l.offer(m) {
		return true
	}
	l.srv.metrics.error(errSlow)
	l.srv.log.Warn("dropping a slow live client", "lab", l.lab.ID)
	l.close(websocket.ClosePolicyViolation, "too slow to keep up")
	return false
}

// offer queues a message if there is room, and reports whether there was.
func (l *live) offer(m serverMsg) bool {
	m.Seq = l.seq + 1
	m.Playing = l.playing
	select {
	case l.out <- &m:
		l.seq++
		return true
	default:
		return false
	}
}

// read passes the client's messages to the session, and marks those over
// the rate (a token bucket: msgBurst at once, msgRate a second after) as
// refused.
func (l *live) read(in chan<- clientMsg, errc chan<- error, quit <-chan struct{}) {
	l.conn.SetReadLimit(maxMessageSize)
	l.conn.SetReadDeadline(time.Now().Add(pongWait))
	l.conn.SetPongHandler(func(string) error { return l.conn.SetReadDeadline(time.Now().Add(pongWait)) })
	tokens, last := float64(msgBurst), time.Now()
	discard := false // the session has ended; read on until the close
	for {
		_, data, err := l.conn.ReadMessage()
		if err != nil {
			errc <- err
			return
		}
		now := time.Now()
		tokens = min(msgBurst, tokens+now.Sub(last).Seconds()*msgRate)
		last = now
		var m clientMsg
		if err := json.Unmarshal(data, &m); err != nil {
			m = clientMsg{Type: "invalid", Cmd: "not a JSON message: " + err.Error()}
		}
		if tokens < 1 {
			m = clientMsg{ID: m.ID, Type: "refused"}
		} else {
			tokens--
		}
		m.at = now
		if !discard {
			select {
			case in <- m:
			case <-quit:
				discard = true
			}
		}
	}
}

// writeJSON encodes m straight into the socket's pooled write buffer. HTML
// is left unescaped: the fragments are mostly markup, and \u003c for every
// < would make each frame a third larger.
func writeJSON(conn *websocket.Conn, m *serverMsg) error {
	w, err := conn.NextWriter(websocket.TextMessage)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

func (l *live) write(done chan<- struct{}) {
	defer close(done)
	ping := time.NewTicker(pingPeriod)
	defer ping.Stop()
	for {
		select {
		case m, ok := <-l.out:
			if !ok {
				return
			}
			l.conn.SetWriteDeadline(time.Now().Add(writeWait))
			if err := writeJSON(l.conn, m); err != nil {
				if !errors.Is(err, websocket.ErrCloseSent) { // else the session closes in order
					l.conn.Close() // the reader notices and ends the session
				}
				return
			}
			switch {
			case m.play:
				l.srv.metrics.plays.observe(time.Since(m.at))
			case !m.at.IsZero():
				l.srv.metrics.answers.observe(time.Since(m.at))
			}
		case <-ping.C:
			l.conn.SetWriteDeadline(time.Now().Add(writeWait))
			if err := l.conn.WriteMessage(websocket.PingMessage, nil); err != nil {
				if !errors.Is(err, websocket.ErrCloseSent) {
					l.conn.Close()
				}
				return
			}
		}
	}
}

var _ http.Handler = (*Server)(nil)
