package live

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"leaselab/engine"
	"leaselab/labs"
	"leaselab/labsession"
)

// pageModel is the part of a lab page frames change, as a document tree:
// each target's content, as the page's script leaves it after applying a
// frame's ops (static/ops.js, applyOp).
type pageModel struct {
	t     *testing.T
	roots map[string]*html.Node // the frame targets: a <div id=target> each
}

func newPageModel(t *testing.T) *pageModel {
	return &pageModel{t: t, roots: map[string]*html.Node{}}
}

func (p *pageModel) parse(ctx *html.Node, s string) []*html.Node {
	p.t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(s), ctx)
	if err != nil {
		p.t.Fatalf("parse %q: %v", s, err)
	}
	return nodes
}

func (p *pageModel) byID(id string) *html.Node {
	if r, ok := p.roots[id]; ok {
		return r
	}
	var find func(n *html.Node) *html.Node
	find = func(n *html.Node) *html.Node {
		for _, a := range n.Attr {
			if a.Key == "id" && a.Val == id {
				return n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if f := find(c); f != nil {
				return f
			}
		}
		return nil
	}
	for _, r := range p.roots {
		if f := find(r); f != nil {
			return f
		}
	}
	return nil
}

func (p *pageModel) apply(sent serverMsg) {
	t := p.t
	t.Helper()
	m := wireOf(sent)
	if m.Type == "error" {
		t.Fatalf("frame error: %s", m.Error)
	}
	// The time and the "now" line's place, which the page writes itself
	// (static/ops.js, clockOps), before the message's ops.
	var ops []wireOp
	if m.X != nil {
		x := strconv.Itoa(*m.X)
		ops = append(ops, wireOp{Op: "attr", Target: "live-nowline", Attr: "transform", HTML: "translate(" + x + ",0)"},
			wireOp{Op: "attr", Target: "live-box", Attr: "data-focus", HTML: x})
	}
	if m.At != "" {
		ops = append(ops, wireOp{Op: "text", Target: "now", HTML: m.At}, wireOp{Op: "text", Target: "live-nowat", HTML: m.At})
	}
	for _, o := range append(ops, m.Ops...) {
		el := p.byID(o.Target)
		if el == nil && o.Op == "replace" {
			// A target the page has but this model has not seen yet.
			el = &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div, Attr: []html.Attribute{{Key: "id", Val: o.Target}}}
			p.roots[o.Target] = el
		}
		if el == nil {
			t.Fatalf("op %s on #%s: no such element", o.Op, o.Target)
		}
		switch o.Op {
		case "replace", "append":
			if o.Op == "replace" {
				for el.FirstChild != nil {
					el.RemoveChild(el.FirstChild)
				}
			}
			for _, n := range p.parse(el, o.HTML) {
				el.AppendChild(n)
			}
		case "before":
			for _, n := range p.parse(el.Parent, o.HTML) {
				el.Parent.InsertBefore(n, el)
			}
		case "swap":
			for _, n := range p.parse(el.Parent, o.HTML) {
				el.Parent.InsertBefore(n, el)
			}
			el.Parent.RemoveChild(el)
		case "remove":
			el.Parent.RemoveChild(el)
		case "text":
			for el.FirstChild != nil {
				el.RemoveChild(el.FirstChild)
			}
			el.AppendChild(&html.Node{Type: html.TextNode, Data: o.HTML})
		case "attr":
			set := false
			for i := range el.Attr {
				if el.Attr[i].Key == o.Attr {
					el.Attr[i].Val, set = o.HTML, true
				}
			}
			if !set {
				el.Attr = append(el.Attr, html.Attribute{Key: o.Attr, Val: o.HTML})
			}
		case "scale":
			rescale(el, o.HTML)
		default:
			t.Fatalf("unknown op %q", o.Op)
		}
	}
	// The script points the session's links at the new query.
	if m.Query != "" {
		for _, r := range p.roots {
			walk(r, func(n *html.Node) {
				base, href := -1, -1
				for i, a := range n.Attr {
					switch a.Key {
					case "data-base":
						base = i
					case "href":
						href = i
					}
				}
				if base >= 0 && href >= 0 {
					n.Attr[href].Val = n.Attr[base].Val + "?" + m.Query
				}
			})
		}
	}
}

// rescale moves the elements in el with a data-x from the scale el's
// data-k says to k, as the page does (static/ops.js, rescale): each by
// the difference of the nearest units to data-x times each, in its x,
// cx, x1 and x2 and its path's first point.
func rescale(el *html.Node, k string) {
	attr := func(n *html.Node, key string) *html.Attribute {
		for i := range n.Attr {
			if n.Attr[i].Key == key {
				return &n.Attr[i]
			}
		}
		return nil
	}
	from, _ := strconv.ParseFloat(attr(el, "data-k").Val, 64)
	to, _ := strconv.ParseFloat(k, 64)
	attr(el, "data-k").Val = k
	// Math.round: halves up, as math.Round does for the page's x, which
	// are not negative.
	round := func(v float64) int { return int(math.Floor(v + 0.5)) }
	walk(el, func(e *html.Node) {
		a := attr(e, "data-x")
		if a == nil {
			return
		}
		x, _ := strconv.Atoi(a.Val)
		dx := round(float64(x)*to) - round(float64(x)*from)
		if dx == 0 {
			return
		}
		walk(e, func(n *html.Node) {
			for _, key := range []string{"x", "cx", "x1", "x2"} {
				if v := attr(n, key); v != nil {
					f, _ := strconv.ParseFloat(v.Val, 64)
					v.Val = strconv.FormatFloat(f+float64(dx), 'f', -1, 64)
				}
			}
			if d := attr(n, "d"); d != nil && strings.HasPrefix(d.Val, "M") {
				end := 1 + strings.IndexFunc(d.Val[1:], func(r rune) bool { return r != '-' && r != '.' && (r < '0' || r > '9') })
				if end == 0 {
					end = len(d.Val)
				}
				f, _ := strconv.ParseFloat(d.Val[1:end], 64)
				d.Val = "M" + strconv.FormatFloat(f+float64(dx), 'f', -1, 64) + d.Val[end:]
			}
		})
	})
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

// content is a target's content as markup.
func (p *pageModel) content(target string) string {
	var b bytes.Buffer
	r := p.roots[target]
	if r == nil {
		return ""
	}
	for c := r.FirstChild; c != nil; c = c.NextSibling {
		if err := html.Render(&b, c); err != nil {
			p.t.Fatal(err)
		}
	}
	return b.String()
}

// A page that followed a playing session's frames, through pauses, steps,
// commands and a reset, shows what a fresh render of the same world shows:
// the incremental frames add up to the whole picture.
func TestFramesAddUpToAFreshRender(t *testing.T) {
	c, cfg := testCourse(t), testConfig()
	for _, tc := range []struct {
		lab  string
		cmds []string // done while playing, one every few ticks
	}{
		{"w1-w2", []string{"fencing on", "freeze W1 for=25s", "crash W2", "restart W2"}},
		{"w1-w2", []string{"freeze W1 for=25s"}}, // harm: nothing checks tokens
		{"renew-load", nil},
		{"split-brain", []string{"partition L1 coord", "fencing on", "heal L1 coord"}},
	} {
		lab := c.Lab(tc.lab)
		sess, err := labsession.New(lab, 1)
		if err != nil {
			t.Fatal(err)
		}
		l := &Conn{cfg: cfg, lab: lab, lang: "id", sess: sess, runs: labRun{sess}, shown: -1, playing: true}
		page := newPageModel(t)
		page.apply(l.frame(0))
		incremental := 0
		check := func(when string) {
			t.Helper()
			page.matchFresh(cfg, lab, sess, tc.lab+", "+when)
		}
		tick := func(n int) {
			for k := range n {
				if err := sess.Apply(engine.Command{Kind: engine.CmdAdvance, Dur: engine.Second}); err != nil {
					t.Fatal(err)
				}
				m := l.frame(0)
				if !hasReplace(m, "diagram") {
					incremental++
				}
				page.apply(m)
				if k%7 == 0 {
					check(sess.World().Now().String())
				}
			}
		}
		do := func(cmd string) {
			if err := sess.Do(cmd); err != nil {
				t.Fatalf("%s: %s: %v", tc.lab, cmd, err)
			}
			page.apply(l.frame(0))
			check(cmd)
		}
		tick(5)
		for _, cmd := range tc.cmds {
			do(cmd)
			tick(6)
		}
		tick(20)
		l.stopPlay()
		do("advance 2s")
		// Play again: the page shows the paused world as a whole frame
		// drew it, so the first play frame sends only what changed.
		l.startPlay(time.Now(), 1)
		l.keepShown() // as a play frame does before it moves the world on
		if err := sess.Apply(engine.Command{Kind: engine.CmdAdvance, Dur: engine.Second}); err != nil {
			t.Fatal(err)
		}
		first := l.frame(0)
		for _, target := range []string{"diagram", "session"} {
			if hasReplace(first, target) {
				t.Errorf("%s: the first play frame after a pause replaces #%s", tc.lab, target)
			}
		}
		page.apply(first)
		check("the first play frame after a pause")
		tick(150) // past the live picture's window
		do("reset")
		tick(20)
		check("the end")
		if incremental < 150 {
			t.Errorf("%s: only %d of the play frames were incremental", tc.lab, incremental)
		}
		if !strings.Contains(page.content("events"), `id="events-0"`) {
			t.Errorf("%s: the event list lacks its first event after the reset", tc.lab)
		}
	}
}

func hasReplace(m serverMsg, target string) bool {
	for _, o := range wireOf(m).Ops {
		if o.Op == "replace" && o.Target == target {
			return true
		}
	}
	return false
}

// firstDiff shows where two renderings part.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-200, 0)
	return "got:  …" + got[lo:min(i+200, len(got))] + "\nwant: …" + want[lo:min(i+200, len(want))]
}

// TestPlayFramesWithinASecond plays frames 0.2 s apart, as a page asks
// for them: a frame within the second of the one before it carries no
// words that tell the time, no last command's words and no query (the
// page would only hold them until the next second), and the first frame
// of each second carries them all, so that the page, which has every
// frame's ops then, equals a fresh render; as does a pause within a
// second.
func TestPlayFramesWithinASecond(t *testing.T) {
	c, cfg := testCourse(t), testConfig()
	for _, id := range []string{"w1-w2", "renew-load"} {
		lab := c.Lab(id)
		sess, err := labsession.New(lab, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.Do("advance 1s"); err != nil { // a command whose words grow while playing
			t.Fatal(err)
		}
		l := &Conn{cfg: cfg, lab: lab, lang: "id", sess: sess, runs: labRun{sess}, shown: -1, playing: true}
		page := newPageModel(t)
		page.apply(l.frame(0))
		check := func(when string) {
			t.Helper()
			page.matchFresh(cfg, lab, sess, id+", "+when)
		}
		within, whole := 0, 0
		last := sess.World().Now() / engine.Second
		for range 60 {
			if err := sess.Apply(engine.Command{Kind: engine.CmdAdvance, Dur: 200 * engine.Millisecond}); err != nil {
				t.Fatal(err)
			}
			now := sess.World().Now()
			sent := l.frame(0)
			m := wireOf(sent)
			cmdText := slices.ContainsFunc(m.Ops, func(o wireOp) bool { return strings.HasPrefix(o.Target, "cmd-") || o.Target == "live-nowat" })
			if now/engine.Second == last {
				within++
				if m.At != "" || m.Query != "" || cmdText {
					t.Errorf("%s at %s, within a second: at %q, query %q, the time's or a command's words: %v", id, now, m.At, m.Query, cmdText)
				}
				page.apply(sent)
				continue
			}
			whole++
			last = now / engine.Second
			if m.At == "" || m.Query == "" || !slices.ContainsFunc(m.Ops, func(o wireOp) bool { return o.Target == "cmd-0" }) {
				t.Errorf("%s at %s, a new second: at %q, query %q, ops %v", id, now, m.At, m.Query, m.Ops)
			}
			page.apply(sent)
			check(now.String())
		}
		if within < 40 || whole < 10 {
			t.Errorf("%s: %d frames within a second, %d of a new one", id, within, whole)
		}
		// A pause within the second: its frame says it all.
		if err := sess.Apply(engine.Command{Kind: engine.CmdAdvance, Dur: 200 * engine.Millisecond}); err != nil {
			t.Fatal(err)
		}
		page.apply(l.frame(0))
		if now := sess.World().Now(); now%engine.Second == 0 {
			t.Fatalf("%s: paused on a whole second (%s): nothing to tell apart", id, now)
		}
		page.apply(l.pauseAck(9))
		check("a pause within a second")
	}
}

// matchFresh fails the test where the page differs from what a fresh
// connection to sess would draw (a page's first frame), saying when.
func (p *pageModel) matchFresh(cfg *Config, lab *labs.Lab, sess *labsession.Session, when string) {
	p.t.Helper()
	fresh := &Conn{cfg: cfg, lab: lab, lang: "id", sess: sess, runs: labRun{sess}, shown: -1}
	want := newPageModel(p.t)
	want.apply(fresh.frame(0))
	for target := range want.roots {
		if got, exp := p.content(target), want.content(target); got != exp {
			p.t.Fatalf("%s: #%s differs from a fresh render:\n%s", when, target, firstDiff(got, exp))
		}
	}
}

// A paused page's commands are answered with what they changed, not the
// page again (issue 48: a tap on a paused renew-load page brought a
// whole picture, which a slow phone parsed and laid out anew), and the
// page they leave shows what a fresh render shows: through a new scale
// of the picture, a command that fails, a freeze (w1-w2) and a reset, which
// starts a new world and so is drawn whole.
func TestPausedCommandsSendWhatChanged(t *testing.T) {
	c, cfg := testCourse(t), testConfig()
	for _, tc := range []struct{ id, cmd string }{{"w1-w2", "freeze W1"}, {"renew-load", "advance 1s"}} {
		id := tc.id
		lab := c.Lab(id)
		sess, err := labsession.New(lab, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.Do("until 60s"); err != nil {
			t.Fatal(err)
		}
		l := &Conn{cfg: cfg, lab: lab, lang: "id", sess: sess, runs: labRun{sess}, shown: -1}
		page := newPageModel(t)
		page.apply(l.frame(0))
		whole := 0
		for _, cmd := range []string{"advance 5s", "advance 5s", "advance 5s", "nonsense", "advance 5s", tc.cmd, "advance 5s", "reset", "advance 5s"} {
			m := l.runs.handle(l, ClientMsg{ID: 1, Type: "do", kind: msgDo, Cmd: cmd})
			if m.Type == "error" {
				if cmd != "nonsense" {
					t.Fatalf("%s: %s: %s", id, cmd, m.Error)
				}
				continue
			}
			if hasReplace(m, "diagram") {
				whole++
			}
			page.apply(m)
			page.matchFresh(cfg, lab, sess, id+", paused, "+cmd)
			if l.view != nil {
				t.Fatalf("%s: a paused session keeps its page after %q", id, cmd)
			}
		}
		if whole != 1 { // the reset's
			t.Errorf("%s: %d answers to a paused page's commands drew the picture whole, want the reset's alone", id, whole)
		}
	}
}

// TestFramesAddUpThroughAWindowThatGrows plays split-brain, a busy
// world, for four minutes of its time, a frame every 0.2 s: its live
// picture's window narrows and grows again, and what comes back at its
// left edge goes in before the marks and messages the page has ("before"),
// not as the layers drawn again. The page adds up to a fresh render at
// every frame that does so, and at the end.
func TestFramesAddUpThroughAWindowThatGrows(t *testing.T) {
	c, cfg := testCourse(t), testConfig()
	lab := c.Lab("split-brain")
	sess, err := labsession.New(lab, 1)
	if err != nil {
		t.Fatal(err)
	}
	l := &Conn{cfg: cfg, lab: lab, lang: "id", sess: sess, runs: labRun{sess}, shown: -1, playing: true}
	page := newPageModel(t)
	page.apply(l.frame(0))
	befores := 0
	for range int(4 * engine.Minute / (200 * engine.Millisecond)) {
		if err := sess.Apply(engine.Command{Kind: engine.CmdAdvance, Dur: 200 * engine.Millisecond}); err != nil {
			t.Fatal(err)
		}
		m := l.frame(0)
		if hasReplace(m, "diagram") || hasReplace(m, "live-marks") || hasReplace(m, "live-msgs") {
			t.Errorf("at %s a play frame draws the picture or a layer again", sess.World().Now())
		}
		page.apply(m)
		if slices.ContainsFunc(wireOf(m).Ops, func(o wireOp) bool { return o.Op == "before" }) {
			befores++
			page.matchFresh(cfg, lab, sess, "split-brain, "+sess.World().Now().String())
		}
	}
	page.matchFresh(cfg, lab, sess, "split-brain, at the end")
	if befores == 0 {
		t.Errorf("no frame put anything before what the page has: the window never grew again at its left edge")
	}
}
