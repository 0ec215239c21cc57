package draw

import (
	"context"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"leaselab/catalog"
	"leaselab/engine"
	"leaselab/labs"
)

// The diagram's geometry, in SVG user units. The picture scales to its
// container through its viewBox, so these only fix proportions.
const (
	dWidth     = 660 // drawn at 1 px per unit or more: text sizes are pixels
	dZoomWidth = 520 // an answer's picture, zoomed to its deciding events
	dGutter    = 118 // lane names
	dRight     = 16  // room for the last tick label
	dTop       = 58  // the pinned sentence lives here in a standalone picture
	dTopPage   = 24  // on a page the sentence is text above the picture
	dZoomPad   = 3 * engine.Second
	dCoordH    = 40 // coordinator lane
	dWorkerH   = 62 // real lease row, believed lease row, marks
	dStorageH  = 44 // storage lane
	dAxisH     = 26 // time axis
	dMinSpan   = 20 * engine.Second
)

// Diagram is the space-time diagram of one world, laid out: everything
// its writer (Markup.diagram) needs is a number or a string.
type Diagram struct {
	ID            string // prefixes the SVG's ids, unique within a page
	Lang          string
	Width, Height int
	Title         string
	Lanes         []dLane
	Ticks         []dTick
	AxisY         int
	Leases        []dBar
	Beliefs       []dBar
	Stale         []dBar // the time a worker still acted as holder after its belief ran out
	Freezes       []dBar
	Msgs          []dMsg
	Marks         []dMark
	Now           dNow
	Pin           *dPin // nil, or pin
	Legend        []dLegend
	PlotX0        int
	PlotX1        int
	// PinInSVG draws the pinned sentence inside the picture (a standalone
	// SVG); a page shows it as text above the picture instead, where it
	// wraps to any width and never scrolls away.
	PinInSVG bool
	Zoomed   bool        // the picture shows a window of the run, not all of it
	From     engine.Time // the time at the picture's left edge
	// Shift is the x of the group bars, messages and marks are drawn in:
	// their own x counts from time 0 on the picture's scale.
	Shift int
	// Keyed gives every element an id (the picture's ID, a letter and its
	// key), so that a live frame can add, change or remove one. A keyed
	// picture is a live one: its messages and marks also carry their x
	// in units its scale does not change (data-x, dScale), from which the
	// page moves them itself when a frame gives the picture a new scale
	// (OpScale): a few small ops, not the picture again.
	Keyed bool

	// What a live frame needs to lay out only what is new (layout).
	inPlace bool          // the marks and messages were prev's, kept in place
	tmp     []byte        // room for a mark's words, to measure them
	px      []int32       // where each mark is drawn (hideLabels)
	changes layoutChanges // then, what changed among them
	world   *engine.World
	scale   dScale
	drawn   int          // events laid out
	lastEv  engine.Event // the last of them: a log that started again differs
	outcome runOutcome
	pin     dPin
}

// laneWorkers holds worker states read for one layout or one frame, for
// the next: a picture keeps only its lanes, a page only its status.
var laneWorkers = sync.Pool{New: func() any { return new([]engine.WorkerState) }}

type dLane struct {
	Name  string
	Y, H  int
	Mid   int
	Class string
	State string // "frozen", "crashed", "done" or ""
	// StateClass is the state's name for the style: frozen, crashed, done.
	StateClass string
}

// dTick is one tick of the time axis: where, and the time its label says.
type dTick struct {
	X  int
	At engine.Time
}

// dBar is a lease, a belief, a stale owner's time or a freeze: where it is
// drawn and the span's values its words say (Markup.bar writes them).
type dBar struct {
	Key        int32 // its place among the world's spans of its kind
	X, Y, W, H int32
	Worker     engine.Node
	Token      int64
	Start, End engine.Time // a belief's End is when it runs out (Until)
}

// dMsg is a message's line: where it is drawn. Its class and words come
// from its events when it is written (Markup.msg), so that a playing
// session's picture keeps no strings per message.
type dMsg struct {
	Key            int32 // the index of its receive (or drop) in the log
	X1, Y1, X2, Y2 int32
}

// dMark is an event's mark: where it is drawn and how it looks. Its words
// come from its event when it is written (Markup.mark).
type dMark struct {
	Index     int32 // in the event log
	X, Y      int32
	Look      markLook
	Highlight bool
	// LabelW is how wide the mark's words are drawn, in pairs of units
	// (0: it has none; a byte keeps a mark in 16 bytes); Hidden, that they
	// are left out (hideLabels). The mark's title still says it all.
	LabelW uint8
	Hidden bool
}

// labelW is how wide the mark's words are drawn.
func (m dMark) labelW() int32 { return 2 * int32(m.LabelW) }

// labelGap is the least room between two marks' words in one row.
const labelGap = 8

// labelX is where a mark's words begin, from the mark's x.
func (m dMark) labelX(x int32) int32 {
	switch m.Shape() {
	case "grant":
		return x + 8
	case "write":
		return x + 7
	}
	return x + 10
}

// markLook is a mark's shape and class.
type markLook uint8

const (
	lookOther markLook = iota
	lookGrant
	lookExpire
	lookRelease
	lookDeny
	lookAccept
	lookHarm
	lookBlocked
	lookWrite
	lookAcquired
	lookLost
	lookCrash
	lookStart
	lookCheck
	lookWarnViolation
	lookHarmViolation
)

// markLooks are the shape ("ok", "harm", "blocked", "grant", "expire",
// "write", "crash", "tick") and class of each look. A tick's class starts
// with "t", which gives its path the tick's stroke (a path of 28 bytes,
// where a line with four coordinates took 46: two ticks a renewal).
var markLooks = [...]struct{ shape, class string }{
	lookOther:         {"tick", "t other"},
	lookGrant:         {"grant", "grant"},
	lookExpire:        {"expire", "expire"},
	lookRelease:       {"tick", "t release"},
	lookDeny:          {"tick", "t deny"},
	lookAccept:        {"ok", "accept"},
	lookHarm:          {"harm", "accept harm"},
	lookBlocked:       {"blocked", "reject blocked"},
	lookWrite:         {"write", "write"},
	lookAcquired:      {"tick", "t acquired"},
	lookLost:          {"expire", "lost"},
	lookCrash:         {"crash", "crash"},
	lookStart:         {"tick", "t start"},
	lookCheck:         {"tick", "t check"},
	lookWarnViolation: {"tick", "t violation " + outcomeWarn},
	lookHarmViolation: {"tick", "t violation " + outcomeHarm},
}

// Shape is the mark's shape: "ok", "harm", "blocked", "grant", "expire",
// "write", "crash" or "tick".
func (m dMark) Shape() string { return markLooks[m.Look].shape }

// Class is the mark's class.
func (m dMark) Class() string { return markLooks[m.Look].class }

// dNow is the "now" line: where, and the time its label says.
type dNow struct {
	X      int
	At     engine.Time
	Y1, Y2 int
}

type dPin struct {
	X, Y1, Y2 int
	Text      string // the whole sentence
	Lines     []string
	Index     int
	Class     string // outcomeHarm, outcomeSafe or outcomeWarn
}

type dLegend struct {
	X, Y  int
	Class string
	Label string
}

// lane maps an event's node to its lane index: coordinator first, then the
// workers, then the storage.
func laneOf(n engine.Node, workers int) int {
	switch n {
	case engine.Coord:
		return 0
	case engine.Storage:
		return workers + 1
	}
	if int(n) >= 0 && int(n) < workers {
		return int(n) + 1
	}
	return -1
}

// NewDiagram lays out world's events as a standalone picture; id prefixes
// the SVG's ids. highlight marks events that decided a verdict; they get a
// ring in the picture.
func NewDiagram(id string, w *engine.World, lang string, highlight map[int]bool) *Diagram {
	return newDiagram(id, w, lang, highlight, diagramOpts{PinInSVG: true})
}

// diagramOpts shape a picture for where it is shown.
type diagramOpts struct {
	PinInSVG bool
	// Zoom shows only the time around the highlighted events, in a
	// narrower picture: an answer's box.
	Zoom bool
	// Window, when set, draws a live session's picture (liveScale): the
	// last Window of a longer run, on a scale that holds still, so that a
	// frame costs what its recent past costs, however long the run.
	// Permalinks and answers draw the whole run.
	Window engine.Time
}

// A live picture shows at most liveWindow of a long run, halved in a busy
// world (more than liveEvents events in a window), but never to less than
// liveMinWindow: what a frame costs follows what it draws.
const (
	liveWindow    = 2 * engine.Minute
	liveEvents    = 400
	liveMinWindow = 30 * engine.Second
)

// WindowDiagram is a live session's picture as its page first draws it:
// the last liveWindow of the run, on the live scale.
func WindowDiagram(id string, w *engine.World, lang string) *Diagram {
	return newDiagram(id, w, lang, nil, diagramOpts{Window: liveWindow})
}

// PageDiagram is the picture as a page shows it: the pinned sentence is
// text above it.
func PageDiagram(id string, w *engine.World, lang string, highlight map[int]bool) *Diagram {
	return newDiagram(id, w, lang, highlight, diagramOpts{})
}

// ZoomedDiagram is an answer's picture: the deciding events and a little
// time around them.
func ZoomedDiagram(id string, w *engine.World, lang string, highlight map[int]bool) *Diagram {
	return newDiagram(id, w, lang, highlight, diagramOpts{Zoom: true})
}

func newDiagram(id string, w *engine.World, lang string, highlight map[int]bool, opts diagramOpts) *Diagram {
	d := &Diagram{}
	d.layout(id, w, lang, highlight, opts, nil)
	return d
}

// The live picture's time scale changes seldom, so that most frames only
// add to what the page shows: a run shorter than its window is drawn on
// the first of liveSpans that leaves it an eighth more room; a longer one
// on five quarters of the window, sliding a quarter of it at a time. Each span
// is about twice the last: a run's first two minutes change the scale
// three times (at 17.8, 35.6 and 71.1 s), each change a few ops (OpScale)
// that cost a phone about 5 KB, the ticks and the bars redrawn (issue
// 48; seven spans, 20-150 s, changed it four times in the first minute).
var liveSpans = []engine.Time{20 * engine.Second, 40 * engine.Second, 80 * engine.Second, 150 * engine.Second}

// liveChunk is how often a live picture reconsiders how busy the run is.
const liveChunk = 30 * engine.Second

// liveScale is a live picture's time scale: the time at its left edge
// and its span. A busy run gets a narrower window, chosen from the events
// of the whole liveWindow before the last liveChunk boundary, so that it
// holds still between boundaries.
func liveScale(now engine.Time, events []engine.Event, win engine.Time) (from, span engine.Time) {
	if b := now / liveChunk * liveChunk; b > 0 {
		lo := sort.Search(len(events), func(i int) bool { return events[i].T >= b-liveWindow })
		hi := sort.Search(len(events), func(i int) bool { return events[i].T >= b })
		for n := hi - lo; n > liveEvents && win > liveMinWindow; n /= 2 {
			win /= 2
		}
	}
	win = max(win, liveMinWindow)
	if now <= win {
		need := max(now+now/8, dMinSpan)
		for _, s := range liveSpans {
			if s >= need {
				return 0, s
			}
		}
		return 0, need
	}
	span = win + win/4
	step := tickStep(span)
	span = (span + step - 1) / step * step
	// It slides a quarter of the window at a time (whole ticks), the
	// present still inside: a slide moves the bars' left ends, takes out
	// what left and writes the ticks again, and one a tick made a paused
	// busy world's every "+5 s" slide (issue 48).
	q := min((win/4+step-1)/step*step, span-win)
	from = (now - win) / q * q
	return from, span
}

// dScale maps time to the picture's x. Bars, messages and marks are drawn
// in a group moved right by Shift: their x does not change when a live
// picture's window slides, only the group's shift does. Marks and
// messages keep their x (dMark.X, dMsg) in units of plotW to every vspan
// of time: in a live picture vspan is dMinSpan, the live scale's finest,
// whatever span it shows, so their x does not change when the picture's
// scale does either; they are drawn at px of it, k = vspan/span as far
// (the nearest unit). Elsewhere vspan is span and k is 1. Bars are kept
// as drawn, in the picture's units.
type dScale struct {
	from, span, end engine.Time
	plotW           int
	vspan           engine.Time
	k               float64 // vspan/span, to six places
}

func newScale(from, span engine.Time, plotW int, keyed bool) dScale {
	sc := dScale{from: from, span: span, end: from + span, plotW: plotW, vspan: span, k: 1}
	if keyed {
		sc.vspan = dMinSpan
		sc.k = math.Round(1e6*float64(sc.vspan)/float64(span)) / 1e6
	}
	return sc
}

// xi is t's x within the plot group, t clamped to the picture's time.
func (s dScale) xi(t engine.Time) int {
	t = min(max(t, s.from), s.end)
	return int(int64(t) * int64(s.plotW) / int64(s.vspan))
}

// px is how far right of the plot group's origin x (of xi) is drawn.
func (s dScale) px(x int32) int32 { return pxAt(x, s.k) }

// pxAt is x drawn on scale k: the nearest unit to x·k, as the page rounds
// it when it moves an element to a new scale (static/ops.js, rescale).
func pxAt(x int32, k float64) int32 {
	if k == 1 {
		return x
	}
	return int32(math.Round(float64(x) * k))
}

// x is where t is drawn in the plot group.
func (s dScale) x(t engine.Time) int { return int(s.px(int32(s.xi(t)))) }

// shift is the plot group's x: where the picture's first moment is drawn.
func (s dScale) shift(plotX0 int) int { return plotX0 - s.x(s.from) }

func (s dScale) clip(t engine.Time) engine.Time {
	if t == engine.Never || t > s.end {
		return s.end
	}
	return t
}

// layout lays world out into d, reusing d's slices. With prev — the
// picture of the same world one frame ago, on the same scale — the marks
// and messages of the events prev already drew are taken from it: a
// live frame lays out only what is new.
func (d *Diagram) layout(id string, w *engine.World, lang string, highlight map[int]bool, opts diagramOpts, prev *Diagram) {
	if !prev.sameLog(w) {
		prev = nil
	}
	top := d.begin(id, w, lang, opts)
	wsp := laneWorkers.Get().(*[]engine.WorkerState)
	defer laneWorkers.Put(wsp)
	*wsp = w.AppendWorkers((*wsp)[:0])
	d.layLanes(*wsp, lang, top)
	first := d.layScale(w.Now(), w.Events(), highlight, opts)
	nw := len(*wsp)
	d.layBars(w, nw)
	d.layEvents(w.Events(), first, prev, nw, highlight)
	d.layPin(w, lang, prev, top)
	d.layLegend(lang, opts)
}

// begin empties d for a layout of w, keeping its slices' room, and is
// the y where the lanes begin.
func (d *Diagram) begin(id string, w *engine.World, lang string, opts diagramOpts) (top int) {
	width := dWidth
	if opts.Zoom {
		width = dZoomWidth
	}
	*d = Diagram{
		ID: id, Lang: lang, Width: width, PlotX0: dGutter, PlotX1: width - dRight, PinInSVG: opts.PinInSVG,
		Keyed: opts.Window > 0, world: w,
		Lanes: d.Lanes[:0], Ticks: d.Ticks[:0], Leases: d.Leases[:0], Beliefs: d.Beliefs[:0], Stale: d.Stale[:0],
		Freezes: d.Freezes[:0], Msgs: d.Msgs[:0], Marks: d.Marks[:0], Legend: d.Legend[:0],
		changes: d.changes, px: d.px[:0],
	}
	d.Title = catalog.T(lang, "diagram.title")
	if !opts.PinInSVG {
		return dTopPage
	}
	return dTop
}

// layLanes lays out the lanes from top down: the coordinator, each
// worker in its state, the storage; the time axis goes under them.
func (d *Diagram) layLanes(workers []engine.WorkerState, lang string, top int) {
	y := top
	d.Lanes = append(d.Lanes, dLane{Name: catalog.T(lang, "lane.coord"), Y: y, H: dCoordH, Mid: y + dCoordH/2, Class: "coord"})
	y += dCoordH
	for i, ws := range workers {
		cls := ""
		switch {
		case ws.Crashed:
			cls = "crashed"
		case ws.Frozen:
			cls = "frozen"
		case ws.Done:
			cls = "done"
		}
		state := ""
		if cls != "" {
			state = catalog.T(lang, "state."+cls)
		}
		d.Lanes = append(d.Lanes, dLane{Name: ws.Name, Y: y, H: dWorkerH, Mid: y + dWorkerH/2, Class: workerClass[i%6], State: state, StateClass: cls})
		y += dWorkerH
	}
	d.Lanes = append(d.Lanes, dLane{Name: catalog.T(lang, "lane.storage"), Y: y, H: dStorageH, Mid: y + dStorageH/2, Class: "storage"})
	y += dStorageH
	d.AxisY = y
}

// layScale chooses the time scale and lays out the axis' ticks: the
// whole run so far, with room to see what comes next; zoomed, the
// deciding events with a little time either side; live, a scale that
// holds still (liveScale). It is the index of the first event the
// picture shows.
func (d *Diagram) layScale(now engine.Time, events []engine.Event, highlight map[int]bool, opts diagramOpts) (first int) {
	from := engine.Time(0)
	span := max(now+now/8, dMinSpan)
	if lo, hi, ok := highlightRange(events, highlight); opts.Zoom && ok {
		lo, hi = max(lo-dZoomPad, 0), min(hi+dZoomPad, now)
		if hi-lo < 10*engine.Second {
			hi = lo + 10*engine.Second
		}
		from, span = lo, hi-lo
		d.Zoomed = true
	}
	if opts.Window > 0 && !d.Zoomed {
		from, span = liveScale(now, events, opts.Window)
	}
	step := tickStep(span)
	if d.Zoomed {
		// An answer's picture is narrower: fewer ticks, labels apart.
		step = tickStepIn(span, d.PlotX1-d.PlotX0)
	}
	from = from / step * step
	span = (span + step - 1) / step * step
	sc := newScale(from, span, d.PlotX1-d.PlotX0, d.Keyed)
	d.scale = sc
	d.Shift = sc.shift(d.PlotX0)
	d.From = from
	for t := from; t <= sc.end; t += step {
		d.Ticks = append(d.Ticks, dTick{X: d.Shift + sc.x(t), At: t})
	}
	// The log is in time order: the picture starts at the first event it
	// shows, however long the run before it.
	return sort.Search(len(events), func(i int) bool { return events[i].T >= from })
}

// layBars lays out the spans: real leases, as the coordinator granted
// them; believed leases, as each worker saw them on its own clock; the
// stale owners' time; the freezes.
func (d *Diagram) layBars(w *engine.World, nw int) {
	now, sc := w.Now(), d.scale
	from, x := sc.from, sc.x
	leases, beliefs, freezes := w.Spans()
	for i, l := range leases {
		li := laneOf(l.Worker, nw)
		if li < 0 {
			continue
		}
		ln := d.Lanes[li]
		lend := sc.clip(l.End)
		if lend < from {
			continue
		}
		d.Leases = append(d.Leases, dBar{Key: int32(i), X: int32(x(l.Start)), Y: int32(ln.Y + 6), W: int32(max(x(lend)-x(l.Start), 1)), H: 14,
			Worker: l.Worker, Token: l.Token, Start: l.Start, End: l.End})
	}
	for i, bs := range beliefs {
		li := laneOf(bs.Worker, nw)
		if li < 0 {
			continue
		}
		ln := d.Lanes[li]
		until := min(sc.clip(bs.Until), sc.clip(bs.End))
		if bs.End != engine.Never && bs.End < from {
			continue
		}
		d.Beliefs = append(d.Beliefs, dBar{Key: int32(i), X: int32(x(bs.Start)), Y: int32(ln.Y + 24), W: int32(max(x(until)-x(bs.Start), 1)), H: 12,
			Worker: bs.Worker, Token: bs.Token, Start: bs.Start, End: bs.Until})
		// A worker that never noticed its belief ran out (it was frozen) still
		// acts as the holder until it lets go: the stale owner.
		end := bs.End
		if end == engine.Never {
			end = now
		}
		if bs.Until < end && bs.Until < sc.end && end > from {
			d.Stale = append(d.Stale, dBar{Key: int32(i), X: int32(x(bs.Until)), Y: int32(ln.Y + 24), W: int32(max(x(sc.clip(end))-x(bs.Until), 1)), H: 12,
				Worker: bs.Worker, Token: bs.Token})
		}
	}
	for i, f := range freezes {
		li := laneOf(f.Worker, nw)
		if li < 0 {
			continue
		}
		ln := d.Lanes[li]
		fend := f.End
		if fend == engine.Never {
			fend = now
		}
		if fend < from {
			continue
		}
		d.Freezes = append(d.Freezes, dBar{
			Key: int32(i), X: int32(x(f.Start)), Y: int32(ln.Y + 2), W: int32(max(x(sc.clip(fend))-x(f.Start), 2)), H: int32(ln.H - 4),
			Worker: f.Worker, Start: f.Start, End: fend,
		})
	}
}

// layEvents lays out the messages and marks of the events from first on:
// what prev drew of the same events is kept, when nothing that places
// them moved (keepPrev); the rest is laid out here.
func (d *Diagram) layEvents(events []engine.Event, first int, prev *Diagram, nw int, highlight map[int]bool) {
	done := first
	d.inPlace = false
	ch := &d.changes
	ch.goneMarks, ch.goneMsgs, ch.swapped = ch.goneMarks[:0], ch.goneMsgs[:0], ch.swapped[:0]
	if prev.sameGround(d, first) {
		d.keepPrev(prev, first)
		done = prev.drawn
	}
	ch.newMsgs, ch.newMarks = len(d.Msgs), len(d.Marks)
	harm := harmRefsFrom(events, done)
	for i := done; i < len(events); i++ {
		if m, ok := d.msgOf(i, events, nw); ok {
			d.Msgs = append(d.Msgs, m)
		}
	}
	// An accepted write turns out to be harm when a violation later points
	// at it: it is drawn again.
	for i := done; i < len(events); i++ {
		if e := events[i]; e.Kind == engine.KindViolation && harmful(e.Reason()) && int(e.Ref()) >= first && int(e.Ref()) < done {
			for j := range d.Marks[:ch.newMarks] {
				if int(d.Marks[j].Index) == int(e.Ref()) {
					d.Marks[j], _ = d.markOf(int(e.Ref()), events, harm, nw, highlight)
					ch.swapped = append(ch.swapped, j)
				}
			}
		}
	}
	for i := done; i < len(events); i++ {
		if mk, ok := d.markOf(i, events, harm, nw, highlight); ok {
			d.Marks = append(d.Marks, mk)
		}
	}
	d.hideLabels()
	d.drawn = len(events)
	if len(events) > 0 {
		d.lastEv = events[len(events)-1]
	}
}

// hideLabels leaves out the words of a mark that would run into those of
// the mark before it in its row, or over the next mark of its row (twelve
// grants at once in renew-load's coordinator row read "1234…", H's
// writes in margin-budget "da■a 4"): such words are only in the mark's
// title. The story's words stand whatever is near: a deciding event
// (highlighted), a write that did harm, one the storage blocked. A mark's
// words depend on the marks of its row around it, which a whole layout
// and a frame's have alike; a kept mark whose words come or go (a mark
// came after it, or one before it slid out) is drawn again.
func (d *Diagram) hideLabels() {
	type row struct{ y, end int32 }
	var rows [16]row
	n := 0
	ch := &d.changes
	// Where each mark is drawn, worked out once (a frame looks at most
	// of them twice or more).
	d.px = d.px[:0]
	for _, m := range d.Marks {
		d.px = append(d.px, d.scale.px(m.X))
	}
	for j := range d.Marks {
		m := &d.Marks[j]
		if m.LabelW == 0 {
			continue
		}
		r := -1
		for k := range n {
			if rows[k].y == m.Y {
				r = k
				break
			}
		}
		if r < 0 && n < len(rows) {
			r, n = n, n+1
			rows[r] = row{y: m.Y, end: -1 << 30}
		}
		lx := m.labelX(d.px[j])
		end := lx + m.labelW()
		key := m.Highlight || m.Look == lookHarm || m.Look == lookBlocked
		hide := r >= 0 && !key && (lx < rows[r].end+labelGap || d.covers(j, end+2))
		if !hide && r >= 0 {
			rows[r].end = end
		}
		if hide != m.Hidden {
			m.Hidden = hide
			if d.inPlace && j < ch.newMarks && !slices.Contains(ch.swapped, j) {
				ch.swapped = append(ch.swapped, j)
			}
		}
	}
}

// covers reports whether words of mark j reaching to x would lie over a
// later mark of its row: one right of it, whose shape (reaching 7 to its
// left) words would hide; a tick, a thin line, shows through them, and a
// mark at the same time is under the mark, not its words. Marks are in
// time order, so the search ends at x.
func (d *Diagram) covers(j int, x int32) bool {
	m, mx := d.Marks[j], d.px[j]
	for i, o := range d.Marks[j+1:] {
		ox := d.px[j+1+i]
		if ox-7 >= x {
			return false
		}
		if o.Y == m.Y && ox > mx+3 && o.Shape() != "tick" {
			return true
		}
	}
	return false
}

// keepPrev takes over prev's marks and messages in place, not copied: a
// playing session holds one list of each. prev, which goes back to the
// pool, gets d's room for them instead, so that the next picture laid out
// whole has room too. What slid out of the picture (before event first)
// is dropped and noted, for the frame to remove.
func (d *Diagram) keepPrev(prev *Diagram, first int) {
	ch := &d.changes
	msgs := prev.Msgs
	prev.Msgs = d.Msgs[:0]
	k := 0
	for k < len(msgs) && int(msgs[k].Key) < first {
		ch.goneMsgs = append(ch.goneMsgs, int(msgs[k].Key))
		k++
	}
	d.Msgs = append(msgs[:0], msgs[k:]...)
	marks := prev.Marks
	prev.Marks = d.Marks[:0]
	k = 0
	for k < len(marks) && int(marks[k].Index) < first {
		ch.goneMarks = append(ch.goneMarks, int(marks[k].Index))
		k++
	}
	d.Marks = append(marks[:0], marks[k:]...)
	d.inPlace = true
}

// layPin lays out the pinned sentence, the run's outcome, worst first
// (see summarize), and the "now" line.
func (d *Diagram) layPin(w *engine.World, lang string, prev *Diagram, top int) {
	events, now, sc := w.Events(), w.Now(), d.scale
	var o runOutcome
	if prev != nil && prev.drawn <= len(events) {
		o = prev.outcome.fold(events, prev.drawn)
	} else {
		o = newOutcome().fold(events, 0)
	}
	if prev != nil && prev.outcome.Event == o.Event && prev.Pin != nil && prev.outcome.Class == o.Class {
		d.Pin = prev.Pin
	} else if o.Event >= 0 {
		e := events[o.Event]
		text := catalog.MomentText(lang, e.T) + ": " + outcomeSentence(o, events, w.Names(), lang)
		line := text
		if o.Class == outcomeSafe {
			line = catalog.T(lang, "outcome.safe") + " — " + text
		}
		d.Pin = &dPin{Y1: top - 4, Y2: d.AxisY, Index: o.Event, Class: o.Class, Text: text,
			Lines: wrap(line, (d.Width-16)/8)}
	}
	d.outcome = o
	if d.Pin != nil {
		// The picture's own copy (prev's may be shared), kept in d: a
		// frame's layout allocates none.
		d.pin = *d.Pin
		e := events[d.pin.Index]
		d.pin.X = d.Shift + sc.x(e.T)
		if e.T < sc.from || e.T > sc.end {
			d.pin.X = -1
		}
		d.Pin = &d.pin
	}
	d.Now = dNow{X: d.Shift + sc.x(now), Y1: top - 6, Y2: d.AxisY, At: now}
	if now > sc.end {
		d.Now.X = -1
	}
}

// layLegend lays the legend out in rows, each entry as wide as its
// words, and so the picture's height.
func (d *Diagram) layLegend(lang string, opts diagramOpts) {
	lx, ly := 8, d.AxisY+dAxisH+4
	for _, k := range legendKeys {
		label := catalog.T(lang, "legend."+k)
		w := 36 + 8*len([]rune(label))
		if lx+w > d.Width {
			lx, ly = 8, ly+20
		}
		d.Legend = append(d.Legend, dLegend{X: lx, Y: ly, Class: k, Label: label})
		lx += w
	}
	d.Height = ly + 18
	if !opts.PinInSVG {
		// A page lists the legend as text under the picture, where it wraps.
		d.Height = d.AxisY + dAxisH
	}
}

// layoutChanges is what a layout in place changed among the marks and
// messages it took over: those that went (by event index), the marks
// drawn again (by place in Marks), and where the new ones start.
type layoutChanges struct {
	goneMarks, goneMsgs []int
	swapped             []int
	newMarks, newMsgs   int
}

var legendKeys = []string{"lease", "belief", "stale", "freeze", "accept", "blocked", "harm"}

// The classes of a worker's lane and bars, by its colour.
var (
	workerClass = [6]string{"worker w0", "worker w1", "worker w2", "worker w3", "worker w4", "worker w5"}
	leaseClass  = [6]string{"lease w0", "lease w1", "lease w2", "lease w3", "lease w4", "lease w5"}
	beliefClass = [6]string{"belief w0", "belief w1", "belief w2", "belief w3", "belief w4", "belief w5"}
)

// sameLog reports whether p was laid out from the log w has now, or from
// a beginning of it: not from another world, nor from a log that started
// again in the same one.
func (p *Diagram) sameLog(w *engine.World) bool {
	if p == nil || p.world != w {
		return false
	}
	events := w.Events()
	return p.drawn == 0 || (p.drawn <= len(events) && events[p.drawn-1] == p.lastEv)
}

// sameGround reports whether d, being laid out now, places events exactly
// as p, laid out from the same log (sameLog), did: the same scale and
// lanes. Then p's marks and messages of the events it drew stand. A live
// picture's marks and messages stand on a new scale too, as long as its
// left edge holds (a message sent before it is drawn from it): their x
// does not change with the scale (dScale), only their words may
// (hideLabels) and a slanting message's shape (Diff).
func (p *Diagram) sameGround(d *Diagram, first int) bool {
	if p == nil || p.Shift != d.Shift || p.AxisY != d.AxisY || len(p.Lanes) != len(d.Lanes) || p.drawn < first {
		return false
	}
	a, b := p.scale, d.scale
	if d.Keyed {
		a.span, a.end, a.k, b.span, b.end, b.k = 0, 0, 0, 0, 0, 0
	}
	return a == b
}

// msgOf is event i's message line, if it ends one: a receive or a drop
// points at its send (Ref).
func (d *Diagram) msgOf(i int, events []engine.Event, nw int) (dMsg, bool) {
	e := events[i]
	if e.Kind != engine.KindRecv && e.Kind != engine.KindDrop {
		return dMsg{}, false
	}
	if e.Ref() < 0 || int(e.Ref()) >= i || events[e.Ref()].Kind != engine.KindSend {
		return dMsg{}, false
	}
	s := events[e.Ref()]
	fromLane, toLane := laneOf(s.Node, nw), laneOf(s.Peer(), nw)
	if fromLane < 0 || toLane < 0 || e.T < d.scale.from {
		return dMsg{}, false
	}
	x := d.scale.xi
	x1, y1, x2, y2 := x(s.T), d.Lanes[fromLane].Mid, x(e.T), d.Lanes[toLane].Mid
	if e.Kind == engine.KindDrop {
		y2 = (y1 + y2) / 2
		if !d.Keyed { // a live picture's message is shaped as it is drawn (msgPath)
			x2 = max(x2, x1+6)
		}
	}
	return dMsg{Key: int32(i), X1: int32(x1), Y1: int32(y1), X2: int32(x2), Y2: int32(y2)}, true
}

// markOf is event i's mark, in the colours of its outcome, for the events
// that matter to the story: a blocked write is safe, an accepted one that
// did harm is not.
func (d *Diagram) markOf(i int, events []engine.Event, harm map[int]bool, nw int, highlight map[int]bool) (dMark, bool) {
	e := events[i]
	mk := dMark{Index: int32(i), X: int32(d.scale.xi(e.T)), Highlight: highlight[i]}
	li := laneOf(e.Node, nw)
	switch e.Kind {
	case engine.KindGrant:
		mk.Look = lookGrant
	case engine.KindExpire:
		mk.Look = lookExpire
	case engine.KindRelease, engine.KindExtend:
		mk.Look = lookRelease
	case engine.KindDeny, engine.KindRenewReject, engine.KindUnavailable:
		mk.Look = lookDeny
	case engine.KindAccept:
		mk.Look = lookAccept
		if harm[i] {
			mk.Look = lookHarm
		}
	case engine.KindReject:
		mk.Look = lookBlocked
	case engine.KindWrite:
		mk.Look = lookWrite
	case engine.KindAcquired, engine.KindRenewed:
		mk.Look = lookAcquired
	case engine.KindLost:
		mk.Look = lookLost
	case engine.KindCrash:
		mk.Look = lookCrash
	case engine.KindRestart, engine.KindStart:
		mk.Look = lookStart
	case engine.KindCheck:
		mk.Look = lookCheck
	case engine.KindViolation:
		if !highlight[i] {
			return mk, false
		}
		mk.Look = lookWarnViolation
		if harmful(e.Reason()) {
			mk.Look = lookHarmViolation
		}
		li = laneOf(e.Peer(), nw)
	default:
		if !highlight[i] {
			return mk, false
		}
		mk.Look = lookOther
	}
	if li < 0 {
		return mk, false
	}
	mk.Y = int32(d.Lanes[li].Mid)
	if e.Node >= 0 && e.Kind != engine.KindViolation {
		mk.Y = int32(d.Lanes[li].Y + d.Lanes[li].H - 12) // under the two lease rows
	}
	if hasLabel(mk.Shape()) {
		d.tmp = appendMarkLabel(d.tmp[:0], d, mk, e)
		mk.LabelW = uint8(min((labelWidth(d.tmp)+1)/2, 255))
	}
	return mk, true
}

// FocusX is where a narrow screen should look first: in a zoomed picture
// the pinned outcome, else the last deciding event; else the present.
func (d *Diagram) FocusX() int {
	if d.Zoomed {
		if d.Pin != nil && d.Pin.X >= 0 {
			return d.Pin.X
		}
		x := -1
		for _, m := range d.Marks {
			if m.Highlight && d.Shift+int(m.X) > x {
				x = d.Shift + int(m.X)
			}
		}
		if x >= 0 {
			return x
		}
	}
	return d.Now.X
}

// highlightRange is the time span of the highlighted events.
func highlightRange(events []engine.Event, hl map[int]bool) (lo, hi engine.Time, ok bool) {
	for i := range hl {
		if !hl[i] || i < 0 || i >= len(events) {
			continue
		}
		t := events[i].T
		if !ok || t < lo {
			lo = t
		}
		if !ok || t > hi {
			hi = t
		}
		ok = true
	}
	return lo, hi, ok
}

// outcomeSentence says what the run's outcome event means: the harm done,
// the stale write blocked, or the stale owner acting.
func outcomeSentence(o runOutcome, events []engine.Event, names engine.Names, lang string) string {
	e := events[o.Event]
	if o.Class == outcomeSafe {
		return labs.DescribeEvent(e, names, lang) + "."
	}
	return violationSentence(e, events, names, lang)
}

// violationSentence explains a violation in one sentence, with the time
// of the event that makes it one.
func violationSentence(v engine.Event, events []engine.Event, names engine.Names, lang string) string {
	s := labs.DescribeEvent(v, names, lang)
	if i := int(v.Ref2()); i >= 0 && i < len(events) {
		key := "diagram.because.first"
		switch v.Reason() {
		case engine.ViolationStaleWrite, engine.ViolationActedAfterExpiry:
			key = "diagram.because.ended"
		case engine.ViolationSplitBrain:
			key = "diagram.because.other"
		}
		s += " (" + string(catalog.Append(nil, lang, key, catalog.Moment(events[i].T))) + ")"
	}
	return s + "."
}

// tickStep picks a round tick interval that gives at most a dozen ticks.
func tickStep(span engine.Time) engine.Time { return tickStepN(span, 12) }

// tickGap is the least room a time axis's label gets, in the picture's
// units (a pixel at its natural size): "16 dtk" in 12–13 px type is about
// 42 wide, so labels closer than this run into each other.
const tickGap = 50

// tickStepIn picks a round tick interval for an axis plotW units wide:
// at most a dozen ticks, and no more than their labels have room for.
func tickStepIn(span engine.Time, plotW int) engine.Time {
	return tickStepN(span, engine.Time(max(2, min(12, plotW/tickGap))))
}

// tickSteps are the round intervals a time axis is ticked at.
var tickSteps = []engine.Time{engine.Second, 2 * engine.Second, 5 * engine.Second, 10 * engine.Second, 15 * engine.Second, 30 * engine.Second,
	engine.Minute, 2 * engine.Minute, 5 * engine.Minute, 10 * engine.Minute, 30 * engine.Minute, engine.Hour}

// tickStepN picks the shortest round interval that gives at most n ticks.
func tickStepN(span, n engine.Time) engine.Time {
	for _, s := range tickSteps {
		if span/s <= n {
			return s
		}
	}
	return 6 * engine.Hour
}

// wrap breaks s into lines of at most n characters at spaces.
func wrap(s string, n int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(s) {
		if cur.Len() > 0 && len([]rune(cur.String()))+1+len([]rune(word)) > n {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// RenderDiagramSVG writes world's space-time diagram as a standalone SVG
// document in lang: what `leaselab run --format svg` prints.
func RenderDiagramSVG(w io.Writer, world *engine.World, lang string) error {
	if _, err := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"); err != nil {
		return err
	}
	return DiagramSVG(NewDiagram("d", world, lang, nil)).Render(context.Background(), w)
}

func altClass(i int) string {
	if i%2 == 1 {
		return " alt"
	}
	return ""
}

func laneClass(i int) string {
	if i%2 == 1 {
		return "lane alt"
	}
	return "lane"
}

// nowAnchor keeps the "now" label inside the picture near either edge.
func nowAnchor(d *Diagram) string {
	switch {
	case d.Now.X > d.PlotX1-60:
		return "end"
	case d.Now.X < d.PlotX0+60:
		return "start"
	}
	return "middle"
}

func pinDy(i int) string {
	if i == 0 {
		return "0"
	}
	return "16"
}
