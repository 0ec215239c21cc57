package web

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"sync"

	"github.com/a-h/templ"

	"leaselab/engine"
)

// A playing session's frames send only what changed since the last one:
// the events, marks and messages that are new, the bars that grew, the
// "now" line, the status. The server keeps what the page shows (shownPage)
// while the session plays; a paused session keeps nothing beyond its
// world, and its next frame is whole. A reset, a replay, a reconnect or a
// new time scale is a whole frame too.

// shownPage is what the page of a playing session shows.
type shownPage struct {
	d       *Diagram // the picture the page shows; d.world is its world
	spare   *Diagram // the one before it: its slices are reused
	status  statusView
	workers []engine.WorkerState // status.Workers, owned here
	cmds    []engine.Command     // the session's commands as the page lists them
	// The chart and the signals panel change only with new events.
	chartSpan engine.Time
	chartDots int
	renewals  []engine.Time // the time left at each renewal, sorted
	svg       svgw
}

// renderBufs are the buffers frames are rendered into: shared, so that a
// playing session does not keep one as large as its whole picture.
var renderBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// render writes c into a pooled buffer and returns it as a string.
func (p *shownPage) render(c templ.Component) (string, error) {
	b := renderBufs.Get().(*bytes.Buffer)
	defer renderBufs.Put(b)
	b.Reset()
	if err := c.Render(context.Background(), b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// frame renders what changed: the picture, the state, the session, and
// the events the list does not show yet.
func (l *live) frame(id int64) serverMsg {
	w := l.sess.World()
	if !l.playing {
		l.view = nil
	}
	p := l.view
	if p == nil || p.d.world != w || l.shown < 0 || l.shownOf != w {
		p = nil
	}
	var m serverMsg
	var err error
	if p == nil {
		m, err = l.wholeFrame(id, w)
	} else {
		m, err = l.nextFrame(id, w, p)
	}
	if err != nil {
		l.view = nil
		return serverMsg{Type: "error", ID: id, Error: err.Error()}
	}
	// After a reset the log starts again, and a reconnect does not know what
	// the page shows: then the list is replaced whole.
	events := w.Events()
	opName, from := "append", l.shown
	if l.shown < 0 || l.shown > len(events) || l.shownOf != w {
		opName, from = "replace", 0
	}
	if from < len(events) || opName == "replace" {
		html, err := renderString(eventRows(&eventsView{ID: "events", Lang: l.lang, From: from, Events: events[from:], Names: w.Names()}))
		if err != nil {
			l.view = nil
			return serverMsg{Type: "error", ID: id, Error: err.Error()}
		}
		m.Ops = append(m.Ops, op{Op: opName, Target: "events", HTML: html})
		// A write the list shows already turns out to have done harm.
		for _, e := range events[from:] {
			if r := int(e.Ref()); opName == "append" && e.Kind == engine.KindViolation && harmful(e.Reason()) && r >= 0 && r < from {
				html, err := renderString(eventRows(&eventsView{ID: "events", Lang: l.lang, From: r, Events: events[r:], Names: w.Names(), Only: map[int]bool{r: true}}))
				if err != nil {
					l.view = nil
					return serverMsg{Type: "error", ID: id, Error: err.Error()}
				}
				m.Ops = append(m.Ops, op{Op: "swap", Target: "events-" + strconv.Itoa(r), HTML: html})
			}
		}
	}
	l.shown, l.shownOf = len(events), w
	return m
}

// wholeFrame redraws every part of the page a frame keeps up to date.
func (l *live) wholeFrame(id int64, w *engine.World) (serverMsg, error) {
	query := l.sess.Query()
	d := &Diagram{}
	d.layout("live", w, l.lang, nil, diagramOpts{Window: liveWindow}, nil)
	p := &shownPage{d: d}
	p.workers = w.AppendWorkers(p.workers)
	p.status = newStatusOf(w, l.lang, d.outcome, p.workers)
	p.cmds = append(p.cmds, l.sess.Commands()...)
	m := serverMsg{Type: "frame", ID: id, Query: query, Now: w.Now().String()}
	parts := []struct {
		target string
		comp   templ.Component
	}{
		{"status", statusPanel(&p.status)},
		{"diagram", diagramFigure(d)},
		{"chart", liveChart("live", w, l.lang)},
		{"session", sessionPanel(l.pageOf(), l.lab.ID, session{Seed: l.sess.Seed(), Do: l.sess.Strings(), query: query})},
	}
	if s := signalsFor(l.lab, "live-signals", w, l.lang); s != nil {
		parts = append(parts, struct {
			target string
			comp   templ.Component
		}{"signals", SignalsPanel(s)})
	}
	for _, part := range parts {
		html, err := p.render(part.comp)
		if err != nil {
			return serverMsg{}, err
		}
		m.Ops = append(m.Ops, op{Op: "replace", Target: part.target, HTML: html})
	}
	p.chartSpan, p.chartDots, p.renewals = liveChartSpan(w.Now()), 0, nil
	for _, e := range w.Events() {
		if e.Kind == engine.KindRenewed {
			p.chartDots++
			p.renewals = insertSorted(p.renewals, engine.Time(e.Value))
		}
	}
	if l.playing {
		l.view = p
	}
	return m, nil
}

// nextFrame sends what changed since the page p shows.
func (l *live) nextFrame(id int64, w *engine.World, p *shownPage) (serverMsg, error) {
	m := serverMsg{Type: "frame", ID: id, Query: l.sess.Query(), Now: w.Now().String()}
	events := w.Events()
	seen := p.d.drawn // events the page's picture has

	// The picture.
	d := p.spare
	if d == nil {
		d = &Diagram{}
	}
	d.layout("live", w, l.lang, nil, diagramOpts{Window: liveWindow}, p.d)
	ops, err := p.diagramOps(m.Ops, p.d, d)
	if err != nil {
		return m, err
	}
	m.Ops = ops
	p.spare, p.d = p.d, d

	// The status: most frames change only its clock.
	p.workers = w.AppendWorkers(p.workers[:0])
	st := newStatusOf(w, l.lang, d.outcome, p.workers)
	if st.sameBut(&p.status) {
		m.Ops = append(m.Ops, op{Op: "text", Target: "now", HTML: st.Now})
		p.status.Now = st.Now
	} else {
		html, err := p.render(statusPanel(&st))
		if err != nil {
			return m, err
		}
		m.Ops = append(m.Ops, op{Op: "replace", Target: "status", HTML: html})
		p.status = st
		p.status.Workers = append(p.status.Workers[:0:0], st.Workers...)
	}

	// The session's commands: while it plays, the last one grows.
	if ops, ok := l.sessionOps(m.Ops, p); ok {
		m.Ops = ops
	} else {
		html, err := p.render(sessionPanel(l.pageOf(), l.lab.ID, session{Seed: l.sess.Seed(), Do: l.sess.Strings(), query: m.Query}))
		if err != nil {
			return m, err
		}
		m.Ops = append(m.Ops, op{Op: "replace", Target: "session", HTML: html})
	}

	// The chart and the signals, which only events change.
	if len(events) != seen {
		if ops, err := l.chartOps(m.Ops, p, w, seen); err != nil {
			return m, err
		} else {
			m.Ops = ops
		}
		if s := signalsFor(l.lab, "live-signals", w, l.lang); s != nil {
			html, err := p.render(SignalsPanel(s))
			if err != nil {
				return m, err
			}
			m.Ops = append(m.Ops, op{Op: "replace", Target: "signals", HTML: html})
		}
	} else if span := liveChartSpan(w.Now()); span != p.chartSpan && p.chartDots > 0 {
		if ops, err := l.chartOps(m.Ops, p, w, seen); err != nil {
			return m, err
		} else {
			m.Ops = ops
		}
	}
	return m, nil
}

// sessionOps lists the session's new commands, or grows its last one;
// false when the list changed otherwise (a reset): then it is redrawn.
func (l *live) sessionOps(ops []op, p *shownPage) ([]op, bool) {
	now := l.sess.Commands()
	old := p.cmds
	defer func() { p.cmds = append(p.cmds[:0], now...) }()
	if len(now) < len(old) || len(old) == 0 {
		return ops, false
	}
	for i := 0; i < len(old)-1; i++ {
		if old[i] != now[i] {
			return ops, false
		}
	}
	w := &p.svg
	if last := len(old) - 1; old[last] != now[last] {
		w.b = w.b[:0]
		w.sessionCmd(l.lang, last, now[last].String())
		ops = append(ops, op{Op: "swap", Target: "cmd-" + strconv.Itoa(last), HTML: string(w.b)})
	}
	if len(now) > len(old) {
		w.b = w.b[:0]
		for i := len(old); i < len(now); i++ {
			w.sessionCmd(l.lang, i, now[i].String())
		}
		ops = append(ops,
			op{Op: "append", Target: "session-cmds", HTML: string(w.b)},
			op{Op: "text", Target: "session-count", HTML: strconv.Itoa(len(now))})
	}
	return ops, true
}

// chartOps adds the chart's new dots, or redraws it on a new scale.
func (l *live) chartOps(ops []op, p *shownPage, w *engine.World, seen int) ([]op, error) {
	events := w.Events()
	span := liveChartSpan(w.Now())
	first := p.chartDots == 0
	var dots []engine.Event
	for _, e := range events[seen:] {
		if e.Kind == engine.KindRenewed {
			dots = append(dots, e)
			p.chartDots++
			p.renewals = insertSorted(p.renewals, engine.Time(e.Value))
		}
	}
	if first || span != p.chartSpan {
		p.chartSpan = span
		if p.chartDots == 0 {
			return ops, nil
		}
		html, err := p.render(liveChart("live", w, l.lang))
		if err != nil {
			return ops, err
		}
		return append(ops, op{Op: "replace", Target: "chart", HTML: html}), nil
	}
	if len(dots) == 0 {
		return ops, nil
	}
	panel := newChartPanel(0, span, chartYMax([]ChartRun{{World: w}}))
	var b bytes.Buffer
	for _, e := range dots {
		if err := chartDotSVG(panel.dot(e)).Render(context.Background(), &b); err != nil {
			return ops, err
		}
	}
	return append(ops,
		op{Op: "append", Target: "live-chart-dots0", HTML: b.String()},
		op{Op: "text", Target: "live-chart-sum0", HTML: chartSummary(l.lang, p.renewals)}), nil
}

// insertSorted adds v to the sorted s.
func insertSorted(s []engine.Time, v engine.Time) []engine.Time {
	i := len(s)
	for i > 0 && s[i-1] > v {
		i--
	}
	s = append(s, 0)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}

func (l *live) pageOf() *page { return &page{Lang: l.lang, Base: l.srv.base} }

// diagramOps changes the picture the page shows, a, into b: a whole new
// picture when the scale or the lanes' places changed, else the elements
// that differ.
func (p *shownPage) diagramOps(ops []op, a, b *Diagram) ([]op, error) {
	if a.scale.span != b.scale.span || a.scale.plotW != b.scale.plotW || a.AxisY != b.AxisY || len(a.Lanes) != len(b.Lanes) ||
		a.Height != b.Height || a.Width != b.Width || a.ID != b.ID {
		html, err := p.render(diagramFigure(b))
		return append(ops, op{Op: "replace", Target: "diagram", HTML: html}), err
	}
	id := b.ID
	var err error
	if a.Shift != b.Shift {
		ops = append(ops, op{Op: "attr", Target: id + "-plot", Attr: "transform", HTML: shiftTransform(b.Shift)})
	}
	part := func(target string, c templ.Component) {
		if err != nil {
			return
		}
		var html string
		html, err = p.render(c)
		ops = append(ops, op{Op: "replace", Target: target, HTML: html})
	}
	if !slices.Equal(a.Ticks, b.Ticks) {
		part(id+"-ticks", diagramTicks(b))
	}
	if err != nil {
		return ops, err
	}
	barKey := func(x dBar) int { return int(x.Key) }
	w := &p.svg
	ops = layerOps(ops, w, 'f', b, a.Freezes, b.Freezes, barKey, func(x dBar) { w.freeze(b, x) })
	ops = layerOps(ops, w, 'l', b, a.Leases, b.Leases, barKey, func(x dBar) { w.bar(b, 'l', x) })
	ops = layerOps(ops, w, 's', b, a.Stale, b.Stale, barKey, func(x dBar) { w.bar(b, 's', x) })
	ops = layerOps(ops, w, 'b', b, a.Beliefs, b.Beliefs, barKey, func(x dBar) { w.bar(b, 'b', x) })
	if b.inPlace {
		ops = keptOps(ops, w, b)
	} else {
		ops = layerOps(ops, w, 'g', b, a.Msgs, b.Msgs, func(x dMsg) int { return int(x.Key) }, func(x dMsg) { w.msg(b, x) })
		ops = layerOps(ops, w, 'm', b, a.Marks, b.Marks, func(x dMark) int { return int(x.Index) }, func(x dMark) { w.mark(b, x) })
	}
	if a.Now != b.Now {
		w.b = w.b[:0]
		w.now(b)
		ops = append(ops, op{Op: "replace", Target: id + "-now", HTML: string(w.b)})
		ops = append(ops, op{Op: "attr", Target: id + "-box", Attr: "data-now", HTML: itoa(b.Now.X)})
	}
	if fx := b.FocusX(); fx != a.FocusX() {
		ops = append(ops, op{Op: "attr", Target: id + "-box", Attr: "data-focus", HTML: itoa(fx)})
	}
	if !samePin(a.Pin, b.Pin) {
		part(id+"-pin", diagramPin(b))
		part(id+"-pintext", pinText(b))
	}
	if !slices.Equal(a.Lanes, b.Lanes) {
		part(id+"-lanes", diagramLanes(b))
	}
	return ops, err
}

func samePin(a, b *dPin) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.X == b.X && a.Y1 == b.Y1 && a.Y2 == b.Y2 && a.Index == b.Index && a.Class == b.Class && a.Text == b.Text
}

// keptOps sends what changed among the messages and marks a layout in
// place took over (Diagram.changes): those that slid out are removed, the
// marks drawn again swapped, the new ones appended.
func keptOps(ops []op, w *svgw, d *Diagram) []op {
	ch := &d.changes
	for _, k := range ch.goneMsgs {
		ops = append(ops, op{Op: "remove", Target: elemID(d, 'g', k)})
	}
	for _, k := range ch.goneMarks {
		ops = append(ops, op{Op: "remove", Target: elemID(d, 'm', k)})
	}
	for _, j := range ch.swapped {
		w.b = w.b[:0]
		w.mark(d, d.Marks[j])
		ops = append(ops, op{Op: "swap", Target: elemID(d, 'm', int(d.Marks[j].Index)), HTML: string(w.b)})
	}
	if ch.newMsgs < len(d.Msgs) {
		w.b = w.b[:0]
		for _, m := range d.Msgs[ch.newMsgs:] {
			w.msg(d, m)
		}
		ops = append(ops, op{Op: "append", Target: d.ID + "-msgs", HTML: string(w.b)})
	}
	if ch.newMarks < len(d.Marks) {
		w.b = w.b[:0]
		for _, m := range d.Marks[ch.newMarks:] {
			w.mark(d, m)
		}
		ops = append(ops, op{Op: "append", Target: d.ID + "-marks", HTML: string(w.b)})
	}
	return ops
}

// layerOps changes one layer of the picture, whose elements are in key
// order, from old to new: each element that went is removed, each that
// changed swapped, each new one appended. A new element among old ones
// (it cannot be appended in its place) redraws the layer. draw writes an
// element into w.
func layerOps[T comparable](ops []op, w *svgw, kind byte, d *Diagram, old, new []T, key func(T) int, draw func(T)) []op {
	w.b = w.b[:0]
	i, j := 0, 0
	for i < len(old) || j < len(new) {
		switch {
		case j == len(new) || (i < len(old) && key(old[i]) < key(new[j])):
			ops = append(ops, op{Op: "remove", Target: elemID(d, kind, key(old[i]))})
			i++
		case i == len(old):
			draw(new[j]) // appended below, with the other new ones
			j++
		case key(new[j]) < key(old[i]):
			w.b = w.b[:0]
			w.layer(d, kind)
			return append(ops, op{Op: "replace", Target: d.ID + "-" + layerNames[kind], HTML: string(w.b)})
		default:
			if old[i] != new[j] {
				at := len(w.b)
				draw(new[j])
				ops = append(ops, op{Op: "swap", Target: elemID(d, kind, key(new[j])), HTML: string(w.b[at:])})
				w.b = w.b[:at]
			}
			i++
			j++
		}
	}
	if len(w.b) > 0 {
		ops = append(ops, op{Op: "append", Target: d.ID + "-" + layerNames[kind], HTML: string(w.b)})
	}
	return ops
}

// layerNames are the layers' groups in a picture, by their elements' letter.
var layerNames = map[byte]string{'f': "freezes", 'l': "leases", 's': "stale", 'b': "beliefs", 'g': "msgs", 'm': "marks"}
