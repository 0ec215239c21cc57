package web

import (
	"html"
	"strconv"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// qrSVG draws text as a QR code in SVG, from the library's module matrix
// (quiet zone included): one path of dark runs, row by row, scaled by the
// page. No outside service draws it, and it stays sharp on a projector.
func qrSVG(text, label string) (string, error) {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return "", err
	}
	m := q.Bitmap()
	n := len(m)
	var b strings.Builder
	b.WriteString(`<svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 `)
	b.WriteString(strconv.Itoa(n) + " " + strconv.Itoa(n))
	b.WriteString(`" shape-rendering="crispEdges" role="img" aria-label="`)
	b.WriteString(html.EscapeString(label))
	b.WriteString(`"><rect width="100%" height="100%" fill="#fff"/><path fill="#000" d="`)
	for y, row := range m {
		for x := 0; x < len(row); {
			if !row[x] {
				x++
				continue
			}
			run := 0
			for x+run < len(row) && row[x+run] {
				run++
			}
			b.WriteString("M" + strconv.Itoa(x) + " " + strconv.Itoa(y) + "h" + strconv.Itoa(run) + "v1h-" + strconv.Itoa(run) + "z")
			x += run
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String(), nil
}
