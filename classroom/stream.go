package classroom

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Event streams (server-sent events): the one way the room pushes to a
// browser that has no lab socket. The room takes the connection over from
// the HTTP server (hijacked), so a stream at rest holds no goroutine and
// one update of buffer, only the socket. The feed never writes to a
// stream itself: a short-lived writer does, so a client that stops
// reading holds up nobody else, and it is dropped once it falls an update
// behind.

// stream is an event stream the room took over: its connection and what
// waits to be written to it. A writer goroutine runs only while there is
// something to write. Each stream holds at most one update beside the
// write in flight (a newer one replaces one waiting, as what a stream
// shows is its class's state, not a log): an update that finds one
// already waiting means the client has not taken the one before it in a
// throttle's time or more, its buffers full, and the stream is dropped;
// its browser connects again and gets its own first update then.
type stream struct {
	conn    net.Conn
	lang    string        // a bar's: the language of its page
	view    View          // a view's; nil for a bar
	chunked bool          // the response is chunked, as the HTTP server wrote a view's
	wait    time.Duration // bounds one write

	mu       sync.Mutex
	next     []byte // what waits for the writer
	update   bool   // next holds an update (not only the stream's head or a ping)
	writing  bool   // a writer runs
	inFlight bool   // the writer is writing
	ending   bool   // the stream ends once what waits is written (finish)
	closed   bool
}

// viewWait bounds one write to a dashboard's or projector's stream: an
// instructor's network may be slow, and there are few of them.
const viewWait = 20 * time.Second

// FollowBar hands a student's event stream to the class's feed: conn,
// taken over from the HTTP server, gets first (BarStart: the response's
// head and the student's own bar), then the class's bar in lang after
// each change.
func (r *Room) FollowBar(m Mark, conn net.Conn, lang string, first []byte) {
	st := &stream{conn: conn, lang: lang, wait: r.cfg.WriteWait}
	r.follow(m, st, first)
}

// FollowView hands a dashboard's or projector's event stream to the
// class's feed: conn, taken over from the HTTP server, gets first
// (ViewStart: the response's head and the view's first events), then v's
// events after each change.
func (r *Room) FollowView(m Mark, conn net.Conn, first []byte, v View) {
	st := &stream{conn: conn, view: v, chunked: true, wait: viewWait}
	r.follow(m, st, first)
}

// follow starts st with its first bytes and adds it to its class's feed.
func (r *Room) follow(m Mark, st *stream, first []byte) {
	conn := st.conn
	conn.SetDeadline(time.Time{}) // the server's page timeouts no longer apply
	st.next, st.writing = first, true
	r.listen(m, func(f *feed) {
		// Under the feed's lock: what the feed sends comes after the
		// stream's first bytes, which its writer is given first.
		go st.flush(f.drop)
		f.streams[st] = struct{}{}
	})
}

// offer queues b for the stream, and starts its writer if none runs. A
// student's stream that is behind (an update still waits behind a write
// in flight) is closed, and offer reports false; a view's newer update
// replaces the one waiting (there are few views, and an instructor's
// network may be slow). A ping is not queued behind a write: the write
// keeps the stream alive.
func (st *stream) offer(b []byte, ping bool, gone func(*stream)) bool {
	if st.chunked {
		b = chunk(b)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case st.closed || st.ending:
		return false
	case st.writing && ping:
		return true
	case st.writing && st.inFlight && st.update && st.view != nil:
		st.next = b
		return true
	case st.writing && st.inFlight && st.update:
		st.closed = true
		st.conn.Close()
		return false
	case st.writing && len(st.next) > 0:
		// The writer has not taken what waits yet (the stream's head):
		// b goes after it.
		st.next = append(append(make([]byte, 0, len(st.next)+len(b)), st.next...), b...)
		st.update = true
		return true
	case st.writing:
		st.next, st.update = b, true
		return true
	}
	st.writing = true
	if st.view != nil {
		// A view is written by the feed that drew it while its socket
		// takes the bytes at once; only what it does not take within
		// inlineWait goes to a writer.
		if b = st.writeNow(b); b == nil {
			return !st.closed
		}
	}
	st.next, st.update = b, !ping
	go st.flush(gone)
	return true
}

// inlineWait is how long the feed's own write to a view's stream may
// wait for its socket to take the bytes.
const inlineWait = 2 * time.Millisecond

// writeNow writes b on the caller's goroutine, within inlineWait, and
// returns what the socket did not take, still writing; nil when it took
// it all, or when the write failed (the stream is closed then). Called
// with st.mu held and st.writing set; st.mu is let go while it writes
// (only the feed offers, and no writer runs).
func (st *stream) writeNow(b []byte) []byte {
	st.inFlight = true
	st.mu.Unlock()
	st.conn.SetWriteDeadline(time.Now().Add(inlineWait))
	n, err := st.conn.Write(b)
	st.mu.Lock()
	st.inFlight = false
	switch {
	case err == nil:
		st.writing = false
		return nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		return b[n:]
	}
	st.writing = false
	if !st.closed {
		st.closed = true
		st.conn.Close()
	}
	return nil
}

// flush writes what waits until nothing does; on a failed write (the
// client gone, or taking nothing for st.wait) it closes the stream and
// tells gone.
func (st *stream) flush(gone func(*stream)) {
	for {
		st.mu.Lock()
		b := st.next
		st.next, st.update = nil, false
		if len(b) == 0 || st.closed {
			st.writing, st.inFlight = false, false
			if st.ending && !st.closed {
				st.closed = true
				st.conn.Close()
			}
			st.mu.Unlock()
			return
		}
		st.inFlight = true
		st.mu.Unlock()
		st.conn.SetWriteDeadline(time.Now().Add(st.wait))
		if _, err := st.conn.Write(b); err != nil {
			st.close()
			gone(st)
			return
		}
	}
}

// close closes the stream's connection, once.
func (st *stream) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.closed {
		st.closed = true
		st.conn.Close()
	}
	st.writing, st.inFlight = false, false
}

// finish ends the stream: a chunked one (a view's) after what waits and
// its last chunk are written, as the HTTP server ends a response, so that
// its browser reads a response that ended rather than one cut short.
func (st *stream) finish() {
	if !st.chunked {
		st.close()
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed || st.ending {
		return
	}
	st.next, st.update, st.ending = append(st.next, lastChunk...), true, true
	if !st.writing {
		st.writing = true
		go st.flush(func(*stream) {})
	}
}

// lastChunk ends a chunked response.
const lastChunk = "0\r\n\r\n"

// pingBytes keeps an idle stream open through proxies.
var pingBytes = []byte(": ping\n\n")

// Event is one server-sent event carrying text.
func Event(name, text string) []byte {
	var b strings.Builder
	b.Grow(len(text) + 64)
	b.WriteString("event: ")
	b.WriteString(name)
	b.WriteByte('\n')
	for _, line := range strings.Split(text, "\n") {
		b.WriteString("data: ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return []byte(b.String())
}

// retry is what an event stream begins with: the browser's delay before
// it connects again after a drop.
const retry = "retry: 1000\n\n"

// barHead starts a student's event stream: the response's head and the
// reconnect delay. The stream ends when the connection closes.
const barHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n" +
	"X-Accel-Buffering: no\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n" + retry

// BarStart is what a student's event stream begins with: the response's
// head and the student's own bar (html).
func BarStart(html string) []byte {
	return append([]byte(barHead), Event("update", html)...)
}

// ViewStart is what a dashboard's or projector's event stream begins
// with: the response's head with the fields h holds (those the server's
// pages carry), written as the HTTP server writes a chunked response,
// then the reconnect delay and events (the view's first) in the first
// chunk.
func ViewStart(h http.Header, now time.Time, events []byte) []byte {
	h = h.Clone()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass events on as they come
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 200 OK\r\n")
	h.Write(&b)
	b.WriteString("Date: " + now.UTC().Format(http.TimeFormat) + "\r\nTransfer-Encoding: chunked\r\n\r\n")
	b.Write(chunk(append([]byte(retry), events...)))
	return b.Bytes()
}

// chunk is b as one chunk of a chunked response.
func chunk(b []byte) []byte {
	out := make([]byte, 0, len(b)+12)
	out = strconv.AppendInt(out, int64(len(b)), 16)
	out = append(out, "\r\n"...)
	out = append(out, b...)
	return append(out, "\r\n"...)
}
