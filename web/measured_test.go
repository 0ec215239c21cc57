package web

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"leaselab/catalog"
)

var (
	measuredForm  = regexp.MustCompile(`(?s)<form class="measuredform" method="get" action="([^"]+)">(.*?)</form>`)
	measuredInput = regexp.MustCompile(`<input [^>]*name="([^"]+)"[^>]*value="([^"]*)"`)
	measuredBox   = regexp.MustCompile(`(?s)<div class="verdict-box" id="measured-verdict"[^>]*>(.*?)</section>`)
)

// measuredSubmit reads the p99 form of page, as a browser would, sets
// the figures in set, and returns the address the form sends.
func measuredSubmit(t *testing.T, base, page string, set map[string]string) string {
	t.Helper()
	m := measuredForm.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no p99 form on the page")
	}
	q := url.Values{}
	for _, in := range measuredInput.FindAllStringSubmatch(m[2], -1) {
		q.Add(html.UnescapeString(in[1]), html.UnescapeString(in[2]))
	}
	for k, v := range set {
		q.Set("m."+k, v)
	}
	action, _, _ := strings.Cut(html.UnescapeString(m[1]), "#")
	return base + action + "?" + q.Encode()
}

// TestChallengeP99Form: the p99 exercise's form on /id/ shows the
// starting figures in Indonesian ("10 dtk", "0,1%"), takes figures
// written the Indonesian way, and answers with the engine's budget and
// verdict in Indonesian; a figure that does not read, or a margin that
// does not fit in the lease, is said in Indonesian beside the form, and
// the page still answers 200.
func TestChallengeP99Form(t *testing.T) {
	t.Parallel()
	ts, _ := idServer(t)
	page := idGet(t, ts.URL+"/id/labs/p99-margin")
	for _, want := range []string{`name="m.lease" value="10 dtk"`, `name="m.drift" value="0,1%"`, `name="measure" value="1"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
	verdict := func(set map[string]string) string {
		t.Helper()
		body := idGet(t, measuredSubmit(t, ts.URL, page, set))
		box := measuredBox.FindStringSubmatch(body)
		if box == nil {
			t.Fatalf("%v: no verdict box", set)
		}
		text := idVisibleText(box[1])
		if words := catalog.Untranslated("id", text); len(words) > 0 {
			t.Errorf("%v: English in the verdict: %q", set, words)
		}
		return text
	}
	got := verdict(map[string]string{"pause": "0,5 dtk", "drift": "0,05 %"})
	for _, want := range []string{"Anggaran yang diturunkan mesin", "jeda 500 ms", "0,05% lebih lambat", "Pada angka p99-mu, margin ini bertahan", "Lewat p99", "sudah mematahkannya", "Kejadian penentu: "} {
		if !strings.Contains(got, want) {
			t.Errorf("the verdict lacks %q:\n%s", want, got)
		}
	}
	for set, want := range map[[2]string]string{
		{"pause", "lima detik"}: "tidak terbaca sebagai lama waktu",
		{"drift", "5"}:          "tidak terbaca sebagai laju jam",
		{"delay", "20 dtk"}:     "di luar batas",
		{"lease", "2 dtk"}:      "tidak muat sebelum tenggat sendiri",
	} {
		if got := verdict(map[string]string{set[0]: set[1]}); !strings.Contains(got, want) {
			t.Errorf("%s=%q: %q, want %q", set[0], set[1], strings.TrimSpace(got), want)
		}
	}
}

// TestChallengeP99InBrowser: in Chromium, on /id/, a student types their
// own pause into the p99 form and sends it; the page comes back at the
// verdict, with the engine's budget for that pause in Indonesian.
func TestChallengeP99InBrowser(t *testing.T) {
	t.Parallel()
	ctx := browser(t, 1280, 900)
	_, ts := newTestServer(t, Config{})
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/p99-margin")); err != nil {
		t.Fatal(err)
	}
	pause := chromedp.CSS(`.measuredform input[name="m.pause"]`)
	evalBool(t, ctx, `(document.querySelector('.measuredform input[name="m.pause"]').value = "", true)`)
	if err := chromedp.Do(ctx, chromedp.SendKeys(pause, "1,2 dtk")); err != nil {
		t.Fatal(err)
	}
	clickNav(t, ctx, `.measuredform button[type=submit]`)
	waitJS(t, ctx, "the verdict", `document.querySelector("#measured-verdict .verdict") !== null`)
	if address := evalString(t, ctx, `location.href`); !strings.Contains(address, "measure=1") || !strings.HasSuffix(address, "#measured") {
		t.Errorf("the form went to %s", address)
	}
	text := evalString(t, ctx, `document.querySelector("#measured-verdict").textContent`)
	for _, want := range []string{"jeda 1,2 dtk", "Margin:", "Lewat p99"} {
		if !strings.Contains(text, want) {
			t.Errorf("the verdict lacks %q: %.600s", want, text)
		}
	}
}
