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
//     took over from the HTTP server (hijacked): no goroutine, no buffers
//     of its own, only the socket, written by the feed and pinged every
//     classPing (a client gone is found when a write fails).
//
// The broadcast bar is the class's; what is the student's own (their key,
// the choice they sent, where a vote without script returns) stays in the
// page, which keeps it when the bar is replaced (static/app.js).

// classFeeds are the feeds of the classes with listeners in this process.
type classFeeds struct {
	mu sync.Mutex
	m  map[string]*classFeed
}

// classFeed sends one class's bar to its listeners.
type classFeed struct {
	s             *Server
	classID, code string
	mu            sync.Mutex
	socks         map[*live.Conn]string // lab sockets, by their page's language
	streams       map[net.Conn]string   // taken-over event streams, by language
	gone          bool                  // run has ended: a listener needs a new feed
	// sends counts the bars sent, from 1; notices are the last ones sent
	// to sockets, by language; kick asks run to send again.
	sends   uint64
	notices map[string]*live.Notice
	kick    chan struct{}
}

// feedWriteWait bounds one write to an event stream: the feed writes to
// every stream of its class in turn, so a stalled client is dropped
// rather than waited on.
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
	f := &classFeed{s: s, classID: classID, code: code, socks: map[*live.Conn]string{}, streams: map[net.Conn]string{},
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
			f.write(map[string][]byte{"": []byte(": ping\n\n")})
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
	for _, lang := range f.streams {
		langs[lang] = true
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
	f.write(events)
	return counts
}

// write sends each stream its language's bytes (the "" key: every
// stream), and drops the streams whose write failed.
func (f *classFeed) write(by map[string][]byte) {
	f.mu.Lock()
	streams := make([]net.Conn, 0, len(f.streams))
	langs := make([]string, 0, len(f.streams))
	for c, lang := range f.streams {
		streams = append(streams, c)
		langs = append(langs, lang)
	}
	f.mu.Unlock()
	var failed []net.Conn
	for i, c := range streams {
		b := by[langs[i]]
		if b == nil {
			b = by[""]
		}
		if b == nil {
			continue
		}
		c.SetWriteDeadline(time.Now().Add(feedWriteWait))
		if _, err := c.Write(b); err != nil {
			failed = append(failed, c)
		}
	}
	if len(failed) == 0 {
		return
	}
	f.mu.Lock()
	for _, c := range failed {
		delete(f.streams, c)
		c.Close()
	}
	f.mu.Unlock()
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
	for c := range f.streams {
		c.Close()
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
	s.listen(f, mark, func(f *classFeed) {
		// Under the feed's lock: the feed writes to the stream only after
		// its first bytes.
		conn.SetWriteDeadline(time.Now().Add(feedWriteWait))
		if _, err := conn.Write(append([]byte(streamHead), eventBytes("update", html)...)); err != nil {
			conn.Close()
			return
		}
		f.streams[conn] = lang
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
	return s.barOfClass(ctx, lang, cl), true
}

// voteSaid is what a student's bar says after their vote was kept.
func voteSaid(lang string, choices []string, choice string) string {
	return fmt.Sprintf(T(lang, "bar.voted"), choiceLetter(choices, choice))
}
