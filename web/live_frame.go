package web

import (
	"slices"
	"sync"

	"leaselab/catalog"
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
	d      *Diagram // the picture the page shows; d.world is its world
	status statusView
	// The session's commands as the page lists them: how many, and the
	// last, which grows while the session plays. Within one world the list
	// only grows at its end (a reset or a replay makes a new world, and a
	// new page), so the rest need not be kept.
	ncmds   int
	lastCmd engine.Command
	// The chart, as the page shows it: its scale and its renewals. It and
	// the signals panel change only with new events.
	chart Chart
}

// livePictures are the pictures a frame lays out into, their slices
// reused: shared, so that a playing session keeps one picture, the one its
// page shows, not a second to lay the next out into.
var livePictures = sync.Pool{New: func() any { return new(Diagram) }}

// putPicture gives d to livePictures, holding no world: the next layout
// overwrites all but its slices' room.
func putPicture(d *Diagram) {
	d.world, d.Pin, d.pin = nil, nil, dPin{}
	livePictures.Put(d)
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
	m := serverMsg{Type: "frame", ID: id}
	out := m.body()
	at := out.at()
	out.b = l.sess.AppendQuery(out.b)
	out.query = out.since(at)
	at = out.at()
	out.b = w.Now().AppendTo(out.b)
	out.clock = out.since(at)
	var err error
	if p == nil {
		err = l.wholeFrame(out, w)
	} else {
		err = l.nextFrame(out, w, p)
	}
	if err != nil {
		l.view = nil
		m.free()
		return serverMsg{Type: "error", ID: id, Error: err.Error()}
	}
	// After a reset the log starts again, and a reconnect does not know what
	// the page shows: then the list is replaced whole.
	events := w.Events()
	kind, from := opAppend, l.shown
	if l.shown < 0 || l.shown > len(events) || l.shownOf != w {
		kind, from = opReplace, 0
	}
	if from < len(events) || kind == opReplace {
		target := out.str("events")
		at := out.at()
		out.eventRows(&eventsView{ID: "events", Lang: l.lang, From: from, Events: events[from:], Names: w.Names()})
		out.add(kind, target, out.since(at))
		// A write the list shows already turns out to have done harm.
		for _, e := range events[from:] {
			if r := int(e.Ref()); kind == opAppend && e.Kind == engine.KindViolation && harmful(e.Reason()) && r >= 0 && r < from {
				at := out.at()
				out.s("events-")
				out.i(r)
				target := out.since(at)
				at = out.at()
				out.eventRows(&eventsView{ID: "events", Lang: l.lang, From: r, Events: events[r:], Names: w.Names(), Only: map[int]bool{r: true}})
				out.add(opSwap, target, out.since(at))
			}
		}
	}
	l.shown, l.shownOf = len(events), w
	return m
}

// wholeFrame redraws every part of the page a frame keeps up to date.
func (l *live) wholeFrame(out *msgBody, w *engine.World) error {
	d := livePictures.Get().(*Diagram)
	d.layout("live", w, l.lang, nil, diagramOpts{Window: liveWindow}, nil)
	p := &shownPage{d: d}
	p.status = newStatusOf(w, l.lang, d.outcome, w.AppendWorkers(nil))
	p.keepCmds(l.sess.Commands())
	out.write(opReplace, "status", func(w *svgw) { w.status(&p.status) })
	out.write(opReplace, "diagram", func(w *svgw) { w.figure(d) })
	p.redrawChart(out, w, l.lang)
	out.write(opReplace, "session", func(w *svgw) { w.sessionPanel(l.lang, l.srv.base, l.lab.ID, l.sess.Commands(), l.sess.AppendQuery) })
	if s := signalsFor(l.lab, "live-signals", w, l.lang); s != nil {
		out.write(opReplace, "signals", func(w *svgw) { w.signals(s) })
	}
	if l.playing {
		l.view = p
	}
	return nil
}

// nextFrame sends what changed since the page p shows.
func (l *live) nextFrame(out *msgBody, w *engine.World, p *shownPage) error {
	events := w.Events()
	seen := p.d.drawn // events the page's picture has

	// The picture: laid out anew into a pooled one, which the page's
	// picture then goes back to.
	d := livePictures.Get().(*Diagram)
	d.layout("live", w, l.lang, nil, diagramOpts{Window: liveWindow}, p.d)
	if err := diagramOps(out, p.d, d); err != nil {
		putPicture(d)
		return err
	}
	putPicture(p.d)
	p.d = d

	// The status: most frames change only its clock.
	// The workers are read into scratch room: the status keeps its own.
	wsp := laneWorkers.Get().(*[]engine.WorkerState)
	defer laneWorkers.Put(wsp)
	workers := w.AppendWorkers((*wsp)[:0])
	*wsp = workers
	if p.status.sameAs(w, d.outcome, workers) {
		target := out.str("now")
		at := out.at()
		out.b = catalog.AppendTime(out.b, l.lang, w.Now())
		out.add(opText, target, out.since(at))
	} else {
		shown := p.status.Workers[:0]
		p.status = newStatusOf(w, l.lang, d.outcome, workers)
		out.write(opReplace, "status", func(w *svgw) { w.status(&p.status) })
		p.status.Workers = append(shown, workers...)
	}

	// The session's commands: while it plays, the last one grows.
	if !l.sessionOps(out, p) {
		out.write(opReplace, "session", func(w *svgw) { w.sessionPanel(l.lang, l.srv.base, l.lab.ID, l.sess.Commands(), l.sess.AppendQuery) })
	}

	// The chart and the signals, which only events change.
	if len(events) != seen {
		if err := l.chartOps(out, p, w, seen); err != nil {
			return err
		}
		if s := signalsFor(l.lab, "live-signals", w, l.lang); s != nil {
			out.write(opReplace, "signals", func(w *svgw) { w.signals(s) })
		}
	} else if liveChartSpan(w.Now()) != p.chart.Panels[0].span && p.chart.renewals() > 0 {
		if err := l.chartOps(out, p, w, seen); err != nil {
			return err
		}
	}
	return nil
}

// sessionOps lists the session's new commands, or grows its last one;
// false when the list changed otherwise (a reset): then it is redrawn.
func (l *live) sessionOps(out *msgBody, p *shownPage) bool {
	now := l.sess.Commands()
	n := p.ncmds
	defer p.keepCmds(now)
	if len(now) < n || n == 0 {
		return false
	}
	if last := n - 1; p.lastCmd != now[last] {
		at := out.at()
		out.s("cmd-")
		out.i(last)
		target := out.since(at)
		at = out.at()
		out.sessionCmd(l.lang, last, now[last])
		out.add(opSwap, target, out.since(at))
	}
	if len(now) > n {
		target := out.str("session-cmds")
		at := out.at()
		for i := n; i < len(now); i++ {
			out.sessionCmd(l.lang, i, now[i])
		}
		out.add(opAppend, target, out.since(at))
		target = out.str("session-count")
		at = out.at()
		out.i(len(now))
		out.add(opText, target, out.since(at))
	}
	return true
}

// keepCmds notes the commands the page lists.
func (p *shownPage) keepCmds(cmds []engine.Command) {
	p.ncmds = len(cmds)
	if len(cmds) > 0 {
		p.lastCmd = cmds[len(cmds)-1]
	}
}

// redrawChart lays the page's live chart out anew, on the live scale,
// and replaces it whole.
func (p *shownPage) redrawChart(out *msgBody, w *engine.World, lang string) {
	p.chart.layout("live-chart", lang, []ChartRun{{Label: T(lang, "chart.run"), World: w, Live: true}})
	out.write(opReplace, "chart", func(w *svgw) { w.chartBox(&p.chart) })
	// The page's chart keeps its scale and renewals, not the log, whose
	// old room it would keep from the collector.
	p.chart.Panels[0].events = nil
}

// chartOps adds the chart's new dots, or redraws it on a new scale.
func (l *live) chartOps(out *msgBody, p *shownPage, w *engine.World, seen int) error {
	events := w.Events()
	panel := &p.chart.Panels[0]
	first := len(panel.left) == 0
	dots := 0
	for _, e := range events[seen:] {
		if e.Kind == engine.KindRenewed {
			dots++
			panel.left = insertSorted(panel.left, engine.Time(e.Value))
		}
	}
	if first || liveChartSpan(w.Now()) != panel.span {
		if len(panel.left) == 0 {
			return nil
		}
		p.redrawChart(out, w, l.lang)
		return nil
	}
	if dots == 0 {
		return nil
	}
	// The new dots on the lease length the world has now.
	at := *panel
	at.ymax = chartYMax([]ChartRun{{World: w}})
	out.write(opAppend, "live-chart-dots0", func(w *svgw) { w.chartDots(&at, events[seen:]) })
	target := out.str("live-chart-sum0")
	start := out.at()
	out.b = appendChartSummary(out.b, l.lang, panel.left)
	out.add(opText, target, out.since(start))
	return nil
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

// diagramOps changes the picture the page shows, a, into b: a whole new
// picture when the scale or the lanes' places changed, else the elements
// that differ.
func diagramOps(out *msgBody, a, b *Diagram) error {
	if a.scale.span != b.scale.span || a.scale.plotW != b.scale.plotW || a.AxisY != b.AxisY || len(a.Lanes) != len(b.Lanes) ||
		a.Height != b.Height || a.Width != b.Width || a.ID != b.ID {
		out.write(opReplace, "diagram", func(w *svgw) { w.figure(b) })
		return nil
	}
	if a.Shift != b.Shift {
		target := out.part(b, "plot")
		at := out.at()
		out.s("translate(")
		out.i(b.Shift)
		out.s(",0)")
		out.setAttr(target, "transform", out.since(at))
	}
	if !slices.Equal(a.Ticks, b.Ticks) {
		target := out.part(b, "ticks")
		at := out.at()
		out.ticks(b)
		out.add(opReplace, target, out.since(at))
	}
	barKey := func(x dBar) int { return int(x.Key) }
	w := &out.svgw
	layerOps(out, 'f', b, a.Freezes, b.Freezes, barKey, func(x dBar) { w.freeze(b, x) })
	layerOps(out, 'l', b, a.Leases, b.Leases, barKey, func(x dBar) { w.bar(b, 'l', x) })
	layerOps(out, 's', b, a.Stale, b.Stale, barKey, func(x dBar) { w.bar(b, 's', x) })
	layerOps(out, 'b', b, a.Beliefs, b.Beliefs, barKey, func(x dBar) { w.bar(b, 'b', x) })
	if b.inPlace {
		keptOps(out, b)
	} else {
		layerOps(out, 'g', b, a.Msgs, b.Msgs, func(x dMsg) int { return int(x.Key) }, func(x dMsg) { w.msg(b, x) })
		layerOps(out, 'm', b, a.Marks, b.Marks, func(x dMark) int { return int(x.Index) }, func(x dMark) { w.mark(b, x) })
	}
	if a.Now != b.Now {
		target := out.part(b, "now")
		at := out.at()
		out.now(b)
		out.add(opReplace, target, out.since(at))
		box := out.part(b, "box")
		at = out.at()
		out.i(b.Now.X)
		out.setAttr(box, "data-now", out.since(at))
	}
	if fx := b.FocusX(); fx != a.FocusX() {
		box := out.part(b, "box")
		at := out.at()
		out.i(fx)
		out.setAttr(box, "data-focus", out.since(at))
	}
	if !samePin(a.Pin, b.Pin) {
		target := out.part(b, "pin")
		at := out.at()
		out.pin(b)
		out.add(opReplace, target, out.since(at))
		target = out.part(b, "pintext")
		at = out.at()
		out.pinText(b)
		out.add(opReplace, target, out.since(at))
	}
	if !slices.Equal(a.Lanes, b.Lanes) {
		target := out.part(b, "lanes")
		at := out.at()
		out.lanes(b)
		out.add(opReplace, target, out.since(at))
	}
	return nil
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
func keptOps(out *msgBody, d *Diagram) {
	ch := &d.changes
	for _, k := range ch.goneMsgs {
		out.add(opRemove, out.elem(d, 'g', k), span{})
	}
	for _, k := range ch.goneMarks {
		out.add(opRemove, out.elem(d, 'm', k), span{})
	}
	for _, j := range ch.swapped {
		target := out.elem(d, 'm', int(d.Marks[j].Index))
		at := out.at()
		out.mark(d, d.Marks[j])
		out.add(opSwap, target, out.since(at))
	}
	if ch.newMsgs < len(d.Msgs) {
		target := out.part(d, "msgs")
		at := out.at()
		for _, m := range d.Msgs[ch.newMsgs:] {
			out.msg(d, m)
		}
		out.add(opAppend, target, out.since(at))
	}
	if ch.newMarks < len(d.Marks) {
		target := out.part(d, "marks")
		at := out.at()
		for _, m := range d.Marks[ch.newMarks:] {
			out.mark(d, m)
		}
		out.add(opAppend, target, out.since(at))
	}
}

// layerOps changes one layer of the picture, whose elements are in key
// order, from old to new: each element that went is removed, each that
// changed swapped, and the new ones, which come after the old, appended
// together. A new element among old ones (it cannot be appended in its
// place) redraws the layer. draw writes an element into out.
func layerOps[T comparable](out *msgBody, kind byte, d *Diagram, old, new []T, key func(T) int, draw func(T)) {
	i, j := 0, 0
	for i < len(old) {
		switch {
		case j == len(new) || key(old[i]) < key(new[j]):
			out.add(opRemove, out.elem(d, kind, key(old[i])), span{})
			i++
		case key(new[j]) < key(old[i]):
			target := out.part(d, layerNames[kind])
			at := out.at()
			out.layer(d, kind)
			out.add(opReplace, target, out.since(at))
			return
		default:
			if old[i] != new[j] {
				target := out.elem(d, kind, key(new[j]))
				at := out.at()
				draw(new[j])
				out.add(opSwap, target, out.since(at))
			}
			i++
			j++
		}
	}
	if j < len(new) {
		target := out.part(d, layerNames[kind])
		at := out.at()
		for _, x := range new[j:] {
			draw(x)
		}
		out.add(opAppend, target, out.since(at))
	}
}

// layerNames are the layers' groups in a picture, by their elements' letter.
var layerNames = map[byte]string{'f': "freezes", 'l': "leases", 's': "stale", 'b': "beliefs", 'g': "msgs", 'm': "marks"}
