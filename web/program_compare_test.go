package web

import (
	"html"
	"io/fs"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"leaselab/catalog"
	"leaselab/content"
)

// TestCompareOfferedAfterAPass: "compare with the reference" is offered
// only once the student's own program passed. A fresh page and a failing
// Submit have no offer, and asking for the comparison with a failing
// program (compare=1 in the address) shows none; a program that passes
// another way than the reference (a wider margin) is offered it, and
// asked, is shown the first event where the two behave differently, in
// Indonesian.
func TestCompareOfferedAfterAPass(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{AddrWork: 1e6})
	ref, err := fs.ReadFile(content.FS, "labs/write-renewal/reference.star")
	if err != nil {
		t.Fatal(err)
	}
	start, err := fs.ReadFile(content.FS, "labs/write-renewal/start.star")
	if err != nil {
		t.Fatal(err)
	}
	wider := strings.Replace(string(ref), "MARGIN = 3 * SECOND", "MARGIN = 4 * SECOND", 1)
	page := func(q url.Values) string {
		u := ts.URL + "/id/labs/write-renewal?" + q.Encode()
		var body string
		for try := 0; try < 240; try++ {
			_, body, _ = get(t, u)
			if q.Get("submit") == "" && q.Get("compare") == "" || strings.Contains(body, `data-program="1"`) {
				return body
			}
			time.Sleep(250 * time.Millisecond) // queued: the page asks again
		}
		return body
	}
	const offer, panel = `name="compare"`, `id="program-compare"`
	for _, tc := range []struct {
		name         string
		q            url.Values
		offer, shown bool
	}{
		{"a fresh page", url.Values{}, false, false},
		{"the start submitted", url.Values{"program": {string(start)}, "submit": {"1"}}, false, false},
		{"the start asking to compare", url.Values{"program": {string(start)}, "compare": {"1"}}, false, false},
		{"a passing program submitted", url.Values{"program": {wider}, "submit": {"1"}}, true, false},
		{"a passing program compared", url.Values{"program": {wider}, "compare": {"1"}}, true, true},
	} {
		body := page(tc.q)
		if got := strings.Contains(body, offer); got != tc.offer {
			t.Errorf("%s: offered %v, want %v:\n%s", tc.name, got, tc.offer, excerpt(body, "program-verdict"))
		}
		if got := strings.Contains(body, panel); got != tc.shown {
			t.Errorf("%s: compared %v, want %v:\n%s", tc.name, got, tc.shown, excerpt(body, "program-verdict"))
		}
		if !tc.shown {
			continue
		}
		m := regexp.MustCompile(`(?s)<div class="verdict compare" id="program-compare">(.*?)</div>`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("%s: no comparison block", tc.name)
		}
		text := html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[1], " "))
		for _, want := range []string{"programmu", "program rujukan", "W1", "detik ke-"} {
			if !strings.Contains(text, want) {
				t.Errorf("the comparison says %q, want %q in it", text, want)
			}
		}
		if words := catalog.Untranslated("id", text); len(words) > 0 {
			t.Errorf("English in the comparison: %q in %q", words, text)
		}
	}
}
