package web

import (
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
	"testing"

	qrcode "github.com/skip2/go-qrcode"
)

// TestQRSVG: the SVG's dark runs, read back, are the library's module
// matrix exactly, and the label is escaped.
func TestQRSVG(t *testing.T) {
	text := "https://leases.example.edu/id/join?code=ACE479"
	svg, err := qrSVG(text, `kelas "A" <b>`)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("not well-formed: %v", err)
	}
	if strings.Contains(svg, "<b>") {
		t.Error("the label is not escaped")
	}
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		t.Fatal(err)
	}
	want := q.Bitmap()
	n := len(want)
	if !strings.Contains(svg, `viewBox="0 0 `+strconv.Itoa(n)+" "+strconv.Itoa(n)+`"`) {
		t.Errorf("viewBox is not the matrix's %d modules", n)
	}
	got := make([][]bool, n)
	for i := range got {
		got[i] = make([]bool, n)
	}
	for _, m := range regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1h-(\d+)z`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		w, _ := strconv.Atoi(m[3])
		for i := x; i < x+w; i++ {
			if got[y][i] {
				t.Fatalf("module %d,%d drawn twice", i, y)
			}
			got[y][i] = true
		}
	}
	for y := range want {
		for x := range want[y] {
			if got[y][x] != want[y][x] {
				t.Fatalf("module %d,%d: drawn %v, the matrix says %v", x, y, got[y][x], want[y][x])
			}
		}
	}
}
