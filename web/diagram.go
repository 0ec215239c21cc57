package web

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"leaselab/engine"
	"leaselab/labs"
)

// The diagram's geometry, in SVG user units. The picture scales to its
// container through its viewBox, so these only fix proportions.
const (
	dWidth      = 760
	dGutter     = 116 // lane names
	dRight      = 16  // room for the last tick label
	dTop        = 58  // the pinned violation's sentence lives here
	dCoordH     = 40  // coordinator lane
	dWorkerH    = 62  // real lease row, believed lease row, marks
	dStorageH   = 44  // storage lane
	dAxisH      = 26  // time axis
	dMinSpan    = 20 * engine.Second
	dPinLineLen = 84 // characters per line of the pinned sentence
)

// Diagram is the space-time diagram of one world, laid out: everything the
// template needs is a number or a string.
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
	Pin           *dPin
	Legend        []dLegend
	PlotX0        int
	PlotX1        int
}

type dLane struct {
	Name  string
	Y, H  int
	Mid   int
	Class string
	State string // "frozen", "crashed", "done" or ""
}

type dTick struct {
	X     int
	Label string
}

type dBar struct {
	X, Y, W, H int
	Class      string
	Label      string
	Title      string
}

type dMsg struct {
	X1, Y1, X2, Y2 int
	Class          string
	Title          string
}

type dMark struct {
	Index     int // in the event log
	X, Y      int
	Shape     string // "ok", "no", "grant", "expire", "write", "crash", "tick"
	Class     string
	Label     string
	Title     string
	Highlight bool
}

type dNow struct {
	X      int
	Label  string
	Y1, Y2 int
}

type dPin struct {
	X, Y1, Y2 int
	Lines     []string
	Index     int
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

// NewDiagram lays out world's events; id prefixes the SVG's ids. highlight marks events that decided a
// verdict; they get a ring in the picture.
func NewDiagram(id string, w *engine.World, lang string, highlight map[int]bool) *Diagram {
	snap := w.Snapshot()
	events := w.Events()
	names := w.Names()
	nw := len(snap.Workers)
	d := &Diagram{ID: id, Lang: lang, Width: dWidth, PlotX0: dGutter, PlotX1: dWidth - dRight}
	d.Title = T(lang, "diagram.title")

	// Lanes.
	y := dTop
	d.Lanes = append(d.Lanes, dLane{Name: T(lang, "lane.coord"), Y: y, H: dCoordH, Mid: y + dCoordH/2, Class: "coord"})
	y += dCoordH
	for i, ws := range snap.Workers {
		state := ""
		switch {
		case ws.Crashed:
			state = T(lang, "state.crashed")
		case ws.Frozen:
			state = T(lang, "state.frozen")
		case ws.Done:
			state = T(lang, "state.done")
		}
		d.Lanes = append(d.Lanes, dLane{Name: ws.Name, Y: y, H: dWorkerH, Mid: y + dWorkerH/2, Class: "worker w" + strconv.Itoa(i%6), State: state})
		y += dWorkerH
	}
	d.Lanes = append(d.Lanes, dLane{Name: T(lang, "lane.storage"), Y: y, H: dStorageH, Mid: y + dStorageH/2, Class: "storage"})
	y += dStorageH
	d.AxisY = y

	// Time scale: the whole run so far, with room to see what comes next.
	span := max(snap.Now+snap.Now/8, dMinSpan)
	step := tickStep(span)
	span = (span + step - 1) / step * step
	plotW := d.PlotX1 - d.PlotX0
	x := func(t engine.Time) int {
		if t > span {
			t = span
		}
		if t < 0 {
			t = 0
		}
		return d.PlotX0 + int(int64(t)*int64(plotW)/int64(span))
	}
	clip := func(t engine.Time) engine.Time {
		if t == engine.Never || t > span {
			return span
		}
		return t
	}
	for t := engine.Time(0); t <= span; t += step {
		d.Ticks = append(d.Ticks, dTick{X: x(t), Label: t.String()})
	}

	// Real leases, as the coordinator granted them.
	for _, l := range snap.Leases {
		li := laneOf(l.Worker, nw)
		if li < 0 {
			continue
		}
		ln := d.Lanes[li]
		end := clip(l.End)
		d.Leases = append(d.Leases, dBar{
			X: x(l.Start), Y: ln.Y + 6, W: max(x(end)-x(l.Start), 1), H: 14,
			Class: "lease w" + strconv.Itoa(int(l.Worker)%6), Label: T(lang, "diagram.token") + " " + strconv.FormatInt(l.Token, 10),
			Title: fmt.Sprintf(T(lang, "diagram.real"), names.Of(l.Worker), l.Token, l.Start, l.End),
		})
	}
	// Believed leases, as each worker saw them on its own clock.
	for _, b := range snap.Beliefs {
		li := laneOf(b.Worker, nw)
		if li < 0 {
			continue
		}
		ln := d.Lanes[li]
		until := min(clip(b.Until), clip(b.End))
		d.Beliefs = append(d.Beliefs, dBar{
			X: x(b.Start), Y: ln.Y + 24, W: max(x(until)-x(b.Start), 1), H: 12,
			Class: "belief w" + strconv.Itoa(int(b.Worker)%6), Label: strconv.FormatInt(b.Token, 10),
			Title: fmt.Sprintf(T(lang, "diagram.belief"), names.Of(b.Worker), b.Token, b.Start, b.Until),
		})
		// A worker that never noticed its belief ran out (it was frozen) still
		// acts as the holder until it lets go: the stale owner.
		end := b.End
		if end == engine.Never {
			end = snap.Now
		}
		if b.Until < end && b.Until < span {
			d.Stale = append(d.Stale, dBar{
				X: x(b.Until), Y: ln.Y + 24, W: max(x(clip(end))-x(b.Until), 1), H: 12,
				Class: "stale", Title: fmt.Sprintf(T(lang, "diagram.stale"), names.Of(b.Worker), b.Token),
			})
		}
	}
	for _, f := range snap.Freezes {
		li := laneOf(f.Worker, nw)
		if li < 0 {
			continue
		}
		ln := d.Lanes[li]
		end := f.End
		if end == engine.Never {
			end = snap.Now
		}
		d.Freezes = append(d.Freezes, dBar{
			X: x(f.Start), Y: ln.Y + 2, W: max(x(clip(end))-x(f.Start), 2), H: ln.H - 4,
			Class: "freeze", Label: T(lang, "diagram.frozen"),
			Title: fmt.Sprintf(T(lang, "diagram.freeze"), names.Of(f.Worker), f.Start, end),
		})
	}

	// Messages: a send is paired with the receive or drop of the same kind
	// on the same link, first in first out.
	type link struct {
		from, to engine.Node
		msg      engine.MsgKind
	}
	pending := map[link][]int{}
	for i, e := range events {
		switch e.Kind {
		case engine.KindSend:
			k := link{e.Node, e.Peer, e.Msg}
			pending[k] = append(pending[k], i)
		case engine.KindRecv, engine.KindDrop:
			k := link{e.Peer, e.Node, e.Msg}
			if e.Kind == engine.KindDrop {
				k = link{e.Node, e.Peer, e.Msg}
			}
			q := pending[k]
			if len(q) == 0 {
				continue
			}
			s := events[q[0]]
			pending[k] = q[1:]
			from, to := laneOf(s.Node, nw), laneOf(s.Peer, nw)
			if from < 0 || to < 0 {
				continue
			}
			m := dMsg{X1: x(s.T), Y1: d.Lanes[from].Mid, X2: x(e.T), Y2: d.Lanes[to].Mid, Class: "msg m-" + s.Msg.String()}
			m.Title = s.Msg.String() + " " + names.Of(s.Node) + "→" + names.Of(s.Peer)
			if s.Token != 0 {
				m.Title += " token=" + strconv.FormatInt(s.Token, 10)
			}
			if e.Kind == engine.KindDrop {
				m.Class += " dropped"
				m.Y2 = (m.Y1 + m.Y2) / 2
				m.X2 = max(m.X2, m.X1+6)
			}
			d.Msgs = append(d.Msgs, m)
		}
	}

	// Marks for the events that matter to the story.
	var firstViolation = -1
	for i, e := range events {
		if e.T > span {
			break
		}
		mk := dMark{Index: i, X: x(e.T), Highlight: highlight[i]}
		li := laneOf(e.Node, nw)
		switch e.Kind {
		case engine.KindGrant:
			mk.Shape, mk.Class, mk.Label = "grant", "grant", strconv.FormatInt(e.Token, 10)
		case engine.KindExpire:
			mk.Shape, mk.Class = "expire", "expire"
		case engine.KindRelease, engine.KindExtend:
			mk.Shape, mk.Class = "tick", "release"
		case engine.KindDeny, engine.KindRenewReject, engine.KindUnavailable:
			mk.Shape, mk.Class = "tick", "deny"
		case engine.KindAccept:
			mk.Shape, mk.Class, mk.Label = "ok", "accept", strconv.FormatInt(e.Token, 10)
		case engine.KindReject:
			mk.Shape, mk.Class = "no", "reject"
			mk.Label = strconv.FormatInt(e.Token, 10)
			if e.Reason == engine.ReasonStaleToken {
				mk.Label += "<" + strconv.FormatInt(e.Value, 10)
			}
		case engine.KindWrite:
			mk.Shape, mk.Class, mk.Label = "write", "write", names.Key(e.Key)+" "+strconv.FormatInt(e.Token, 10)
		case engine.KindAcquired, engine.KindRenewed:
			mk.Shape, mk.Class = "tick", "acquired"
		case engine.KindLost:
			mk.Shape, mk.Class = "expire", "lost"
		case engine.KindCrash:
			mk.Shape, mk.Class = "crash", "crash"
		case engine.KindRestart, engine.KindStart:
			mk.Shape, mk.Class = "tick", "start"
		case engine.KindCheck:
			mk.Shape, mk.Class = "tick", "check"
		case engine.KindViolation:
			if firstViolation < 0 {
				firstViolation = i
			}
			if !highlight[i] {
				continue
			}
			mk.Shape, mk.Class = "tick", "violation"
			li = laneOf(e.Peer, nw)
		default:
			if !highlight[i] {
				continue
			}
			mk.Shape, mk.Class = "tick", "other"
		}
		if li < 0 {
			continue
		}
		mk.Y = d.Lanes[li].Mid
		if e.Node >= 0 && e.Kind != engine.KindViolation {
			mk.Y = d.Lanes[li].Y + d.Lanes[li].H - 12 // under the two lease rows
		}
		mk.Title = e.T.String() + " " + labs.DescribeEvent(e, names, lang)
		d.Marks = append(d.Marks, mk)
	}
	if firstViolation >= 0 {
		e := events[firstViolation]
		d.Pin = &dPin{X: x(e.T), Y1: dTop - 4, Y2: d.AxisY, Index: firstViolation,
			Lines: wrap(e.T.String()+": "+violationSentence(e, events, names, lang), dPinLineLen)}
	}
	d.Now = dNow{X: x(snap.Now), Y1: dTop - 6, Y2: d.AxisY, Label: T(lang, "diagram.now") + " " + snap.Now.String()}

	// The legend flows in rows, each entry as wide as its words.
	lx, ly := 8, d.AxisY+dAxisH+4
	for _, k := range []string{"lease", "belief", "stale", "freeze", "accept", "reject"} {
		label := T(lang, "legend."+k)
		w := 36 + 7*len([]rune(label))
		if lx+w > d.Width {
			lx, ly = 8, ly+20
		}
		d.Legend = append(d.Legend, dLegend{X: lx, Y: ly, Class: k, Label: label})
		lx += w
	}
	d.Height = ly + 18
	return d
}

// violationSentence explains a violation in one sentence, with the time
// of the event that makes it one.
func violationSentence(v engine.Event, events []engine.Event, names engine.Names, lang string) string {
	s := labs.DescribeEvent(v, names, lang)
	if i := int(v.Ref2); i >= 0 && i < len(events) {
		key := "diagram.because.first"
		switch v.Reason {
		case engine.ViolationStaleWrite, engine.ViolationActedAfterExpiry:
			key = "diagram.because.ended"
		case engine.ViolationSplitBrain:
			key = "diagram.because.other"
		}
		s += " (" + fmt.Sprintf(T(lang, key), events[i].T) + ")"
	}
	return s + "."
}

// tickStep picks a round tick interval that gives at most a dozen ticks.
func tickStep(span engine.Time) engine.Time {
	for _, s := range []engine.Time{engine.Second, 2 * engine.Second, 5 * engine.Second, 10 * engine.Second, 15 * engine.Second, 30 * engine.Second, engine.Minute, 2 * engine.Minute, 5 * engine.Minute, 10 * engine.Minute, 30 * engine.Minute, engine.Hour} {
		if span/s <= 12 {
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

func itoa(n int) string { return strconv.Itoa(n) }

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
