package content_test

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"leaselab/content"
)

// unitRules are how an Indonesian text writes time, as the catalog does
// (catalog.AppendTime, catalog.AppendMoment): a duration "4 dtk", a moment
// "detik ke-4", a decimal comma.
var unitRules = []struct {
	re   *regexp.Regexp
	want string
}{
	{regexp.MustCompile(`(?i)\b(\d+(?:,\d+)?)\s+detik\b`), `a duration is written "%s dtk"`},
	{regexp.MustCompile(`(?i)\b(satu|dua|tiga|empat|lima|enam|tujuh|delapan|sembilan|sepuluh|sebelas|(?:dua|tiga|empat|lima) puluh)\s+detik\b`), `a duration is written in digits, "N dtk" (%s)`},
	{regexp.MustCompile(`(?i)\bdetik\s+(\d+(?:,\d+)?)\b`), `a moment is written "detik ke-%s"`},
	{regexp.MustCompile(`(?i)\bpada\s+(\d+(?:,\d+)?)\s+dtk\b`), `a moment is written "pada detik ke-%s"`},
	{regexp.MustCompile(`(?i)\bsejak\s+(\d+(?:,\d+)?)\s+dtk\b`), `a moment is written "sejak detik ke-%s"`},
	{regexp.MustCompile(`\b(\d+\.\d+)\s*(?:dtk|ms)\b`), `a decimal takes a comma: %s`},
}

// TestIndonesianTimeUnits: every lesson and lab text in Indonesian writes
// a duration as "4 dtk" and a moment as "detik ke-4", as the live world,
// its events and its verdicts do.
func TestIndonesianTimeUnits(t *testing.T) {
	files, _ := fs.Glob(content.FS, "*/*/id.md")
	for _, f := range files {
		data, _ := fs.ReadFile(content.FS, f)
		src := readable(string(data))
		for _, r := range unitRules {
			for _, m := range r.re.FindAllStringSubmatchIndex(src, -1) {
				line := strings.Count(src[:m[0]], "\n") + 1
				t.Errorf("%s:%d: %q: %s", f, line, strings.Join(strings.Fields(src[m[0]:m[1]]), " "), fmt.Sprintf(r.want, src[m[2]:m[3]]))
			}
		}
	}
}
