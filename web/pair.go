package web

import (
	"context"
	"fmt"
	"html"
	"io"
	"strings"

	"leaselab/engine"
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
