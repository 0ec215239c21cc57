package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"leaselab/class"
	"leaselab/live"
)

// The class bar's updates. A student's page follows its class, and a
// lecture room holds hundreds of them, so what a student costs the server
// beyond their live session is kept small: one feed per class (not per
// student) hears the class's changes, at most one update per class every
// classThrottle, renders the bar once per language for all its students,
// and hands the same bytes to each:
//
//   - over the lab page's websocket, when the page has one (a "class"
//     message, docs/protocol.md): no second connection at all;
//   - otherwise over a server-sent event stream whose connection the feed
//     took over from the HTTP server (hijacked): no goroutine at rest and
//     one bar of buffer, only the socket, pinged every classPing (a client
//     gone is found when a write fails). The feed never writes to a
//     stream itself: a short-lived writer does, so a client that stops
//     reading holds up nobody else, and it is dropped once it falls a
//     bar behind (feedStream).
//
// The broadcast bar is the class's; what is the student's own (their key,
// the choice they sent, where a vote without script returns) stays in the
// page, which keeps it when the bar is replaced (static/app.js).

// classFeeds are the feeds of the classes with listeners in this process.
type classFeeds struct {
	mu sync.Mutex
	m  map[string]*classFeed
	// wait bounds one write to a stream; feedWriteWait when 0 (tests
	// make it long, to show that no other listener waits on it).
	wait time.Duration
}

// classFeed sends one class's bar to its listeners.
type classFeed struct {
	s             *Server
	classID, code string
	mu            sync.Mutex
	socks         map[*live.Conn]string    // lab sockets, by their page's language
	streams       map[*feedStream]struct{} // taken-over event streams
	gone          bool                     // run has ended: a listener needs a new feed
	// sends counts the bars sent, from 1; notices are the last ones sent
	// to sockets, by language; kick asks run to send again.
	sends   uint64
	notices map[string]*live.Notice
	kick    chan struct{}
}

// feedWriteWait bounds one write to an event stream: a client that takes
// no bytes for this long is dropped (its browser comes back by itself).
const feedWriteWait = 2 * time.Second

// feed returns the running feed of a class, started if there is none.
// The caller adds a listener at once (add): a feed without listeners
// ends at its next ping.
func (s *Server) feed(classID, code string) *classFeed {
	s.feeds.mu.Lock()
	defer s.feeds.mu.Unlock()
	if f := s.feeds.m[classID]; f != nil {
		return f
	}
	if s.feeds.m == nil {
		s.feeds.m = map[string]*classFeed{}
	}
	f := &classFeed{s: s, classID: classID, code: code, socks: map[*live.Conn]string{}, streams: map[*feedStream]struct{}{},
		sends: 1, kick: make(chan struct{}, 1)}
	s.feeds.m[classID] = f
	changes, stop := s.classes.Subscribe(classID)
	go f.run(changes, stop)
	return f
}

// listenSocket makes a student's lab socket hear their class's bar until
// the returned function is called. The page drew the bar when it was
// loaded; the newest bar the feed sent, if any, comes at once, in case
// the class changed since.
func (s *Server) listenSocket(m *classmate, l *live.Conn, lang string) func() {
	f := s.listen(s.feed(m.classID, m.code), 0, func(f *classFeed) {
		f.socks[l] = lang
		if n := f.notices[lang]; n != nil {
			l.Tell(n)
		}
	})
	return func() {
		f.mu.Lock()
		delete(f.socks, l)
		f.mu.Unlock()
	}
}

// listen adds a listener to a class's feed (add runs under the feed's
// lock) and returns the feed. mark is the feed's count of sends before
// the listener's own bar was drawn (0: unknown): when the feed sent since,
// or the feed had to be started anew, it sends again, so that a change
// between the listener's bar and its joining is not missed.
func (s *Server) listen(f *classFeed, mark uint64, add func(*classFeed)) *classFeed {
	for {
		f.mu.Lock()
		if !f.gone {
			add(f)
			if mark != 0 && f.sends != mark {
				select {
				case f.kick <- struct{}{}:
				default:
				}
			}
			f.mu.Unlock()
			return f
		}
		f.mu.Unlock()
		f, mark = s.feed(f.classID, f.code), ^uint64(0)
	}
}

// mark is the feed's count of sends (for listen), never 0.
func (f *classFeed) mark() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sends
}

// barMatters says whether a change of the class changes its bar. A class
// voting at once must not redraw every bar: a vote changes the bar only
// where it shows the counts, and joins and steps change none.
func barMatters(ch class.Change, counts bool) bool {
	switch ch.What {
	case class.ChangedVote:
		return counts
	case class.ChangedJoin, class.ChangedProgress:
		return false
	}
	return true
}

// run is the feed's one goroutine: it sends the bar after each change
// that matters, at most once every classThrottle, and pings the streams,
// until the class has no listener left (seen at a ping) or the server
// closes.
func (f *classFeed) run(changes <-chan class.Change, stop func()) {
	defer stop()
	ping := time.NewTicker(classPing)
	defer ping.Stop()
	var last time.Time
	counts := f.showsCounts()
	for {
		select {
		case ch, ok := <-changes:
			if !ok {
				f.end()
				return
			}
			if !barMatters(ch, counts) {
				continue
			}
			if d := classThrottle - time.Since(last); d > 0 {
				select {
				case <-time.After(d):
				case <-f.s.ctx.Done():
					f.end()
					return
				}
			}
			for len(changes) > 0 {
				<-changes
			}
			counts = f.send()
			last = time.Now()
		case <-f.kick:
			if d := classThrottle - time.Since(last); d > 0 {
				time.Sleep(d)
			}
			counts = f.send()
			last = time.Now()
		case <-ping.C:
			f.write(map[string][]byte{"": pingBytes}, true)
			if f.idle() {
				return
			}
		case <-f.s.ctx.Done():
			f.end()
			return
		}
	}
}

// showsCounts says whether the class's bar shows its vote's counts now
// (true when it cannot tell), read once when the feed starts: the votes
// of a class whose bar hides them then send no bar at all. Before, the
// first vote sent every student the bar they already had, a few thousand
// messages in the second a lecture room votes.
func (f *classFeed) showsCounts() bool {
	ctx, cancel := context.WithTimeout(f.s.ctx, 5*time.Second)
	defer cancel()
	b, ok := f.s.classBarOf(ctx, "en", f.code) // the counts are the same in every language
	return !ok || b.Down || b.showsCounts()
}

// showsCounts: the bar shows the vote's counts (or the right answer).
func (b *barView) showsCounts() bool {
	return b.Round != nil && (b.Round.Round.Shown || b.Right != "")
}

// send draws the class's bar once for each language its listeners read
// and sends it to them all; it reports whether the bar shows the counts.
func (f *classFeed) send() (counts bool) {
	f.mu.Lock()
	langs := map[string]bool{}
	for _, lang := range f.socks {
		langs[lang] = true
	}
	for st := range f.streams {
		langs[st.lang] = true
	}
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(f.s.ctx, 5*time.Second)
	defer cancel()
	notices := map[string]*live.Notice{}
	events := map[string][]byte{}
	for lang := range langs {
		b, ok := f.s.classBarOf(ctx, lang, f.code)
		if !ok || b.Class.ID != "" && b.Class.ID != f.classID {
			continue // gone, or the code now names a newer class
		}
		counts = counts || b.showsCounts()
		html, err := renderString(classBarBlock(b))
		if err != nil {
			continue
		}
		notices[lang] = live.NewNotice("class", html)
		events[lang] = eventBytes("update", html)
	}
	f.mu.Lock()
	f.sends++
	f.notices = notices
	for l, lang := range f.socks {
		if n := notices[lang]; n != nil {
			l.Tell(n)
		}
	}
	f.mu.Unlock()
	f.write(events, false)
	return counts
}

// pingBytes keeps an idle stream open through proxies.
var pingBytes = []byte(": ping\n\n")

// write hands each stream its language's bytes (the "" key: every stream),
// a bar or a ping, and returns at once: the streams' own writers write
// them. A stream that is behind is dropped.
func (f *classFeed) write(by map[string][]byte, ping bool) {
	f.mu.Lock()
	streams := make([]*feedStream, 0, len(f.streams))
	for st := range f.streams {
		streams = append(streams, st)
	}
	f.mu.Unlock()
	var behind []*feedStream
	for _, st := range streams {
		b := by[st.lang]
		if b == nil {
			b = by[""]
		}
		if b != nil && !st.offer(b, ping, f.s.feeds.writeWait(), f.drop) {
			behind = append(behind, st)
		}
	}
	for _, st := range behind {
		f.drop(st)
	}
}

// drop takes a closed stream out of the feed.
func (f *classFeed) drop(st *feedStream) {
	f.mu.Lock()
	delete(f.streams, st)
	f.mu.Unlock()
}

func (c *classFeeds) writeWait() time.Duration {
	if c.wait > 0 {
		return c.wait
	}
	return feedWriteWait
}

// feedStream is an event stream a feed took over: its connection and what
// waits to be written to it. A writer goroutine runs only while there is
// something to write, so a stream at rest costs its socket and this
// struct. Each stream holds at most one bar beside the write in flight
// (a newer bar replaces a waiting one, as the bar is the class's state,
// not a log): a bar that finds one already waiting means the client has
// not taken the one before it in a throttle's time or more, its buffers
// full, and the stream is dropped; its browser connects again and gets
// its own bar then.
type feedStream struct {
	conn net.Conn
	lang string

	mu       sync.Mutex
	next     []byte // what waits for the writer
	bar      bool   // next holds a bar (not only the stream's head)
	writing  bool   // a writer runs
	inFlight bool   // the writer is writing
	closed   bool
}

// newFeedStream starts a stream on conn with its first bytes (the
// response's head and the student's own bar).
func newFeedStream(conn net.Conn, lang string, first []byte, wait time.Duration, gone func(*feedStream)) *feedStream {
	st := &feedStream{conn: conn, lang: lang, next: first, writing: true}
	go st.flush(wait, gone)
	return st
}

// offer queues b for the stream, and starts its writer if none runs. It
// reports false, and closes the stream, when the stream is behind: a bar
// still waits behind a write in flight. A ping is not queued behind a
// write: the write keeps the stream alive.
func (st *feedStream) offer(b []byte, ping bool, wait time.Duration, gone func(*feedStream)) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case st.closed:
		return false
	case st.writing && ping:
		return true
	case st.writing && st.inFlight && st.bar:
		st.closed = true
		st.conn.Close()
		return false
	case st.writing && len(st.next) > 0:
		// The writer has not taken what waits yet (the stream's head):
		// b goes after it.
		st.next = append(append(make([]byte, 0, len(st.next)+len(b)), st.next...), b...)
		st.bar = true
		return true
	case st.writing:
		st.next, st.bar = b, true
		return true
	}
	st.next, st.bar, st.writing = b, !ping, true
	go st.flush(wait, gone)
	return true
}

// flush writes what waits until nothing does; on a failed write (the
// client gone, or taking nothing for wait) it closes the stream and
// tells gone.
func (st *feedStream) flush(wait time.Duration, gone func(*feedStream)) {
	for {
		st.mu.Lock()
		b := st.next
		st.next, st.bar = nil, false
		if len(b) == 0 || st.closed {
			st.writing, st.inFlight = false, false
			st.mu.Unlock()
			return
		}
		st.inFlight = true
		st.mu.Unlock()
		st.conn.SetWriteDeadline(time.Now().Add(wait))
		if _, err := st.conn.Write(b); err != nil {
			st.close()
			gone(st)
			return
		}
	}
}

// close closes the stream's connection, once.
func (st *feedStream) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.closed {
		st.closed = true
		st.conn.Close()
	}
	st.writing, st.inFlight = false, false
}

// idle ends the feed when it has no listener left.
func (f *classFeed) idle() bool {
	f.s.feeds.mu.Lock()
	defer f.s.feeds.mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.socks)+len(f.streams) > 0 {
		return false
	}
	f.gone = true
	delete(f.s.feeds.m, f.classID)
	return true
}

// end closes the feed's streams (their browsers come back by themselves)
// and lets its sockets go.
func (f *classFeed) end() {
	f.s.feeds.mu.Lock()
	defer f.s.feeds.mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	for st := range f.streams {
		st.close()
	}
	f.streams, f.socks, f.gone = nil, nil, true
	if f.s.feeds.m[f.classID] == f {
		delete(f.s.feeds.m, f.classID)
	}
}

// eventBytes is one server-sent event carrying text.
func eventBytes(name, text string) []byte {
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

// streamHead starts a taken-over event stream: the response's head, as
// startEvents writes it, and the reconnect delay. The stream ends when
// the connection closes.
const streamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n" +
	"X-Accel-Buffering: no\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\nretry: 1000\n\n"

// classEvents streams a student's class bar: the student's own bar now,
// then the class's after each change, from the class's feed.
func (s *Server) classEvents(c echo.Context) error {
	lang, err := s.joinLang(c)
	if err != nil {
		return err
	}
	code, id, ok := studentOf(c.Request())
	if !ok {
		return c.NoContent(http.StatusNoContent) // EventSource stops on 204
	}
	// The feed hears the class before the student's own bar is drawn:
	// a change meanwhile is sent again (listen).
	cl, err := s.classes.ByCode(c.Request().Context(), code)
	if err != nil {
		return c.NoContent(http.StatusNoContent)
	}
	f := s.feed(cl.ID, cl.Code)
	mark := f.mark()
	b, ok := s.bar(c.Request().Context(), lang, code, id)
	if !ok || b.Class.ID == "" || b.Class.Ended != nil {
		return c.NoContent(http.StatusNoContent)
	}
	b.Back = s.localBack(lang, c.QueryParam("back"))
	html, err := renderString(classBarBlock(b))
	if err != nil {
		return err
	}
	conn, _, err := http.NewResponseController(c.Response()).Hijack()
	if err != nil {
		// A connection that cannot be taken over (not HTTP/1): the page
		// follows its class when it is loaded again.
		return c.NoContent(http.StatusNoContent)
	}
	conn.SetDeadline(time.Time{}) // the server's page timeouts no longer apply
	first := append([]byte(streamHead), eventBytes("update", html)...)
	s.listen(f, mark, func(f *classFeed) {
		// Under the feed's lock: what the feed sends comes after the
		// stream's first bytes, which its writer is given first.
		f.streams[newFeedStream(conn, lang, first, s.feeds.writeWait(), f.drop)] = struct{}{}
	})
	return nil
}

// classBarOf is the class's bar in lang as every student of it sees it,
// without what is a student's own; ok is false when the class is gone.
func (s *Server) classBarOf(ctx context.Context, lang, code string) (*barView, bool) {
	cl, err := s.classes.ByCode(ctx, code)
	if errors.Is(err, class.ErrEnded) && cl.ID != "" {
		err = nil
	}
	if err != nil {
		if errors.Is(err, class.ErrUnavailable) {
			b := &barView{page: s.newPage(lang, "/", "", "bar"), Down: true}
			b.Class.Code = code
			return b, true
		}
		return nil, false
	}
	b := s.barOfClass(ctx, lang, cl)
	// Reads may still work (kept in memory, or beside a stuck writer)
	// while nothing can be saved: the bar says so all the same.
	b.Down = b.Down || s.classes.SavesFailing()
	return b, true
}

// voteSaid is what a student's bar says after their vote was kept.
func voteSaid(lang string, choices []string, choice string) string {
	return fmt.Sprintf(T(lang, "bar.voted"), choiceLetter(choices, choice))
}
