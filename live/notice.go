package live

// Notices: messages the server sends a session by itself, beside its
// frames. In class mode the student's class bar comes this way after the
// class changed, so that a lab page needs no second connection for it
// (docs/protocol.md, type "class"). A notice is made once and handed to
// every session it goes to: its markup is quoted for the wire once.

// Notice is a message for many sessions: its type and its markup,
// already quoted as a JSON string.
type Notice struct {
	typ  string
	html []byte
}

// NewNotice makes a notice of type typ carrying html.
func NewNotice(typ, html string) *Notice {
	return &Notice{typ: typ, html: appendJSONString(make([]byte, 0, len(html)+len(html)/8+2), html)}
}

// Tell sends the session n, after the frame or answer it is busy with if
// any. It never waits for the session: when the session's lock is taken,
// one goroutine (at most one a session, and only then) waits for it. A
// newer notice replaces one not yet sent; a session that has not sent its
// first frame sends it right after.
func (l *Conn) Tell(n *Notice) {
	l.notice.Store(n)
	if l.mu.TryLock() {
		l.tellPending()
		l.mu.Unlock()
		return
	}
	if l.telling.CompareAndSwap(false, true) {
		go func() {
			l.mu.Lock()
			l.telling.Store(false)
			l.tellPending()
			l.mu.Unlock()
		}()
	}
}

// tellPending queues the notice waiting, if any, once the session runs.
// A full queue loses it (the next notice brings the bar again). Called
// with l.mu held.
func (l *Conn) tellPending() {
	if !l.started || l.ended {
		return
	}
	if n := l.notice.Swap(nil); n != nil {
		l.offer(serverMsg{Type: n.typ, html: n.html, many: true})
	}
}
