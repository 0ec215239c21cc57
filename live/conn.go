package live

import (
	"errors"
	"fmt"
	"leaselab/budget"
	"net"
	"time"

	"github.com/gorilla/websocket"
)

// The live connection: one goroutine reads the socket and hands each
// message to the session (session.go), under the session's lock; a
// writer goroutine runs while messages wait to go out, after
// gorilla/websocket's chat example.

// The live connection's limits.
const (
	// writeWait bounds one write; a client slower than this is dropped.
	writeWait = 10 * time.Second
	// pongWait is how long the client may stay silent; it answers pings.
	pongWait = 60 * time.Second
	// pingPeriod must be shorter than pongWait so a live client never
	// times out.
	pingPeriod = pongWait * 9 / 10
	// MaxMessageSize bounds a client message: a command is one short line.
	MaxMessageSize = 4096
	// sendQueue is how many frames may wait for a slow client before the
	// session gives up on it rather than block the world.
	sendQueue = 64
	// MsgRate and MsgBurst bound how fast one client may send, in messages
	// a second: a student holding a key down sends about 30. What a message
	// costs is bounded apart, by the work budgets (package budget).
	MsgRate  = 30
	MsgBurst = 60
	// closeGrace is how long a closing session waits for the client to
	// answer its close frame.
	closeGrace = time.Second
)

// read is the connection's goroutine: it reads the client's messages and
// hands each to the session (receive), marking those over the rate (a
// token bucket: MsgBurst at once, MsgRate a second after) as refused,
// until the connection ends. Once the session has ended (close) it reads
// on, discarding, until the client answers the close frame or the grace
// runs out.
func (l *Conn) read() {
	l.conn.SetReadLimit(MaxMessageSize)
	l.conn.SetReadDeadline(time.Now().Add(pongWait))
	l.conn.SetPongHandler(func(string) error {
		if l.ending.Load() {
			return nil // the close's grace stands
		}
		return l.conn.SetReadDeadline(time.Now().Add(pongWait))
	})
	tokens, last := float64(MsgBurst), l.cfg.Clock.Now()
	for {
		_, data, err := l.conn.ReadMessage()
		if err != nil {
			if errors.Is(err, websocket.ErrReadLimit) {
				l.cfg.Metrics.Error(ErrSize)
			}
			return
		}
		if l.ending.Load() {
			continue
		}
		now := l.cfg.Clock.Now()
		tokens = min(MsgBurst, tokens+now.Sub(last).Seconds()*MsgRate)
		last = now
		// Decoding runs on a render goroutine: encoding/json's reflection
		// goes deep, and on the reader's own stack it would double every
		// connection's stack for good the first time it sent a message
		// (8 KB instead of 4 for each of a classroom's playing sessions).
		// The decoding's work is measured on the wall clock, as all work is.
		var m ClientMsg
		start := time.Now()
		l.cfg.Renderers.Render(func() { m = decodeClientMsg(data) })
		budget.Charge(start, l.work, l.addr)
		if tokens < 1 {
			m = ClientMsg{ID: m.ID, kind: msgRefused}
		} else {
			tokens--
		}
		m.at = now
		l.mu.Lock()
		l.receive(m)
		l.mu.Unlock()
	}
}

// writeMsg sends one encoded message. WriteMessage copies it into the
// connection's pooled write buffer, with no writer to allocate.
func writeMsg(conn *websocket.Conn, o *outMsg) error {
	return conn.WriteMessage(websocket.TextMessage, o.b)
}

// An idle connection holds one goroutine, its reader, and one timer (keep):
// the writer runs only while there is something to send, play mode's
// ticker only while playing. Most of a classroom's connections are idle
// most of the time (measured with leaselab load --idle).

// write sends what the session queues until the queue is empty, then
// ends; the next message queued starts it again (kick). A write that runs
// past writeWait drops a slow client: it is counted as such. After a
// failed write no writer starts again: the reader notices the closed
// connection and the session ends.
func (l *Conn) write() {
	defer l.tasks.Done()
	for {
		var m *outMsg
		select {
		case m = <-l.out:
		default:
			l.mu.Lock()
			done := len(l.out) == 0
			closeMsg := l.closeAfter
			if done {
				l.writing = false
				l.closeAfter = nil
			}
			l.mu.Unlock()
			if done {
				if closeMsg != nil {
					// close: the queue went out, now the reason; the reader
					// waits closeGrace for the client's answer, no longer.
					if l.conn.WriteControl(websocket.CloseMessage, closeMsg, time.Now().Add(closeGrace)) == nil {
						l.conn.SetReadDeadline(time.Now().Add(closeGrace))
					}
				}
				return
			}
			continue
		}
		var err error
		if m.many {
			// One of a class's many: after the others' turns, which are
			// not this student's work.
			err = budget.Crowd(func() error { return l.writeOne(m) })
		} else {
			err = l.writeOne(m)
		}
		if err == nil {
			switch {
			case m.play:
				l.cfg.Metrics.Played(l.cfg.Clock.Now().Sub(m.at))
			case !m.at.IsZero():
				l.cfg.Metrics.Answered(l.cfg.Clock.Now().Sub(m.at))
			}
		}
		m.free()
		if err != nil {
			l.failed(err)
			return
		}
	}
}

// writeOne writes m, charging the time to the session's work.
func (l *Conn) writeOne(m *outMsg) error {
	start := time.Now()
	l.conn.SetWriteDeadline(start.Add(writeWait))
	err := writeMsg(l.conn, m)
	budget.ChargeFixed(min(time.Since(start), budget.MaxWriteCharge), l.work, l.addr)
	return err
}

// kick starts the writer if it is not running. Called with l.mu held.
func (l *Conn) kick() {
	if !l.writing && !l.ended {
		l.writing = true
		l.tasks.Add(1)
		go l.write()
	}
}

// failed handles a write or ping that failed: the connection is closed,
// which ends the reader and so the session.
func (l *Conn) failed(err error) {
	if errors.Is(err, websocket.ErrCloseSent) {
		return // the session closes in order
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		l.cfg.Metrics.Error(ErrSlow)
		l.cfg.Log.Warn("dropping a slow live client: a write timed out", "lab", l.lab.ID)
	}
	l.conn.Close()
}

// keep runs on the connection's one timer: it pings the client every
// pingPeriod, and closes a session nobody has touched for the idle
// timeout.
func (l *Conn) keep() {
	l.mu.Lock()
	if l.ended || l.ending.Load() {
		l.mu.Unlock()
		return
	}
	now := l.cfg.Clock.Now()
	idleAt := l.active.Add(l.cfg.IdleTimeout)
	if !now.Before(idleAt) {
		l.cfg.Metrics.Error(ErrIdle)
		l.close(CloseIdle, fmt.Sprintf("idle for %s", l.cfg.IdleTimeout))
		l.mu.Unlock()
		return
	}
	ping := !now.Before(l.pingAt)
	if ping {
		l.pingAt = now.Add(pingPeriod)
	}
	next := min(l.pingAt.Sub(now), idleAt.Sub(now))
	l.keeper.Reset(next)
	l.mu.Unlock()
	if ping {
		// Not under l.mu: the write may wait for a frame going out.
		// The network's deadline is on the wall clock.
		if err := l.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait)); err != nil {
			l.failed(err)
		}
	}
}

// send queues a message for the writer. A client too slow to keep up is
// dropped rather than waited on.
func (l *Conn) send(m serverMsg) bool {
	if l.ending.Load() {
		return false // the session has ended; nothing more goes out
	}
	if l.offer(m) {
		return true
	}
	l.cfg.Metrics.Error(ErrSlow)
	l.cfg.Log.Warn("dropping a slow live client", "lab", l.lab.ID)
	l.close(websocket.ClosePolicyViolation, "too slow to keep up")
	return false
}

// offer queues a message if there is room, and reports whether there was.
// The message is encoded here, once its sequence number and play state
// are known, so that the writer only writes bytes.
func (l *Conn) offer(m serverMsg) bool {
	if l.ending.Load() || len(l.out) == cap(l.out) {
		return false
	}
	m.Seq = l.seq + 1
	m.Playing = l.playing
	start := time.Now()
	o := newOutMsg(&m)
	o.b = appendMsg(o.b[:0], &m)
	budget.Charge(start, l.work, l.addr)
	m.free()
	o.at, o.play, o.many = m.at, m.play, m.many
	select {
	case l.out <- o:
		l.seq++
		l.kick()
		return true
	default:
		o.free()
		return false
	}
}

// close ends the session with a reason the client can show. The answers
// already queued go out first and the close frame after them (so that a
// flood's answers up to the rate still arrive); only a client too slow to
// read a full queue loses it, and gets the close frame next. The reader
// then waits up to closeGrace for the client's answer, so that it reads
// the reason before the connection goes. Called with l.mu held.
func (l *Conn) close(code int, reason string) {
	if l.ending.Load() {
		return
	}
	l.ending.Store(true)
	msg := websocket.FormatCloseMessage(code, reason)
	if len(l.out) < cap(l.out) && (l.writing || len(l.out) > 0) {
		// The answers already queued go out first, then the close frame:
		// the writer sends it once the queue is empty.
		l.closeAfter = msg
		l.kick()
		l.closing = true
		l.conn.SetReadDeadline(time.Now().Add(writeWait + closeGrace))
		return
	}
	// A client too slow to read its queue gets only the reason.
	for drained := false; !drained; {
		select {
		case o := <-l.out:
			o.free()
		default:
			drained = true
		}
	}
	err := l.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(closeGrace))
	l.closing = err == nil
	wait := time.Duration(0)
	if l.closing {
		wait = closeGrace
	}
	l.conn.SetReadDeadline(time.Now().Add(wait))
}
