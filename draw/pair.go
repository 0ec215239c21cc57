package draw

import (
	"context"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"leaselab/catalog"
	"leaselab/engine"
	"leaselab/labs"
)

// RenderPairSVG writes the two runs of a what-if as one SVG document: A
// above B on one time axis (both worlds stand at the same virtual time,
// so their diagrams share a scale), each run's side of the first
// difference highlighted, and the sentence that tells it above both.
func RenderPairSVG(w io.Writer, a, b *engine.World, d engine.Difference, found bool, lang, labelA, labelB, sentence string) error {
	type part struct {
		label string
		svg   string
		h     int
	}
	var parts []part
	for i, side := range []struct {
		w     *engine.World
		idx   int
		label string
	}{{a, d.A, labelA}, {b, d.B, labelB}} {
		hl := map[int]bool{}
		if found && side.idx >= 0 {
			hl[side.idx] = true
		}
		dg := NewDiagram(fmt.Sprintf("p%d", i), side.w, lang, hl)
		var sb strings.Builder
		if err := DiagramSVG(dg).Render(context.Background(), &sb); err != nil {
			return err
		}
		parts = append(parts, part{side.label, sb.String(), dg.Height})
	}
	const gap = 26
	width := dWidth
	lines := wrap(sentence, 92)
	y := 12 + 20*len(lines)
	var out strings.Builder
	for _, p := range parts {
		fmt.Fprintf(&out, `<text x="8" y="%d" font-weight="700" font-size="15">%s</text>`+"\n", y+18, html.EscapeString(p.label))
		y += gap
		// Place the diagram's own <svg> at its row.
		out.WriteString(strings.Replace(p.svg, "<svg ", fmt.Sprintf(`<svg x="0" y="%d" width="%d" height="%d" `, y, width, p.h), 1))
		out.WriteString("\n")
		y += p.h + 8
	}
	if _, err := fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" font-family="system-ui, sans-serif" font-size="14">
<rect width="100%%" height="100%%" fill="#fff"/>
`, width, y, width, y); err != nil {
		return err
	}
	for i, l := range lines {
		if _, err := fmt.Fprintf(w, `<text x="8" y="%d" font-size="15">%s</text>`+"\n", 22+20*i, html.EscapeString(l)); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, out.String()); err != nil {
		return err
	}
	_, err := io.WriteString(w, "</svg>\n")
	return err
}

// Pair is a what-if as its page draws it: run A as it ran and run B with
// one change at one moment, their pictures, and where they first part.
type Pair struct {
	Lang, Base string
	Lab        *labs.Lab
	Query      string // run A's session, as URL parameters: the way back
	ChangeIn   string // the change in the student's words
	At         engine.Time
	Runs       *engine.Pair
	PairPictures
}

// PairPictures are a what-if's two pictures, laid out into pooled ones
// (Release gives them back), and the difference they highlight.
type PairPictures struct {
	A, B  *Diagram
	Diff  engine.Difference
	Found bool
}

// LayoutPair lays out the pictures of runs, whose first difference is d
// (when found), from prev's when they picture the same runs with the same
// difference: what a pair socket's page shows. A picture laid out from
// the last one keeps the marks it had, and with them what they
// highlighted: a new difference draws anew.
func LayoutPair(runs *engine.Pair, lang string, d engine.Difference, found bool, prev *PairPictures) PairPictures {
	hlA, hlB := map[int]bool{}, map[int]bool{}
	if found && d.A >= 0 {
		hlA[d.A] = true
	}
	if found && d.B >= 0 {
		hlB[d.B] = true
	}
	var prevA, prevB *Diagram
	if prev != nil && prev.Diff == d && prev.Found == found {
		prevA, prevB = prev.A, prev.B
	}
	p := PairPictures{Diff: d, Found: found}
	p.A = livePictures.Get().(*Diagram)
	p.A.layout("wa", runs.A, lang, hlA, diagramOpts{}, prevA)
	p.B = livePictures.Get().(*Diagram)
	p.B.layout("wb", runs.B, lang, hlB, diagramOpts{}, prevB)
	return p
}

// Release gives p's pictures back to the pool, once they are drawn.
func (p *PairPictures) Release() {
	if p.A != nil {
		p.A.Release()
		p.B.Release()
	}
	p.A, p.B = nil, nil
}

// Keep makes next the pictures a pair socket's page shows; those it
// showed, which next's layout took its marks and messages from, go back
// to the pool.
func (p *PairPictures) Keep(next *PairPictures) {
	p.Release()
	*p = *next
	next.A, next.B = nil, nil
}

// PairCrumb leads back to the lab page with run A's session.
func PairCrumb(v *Pair) Part { return func(w *Markup) { w.pairCrumb(v) } }

func (w *Markup) pairCrumb(v *Pair) {
	w.esc(catalog.T(v.Lang, "home.lab"))
	w.s(`: <a href="`)
	w.esc(v.Base)
	w.s("/")
	w.esc(v.Lang)
	w.s("/labs/")
	w.esc(v.Lab.ID)
	w.s("?")
	w.esc(v.Query)
	w.s(`">`)
	w.esc(v.Lab.Title(v.Lang))
	w.s("</a>")
}

// PairLive is the part of a pair that time changes: the sentence and both
// runs. The page draws it and every frame of the pair socket redraws it.
func PairLive(v *Pair) Part { return func(w *Markup) { w.pairLive(v) } }

func (w *Markup) pairLive(v *Pair) {
	w.s(`<p id="difference" class="pin`)
	if v.Found {
		w.s(" found")
	}
	w.s(`" data-found="`)
	w.B = strconv.AppendBool(w.B, v.Found)
	w.s(`" data-now="`)
	w.B = v.Runs.A.Now().AppendTo(w.B)
	w.s(`"><strong>`)
	w.tmp = labs.AppendDifference(w.tmp[:0], v.Runs, v.Diff, v.Found, v.Lang, catalog.T(v.Lang, "whatif.nameA"), catalog.T(v.Lang, "whatif.nameB"))
	w.B = appendEsc(w.B, w.tmp)
	w.s(`</strong></p><section class="world run-a" id="run-a"><h2>`)
	w.esc(catalog.T(v.Lang, "whatif.nameA"))
	w.s(": ")
	w.esc(catalog.T(v.Lang, "whatif.asran"))
	w.s("</h2>")
	w.figure(v.A)
	w.s(`</section><section class="world run-b" id="run-b"><h2>`)
	w.esc(catalog.T(v.Lang, "whatif.nameB"))
	w.s(": ")
	w.esc(v.ChangeIn)
	w.s(" (")
	w.B = catalog.AppendTime(w.B, v.Lang, v.At)
	w.s(")</h2>")
	w.figure(v.B)
	w.s("</section>")
}
