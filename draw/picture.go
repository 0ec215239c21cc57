package draw

import (
	"context"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"leaselab/catalog"
)

// The whole picture (DiagramSVG) and its frame on a page (Figure),
// written with the same writers as its elements: a live frame redraws it
// whole when the picture's scale changes, a pair frame twice every tick,
// and templ's attribute and class handling cost hundreds of allocations
// a picture. Pages draw them through Part, so there is one source of
// the markup; it is what the templ components wrote before, byte for
// byte.

// Part is markup an Markup method writes, as a templ component: a page
// renders it with the writers a frame uses.
type Part func(w *Markup)

// scratchWriters hold what an Part writes before it goes to a writer
// that is not an Markup.
var scratchWriters = sync.Pool{New: func() any { return new(Markup) }}

// Render writes p into out: in place when out is a frame's body.
func (p Part) Render(_ context.Context, out io.Writer) error {
	if w, ok := out.(*Markup); ok {
		p(w)
		return nil
	}
	w := scratchWriters.Get().(*Markup)
	p(w)
	_, err := out.Write(w.B)
	if cap(w.B) <= MaxPooled {
		w.B, w.tmp = w.B[:0], w.tmp[:0]
		scratchWriters.Put(w)
	}
	return err
}

// DiagramSVG is the space-time diagram: one lane per participant, time
// running to the right. The same picture serves the live lab, answer
// feedback, the permalink picture and `leaselab run --format svg`, so it
// carries its own style and needs nothing from the page.
func DiagramSVG(d *Diagram) Part { return func(w *Markup) { w.diagram(d) } }

// Figure is a diagram on a page: the pinned sentence as text that
// wraps, then the picture in a box that scrolls sideways when the screen
// is narrow (focusable, so a keyboard scrolls it too).
func Figure(d *Diagram) Part { return func(w *Markup) { w.figure(d) } }

func (w *Markup) figure(d *Diagram) {
	w.s(`<div id="`)
	w.esc(d.ID)
	w.s(`-pintext" class="pinbox">`)
	w.pinText(d)
	w.s(`</div><div class="diagram-box`)
	if d.Zoomed {
		w.s(" zoomed")
	}
	w.s(`" id="`)
	w.esc(d.ID)
	w.s(`-box" tabindex="0" role="region"`)
	w.attr("aria-label", d.Title)
	w.num("data-focus", d.FocusX())
	w.num("data-width", d.Width)
	w.s(">")
	w.diagram(d)
	w.s(`</div><ul class="legend">`)
	for _, l := range d.Legend {
		w.s(`<li><span class="sw sw-`)
		w.esc(l.Class)
		w.s(`" aria-hidden="true"></span>`)
		w.esc(l.Label)
		w.s("</li>")
	}
	w.s("</ul>")
}

// pinText is the run's outcome as a sentence above its picture.
func (w *Markup) pinText(d *Diagram) {
	if d.Pin == nil {
		return
	}
	w.s(`<p class="pin `)
	w.esc(d.Pin.Class)
	w.s(`"`)
	w.attr("data-outcome", d.Pin.Class)
	w.s(`><span class="badge">`)
	w.esc(catalog.T(d.Lang, outcomeKey(d.Pin.Class)))
	w.s("</span> ")
	w.esc(d.Pin.Text)
	w.s("</p>")
}

// diagram writes the picture: its style, its lanes, its time axis, its
// layers, the "now" line, the pinned outcome, the lane names and (in a
// standalone picture) the legend.
func (w *Markup) diagram(d *Diagram) {
	w.s(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 `)
	w.i(d.Width)
	w.s(" ")
	w.i(d.Height)
	w.s(`" class="diagram" role="img" aria-labelledby="`)
	w.esc(d.ID)
	w.s(`-t" id="`)
	w.esc(d.ID)
	w.s(`-svg" font-family="system-ui, sans-serif" font-size="14"><title id="`)
	w.esc(d.ID)
	w.s(`-t">`)
	w.esc(d.Title)
	w.s("</title>")
	w.s(diagramStyle)
	w.s(`<defs><pattern id="`)
	w.esc(d.ID)
	w.s(`-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect class="hatchbg" width="6" height="6"></rect> <line class="hatchln" x1="0" y1="0" x2="0" y2="6" stroke-width="3"></line></pattern></defs> `)
	for i, l := range d.Lanes {
		w.s(`<rect class="`)
		w.s(laneClass(i))
		w.s(`" x="0"`)
		w.num("y", l.Y)
		w.num("width", d.Width)
		w.num("height", l.H)
		w.s("></rect> ")
	}
	w.group(d, "", "ticks")
	w.ticks(d)
	w.s(`</g> <g class="plot" id="`)
	w.esc(d.ID)
	w.s(`-plot" transform="translate(`)
	w.i(d.Shift)
	w.s(`,0)"`)
	if d.Keyed {
		w.s(` data-k="`)
		w.plotScale(d)
		w.s(`"`)
	}
	w.s(">")
	for i, kind := range []byte("flsbgm") {
		if i > 0 {
			w.s("</g> ")
		}
		w.group(d, "", layerNames[kind])
		w.layer(d, kind)
	}
	w.s("</g></g> ")
	w.group(d, "", "now")
	w.now(d)
	w.s("</g> ")
	w.group(d, "", "pin")
	w.pin(d)
	w.s("</g>")
	// Lane names come last, over everything, in a group a page keeps at
	// the left edge of its box while the picture scrolls (static/play.js).
	w.group(d, "lanes-fixed", "lanes")
	w.lanes(d)
	w.s("</g>")
	if !d.PinInSVG {
		// A page lists the legend as text under the picture (figure).
		w.s("</svg>")
		return
	}
	w.s(` <g class="legend" display="inline">`)
	for _, l := range d.Legend {
		w.s("<g>")
		w.legendKey(d, l)
		w.s(`<text`)
		w.num("x", l.X+27)
		w.num("y", l.Y+10)
		w.s(">")
		w.esc(l.Label)
		w.s("</text></g>")
	}
	w.s("</g></svg>")
}

// plotScale writes a keyed picture's scale (dScale.k): what the page
// moves its marks and messages from when a frame gives it another
// (OpScale).
func (w *Markup) plotScale(d *Diagram) {
	w.B = strconv.AppendFloat(w.B, d.scale.k, 'f', -1, 64)
}

// group opens <g> with class (when set) and the id of d's part name.
func (w *Markup) group(d *Diagram, class, name string) {
	w.s("<g")
	if class != "" {
		w.attr("class", class)
	}
	w.s(` id="`)
	w.esc(d.ID)
	w.s("-")
	w.s(name)
	w.s(`">`)
}

// legendKey writes the swatch of one of the legend's entries.
func (w *Markup) legendKey(d *Diagram, l dLegend) {
	switch l.Class {
	case "lease", "belief", "stale":
		w.s(`<rect class="`)
		w.s(legendClass[l.Class])
		w.s(`"`)
		w.num("x", l.X)
		w.num("y", l.Y)
		w.s(` width="22" height="10" rx="2"></rect> `)
	case "freeze":
		w.s(`<rect class="freeze"`)
		w.num("x", l.X)
		w.num("y", l.Y)
		w.s(` width="22" height="10" fill="url(#`)
		w.esc(d.ID)
		w.s(`-hatch)"></rect> `)
	case "accept", "blocked":
		w.s(`<circle class="`)
		w.s(l.Class)
		w.s(`"`)
		w.num("cx", l.X+8)
		w.num("cy", l.Y+5)
		w.s(` r="6"></circle> `)
	case "harm":
		w.s(`<path class="harm" d="M`)
		w.i(l.X + 8)
		w.s(",")
		w.i(l.Y - 2)
		w.s(` l7,13 h-14 z"></path> `)
	}
}

// legendClass is the class of a bar's swatch in the legend.
var legendClass = map[string]string{"lease": "lease w0", "belief": "belief w0", "stale": "stale"}

// pin writes the pinned outcome's line and, in a standalone picture, its
// sentence.
func (w *Markup) pin(d *Diagram) {
	p := d.Pin
	if p == nil {
		return
	}
	w.s(`<g class="pinned `)
	w.esc(p.Class)
	w.s(`"`)
	w.num("data-event", p.Index)
	w.attr("data-outcome", p.Class)
	w.s(">")
	if p.X >= 0 {
		w.s(`<line class="pin"`)
		w.num("x1", p.X)
		w.num("x2", p.X)
		w.num("y1", p.Y1)
		w.num("y2", p.Y2)
		w.s(`></line> <circle`)
		w.num("cx", p.X)
		w.num("cy", p.Y1)
		w.s(` r="5"></circle> `)
	}
	if d.PinInSVG {
		w.s(`<text class="pintext" x="8" y="17">`)
		for i, line := range p.Lines {
			if i < 2 {
				w.s(`<tspan x="8" dy="`)
				w.s(pinDy(i))
				w.s(`">`)
				w.esc(line)
				w.s("</tspan>")
			}
		}
		w.s("</text>")
	}
	w.s("</g>")
}

// lanes writes the lanes' names and states.
func (w *Markup) lanes(d *Diagram) {
	for i, l := range d.Lanes {
		w.s(`<g class="lanebox `)
		w.esc(l.Class)
		w.s(`"><rect class="lbg`)
		w.s(altClass(i))
		w.s(`" x="0"`)
		w.num("y", l.Y)
		w.num("width", dGutter-6)
		w.num("height", l.H)
		w.s(`></rect> <text class="lname`)
		if utf8.RuneCountInString(l.Name) > longLane {
			w.s(" long")
		}
		w.s(`" x="8"`)
		w.num("y", l.Mid+1)
		w.s(">")
		w.esc(l.Name)
		w.s("</text> ")
		if l.State != "" {
			w.s(`<text class="lstate `)
			w.esc(l.StateClass)
			w.s(`" x="8"`)
			w.num("y", l.Mid+16)
			w.s(">")
			w.esc(l.State)
			w.s("</text>")
		}
		w.s("</g>")
	}
}

// longLane is the most characters a lane's name has in full size: a
// longer one ("penyimpanan", "coordinator") is drawn smaller, so that it
// ends within its background, which the picture scrolls under (a mark's
// words showed through the end of a name that ran past it).
const longLane = 10

// diagramStyle is the picture's own style, as the templ component wrote
// it (the tabs before its end included).
const diagramStyle = "<style>\n" + `.diagram{--fg:#1d2433;--muted:#4b5366;--lane:#f4f6fa;--lane2:#fff;--grid:#d9dee8;--w0:#2563eb;--w1:#b45309;--w2:#047857;--w3:#7e22ce;--w4:#be185d;--w5:#0e7490;--ok:#334155;--safe:#15803d;--harm:#dc2626;--warn:#b45309;--frz:#0369a1;--stalefill:#ef4444;--hatch:#e0f2fe;--hatch2:#7dd3fc}
@media (prefers-color-scheme:dark){.diagram{--fg:#e5e9f0;--muted:#b4bccb;--lane:#1b2130;--lane2:#141925;--grid:#343c4e;--w0:#60a5fa;--w1:#fbbf24;--w2:#34d399;--w3:#c084fc;--w4:#f472b6;--w5:#22d3ee;--ok:#cbd5e1;--safe:#4ade80;--harm:#f87171;--warn:#fbbf24;--frz:#7dd3fc;--stalefill:#dc2626;--hatch:#0c2a3f;--hatch2:#155e75}}
.diagram text{fill:var(--fg)}
.diagram .lane{fill:var(--lane)}
.diagram .lane.alt{fill:var(--lane2)}
.diagram .lname{font-weight:700;font-size:15px}
.diagram .lname.long{font-size:13px}
.diagram .lstate{fill:var(--muted);font-size:12px;font-weight:700}
.diagram .lstate.frozen{fill:var(--frz)}
.diagram .grid{stroke:var(--grid);stroke-width:1}
.diagram .tick{fill:var(--muted);font-size:13px}
.diagram .w0{--c:var(--w0)}.diagram .w1{--c:var(--w1)}.diagram .w2{--c:var(--w2)}.diagram .w3{--c:var(--w3)}.diagram .w4{--c:var(--w4)}.diagram .w5{--c:var(--w5)}
.diagram .lease{stroke:none;fill:var(--c)}
.diagram .belief{fill:var(--lane2);stroke-width:2;stroke:var(--c)}
.diagram .stale{fill:var(--stalefill);stroke:#7f1d1d;stroke-width:1.5;stroke-dasharray:4 3}
.diagram .blabel{fill:#fff;font-size:12px;font-weight:700}
@media (prefers-color-scheme:dark){.diagram .blabel{fill:#0b0f17}}
.diagram .bllabel{font-size:12px}
.diagram .freeze{stroke:var(--frz);stroke-width:1}
.diagram .flabel{fill:var(--frz);font-size:12px;font-weight:700}
.diagram .msg{stroke:var(--muted);stroke-width:1;fill:none;opacity:.7}
.diagram .msg.m-write{stroke:var(--fg);stroke-width:1.6;opacity:1}
.diagram .msg.dropped{stroke:var(--harm);stroke-dasharray:3 3}
.diagram .accept{fill:var(--ok)}
.diagram .blocked{fill:var(--safe)}
.diagram .blocked .mlabel{fill:var(--safe)}
.diagram .harm{fill:var(--harm)}
.diagram .harm .mlabel{fill:var(--harm)}
.diagram .expire,.diagram .lost,.diagram .crash{fill:var(--harm);stroke:var(--harm)}
.diagram .grant,.diagram .write{fill:var(--fg)}
.diagram .mlabel{font-size:14px;font-weight:700}
.diagram .t path{stroke:var(--fg);stroke-width:1.5}
.diagram .t.deny path{stroke:var(--harm)}
.diagram .t.violation.warn path{stroke:var(--warn)}
.diagram .t.violation.harm path{stroke:var(--harm)}
.diagram .glyph{stroke:#fff;stroke-width:2;fill:none}
.diagram .hl{fill:none;stroke:#f59e0b;stroke-width:3}
.diagram .now{stroke:var(--fg);stroke-width:1.5;stroke-dasharray:3 3}
.diagram .nowtext{fill:var(--fg);font-size:13px;font-weight:700}
.diagram .pin{stroke-width:2}
.diagram .pinned.harm .pin{stroke:var(--harm)}.diagram .pinned.harm circle,.diagram .pinned.harm .pintext{fill:var(--harm)}
.diagram .pinned.safe .pin{stroke:var(--safe)}.diagram .pinned.safe circle,.diagram .pinned.safe .pintext{fill:var(--safe)}
.diagram .pinned.warn .pin{stroke:var(--warn)}.diagram .pinned.warn circle,.diagram .pinned.warn .pintext{fill:var(--warn)}
.diagram .pintext{font-size:14px;font-weight:600}
.diagram .legend text{font-size:13px}
.diagram .lanes-fixed .lbg{fill:var(--lane)}
.diagram .lanes-fixed .lbg.alt{fill:var(--lane2)}
.diagram .hatchbg{fill:var(--hatch)}.diagram .hatchln{stroke:var(--hatch2)}` + "\n\t\t</style>"
