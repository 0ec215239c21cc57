package web

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var (
	stampRE      = regexp.MustCompile(`<span class="t">([^<]*)</span>`)
	markTitleRE  = regexp.MustCompile(`<title>([^<]*)</title>`)
	idMomentRE   = regexp.MustCompile(`^detik ke-\d+(?:,\d+)?$`)
	enMomentRE   = regexp.MustCompile(`^\d+(?:\.\d+)?(?:ms|s|m|h)$`)
	idMomentHead = regexp.MustCompile(`^detik ke-\d+(?:,\d+)?: \S`)
)

// TestEventStampsAreMoments: where a lab's page stamps an event with its
// time (the event list's column, a mark's title, the pinned sentence), it
// writes a moment as the course does, "detik ke-29" in Indonesian, not a
// duration ("29 dtk"); a bar's title says from which moment to which.
func TestEventStampsAreMoments(t *testing.T) {
	ts, _ := idServer(t)
	played := url.Values{"seed": {"1"}, "do": {"until 4s", "freeze W1 for=25s", "advance 40s"}}
	for lang, stamp := range map[string]*regexp.Regexp{"id": idMomentRE, "en": enMomentRE} {
		page := idGet(t, ts.URL+"/"+lang+"/labs/w1-w2/at?"+played.Encode())
		stamps := stampRE.FindAllStringSubmatch(page, -1)
		if len(stamps) < 10 {
			t.Fatalf("%s: %d event stamps on the page", lang, len(stamps))
		}
		for _, m := range stamps {
			if !stamp.MatchString(html.UnescapeString(m[1])) {
				t.Errorf("%s: an event stamped %q", lang, m[1])
			}
		}
		if lang != "id" {
			continue
		}
		marks := 0
		for _, m := range markTitleRE.FindAllStringSubmatch(page, -1) {
			title := html.UnescapeString(m[1])
			switch {
			case strings.HasPrefix(title, "detik"):
				marks++
				if !idMomentHead.MatchString(title) {
					t.Errorf("a mark titled %q", title)
				}
			case strings.Contains(title, " dtk.."):
				t.Errorf("a bar titled %q: from which moment to which", title)
			}
		}
		if marks < 10 {
			t.Errorf("%d marks titled with their moment", marks)
		}
		if !strings.Contains(page, "detik ke-29: ") {
			t.Errorf("no pinned sentence at detik ke-29")
		}
	}
}
