package web

import (
	"net/url"
	"strings"
	"testing"
)

// TestFreezeOnIsOffered: a lab that offers a freeze at a worker's moment
// (controls: freeze: on: [check]) draws a button for it beside the plain
// freeze, in both languages, and the page without script sends it with
// the length chosen in the worker's list, as the script does: the break
// goal of break-check is reached from the page's own controls.
func TestFreezeOnIsOffered(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	for _, lang := range []string{"id", "en"} {
		_, page, _ := get(t, ts.URL+"/"+lang+"/labs/break-check")
		if !strings.Contains(page, `value="freeze W1 on=check"`) || !strings.Contains(page, T(lang, "ctl.freeze.on.check")) {
			t.Errorf("%s: the page offers no freeze of W1 at its check", lang)
		}
	}
	q := url.Values{"do": {"freeze W1 on=check"}, "for.W1": {"25s"}}
	code, page, _ := get(t, ts.URL+"/en/labs/break-check?"+q.Encode())
	if code != 200 || !strings.Contains(page, "do=freeze+W1+for%3D25s+on%3Dcheck") {
		t.Fatalf("without script the freeze does not take its length: %d", code)
	}
}
