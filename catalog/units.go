package catalog

import (
	"fmt"
	"regexp"
	"strings"
)

// timeRule is one way a text writes a time otherwise than the course
// does, and what the course writes instead (a format of the number).
type timeRule struct {
	re   *regexp.Regexp
	want string
}

// timeRules are, by language, how a text must not write time. In
// Indonesian a duration is "4 dtk" (AppendTime), a moment "detik ke-4"
// (AppendMoment), and a decimal takes a comma: a stamp in a column or
// before a colon ("29 dtk: …"), "pada 1 dtk" and a Go duration ("30s")
// are slips a student reads.
var timeRules = map[string][]timeRule{
	"id": {
		{regexp.MustCompile(`(?i)(?:^|[^#\p{L}\p{N},.])(\d+(?:,\d+)?)[ \t]+detik\b`), `a duration is written "%s dtk"`},
		{regexp.MustCompile(`(?i)\b(satu|dua|tiga|empat|lima|enam|tujuh|delapan|sembilan|sepuluh|sebelas|(?:dua|tiga|empat|lima) puluh)[ \t]+detik\b`), `a duration is written in digits, "N dtk" (%s)`},
		{regexp.MustCompile(`(?i)\bdetik[ \t]+(\d+(?:,\d+)?)\b`), `a moment is written "detik ke-%s"`},
		{regexp.MustCompile(`(?i)\b(?:pada|sejak|di)[ \t]+(\d+(?:,\d+)?)[ \t]+(?:dtk|ms|mnt)\b`), `a moment is written "pada detik ke-%s"`},
		{regexp.MustCompile(`(?i)\bdi[ \t]+detik[ \t]+ke-(\d+(?:,\d+)?)`), `a moment is "pada detik ke-%s", one form throughout`},
		{regexp.MustCompile(`(?m)(?:^|#\d+)[ \t]*(\d+(?:,\d+)?)[ \t]+(?:dtk|ms|mnt)[ \t]{2,}\S`), `an event's moment is stamped "detik ke-%s"`},
		{regexp.MustCompile(`(?m)^[ \t]*(\d+(?:,\d+)?)[ \t]+(?:dtk|ms|mnt):`), `an event's moment is stamped "detik ke-%s:"`},
		{regexp.MustCompile(`\b(\d+\.\d+)[ \t]*(?:dtk|ms|mnt)\b`), `a decimal takes a comma: %s`},
		{regexp.MustCompile(`(?m)(?:^|[ \t(])(\d+(?:\.\d+)?(?:ms|s|m|h))(?:$|[ \t.,;:)])`), `a time is the course's "N dtk" or "detik ke-N", not Go's %s`},
	},
}

// TimeSlip is one place a text writes a time otherwise than the course
// does: where it starts (a byte offset), the words found, and what to
// write instead.
type TimeSlip struct {
	At         int
	Text, Want string
}

func (s TimeSlip) String() string { return fmt.Sprintf("%q: %s", s.Text, s.Want) }

// TimeSlips lists where text, in lang, writes a time otherwise than the
// course does: for Indonesian a duration "4 dtk", a moment "detik ke-4", a
// decimal comma. Each is found within a line (a page's text has a line
// for each element; a Markdown paragraph's lines are joined first). A
// text with commands in it (syntax: "until 30s", a lesson's {{…}}) must
// leave them out first. Tests of every surface a student reads (lessons,
// pages, frames, the command line) hold their text to it.
func TimeSlips(lang, text string) []TimeSlip {
	var out []TimeSlip
	for _, r := range timeRules[lang] {
		for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
			out = append(out, TimeSlip{At: m[2], Text: strings.Join(strings.Fields(text[m[0]:m[1]]), " "), Want: fmt.Sprintf(r.want, text[m[2]:m[3]])})
		}
	}
	return out
}
