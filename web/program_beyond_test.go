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

// TestProgramBeyondShown: a Redlock client that passes what the lab
// judges is shown, in Indonesian, the schedule beyond the lab's bounds
// that breaks it all the same (write-redlock-client's beyond: a pause
// between its validity check and its write), with the harm it does.
func TestProgramBeyondShown(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{})
	ref, err := fs.ReadFile(content.FS, "labs/write-redlock-client/reference.star")
	if err != nil {
		t.Fatal(err)
	}
	u := ts.URL + "/id/labs/write-redlock-client?" + url.Values{"program": {string(ref)}, "submit": {"1"}}.Encode()
	var body string
	for try := 0; try < 240; try++ {
		_, body, _ = get(t, u)
		if strings.Contains(body, `data-program="1"`) {
			break
		}
		time.Sleep(250 * time.Millisecond) // queued: the page asks again
	}
	if !strings.Contains(body, `data-correct="true" data-program="1"`) {
		t.Fatalf("the reference's verdict is not a pass:\n%s", excerpt(body, "program-verdict"))
	}
	m := regexp.MustCompile(`(?s)<div class="beyond">(.*?)</div>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no beyond block in the verdict:\n%s", excerpt(body, "program-verdict"))
	}
	text := html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[1], " "))
	for _, want := range []string{"jeda", "12 dtk", "PELANGGARAN"} {
		if !strings.Contains(text, want) {
			t.Errorf("the beyond block says %q, want %q in it", text, want)
		}
	}
	if words := catalog.Untranslated("id", text); len(words) > 0 {
		t.Errorf("English in the beyond block: %q in %q", words, text)
	}
}

// excerpt is body from the element with id on, for a failure's message.
func excerpt(body, id string) string {
	i := strings.Index(body, `id="`+id+`"`)
	if i < 0 {
		return body[:min(len(body), 2000)]
	}
	return body[i:min(len(body), i+3000)]
}
