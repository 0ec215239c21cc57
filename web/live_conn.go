package web

import (
	"encoding/json"
	"errors"
	"net"
	"time"

	"github.com/gorilla/websocket"
)

// The live connection: one goroutine reads the socket, one writes it,
// after gorilla/websocket's chat example. Neither touches the world; they
// pass messages to and from the session loop (live_session.go).

// The live connection's limits.
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
	// msgRate and msgBurst bound how fast one client may send, in messages
	// a second: a student holding a key down sends about 30. What a message
	// costs is bounded apart, by the work budgets (budget.go).
	msgRate  = 30
	msgBurst = 60
	// closeGrace is how long a closing session waits for the client to
	// answer its close frame.
	closeGrace = time.Second
)

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
		m := decodeClientMsg(data)
		if tokens < 1 {
			m = clientMsg{ID: m.ID, kind: msgRefused}
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

// write sends what the session queues, and pings, until the queue closes
// or a write fails. A write that runs past writeWait drops a slow client:
// it is counted as such.
func (l *live) write(done chan<- struct{}) {
	defer close(done)
	ping := time.NewTicker(pingPeriod)
	defer ping.Stop()
	failed := func(err error) {
		if errors.Is(err, websocket.ErrCloseSent) {
			return // the session closes in order
		}
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			l.srv.metrics.error(errSlow)
			l.srv.log.Warn("dropping a slow live client: a write timed out", "lab", l.lab.ID)
		}
		l.conn.Close() // the reader notices and ends the session
	}
	for {
		select {
		case m, ok := <-l.out:
			if !ok {
				return
			}
			l.conn.SetWriteDeadline(time.Now().Add(writeWait))
			if err := writeJSON(l.conn, m); err != nil {
				failed(err)
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
				failed(err)
				return
			}
		}
	}
}

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
