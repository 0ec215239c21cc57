package content_test

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"leaselab/catalog"
	"leaselab/content"
)

// TestIndonesianTimeUnits: every lesson and lab text in Indonesian writes
// a duration as "4 dtk" and a moment as "detik ke-4", with a decimal
// comma, as the live world, its events and its verdicts do
// (catalog.TimeSlips, which the pages and the command line are held to
// as well).
func TestIndonesianTimeUnits(t *testing.T) {
	files, _ := fs.Glob(content.FS, "*/*/id.md")
	for _, f := range files {
		data, _ := fs.ReadFile(content.FS, f)
		// A directive ({{compare lease 30s at 0s}}) is syntax.
		text := directiveRE.ReplaceAllString(readable(string(data)), " ")
		for _, slip := range catalog.TimeSlips("id", paragraphs(text)) {
			t.Errorf("%s:%d: %s", f, strings.Count(text[:slip.At], "\n")+1, slip)
		}
	}
}

var directiveRE = regexp.MustCompile(`\{\{[^}\n]*\}\}`)

// paragraphs is text with each line break inside a paragraph a space, as
// a reader reads it: "4\ndetik" is "4 detik". Every other byte stays
// where it was.
func paragraphs(text string) string {
	b := []byte(text)
	for i := 1; i+1 < len(b); i++ {
		if b[i] == '\n' && b[i-1] != '\n' && b[i+1] != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}
