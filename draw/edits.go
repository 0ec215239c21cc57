package draw

import (
	"context"

	"github.com/a-h/templ"
)

// Edits are changes to a page: ops on its elements by id, their texts
// (targets, attribute names, markup) written one after another into one
// buffer, the markup straight from the writers that make it (Markup, or a
// templ component rendered into it), so that a frame makes no string per
// op. A live frame is Edits; the wire (package live) encodes them.
type Edits struct {
	Markup // the texts
	Ops    []Op
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
)

// opNames are the ops' names, as docs/protocol.md has them.
var opNames = [...]string{OpReplace: "replace", OpAppend: "append", OpSwap: "swap", OpRemove: "remove", OpText: "text", OpAttr: "attr"}

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
func (e *Edits) elem(d *Diagram, kind byte, key int) Span {
	at := e.At()
	e.s(d.ID)
	e.B = append(e.B, '-', kind)
	e.i(key)
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
