package classroom

import (
	"context"
	"sync"
	"time"

	"leaselab/budget"
	"leaselab/class"
	"leaselab/live"
)

// A lecture room holds hundreds of students following their class, so
// what a student costs beyond their live session is kept small: one feed
// per class (not per listener) hears the class's changes, sends at most
// one update every Throttle, draws the bar once per language for all its
// students and hands the same bytes to each, and draws each dashboard
// and projector view once:
//
//   - the bar goes over the lab page's websocket when the page has one (a
//     "class" message, docs/protocol.md): no second connection at all;
//   - otherwise, and for the views, over an event stream whose
//     connection the room took over from the HTTP server (stream.go): no
//     goroutine at rest, only the socket, pinged every pingEvery.
//
// The broadcast bar is the class's; what is the student's own (their
// key, the choice they sent, where a vote without script returns) stays
// in the page, which keeps it when the bar is replaced (static/).

// pingEvery is how often a stream says it is alive, so that proxies keep
// it open, and a feed looks whether it has listeners left.
const pingEvery = 25 * time.Second

// feed sends one class's changes to its listeners.
type feed struct {
	r             *Room
	classID, code string
	mu            sync.Mutex
	socks         map[*live.Conn]string // lab sockets, by their page's language
	streams       map[*stream]struct{}  // event streams: bars and views
	gone          bool                  // run has ended: a listener needs a new feed
	// bars and views count the sends of each, from 1 (Mark); notices
	// are the last bars sent to sockets, by language; kick asks run to
	// send again what kicked says.
	bars, views uint64
	notices     map[string]*live.Notice
	kick        chan struct{}
	kicked      pending
}

// pending is what a feed has to send: the bar, when a change mattered
// to it; the views, when any change came, with what changed (all: what
// changed is not known).
type pending struct {
	bars, views, all bool
	changed          map[string]bool
}

// add notes a change; counts says whether the bar shows the counts.
func (p *pending) add(ch class.Change, counts bool) {
	p.bars = p.bars || barMatters(ch, counts)
	p.views = true
	if p.changed == nil {
		p.changed = map[string]bool{}
	}
	p.changed[ch.What] = true
}

// merge adds what q has to send.
func (p *pending) merge(q pending) {
	p.bars, p.views, p.all = p.bars || q.bars, p.views || q.views, p.all || q.all
}

// what is what changed for the views, nil for anything.
func (p *pending) what() map[string]bool {
	if p.all || p.changed == nil {
		return nil
	}
	return p.changed
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

// feed returns the running feed of a class, started if there is none.
// The caller adds a listener at once (listen): a feed without listeners
// ends at its next ping.
func (r *Room) feed(classID, code string) *feed {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f := r.feeds[classID]; f != nil {
		return f
	}
	f := &feed{r: r, classID: classID, code: code, socks: map[*live.Conn]string{}, streams: map[*stream]struct{}{},
		bars: 1, views: 1, kick: make(chan struct{}, 1)}
	r.feeds[classID] = f
	changes, stop := r.cfg.Classes.Subscribe(classID)
	go f.run(changes, stop)
	return f
}

// Mark is a class's feed and its counts of sends, taken before a
// listener's first bytes are drawn: a change after it is not missed.
type Mark struct {
	f           *feed
	bars, views uint64
}

// Mark returns the feed of a class, started if there is none, and its
// counts of sends. A listener's own first bytes are drawn after it, then
// handed to the feed with it (FollowBar, FollowView).
func (r *Room) Mark(classID, code string) Mark {
	f := r.feed(classID, code)
	f.mu.Lock()
	defer f.mu.Unlock()
	return Mark{f, f.bars, f.views}
}

// FollowSocket makes a student's lab socket hear their class's bar until
// the returned function is called. The page drew the bar when it was
// loaded; the newest bar the feed sent, if any, comes at once, in case
// the class changed since.
func (r *Room) FollowSocket(m Member, l *live.Conn, lang string) (stop func()) {
	f := r.listen(Mark{f: r.feed(m.ClassID, m.Code)}, func(f *feed) {
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
// lock) and returns the feed. When the feed sent since m (m's counts not
// 0), or had to be started anew, it sends again what it sent, so that a
// change between the listener's first bytes and its joining is not
// missed.
func (r *Room) listen(m Mark, add func(*feed)) *feed {
	for f := m.f; ; {
		f.mu.Lock()
		if !f.gone {
			add(f)
			again := pending{bars: m.bars != 0 && f.bars != m.bars, views: m.views != 0 && f.views != m.views, all: true}
			if again.bars || again.views {
				f.kicked.merge(again)
				select {
				case f.kick <- struct{}{}:
				default:
				}
			}
			f.mu.Unlock()
			return f
		}
		f.mu.Unlock()
		f = r.feed(f.classID, f.code)
		m = Mark{f, ^uint64(0), ^uint64(0)}
	}
}

// run is the feed's one goroutine: it sends what each change changes, at
// most once every Throttle, and pings the streams, until the class has no
// listener left (seen at a ping) or the room closes.
func (f *feed) run(changes <-chan class.Change, stop func()) {
	defer stop()
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	var last time.Time
	counts := f.showsCounts()
	for {
		var p pending
		select {
		case ch, ok := <-changes:
			if !ok {
				f.end()
				return
			}
			p.add(ch, counts)
		case <-f.kick:
			f.mu.Lock()
			p, f.kicked = f.kicked, pending{}
			f.mu.Unlock()
		case <-ping.C:
			f.offerAll(func(*stream) []byte { return pingBytes }, true)
			if f.idle() {
				return
			}
			continue
		case <-f.r.cfg.Done.Done():
			f.end()
			return
		}
		if !p.bars && !(p.views && f.viewed()) {
			continue
		}
		if !f.throttle(last, changes, &p, counts) {
			f.end()
			return
		}
		counts = f.send(&p, counts)
		last = time.Now()
	}
}

// throttle waits until the room's Throttle has passed since last, and
// takes the changes that came meanwhile into p. It reports false when
// the room closed meanwhile.
func (f *feed) throttle(last time.Time, changes <-chan class.Change, p *pending, counts bool) bool {
	if d := f.r.cfg.throttle - time.Since(last); d > 0 {
		select {
		case <-time.After(d):
		case <-f.r.cfg.Done.Done():
			return false
		}
	}
	for len(changes) > 0 {
		if ch, ok := <-changes; ok {
			p.add(ch, counts)
		}
	}
	return true
}

// showsCounts says whether the class's bar shows its vote's counts now
// (true when it cannot tell): the votes of a class whose bar hides them
// send no bar at all. Before, the first vote sent every student the bar
// they already had, a few thousand messages in the second a lecture room
// votes.
func (f *feed) showsCounts() bool {
	ctx, cancel := context.WithTimeout(f.r.cfg.Done, 5*time.Second)
	defer cancel()
	b, ok := f.r.cfg.Pages.Bar(ctx, "en", f.code) // the counts are the same in every language
	return !ok || b.Down || b.Counts
}

// send sends what p says; it reports whether the bar shows the counts.
func (f *feed) send(p *pending, counts bool) bool {
	ctx, cancel := context.WithTimeout(f.r.cfg.Done, 5*time.Second)
	defer cancel()
	if p.bars {
		counts = f.sendBars(ctx)
	}
	if p.views {
		f.sendViews(ctx, p.what())
	}
	return counts
}

// sendBars draws the class's bar once for each language its listeners
// read and sends it to them all; it reports whether the bar shows the
// counts.
func (f *feed) sendBars(ctx context.Context) (counts bool) {
	f.mu.Lock()
	langs := map[string]bool{}
	for _, lang := range f.socks {
		langs[lang] = true
	}
	for st := range f.streams {
		if st.view == nil {
			langs[st.lang] = true
		}
	}
	f.mu.Unlock()
	if len(langs) == 0 {
		counts = f.showsCounts() // no student listens: what the next votes change, all the same
	}
	notices := map[string]*live.Notice{}
	events := map[string][]byte{}
	for lang := range langs {
		b, ok := f.r.cfg.Pages.Bar(ctx, lang, f.code)
		if !ok || b.Class != "" && b.Class != f.classID {
			continue // gone, or the code now names a newer class
		}
		counts = counts || b.Counts
		notices[lang] = live.NewNotice("class", b.HTML)
		events[lang] = Event("update", b.HTML)
	}
	f.mu.Lock()
	f.bars++
	f.notices = notices
	for l, lang := range f.socks {
		if n := notices[lang]; n != nil {
			l.Tell(n)
		}
	}
	f.mu.Unlock()
	f.offerAll(func(st *stream) []byte {
		if st.view != nil {
			return nil
		}
		return events[st.lang]
	}, false)
	return counts
}

// sendViews draws each dashboard and projector view and sends it. Every
// view of a class draws when a vote is told: one at a time
// (budget.Crowd), so that a playing student's command finds a core.
func (f *feed) sendViews(ctx context.Context, changed map[string]bool) {
	f.mu.Lock()
	f.views++
	var views []*stream
	for st := range f.streams {
		if st.view != nil {
			views = append(views, st)
		}
	}
	f.mu.Unlock()
	for _, st := range views {
		budget.Crowd(func() error {
			if b, ok := st.view.Draw(ctx, changed); ok && !st.offer(b, false, f.drop) {
				f.drop(st)
			}
			return nil
		})
	}
}

// viewed says whether a dashboard or a projector follows the class.
func (f *feed) viewed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for st := range f.streams {
		if st.view != nil {
			return true
		}
	}
	return false
}

// offerAll hands each stream what bytes says for it (nil: nothing), a
// bar, a view or a ping, and returns at once: the streams' own writers
// write them. A stream that is behind is dropped.
func (f *feed) offerAll(bytes func(*stream) []byte, ping bool) {
	f.mu.Lock()
	streams := make([]*stream, 0, len(f.streams))
	for st := range f.streams {
		streams = append(streams, st)
	}
	f.mu.Unlock()
	for _, st := range streams {
		if b := bytes(st); b != nil && !st.offer(b, ping, f.drop) {
			f.drop(st)
		}
	}
}

// drop takes a closed stream out of the feed.
func (f *feed) drop(st *stream) {
	f.mu.Lock()
	delete(f.streams, st)
	f.mu.Unlock()
}

// idle ends the feed when it has no listener left.
func (f *feed) idle() bool {
	f.r.mu.Lock()
	defer f.r.mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.socks)+len(f.streams) > 0 {
		return false
	}
	f.gone = true
	delete(f.r.feeds, f.classID)
	return true
}

// end ends the feed's streams (their browsers come back by themselves)
// and lets its sockets go.
func (f *feed) end() {
	f.r.mu.Lock()
	defer f.r.mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	for st := range f.streams {
		st.finish()
	}
	f.streams, f.socks, f.gone = nil, nil, true
	if f.r.feeds[f.classID] == f {
		delete(f.r.feeds, f.classID)
	}
}
