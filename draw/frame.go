package draw

import (
	"context"

	"slices"
	"sync"

	"github.com/a-h/templ"

	"leaselab/catalog"
	"leaselab/engine"
	"leaselab/labs"
)

// A playing session's frames send only what changed since the last one:
// the events, marks and messages that are new, the bars that grew, the
// "now" line, the status. The session keeps what its page shows (a
// LivePage) while it plays; a paused session keeps nothing beyond its
// world, and its next frame is whole. A reset, a replay, a reconnect or a
// new time scale is a whole frame too.
//
// The pictures (Diagram) are the data; Whole and Next are the only way a
// frame changes the page: they write Edits.

// Edits are changes to a page: ops on its elements by id, their texts
// (targets, attribute names, markup) written one after another into one
// buffer, the markup straight from the writers that make it (Markup, or a
// templ component rendered into it), so that a frame makes no string per
// op. A live frame is Edits; the wire (package live) encodes them.
type Edits struct {
	Markup // the texts
	Ops    []Op

	// Clock, when it spans text, is the world's time as the page writes
	// it: the page puts it into the status's clock (#now) and the live
	// picture's "now" label (#live-nowat) itself, and the edits hold no
	// text op for either. ClockAt is the time it says.
	Clock   Span
	ClockAt engine.Time
	// NowX, when Moved, is where the live picture's "now" line went: the
	// page moves the line (#live-nowline) and the box's focus (#live-box)
	// there itself, with no attr op for either. Most play frames change
	// nothing else but the last command's words, so a frame on the wire is
	// a few dozen bytes of these instead of four ops.
	NowX  int
	Moved bool
	// Late says the words that tell the time (the clock's, the "now"
	// label's, the last command's) are left out: a play frame within the
	// second the page shows, which would only hold them until the next
	// second's frame wrote its own (Live.Within).
	Late bool
}

// MaxPooled is the largest buffer kept for another picture or frame: a
// whole picture of a busy run fits; few are out at once (one a frame
// being drawn), since each goes back as soon as its message is encoded.
const MaxPooled = 64 << 10

// OpKind is what an op does to its target (Op).
type OpKind uint8

const (
	OpReplace OpKind = iota
	OpAppend
	OpSwap
	OpRemove
	OpText
	OpAttr
	OpScale
	OpBefore
)

// opNames are the ops' names, as docs/protocol.md has them.
var opNames = [...]string{OpReplace: "replace", OpAppend: "append", OpSwap: "swap", OpRemove: "remove", OpText: "text", OpAttr: "attr", OpScale: "scale", OpBefore: "before"}

func (k OpKind) String() string { return opNames[k] }

// Span is a stretch of the edits' text: a target, an attribute's name or
// an op's HTML.
type Span struct{ From, To uint32 }

// Op changes one element of the page, the one whose id is Target:
//
//	replace  its content becomes HTML
//	append   HTML is added at the end of its content
//	swap     it is replaced by HTML, itself included
//	remove   it is removed
//	text     its text becomes HTML, as text (not markup)
//	attr     its attribute Attr becomes HTML, as text
//	scale    a live picture's plot group (or a live chart's dots) goes
//	         from the scale its data-k says to HTML's: each element in it
//	         with a data-x moves from its x at the old scale to its x at
//	         the new (the nearest unit to data-x times each), and data-k
//	         becomes HTML
//
// Its texts are spans of its Edits' text.
type Op struct {
	Kind               OpKind
	Target, Attr, HTML Span
}

// Reset empties e, keeping its room unless it grew past MaxPooled.
func (e *Edits) Reset() {
	if cap(e.B) > MaxPooled {
		e.Markup = Markup{}
	}
	e.B, e.tmp, e.Ops = e.B[:0], e.tmp[:0], e.Ops[:0]
	e.Clock, e.ClockAt, e.NowX, e.Moved, e.Late = Span{}, 0, 0, false, false
}

// At is where the next text begins.
func (e *Edits) At() int { return len(e.B) }

// Since is the text written from at on.
func (e *Edits) Since(at int) Span { return Span{uint32(at), uint32(len(e.B))} }

// Str writes s and is its span.
func (e *Edits) Str(s string) Span {
	at := e.At()
	e.s(s)
	return e.Since(at)
}

// Text is what s spans.
func (e *Edits) Text(s Span) []byte { return e.B[s.From:s.To] }

// Add appends an op whose texts are written.
func (e *Edits) Add(k OpKind, target, html Span) {
	e.Ops = append(e.Ops, Op{Kind: k, Target: target, HTML: html})
}

// Put appends an op with its target and HTML.
func (e *Edits) Put(k OpKind, target, html string) {
	t := e.Str(target)
	e.Add(k, t, e.Str(html))
}

// SetAttr appends an attr op: target's attribute attr becomes value.
func (e *Edits) SetAttr(target Span, attr string, value Span) {
	e.Ops = append(e.Ops, Op{Kind: OpAttr, Target: target, Attr: e.Str(attr), HTML: value})
}

// Render appends an op whose HTML is c, rendered straight into the text.
func (e *Edits) Render(k OpKind, target string, c templ.Component) error {
	t := e.Str(target)
	at := e.At()
	if err := c.Render(context.Background(), &e.Markup); err != nil {
		return err
	}
	e.Add(k, t, e.Since(at))
	return nil
}

// Draw appends an op whose HTML part writes straight into the text.
func (e *Edits) Draw(k OpKind, target string, part Part) {
	t := e.Str(target)
	at := e.At()
	part(&e.Markup)
	e.Add(k, t, e.Since(at))
}

// elem writes the id of one element of a keyed picture (Markup.id).
func (e *Edits) elem(d *Diagram, kind byte, key int) Span { return e.elemPart(d, kind, key, 0) }

// elemPart writes the id of one of an element's parts (Markup.idPart): a
// bar's rectangle (r) or title (t); the element's own when part is 0.
func (e *Edits) elemPart(d *Diagram, kind byte, key int, part byte) Span {
	at := e.At()
	e.s(d.ID)
	e.B = append(e.B, '-', kind)
	e.i(key)
	if part != 0 {
		e.B = append(e.B, part)
	}
	return e.Since(at)
}

// part writes the id of one of a picture's parts: its ID, "-", name.
func (e *Edits) part(d *Diagram, name string) Span {
	at := e.At()
	e.s(d.ID)
	e.s("-")
	e.s(name)
	return e.Since(at)
}

// Session is what a live page shows of a lab session besides its world:
// its commands and the query that rebuilds it (labsession.Session).
type Session interface {
	World() *engine.World
	Commands() []engine.Command
	AppendQuery(b []byte) []byte
}

// Live is a live lab page: its language, the site's base path, the lab
// and the session it shows.
type Live struct {
	Lang, Base string
	Lab        *labs.Lab
	Session    Session
	// Within says the frame is a play frame within the second of the
	// last frame the page got. While the world plays the page shows the
	// time's words and the last command's once a second (they wait for
	// the next second's frame, docs/protocol.md), so such a frame leaves
	// them out (Edits.Late): a tenth of a phone's bytes while playing.
	Within bool
}

// LivePage is what the page of a playing session shows.
type LivePage struct {
	d      *Diagram // the picture the page shows; d.world is its world
	status Status
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

// LivePicture lays w out as a live page's picture, from prev (the
// picture of the same world one frame ago, or nil) where it can, into a
// pooled picture: Release gives it back.
func LivePicture(id string, w *engine.World, lang string, prev *Diagram) *Diagram {
	d := livePictures.Get().(*Diagram)
	d.layout(id, w, lang, nil, diagramOpts{Window: liveWindow}, prev)
	return d
}

// Release gives d to the pool of live pictures, holding no world: the
// next layout overwrites all but its slices' room.
func (d *Diagram) Release() {
	d.world, d.Pin, d.pin = nil, nil, dPin{}
	livePictures.Put(d)
}

// Shows reports whether p is the page of w: a reset or a replay makes a
// new world.
func (p *LivePage) Shows(w *engine.World) bool { return p != nil && p.d.world == w }

// Release gives p's picture back: the page is gone, or is drawn whole.
func (p *LivePage) Release() {
	if p != nil && p.d != nil {
		p.d.Release()
		p.d = nil
	}
}

// Whole redraws every part of the page a frame keeps up to date, and is
// what the page then shows.
func Whole(out *Edits, v *Live) *LivePage {
	p := laidOut(v)
	w := v.Session.World()
	out.Draw(OpReplace, "status", func(w *Markup) { w.status(&p.status) })
	out.Draw(OpReplace, "diagram", func(w *Markup) { w.figure(p.d) })
	p.writeChart(out)
	out.Draw(OpReplace, "session", func(w *Markup) { w.sessionPanel(v.Lang, v.Base, v.Lab.ID, v.Session.Commands(), v.Session.AppendQuery) })
	if s := SignalsFor(v.Lab, "live-signals", w, v.Lang); s != nil {
		out.Draw(OpReplace, "signals", func(w *Markup) { w.signals(s) })
	}
	return p
}

// Shown is the page Whole would draw, when the page shows it already,
// laid out and not written: a paused session's page, which its last
// frame drew whole or brought up to what Whole draws, as play starts or
// a command comes. The frame after it then sends what changed, not the
// page again.
func Shown(v *Live) *LivePage {
	p := laidOut(v)
	p.chart.Panels[0].events = nil // as writeChart leaves it
	return p
}

// laidOut is the page Whole draws, laid out: its chart still holds the
// log, for Whole to write its dots.
func laidOut(v *Live) *LivePage {
	w := v.Session.World()
	d := LivePicture("live", w, v.Lang, nil)
	p := &LivePage{d: d}
	p.status = newStatusOf(w, v.Lang, d.outcome, w.AppendWorkers(nil))
	p.keepCmds(v.Session.Commands())
	p.layChart(w, v.Lang)
	return p
}

// Next sends what changed since the page p shows, and p then shows v.
func (p *LivePage) Next(out *Edits, v *Live) error {
	w := v.Session.World()
	events := w.Events()
	seen := p.d.drawn // events the page's picture has

	// The time, which the page writes where it shows it.
	if out.Late = v.Within; !out.Late {
		out.clockWords(v.Lang, w.Now())
	}

	// The picture: laid out anew into a pooled one, which the page's
	// picture then goes back to.
	d := LivePicture("live", w, v.Lang, p.d)
	if err := Diff(out, p.d, d); err != nil {
		d.Release()
		return err
	}
	p.d.Release()
	p.d = d

	// The status: most frames change only its clock.
	// The workers are read into scratch room: the status keeps its own.
	wsp := laneWorkers.Get().(*[]engine.WorkerState)
	defer laneWorkers.Put(wsp)
	workers := w.AppendWorkers((*wsp)[:0])
	*wsp = workers
	if same, holder := p.status.sameBut(w, d.outcome, workers); same {
		// Its clock is out.Clock. A renewal or a new holder: the holder's
		// words. A worker that acquired, lost, froze or thawed: its row.
		if holder {
			p.status.setHolder(w)
			out.Draw(OpReplace, "holder", func(w *Markup) { w.holder(&p.status) })
		}
		for i := range workers {
			if shown := &p.status.Workers[i]; !sameRow(shown, &workers[i]) {
				at := out.At()
				out.s("status-")
				out.esc(workers[i].Name)
				target := out.Since(at)
				at = out.At()
				out.workerRow(v.Lang, workers[i])
				out.Add(OpSwap, target, out.Since(at))
				*shown = workers[i]
			}
		}
	} else {
		shown := p.status.Workers[:0]
		p.status = newStatusOf(w, v.Lang, d.outcome, workers)
		out.Draw(OpReplace, "status", func(w *Markup) { w.status(&p.status) })
		p.status.Workers = append(shown, workers...)
	}

	// The session's commands: while it plays, the last one grows (in the
	// page once a second: Within leaves it for the next second's frame,
	// and the page keeps the words it has).
	cmds := v.Session.Commands()
	if held := v.Within && len(cmds) == p.ncmds && p.ncmds > 0; !held && !p.sessionOps(out, v.Lang, cmds) {
		out.Draw(OpReplace, "session", func(w *Markup) { w.sessionPanel(v.Lang, v.Base, v.Lab.ID, v.Session.Commands(), v.Session.AppendQuery) })
	}

	// The chart and the signals, which only events change.
	if len(events) != seen {
		if err := p.chartOps(out, w, v.Lang, seen); err != nil {
			return err
		}
		if s := SignalsFor(v.Lab, "live-signals", w, v.Lang); s != nil {
			out.Draw(OpReplace, "signals", func(w *Markup) { w.signals(s) })
		}
	} else if liveChartSpan(w.Now()) != p.chart.Panels[0].span && p.chart.renewals() > 0 {
		if err := p.chartOps(out, w, v.Lang, seen); err != nil {
			return err
		}
	}
	return nil
}

// EventEdits brings a page's event list ("events") up to w's log: from
// on, appended, or the whole list when whole (after a reset the log
// starts again, and a reconnect does not know what the page shows).
func EventEdits(out *Edits, lang string, w *engine.World, from int, whole bool) {
	events := w.Events()
	kind := OpAppend
	if whole {
		kind, from = OpReplace, 0
	}
	if from < len(events) || kind == OpReplace {
		target := out.Str("events")
		at := out.At()
		out.eventRows(&Events{ID: "events", Lang: lang, From: from, Events: events[from:], Names: w.Names(), Lines: w.ProgramLines()})
		out.Add(kind, target, out.Since(at))
		// A write the list shows already turns out to have done harm.
		for _, e := range events[from:] {
			if r := int(e.Ref()); kind == OpAppend && e.Kind == engine.KindViolation && harmful(e.Reason()) && r >= 0 && r < from {
				at := out.At()
				out.s("events-")
				out.i(r)
				target := out.Since(at)
				at = out.At()
				out.eventRows(&Events{ID: "events", Lang: lang, From: r, Events: events[r:], Names: w.Names(), Only: map[int]bool{r: true}, Lines: w.ProgramLines()})
				out.Add(OpSwap, target, out.Since(at))
			}
		}
	}
}

// sessionOps lists the session's new commands, or grows its last one;
// false when the list changed otherwise (a reset): then it is redrawn.
func (p *LivePage) sessionOps(out *Edits, lang string, now []engine.Command) bool {
	n := p.ncmds
	defer p.keepCmds(now)
	if len(now) < n || n == 0 {
		return false
	}
	if last := n - 1; p.lastCmd != now[last] {
		out.cmdText(lang, last, now[last])
	}
	if len(now) > n {
		target := out.Str("session-cmds")
		at := out.At()
		for i := n; i < len(now); i++ {
			out.sessionCmd(lang, i, now[i])
		}
		out.Add(OpAppend, target, out.Since(at))
		target = out.Str("session-count")
		at = out.At()
		out.i(len(now))
		out.Add(OpText, target, out.Since(at))
	}
	return true
}

// clockWords writes the world's time as the page shows it (Clock).
func (e *Edits) clockWords(lang string, now engine.Time) {
	at := e.At()
	e.B = catalog.AppendTime(e.B, lang, now)
	e.Clock, e.ClockAt = e.Since(at), now
}

// cmdText adds the op that writes command i's words into the page's list
// (#cmd-i).
func (e *Edits) cmdText(lang string, i int, c engine.Command) {
	at := e.At()
	e.s("cmd-")
	e.i(i)
	target := e.Since(at)
	at = e.At()
	e.B = appendCommandText(e.B, lang, c)
	e.Add(OpText, target, e.Since(at))
}

// TimeWords writes what play frames within a second leave out
// (Live.Within): the time's words and the last command's, for a page
// whose world stopped after such a frame.
func TimeWords(out *Edits, lang string, s Session) {
	out.clockWords(lang, s.World().Now())
	if cmds := s.Commands(); len(cmds) > 0 {
		out.cmdText(lang, len(cmds)-1, cmds[len(cmds)-1])
	}
}

// keepCmds notes the commands the page lists.
func (p *LivePage) keepCmds(cmds []engine.Command) {
	p.ncmds = len(cmds)
	if len(cmds) > 0 {
		p.lastCmd = cmds[len(cmds)-1]
	}
}

// redrawChart lays the page's live chart out anew, on the live scale,
// and replaces it whole.
func (p *LivePage) redrawChart(out *Edits, w *engine.World, lang string) {
	p.layChart(w, lang)
	p.writeChart(out)
}

// layChart lays the page's live chart out anew, on the live scale.
func (p *LivePage) layChart(w *engine.World, lang string) {
	p.chart.layout("live-chart", lang, []ChartRun{{Label: catalog.T(lang, "chart.run"), World: w, Live: true}})
}

// writeChart replaces the page's chart with the one laid out (layChart).
func (p *LivePage) writeChart(out *Edits) {
	out.Draw(OpReplace, "chart", func(w *Markup) { w.chartBox(&p.chart) })
	// The page's chart keeps its scale and renewals, not the log, whose
	// old room it would keep from the collector.
	p.chart.Panels[0].events = nil
}

// chartOps adds the chart's new dots, or redraws it on a new scale.
func (p *LivePage) chartOps(out *Edits, w *engine.World, lang string, seen int) error {
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
	if first {
		if len(panel.left) == 0 {
			return nil
		}
		p.redrawChart(out, w, lang)
		return nil
	}
	if span := liveChartSpan(w.Now()); span != panel.span {
		// A new scale: the dots moved to it by the page (OpScale), and
		// the axis' times, not the chart again.
		panel.span = span
		target := out.Str("live-chart-dots0")
		at := out.At()
		out.chartScale(panel)
		out.Add(OpScale, target, out.Since(at))
		target = out.Str("live-chart-xt0")
		at = out.At()
		out.chartTimes(&p.chart, panel)
		out.Add(OpReplace, target, out.Since(at))
	}
	if dots == 0 {
		return nil
	}
	// The new dots on the lease length the world has now.
	at := *panel
	at.ymax = chartYMax([]ChartRun{{World: w}})
	out.Draw(OpAppend, "live-chart-dots0", func(w *Markup) { w.chartDots(&at, events[seen:]) })
	target := out.Str("live-chart-sum0")
	start := out.At()
	out.B = appendChartSummary(out.B, lang, panel.left)
	out.Add(OpText, target, out.Since(start))
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

// Diff writes the edits that change the picture a page shows, a, into b: a whole new
// picture when the scale or the lanes' places changed, else the elements
// that differ.
func Diff(out *Edits, a, b *Diagram) error {
	if a.scale.span != b.scale.span && !b.Keyed || a.scale.plotW != b.scale.plotW || a.scale.vspan != b.scale.vspan ||
		a.AxisY != b.AxisY || len(a.Lanes) != len(b.Lanes) || a.Height != b.Height || a.Width != b.Width || a.ID != b.ID || a.Keyed != b.Keyed {
		out.Draw(OpReplace, "diagram", func(w *Markup) { w.figure(b) })
		return nil
	}
	// A keyed picture on a new scale: the page moves its marks and
	// messages to it itself (OpScale), first, before any of them is
	// drawn anew on it; what else the scale changes (the ticks, the bars,
	// a mark whose words come or go, a slanting message's shape) is sent
	// below, not the picture again.
	rescaled := a.scale.k != b.scale.k
	if rescaled {
		target := out.part(b, "plot")
		at := out.At()
		out.plotScale(b)
		out.Add(OpScale, target, out.Since(at))
	}
	if a.Shift != b.Shift {
		target := out.part(b, "plot")
		at := out.At()
		out.s("translate(")
		out.i(b.Shift)
		out.s(",0)")
		out.SetAttr(target, "transform", out.Since(at))
	}
	if !slices.Equal(a.Ticks, b.Ticks) {
		target := out.part(b, "ticks")
		at := out.At()
		out.ticks(b)
		out.Add(OpReplace, target, out.Since(at))
	}
	plotOps(out, a, b, rescaled)
	if a.Now != b.Now {
		nowOps(out, a, b)
	}
	// A page that moves the "now" line puts the box's focus on it.
	if fx := b.FocusX(); fx != a.FocusX() && !(out.Moved && fx == out.NowX) || out.Moved && fx != out.NowX {
		box := out.part(b, "box")
		at := out.At()
		out.i(fx)
		out.SetAttr(box, "data-focus", out.Since(at))
	}
	if !samePin(a.Pin, b.Pin) {
		target := out.part(b, "pin")
		at := out.At()
		out.pin(b)
		out.Add(OpReplace, target, out.Since(at))
		target = out.part(b, "pintext")
		at = out.At()
		out.pinText(b)
		out.Add(OpReplace, target, out.Since(at))
	}
	if !slices.Equal(a.Lanes, b.Lanes) {
		target := out.part(b, "lanes")
		at := out.At()
		out.lanes(b)
		out.Add(OpReplace, target, out.Since(at))
	}
	return nil
}

// plotOps changes the layers of the plot group from a's to b's: the
// bars, then the messages and marks (those a layout in place took over
// as it says, else by their keys), and on a new scale (rescaled) the
// path of each message the scale reshapes.
func plotOps(out *Edits, a, b *Diagram, rescaled bool) {
	barKey := func(x dBar) int { return int(x.Key) }
	w := &out.Markup
	layerOps(out, 'f', b, a.Freezes, b.Freezes, barKey, func(x dBar) { w.freeze(b, x) }, nil)
	for _, k := range [...]struct {
		kind     byte
		old, new []dBar
	}{{'l', a.Leases, b.Leases}, {'s', a.Stale, b.Stale}, {'b', a.Beliefs, b.Beliefs}} {
		layerOps(out, k.kind, b, k.old, k.new, barKey, func(x dBar) { w.bar(b, k.kind, x) },
			func(x, y dBar) bool { return barInPlace(out, b, k.kind, x, y) })
	}
	if b.inPlace {
		if rescaled {
			reshapeMsgs(out, a.scale.k, b, b.Msgs[:b.changes.newMsgs])
		}
		keptOps(out, b)
		return
	}
	// Laid out anew (its left edge moved): a message that stayed as it
	// was may still have a new shape on a new scale.
	layerOps(out, 'g', b, a.Msgs, b.Msgs, func(x dMsg) int { return int(x.Key) }, func(x dMsg) { w.msg(b, x) }, nil)
	if rescaled {
		reshapeMsgs(out, a.scale.k, b, keptMsgs(a.Msgs, b.Msgs))
	}
	layerOps(out, 'm', b, a.Marks, b.Marks, func(x dMark) int { return int(x.Index) }, func(x dMark) { w.mark(b, x) }, nil)
}

// nowOps moves the "now" line from where a has it to where b has it: its
// group's transform and its label's text while it keeps its height and
// its label's side, else it is drawn again.
func nowOps(out *Edits, a, b *Diagram) {
	if a.Now.X < 0 || b.Now.X < 0 || a.Now.Y1 != b.Now.Y1 || a.Now.Y2 != b.Now.Y2 || nowAnchor(a) != nowAnchor(b) || a.Lang != b.Lang {
		target := out.part(b, "now")
		at := out.At()
		out.now(b)
		out.Add(OpReplace, target, out.Since(at))
		return
	}
	if a.Now.X != b.Now.X && b.ID == "live" {
		out.NowX, out.Moved = b.Now.X, true
	} else if a.Now.X != b.Now.X {
		target := out.part(b, "nowline")
		at := out.At()
		out.s("translate(")
		out.i(b.Now.X)
		out.s(",0)")
		out.SetAttr(target, "transform", out.Since(at))
	}
	if a.Now.At != b.Now.At && !(b.ID == "live" && (out.Late || out.Clock.To > out.Clock.From && out.ClockAt == b.Now.At)) {
		target := out.part(b, "nowat")
		at := out.At()
		out.B = catalog.AppendTime(out.B, b.Lang, b.Now.At)
		out.Add(OpText, target, out.Since(at))
	}
}

func samePin(a, b *dPin) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.X == b.X && a.Y1 == b.Y1 && a.Y2 == b.Y2 && a.Index == b.Index && a.Class == b.Class && a.Text == b.Text
}

// keptMsgs are the messages of b that a has as they are: a frame that
// draws b leaves them in place.
func keptMsgs(a, b []dMsg) []dMsg {
	var kept []dMsg
	i := 0
	for _, m := range b {
		for i < len(a) && a[i].Key < m.Key {
			i++
		}
		if i < len(a) && a[i] == m {
			kept = append(kept, m)
		}
	}
	return kept
}

// reshapeMsgs sets the shape (msgPath) of each of the messages kept, a
// frame leaves in d's page, that d's scale draws otherwise than the
// old, k: one that slants, or a drop.
func reshapeMsgs(out *Edits, k float64, d *Diagram, kept []dMsg) {
	for _, m := range kept {
		if !m.scaled(d) {
			continue
		}
		start := out.At()
		target := out.elem(d, 'g', int(m.Key))
		at := out.At()
		out.msgPath(d, m, k)
		old := out.Since(at)
		at = out.At()
		out.msgPath(d, m, d.scale.k)
		if now := out.Since(at); string(out.Text(old)) != string(out.Text(now)) {
			out.SetAttr(target, "d", now)
		} else {
			out.B = out.B[:start] // the same shape: nothing to send
		}
	}
}

// keptOps sends what changed among the messages and marks a layout in
// place took over (Diagram.changes): those that slid out are removed, the
// marks drawn again swapped, the new ones appended.
func keptOps(out *Edits, d *Diagram) {
	ch := &d.changes
	for _, k := range ch.goneMsgs {
		out.Add(OpRemove, out.elem(d, 'g', k), Span{})
	}
	for _, k := range ch.goneMarks {
		out.Add(OpRemove, out.elem(d, 'm', k), Span{})
	}
	for _, j := range ch.swapped {
		target := out.elem(d, 'm', int(d.Marks[j].Index))
		at := out.At()
		out.mark(d, d.Marks[j])
		out.Add(OpSwap, target, out.Since(at))
	}
	if ch.newMsgs < len(d.Msgs) {
		target := out.part(d, "msgs")
		at := out.At()
		for _, m := range d.Msgs[ch.newMsgs:] {
			out.msg(d, m)
		}
		out.Add(OpAppend, target, out.Since(at))
	}
	if ch.newMarks < len(d.Marks) {
		target := out.part(d, "marks")
		at := out.At()
		for _, m := range d.Marks[ch.newMarks:] {
			out.mark(d, m)
		}
		out.Add(OpAppend, target, out.Since(at))
	}
}

// layerOps changes one layer of the picture, whose elements are in key
// order, from old to new: each element that went is removed, each that
// changed swapped, new ones among or before the old put in before the
// next old one (OpBefore), and those after the old appended together.
// draw writes an element into out; inPlace, when not nil, writes the ops
// that change an element in place instead of swapping it, and says
// whether it could.
func layerOps[T comparable](out *Edits, kind byte, d *Diagram, old, new []T, key func(T) int, draw func(T), inPlace func(old, new T) bool) {
	i, j := 0, 0
	for i < len(old) {
		switch {
		case j == len(new) || key(old[i]) < key(new[j]):
			out.Add(OpRemove, out.elem(d, kind, key(old[i])), Span{})
			i++
		case key(new[j]) < key(old[i]):
			// What comes back before what the page has (a busy world's
			// window that grows again at its left edge) goes in before
			// it, in order: not the layer again (52 KB once in
			// split-brain's layers at 150 s).
			target := out.elem(d, kind, key(old[i]))
			at := out.At()
			for ; j < len(new) && key(new[j]) < key(old[i]); j++ {
				draw(new[j])
			}
			out.Add(OpBefore, target, out.Since(at))
		default:
			if old[i] != new[j] && (inPlace == nil || !inPlace(old[i], new[j])) {
				target := out.elem(d, kind, key(new[j]))
				at := out.At()
				draw(new[j])
				out.Add(OpSwap, target, out.Since(at))
			}
			i++
			j++
		}
	}
	if j < len(new) {
		target := out.part(d, layerNames[kind])
		at := out.At()
		for _, x := range new[j:] {
			draw(x)
		}
		out.Add(OpAppend, target, out.Since(at))
	}
}

// barInPlace changes a bar of a keyed picture that only grew or shrank
// (a renewal moves a lease's end, a belief's with it), or whose start
// the picture's left edge moved (a long bar, cut where a sliding window
// begins, every time it slides), in place: its rectangle's x and width,
// its token label's x, and its title, which says until when, rather
// than the whole bar, which a slow phone parses, lays out and paints
// anew (a bar swapped cost 10.7-13.9 ms a frame at 6x CPU slowdown, set
// in place 8.3-9.6: TestFrameCost in package web) and which is about
// four times the bytes. It cannot when anything else changed, or when
// the token written inside the bar comes or goes with its width.
func barInPlace(out *Edits, d *Diagram, kind byte, a, b dBar) bool {
	if !d.Keyed {
		return false
	}
	x, y := a, b
	x.X, x.W, x.End, y.X, y.W, y.End = 0, 0, 0, 0, 0, 0
	if x != y || barLabelled(kind, a.W) != barLabelled(kind, b.W) {
		return false
	}
	num := func(part byte, attr string, v int32) {
		target := out.elemPart(d, kind, int(b.Key), part)
		at := out.At()
		out.i(int(v))
		out.SetAttr(target, attr, out.Since(at))
	}
	if a.X != b.X {
		num('r', "x", b.X)
		if barLabelled(kind, b.W) {
			num('k', "x", b.X+5) // as barLabel writes it
		}
	}
	if a.W != b.W {
		num('r', "width", b.W)
	}
	if a.End != b.End && kind != 's' {
		target := out.elemPart(d, kind, int(b.Key), 't')
		at := out.At()
		out.B = barTitle(out.B, d, kind, b)
		out.Add(OpText, target, out.Since(at))
	}
	return true
}

// layerNames are the layers' groups in a picture, by their elements' letter.
var layerNames = map[byte]string{'f': "freezes", 'l': "leases", 's': "stale", 'b': "beliefs", 'g': "msgs", 'm': "marks"}
