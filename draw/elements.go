package draw

import (
	"math"
	"slices"
	"strconv"

	"leaselab/catalog"
	"leaselab/engine"
	"leaselab/labs"
)

// The diagram's bars, messages and marks: a busy live picture sends dozens
// of them a frame, so they are written straight into a byte buffer, with
// no allocation once the buffer has grown, rather than through templ.
// A whole picture (DiagramSVG, picture.go) draws them with these same
// writers. In
// a keyed (live) picture every element carries an id: the picture's ID, a
// letter and its key (elemID).

// Markup appends SVG and HTML to B: the picture's elements, and the
// panels beside it (status.go, signals.go), which are HTML.
type Markup struct {
	B   []byte
	tmp []byte // words formatted before they are escaped (titlef)
}

func (w *Markup) s(x string) { w.B = append(w.B, x...) }

// S appends x as it is: markup, or text known to need no escaping.
func (w *Markup) S(x string) { w.s(x) }

// I appends n in decimal.
func (w *Markup) I(n int) { w.i(n) }

// Esc appends x escaped for text or a quoted attribute value.
func (w *Markup) Esc(x string) { w.esc(x) }

// Write appends p: a templ component renders into a Markup (Edits.Render).
func (w *Markup) Write(p []byte) (int, error) {
	w.B = append(w.B, p...)
	return len(p), nil
}

func (w *Markup) i(n int) { w.B = strconv.AppendInt(w.B, int64(n), 10) }

// esc appends x escaped for text or a quoted attribute value.
func (w *Markup) esc(x string) { w.B = appendEsc(w.B, x) }

// appendEsc appends x to b, escaped for text or a quoted attribute value.
func appendEsc[S string | []byte](b []byte, x S) []byte {
	last := 0
	for i := 0; i < len(x); i++ {
		var r string
		switch x[i] {
		case '&':
			r = "&amp;"
		case '<':
			r = "&lt;"
		case '>':
			r = "&gt;"
		case '"':
			r = "&#34;"
		case '\'':
			r = "&#39;"
		default:
			continue
		}
		b = append(b, x[last:i]...)
		b = append(b, r...)
		last = i + 1
	}
	return append(b, x[last:]...)
}

// attr appends ` name="value"`, the value escaped.
func (w *Markup) attr(name, value string) {
	w.s(" ")
	w.s(name)
	w.s(`="`)
	w.esc(value)
	w.s(`"`)
}

// num appends ` name="n"`.
func (w *Markup) num(name string, n int) {
	w.s(" ")
	w.s(name)
	w.s(`="`)
	w.i(n)
	w.s(`"`)
}

// id appends the element's id in a keyed picture.
func (w *Markup) id(d *Diagram, kind byte, key int) { w.idPart(d, kind, key, 0) }

// idPart appends the id of one of a keyed element's parts: its id and a
// letter (a bar's rectangle r, its title t, its token label k; none when
// 0), so that a frame can change that part alone (barInPlace).
func (w *Markup) idPart(d *Diagram, kind byte, key int, part byte) {
	if !d.Keyed {
		return
	}
	w.s(` id="`)
	w.esc(d.ID)
	w.B = append(w.B, '-', kind)
	w.i(key)
	if part != 0 {
		w.B = append(w.B, part)
	}
	w.s(`"`)
}

// at appends a keyed picture's mark's or message's x in units its scale
// does not change (dScale), from which the page moves it to a new scale
// itself (OpScale).
func (w *Markup) at(x int32) { w.num("data-x", int(x)) }

// titlef appends a title: key's text in lang, filled with args, escaped.
func (w *Markup) titlef(lang, key string, args ...catalog.Arg) {
	w.tmp = catalog.Append(w.tmp[:0], lang, key, args...)
	w.s("<title>")
	w.B = appendEsc(w.B, w.tmp)
	w.s("</title>")
}

// rect appends a rectangle's place and size.
func (w *Markup) rect(b dBar) {
	w.num("x", int(b.X))
	w.num("y", int(b.Y))
	w.num("width", int(b.W))
	w.num("height", int(b.H))
}

func (w *Markup) freeze(d *Diagram, f dBar) {
	w.s(`<g class="freezebox"`)
	w.id(d, 'f', int(f.Key))
	w.s(">")
	w.titlef(d.Lang, "diagram.freeze", catalog.Str(d.world.Names().Of(f.Worker)), catalog.Moment(f.Start), catalog.Moment(f.End))
	w.s(`<rect class="freeze"`)
	w.rect(f)
	w.s(` fill="url(#`)
	w.esc(d.ID)
	w.s(`-hatch)"></rect><text class="flabel"`)
	w.num("x", int(f.X+4))
	w.num("y", int(f.Y+f.H-4))
	w.s(">")
	w.esc(catalog.T(d.Lang, "diagram.frozen"))
	w.s("</text></g>")
}

// bar is a lease (kind l), a stale owner's time (s) or a belief (b).
func (w *Markup) bar(d *Diagram, kind byte, b dBar) {
	w.s("<g")
	w.id(d, kind, int(b.Key))
	w.s(">")
	class := "stale"
	switch kind {
	case 'l':
		class = leaseClass[int(b.Worker)%6]
	case 'b':
		class = beliefClass[int(b.Worker)%6]
	}
	w.s("<title")
	w.idPart(d, kind, int(b.Key), 't')
	w.s(">")
	w.tmp = barTitle(w.tmp[:0], d, kind, b)
	w.B = appendEsc(w.B, w.tmp)
	w.s("</title><rect")
	w.idPart(d, kind, int(b.Key), 'r')
	w.attr("class", class)
	w.rect(b)
	w.s(` rx="3"></rect>`)
	switch {
	case barLabelled(kind, b.W) && kind == 'l':
		w.barLabel(d, kind, "blabel", b, 3)
		w.esc(catalog.T(d.Lang, "diagram.token"))
		w.s(" ")
		w.B = strconv.AppendInt(w.B, b.Token, 10)
		w.s("</text>")
	case barLabelled(kind, b.W):
		w.barLabel(d, kind, "bllabel", b, 2)
		w.B = strconv.AppendInt(w.B, b.Token, 10)
		w.s("</text>")
	}
	w.s("</g>")
}

// barTitle appends a bar's title, unescaped: whose it is, its token and,
// but for a stale owner's time, from when to when.
func barTitle(b []byte, d *Diagram, kind byte, x dBar) []byte {
	name := catalog.Str(d.world.Names().Of(x.Worker))
	switch kind {
	case 'l':
		return catalog.Append(b, d.Lang, "diagram.real", name, catalog.Int(x.Token), catalog.Moment(x.Start), catalog.Moment(x.End))
	case 'b':
		return catalog.Append(b, d.Lang, "diagram.belief", name, catalog.Int(x.Token), catalog.Moment(x.Start), catalog.Moment(x.End))
	}
	return catalog.Append(b, d.Lang, "diagram.stale", name, catalog.Int(x.Token))
}

// barLabelled says whether a lease (l) or belief (b) this wide has its
// token written inside it.
func barLabelled(kind byte, width int32) bool {
	return kind == 'l' && width > 44 || kind == 'b' && width > 24
}

// barLabel opens a bar's words inside it, up from its bottom by above,
// with an id (part k) for a frame to move it with the bar's start.
func (w *Markup) barLabel(d *Diagram, kind byte, class string, b dBar, above int) {
	w.s(`<text`)
	w.idPart(d, kind, int(b.Key), 'k')
	w.s(` class="`)
	w.s(class)
	w.s(`"`)
	w.num("x", int(b.X+5))
	w.num("y", int(b.Y+b.H)-above)
	w.s(">")
}

// msg writes a message's line; its class and words come from its events.
func (w *Markup) msg(d *Diagram, m dMsg) {
	events, names := d.world.Events(), d.world.Names()
	e := events[m.Key]
	s := events[e.Ref()]
	w.s(`<path class="msg m-`)
	w.s(s.Msg().String())
	if e.Kind == engine.KindDrop {
		w.s(" dropped")
	}
	w.s(`"`)
	w.id(d, 'g', int(m.Key))
	if d.Keyed {
		w.at(m.X1)
	}
	w.s(` d="`)
	w.msgPath(d, m, d.scale.k)
	w.s(`"><title>`)
	w.esc(labs.MsgName(s.Msg(), d.Lang))
	w.s(" ")
	w.esc(labs.NodeName(names, s.Node, d.Lang))
	w.s("→")
	w.esc(labs.NodeName(names, s.Peer(), d.Lang))
	if s.Token != 0 {
		w.s(", ")
		w.esc(catalog.T(d.Lang, "diagram.token"))
		w.s(" ")
		w.B = strconv.AppendInt(w.B, s.Token, 10)
	}
	w.s("</title></path>")
}

// msgPath writes a message's path on the scale k. In a keyed picture its
// ends are as far apart as k puts them, to the nearest unit (a drop at
// least 6), and its arrowhead is in the line's direction there; an
// upright message, most of them, has the same shape on every scale, and
// its path's only absolute x is its first, which the page moves to a new
// scale itself (OpScale).
func (w *Markup) msgPath(d *Diagram, m dMsg, k float64) {
	if !d.Keyed {
		w.arrow(int(m.X1), int(m.Y1), int(m.X2), int(m.Y2))
		return
	}
	x1, dx := int(pxAt(m.X1, k)), 0
	if m.X2 != m.X1 {
		dx = int(math.Round(float64(m.X2-m.X1) * k))
	}
	if d.world.Events()[m.Key].Kind == engine.KindDrop {
		dx = max(dx, 6)
	}
	w.arrow(x1, int(m.Y1), x1+dx, int(m.Y2))
}

// scaled reports whether m's shape depends on its picture's scale
// (msgPath): it is not upright, and a new scale sends its path.
func (m dMsg) scaled(d *Diagram) bool {
	return d.Keyed && (m.X1 != m.X2 || d.world.Events()[m.Key].Kind == engine.KindDrop)
}

// arrow writes the path of a line from x1,y1 to x2,y2 with an open
// arrowhead at its end, 6 long and 7 wide, drawn by the line's own
// stroke. (An SVG marker did it before: a slow phone paid for the
// marker's resource again with every message a playing frame added.)
// Most messages are upright (sent and received within the same pixel of
// time): their arrowheads are the same few relative steps.
func (w *Markup) arrow(x1, y1, x2, y2 int) {
	w.s("M")
	w.i(x1)
	w.s(",")
	w.i(y1)
	switch {
	case x1 == x2 && y1 == y2:
	case x1 == x2:
		w.s(" V")
		w.i(y2)
		if y2 < y1 {
			w.s(" m3.5,6l-3.5-6-3.5,6")
		} else {
			w.s(" m-3.5-6l3.5,6 3.5-6")
		}
	case y1 == y2:
		w.s(" H")
		w.i(x2)
		if x2 > x1 {
			w.s(" m-6-3.5l6,3.5-6,3.5")
		} else {
			w.s(" m6,3.5l-6-3.5 6-3.5")
		}
	default:
		w.s(" L")
		w.i(x2)
		w.s(",")
		w.i(y2)
		dx, dy := float64(x2-x1), float64(y2-y1)
		n := math.Sqrt(dx*dx + dy*dy)
		ux, uy := dx/n, dy/n
		cx, cy := float64(x2)-6*ux, float64(y2)-6*uy
		w.s(" M")
		w.half(halves(cx - 3.5*uy))
		w.s(",")
		w.half(halves(cy + 3.5*ux))
		w.s(" L")
		w.i(x2)
		w.s(",")
		w.i(y2)
		w.s(" L")
		w.half(halves(cx + 3.5*uy))
		w.s(",")
		w.half(halves(cy - 3.5*ux))
	}
}

// halves is x in half units, rounded.
func halves(x float64) int { return int(math.Round(x * 2)) }

// half appends h half units as a number: "29.5", "-3", "-0.5".
func (w *Markup) half(h int) {
	if h < 0 {
		w.s("-")
		h = -h
	}
	w.i(h / 2)
	if h%2 != 0 {
		w.s(".5")
	}
}

// labelAt opens a mark's words at x, y; labelEnd closes them.
func (w *Markup) labelAt(x, y int) {
	w.s(`<text class="mlabel"`)
	w.num("x", x)
	w.num("y", y)
	w.s(">")
}

func (w *Markup) labelEnd() { w.s("</text>") }

// markLabel writes the words of mark m, of event e, at x, y, unless they
// are hidden (hideLabels).
func (w *Markup) markLabel(d *Diagram, m dMark, e engine.Event, x, y int) {
	if m.Hidden {
		return
	}
	w.labelAt(x, y)
	w.B = appendMarkLabel(w.B, d, m, e)
	w.labelEnd()
}

// hasLabel says whether a mark of this shape has words beside it.
func hasLabel(shape string) bool {
	switch shape {
	case "ok", "blocked", "harm", "grant", "write":
		return true
	}
	return false
}

// appendMarkLabel appends the words of mark m, of event e, escaped: a
// token, and what became of a write.
func appendMarkLabel(b []byte, d *Diagram, m dMark, e engine.Event) []byte {
	switch m.Look {
	case lookWrite:
		b = appendEsc(b, labs.ObjectName(d.world.Names(), e.Key, d.Lang))
		b = append(b, ' ')
	}
	b = strconv.AppendInt(b, e.Token, 10)
	switch m.Look {
	case lookHarm:
		b = append(b, ' ')
		b = appendEsc(b, catalog.T(d.Lang, "diagram.harm"))
	case lookBlocked:
		if e.Reason() == engine.ReasonStaleToken {
			b = append(b, "&lt;"...)
			b = strconv.AppendInt(b, e.Value, 10)
		}
		b = append(b, ' ')
		b = appendEsc(b, catalog.T(d.Lang, "diagram.blocked"))
	}
	return b
}

// labelWidth is about how wide escaped words are drawn in a mark's type
// (.mlabel, 14 px bold): 8 a character, an entity one.
func labelWidth(b []byte) int {
	n := 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '&':
			for i < len(b) && b[i] != ';' {
				i++
			}
			n++
		case c < 0x80 || c >= 0xC0: // a rune's first byte
			n++
		}
	}
	return 8 * n
}

// path appends a path whose d is "M x,y" and the rest.
func (w *Markup) path(class string, x, y int, rest string, tail string) {
	w.s("<path")
	if class != "" {
		w.attr("class", class)
	}
	w.s(` d="M`)
	w.i(x)
	w.s(",")
	w.i(y)
	w.s(rest)
	w.s(`"`)
	w.s(tail)
	w.s("></path>")
}

func (w *Markup) circle(class string, x, y, r int) {
	w.s("<circle")
	if class != "" {
		w.attr("class", class)
	}
	w.num("cx", x)
	w.num("cy", y)
	w.num("r", r)
	w.s("></circle>")
}

// mark writes an event's mark; its words come from its event.
func (w *Markup) mark(d *Diagram, m dMark) {
	e := d.world.Events()[m.Index]
	w.s(`<g class="mk `)
	w.s(m.Class())
	w.s(`"`)
	w.id(d, 'm', int(m.Index))
	x, y := int(d.scale.px(m.X)), int(m.Y)
	if d.Keyed {
		w.at(m.X)
	}
	w.s(">")
	// markSentence, written in place: the time needs no escaping.
	w.s("<title>")
	w.B = catalog.AppendMoment(w.B, d.Lang, e.T)
	w.s(": ")
	w.tmp = labs.AppendEvent(w.tmp[:0], e, d.world.Names(), d.Lang)
	w.B = appendEsc(w.B, w.tmp)
	w.s("</title>")
	switch m.Shape() {
	case "ok":
		w.circle("", x, y, 7)
		w.path("glyph", x-4, y, " l3,3 l5,-6", "")
		w.markLabel(d, m, e, x+10, y+4)
	case "blocked":
		w.circle("", x, y, 7)
		w.path("glyph", x-4, y, " h8", "")
		w.markLabel(d, m, e, x+10, y+4)
	case "harm":
		w.path("", x, y-8, " l8,15 h-16 z", "")
		w.path("glyph", x, y-3, " v5 m0,2 v1", "")
		w.markLabel(d, m, e, x+10, y+4)
	case "grant":
		w.path("", x, y-7, " l6,7 l-6,7 l-6,-7 z", "")
		w.markLabel(d, m, e, x+8, y-4)
	case "expire":
		w.path("", x-4, y-4, " l8,8 m0,-8 l-8,8", ` stroke-width="2.2" fill="none"`)
	case "write":
		w.s("<rect")
		w.num("x", x-4)
		w.num("y", y-4)
		w.s(` width="8" height="8"></rect>`)
		w.markLabel(d, m, e, x+7, y+4)
	case "crash":
		w.path("", x-6, y-6, " l12,12 m0,-12 l-12,12", ` stroke-width="3" fill="none"`)
	default: // a tick
		w.path("", x, y-5, "v10", "")
	}
	if m.Highlight {
		w.circle("hl", x, y, 12)
	}
	w.s("</g>")
}

// layer writes every element of one of d's layers: f (freezes),
// l (leases), s (stale owners), b (beliefs), g (messages), m (marks).
func (w *Markup) layer(d *Diagram, kind byte) {
	switch kind {
	case 'f':
		for _, f := range d.Freezes {
			w.freeze(d, f)
		}
	case 'l':
		for _, b := range d.Leases {
			w.bar(d, kind, b)
		}
	case 's':
		for _, b := range d.Stale {
			w.bar(d, kind, b)
		}
	case 'b':
		for _, b := range d.Beliefs {
			w.bar(d, kind, b)
		}
	case 'g':
		for _, m := range d.Msgs {
			w.msg(d, m)
		}
	case 'm':
		for _, m := range d.Marks {
			w.mark(d, m)
		}
	}
}

// Events is a plain list of events, readable without the picture.
type Events struct {
	ID        string // the list's element id; rows are ID-N
	Lang      string
	From      int // first index shown
	Events    []engine.Event
	Names     engine.Names
	Highlight map[int]bool
	Only      map[int]bool // when set, only these events
	// Lines ties events to the line of a written worker's program that
	// caused them (World.ProgramLines, in the order of the events): such
	// an event says its line and can be focused, and the page highlights
	// the line in the editor while it is pointed at or focused.
	Lines []engine.EventLine
}

// eventRows writes the lines of an event list (a page's eventList). Network
// messages are left out: the picture draws them, and in words they drown
// the story.
func (w *Markup) eventRows(v *Events) {
	harm := harmRefsFrom(v.Events, 0)
	for i, e := range v.Events {
		idx := v.From + i
		if v.Only != nil && !v.Only[idx] {
			continue
		}
		if v.Only == nil && (e.Kind == engine.KindSend || e.Kind == engine.KindRecv) {
			continue
		}
		w.s(`<li class="ev k-`)
		w.s(e.Kind.String())
		if e.Kind == engine.KindViolation {
			w.s(" violation")
		}
		if o := eventOutcome(e, harm, idx); o != outcomeNone {
			w.s(" o-")
			w.s(o)
		}
		if v.Highlight[idx] {
			w.s(" hl")
		}
		w.s(`" id="`)
		w.esc(v.ID)
		w.s("-")
		w.i(idx)
		w.s(`"`)
		w.num("data-event", idx)
		line := lineOf(v.Lines, idx)
		if line > 0 {
			w.num("data-line", int(line))
			w.s(` tabindex="0"`)
		}
		w.s(`><span class="t">`)
		w.B = catalog.AppendMoment(w.B, v.Lang, e.T) // a moment's text needs no escaping
		w.s(`</span> <span class="txt">`)
		w.tmp = labs.AppendEvent(w.tmp[:0], e, v.Names, v.Lang)
		w.B = appendEsc(w.B, w.tmp)
		if line > 0 {
			w.s(`</span> <span class="ln">`)
			w.B = catalog.Append(w.B, v.Lang, "program.event.line", catalog.Int(int64(line)))
		}
		w.s("</span></li>")
	}
}

// lineOf is the program line that caused event i, or 0.
func lineOf(lines []engine.EventLine, i int) int32 {
	j, ok := slices.BinarySearchFunc(lines, int32(i), func(e engine.EventLine, t int32) int { return int(e.Event - t) })
	if !ok {
		return 0
	}
	return lines[j].Line
}

// EventRows is the lines of an event list (a page's eventList).
func EventRows(v *Events) Part { return func(w *Markup) { w.eventRows(v) } }

// now writes the "now" line, when the picture shows the present.
func (w *Markup) now(d *Diagram) {
	if d.Now.X < 0 {
		return
	}
	// The line and its label are drawn at 0 and moved to the present by
	// their group's transform, so that a live frame moves them with one
	// attribute and a text (LivePage.Next), not new markup.
	w.s(`<g class="nowline" id="`)
	w.esc(d.ID)
	w.s(`-nowline" transform="translate(`)
	w.i(d.Now.X)
	w.s(`,0)"><line class="now" x1="0" x2="0"`)
	w.num("y1", d.Now.Y1)
	w.num("y2", d.Now.Y2)
	w.s(`></line><text class="nowtext" id="`)
	w.esc(d.ID)
	w.s(`-nowtext" x="0"`)
	w.num("y", d.Now.Y1-2)
	w.attr("text-anchor", nowAnchor(d))
	w.s(">")
	w.nowText(d)
	w.s("</text></g>")
}

// nowText writes the "now" label's words.
// The time is a tspan of its own (id-nowat), which a live frame changes
// alone.
func (w *Markup) nowText(d *Diagram) {
	w.esc(catalog.T(d.Lang, "diagram.now"))
	w.s(` <tspan id="`)
	w.esc(d.ID)
	w.s(`-nowat">`)
	w.B = catalog.AppendTime(w.B, d.Lang, d.Now.At) // a time's text needs no escaping
	w.s("</tspan>")
}

// sessionCmd writes command i of a session's list, in words.
func (w *Markup) sessionCmd(lang string, i int, c engine.Command) {
	w.tmp = appendCommandText(w.tmp[:0], lang, c)
	w.cmdItem(i, w.tmp)
}

// cmdItem writes command i of a session's list, its words given.
func (w *Markup) cmdItem(i int, words []byte) {
	w.s(`<li id="cmd-`)
	w.i(i)
	w.s(`">`)
	w.B = appendEsc(w.B, words)
	w.s("</li>")
}

// SessionPanel is a session's commands, cmds, and its links, as a page
// shows them; query is the session's query, base the site's base path.
func SessionPanel(lang, base, lab string, cmds []engine.Command, query string) Part {
	return func(w *Markup) {
		w.sessionPanel(lang, base, lab, cmds, func(b []byte) []byte { return append(b, query...) })
	}
}

// sessionPanel writes a session's commands, cmds, in lang's words, and
// the links to its permalink and its picture; appendQuery appends the
// session's query. base is the site's base path.
func (w *Markup) sessionPanel(lang, base, lab string, cmds []engine.Command, appendQuery func([]byte) []byte) {
	w.s(`<details class="session"><summary>`)
	w.esc(catalog.T(lang, "lab.commands"))
	w.s(`: <span id="session-count">`)
	w.i(len(cmds))
	w.s("</span></summary> ")
	if len(cmds) == 0 {
		w.s("<p>")
		w.esc(catalog.T(lang, "lab.nocommands"))
		w.s("</p>")
	} else {
		w.s(`<ol class="cmds" id="session-cmds">`)
		for i, c := range cmds {
			w.sessionCmd(lang, i, c)
		}
		w.s("</ol>")
	}
	w.tmp = appendQuery(w.tmp[:0])
	w.s(`<p><a id="permalink" href="`)
	w.labHref(base, lang, lab, "/at?")
	w.B = appendEsc(w.B, w.tmp)
	w.s(`" data-base="`)
	w.labHref(base, lang, lab, "/at")
	w.s(`">`)
	w.esc(catalog.T(lang, "lab.permalink"))
	w.s(`</a> <button type="button" class="js-only share" data-share="#permalink"`)
	w.attr("data-copied", catalog.T(lang, "lab.copied"))
	w.s(">")
	w.esc(catalog.T(lang, "lab.share"))
	w.s(`</button> · <a id="svglink" href="`)
	w.labHref(base, lang, lab, "/diagram.svg?")
	w.B = appendEsc(w.B, w.tmp)
	w.s(`" data-base="`)
	w.labHref(base, lang, lab, "/diagram.svg")
	w.s(`">`)
	w.esc(catalog.T(lang, "lab.svg"))
	w.s("</a></p></details>")
}

// labHref writes, escaped, the URL of lab's page path (page.Href).
func (w *Markup) labHref(base, lang, lab, path string) {
	w.esc(base)
	w.s("/")
	w.esc(lang)
	w.s("/labs/")
	w.esc(lab)
	w.esc(path)
}

// tickHalf is half the width of a time label ("30 dtk" in 12 px type).
const tickHalf = 22

// ticks writes a picture's time axis: a grid line and a label a tick.
func (w *Markup) ticks(d *Diagram) {
	for _, t := range d.Ticks {
		w.s(`<line class="grid"`)
		w.num("x1", t.X)
		w.num("x2", t.X)
		w.num("y1", d.Lanes[0].Y)
		w.num("y2", d.AxisY)
		w.s(`></line> <text class="tick"`) // templ wrote a space between them
		if t.X+tickHalf > d.Width {
			// The last label, centred, would run past the picture's edge
			// ("30 dtk" cut to "30 dt"): it ends at the edge instead.
			w.num("x", d.Width-2)
			w.num("y", d.AxisY+16)
			w.s(` text-anchor="end">`)
		} else {
			w.num("x", t.X)
			w.num("y", d.AxisY+16)
			w.s(` text-anchor="middle">`)
		}
		w.B = catalog.AppendTime(w.B, d.Lang, t.At) // a time's text needs no escaping
		w.s("</text>")
	}
}
