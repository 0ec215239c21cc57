package web

import (
	"context"
	"encoding/csv"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserGrades (issue 44), in each language: a phone answers with
// how sure it is and why, over the lab page; a timer counts down in the
// bar; the reveal on the dashboard and the projector splits the share
// right between the sure and the not sure (right as the engine decides);
// the export opens in a spreadsheet-like table. With LEASELAB_SCREENSHOTS
// set, it keeps grades-phone-{lang}, grades-reveal-{lang},
// grades-dashboard-{lang}, grades-projector-{lang}, grades-page-{lang} and
// grades-export-{lang}.
func TestBrowserGrades(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"id", "en"} {
		t.Run(lang, func(t *testing.T) { browserGrades(t, lang) })
	}
}

func browserGrades(t *testing.T, lang string) {
	s, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, lang, map[string]string{"id": "Sistem Terdistribusi A", "en": "Distributed Systems A"}[lang])
	teacher.post(teach+"/settings", url.Values{"nim": {"ask"}, "confidence": {"1"}, "why": {"1"}})
	teacher.post(teach+"/activity", url.Values{"lab": {"w1-w2"}})
	teacher.post(teach+"/activity", url.Values{"lab": {"w1-w2"}, "question": {"storage-checks"}})
	teacher.post(teach+"/round", url.Values{"seconds": {"120"}})
	right, ok := s.grading().Right("w1-w2", "storage-checks")
	if !ok {
		t.Fatal("the engine does not decide storage-checks")
	}
	wrong := "silent"
	if right == wrong {
		wrong = "overwrites"
	}

	phoneCtx := browser(t, 390, 844)
	reqs := recordRequests(t, phoneCtx)
	emulate(t, phoneCtx, phone)
	do := func(ctx context.Context, what string, acts ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		for _, a := range acts {
			if err := chromedp.Do(ctx, a); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
	}
	if _, err := chromedp.RunResponse(phoneCtx, chromedp.Navigate(base+"/"+lang+"/join?code="+code)); err != nil {
		t.Fatal(err)
	}
	do(phoneCtx, "join", chromedp.SendKeys(chromedp.CSS(".joinform input[name=nick]"), "Ana"),
		chromedp.SendKeys(chromedp.CSS(".joinform input[name=nim]"), "13519001"))
	if _, err := chromedp.RunResponse(phoneCtx, chromedp.Click(chromedp.CSS(".joinform button"))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, phoneCtx, "the lab page's bar asking how sure", `!!document.querySelector("#classbar form.cb-vote input[name=sure][value=sure]")`)
	left := evalAs[string](t, phoneCtx, `document.querySelector("#classbar .timer-left").textContent`)
	waitJS(t, phoneCtx, "the bar's timer counting down", fmt.Sprintf(`document.querySelector("#classbar .timer-left").textContent !== %q`, left))
	click(t, phoneCtx, fmt.Sprintf(`#classbar input[name=choice][value=%q]`, right))
	click(t, phoneCtx, `#classbar input[name=sure][value=sure]`)
	do(phoneCtx, "answer", chromedp.SendKeys(chromedp.CSS(`#classbar input[name=why]`), map[string]string{"id": "Token W1 sudah basi", "en": "W1's token is stale"}[lang]))
	if evalBool(t, phoneCtx, scrollsSideways) {
		t.Error("the phone's page scrolls sideways with the vote's confidence and why")
	}
	screenshot(t, phoneCtx, "grades-phone-"+lang, false)
	click(t, phoneCtx, `#classbar form.cb-vote button`)
	waitJS(t, phoneCtx, "the bar saying the vote was kept", `document.querySelector("#classbar .cb-said").textContent.trim() !== ""`)

	// Three more, by form: sure and wrong, not sure and right, not sure and wrong.
	round := ""
	for i, v := range []struct{ choice, sure string }{{wrong, "sure"}, {right, "unsure"}, {wrong, "unsure"}} {
		c := studentJoins(t, base, code, fmt.Sprintf("S%d", i), "")
		if round == "" {
			_, page := c.get("/" + lang + "/")
			round = roundField.FindStringSubmatch(page)[1]
		}
		c.post("/"+lang+"/class/vote", url.Values{"round": {round}, "choice": {v.choice}, "sure": {v.sure}, "back": {"/" + lang + "/"}})
	}
	dash := browser(t, 1920, 1080)
	if _, err := chromedp.RunResponse(dash, chromedp.Navigate(base+teach)); err != nil {
		t.Fatal(err)
	}
	// Before the reveal: the timer counts down, the reasons are listed
	// without names.
	waitJS(t, dash, "the dashboard's timer and reasons", `!!document.querySelector("#teach-live .timer-left") && document.querySelectorAll("#whys .why-list li").length === 1`)
	if evalBool(t, dash, `document.getElementById("whys").textContent.includes("Ana")`) {
		t.Error("a reason on the dashboard carries its student's name")
	}
	screenshot(t, dash, "grades-dashboard-"+lang, true)
	teacher.post(teach+"/reveal", url.Values{"round": {round}})
	waitJS(t, dash, "the reveal's confidence split", `!!document.getElementById("sure-split")`)
	split := evalAs[string](t, dash, `document.getElementById("sure-split").textContent`)
	if want := map[string]string{"id": "Yang yakin: 50% benar (dari 2). Yang tidak yakin: 50% benar (dari 2).", "en": "Those sure: 50% right (of 2). Those not sure: 50% right (of 2)."}[lang]; split != want {
		t.Errorf("the split: %q, want %q", split, want)
	}
	evalBool(t, dash, `document.getElementById("reveal").scrollIntoView({block: "start"}), true`)
	screenshot(t, dash, "grades-reveal-"+lang, false)
	_, page := teacher.get(teach)
	if _, err := chromedp.RunResponse(dash, chromedp.Navigate(base+projectorOf(t, page))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, dash, "the projector's split", `!!document.getElementById("sure-split")`)
	screenshot(t, dash, "grades-projector-"+lang, false)
	if _, err := chromedp.RunResponse(dash, chromedp.Navigate(base+teach+"/grades")); err != nil {
		t.Fatal(err)
	}
	screenshot(t, dash, "grades-page-"+lang, true)

	// The export, opened as a spreadsheet shows it: a grid of cells.
	status, body, _ := teacher.do(http.MethodGet, teach+"/export.csv", nil, "")
	if status != http.StatusOK {
		t.Fatalf("export: %d", status)
	}
	sheet := filepath.Join(t.TempDir(), "sheet.html")
	if err := os.WriteFile(sheet, []byte(spreadsheet(t, body)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.RunResponse(dash, chromedp.Navigate("file://"+sheet)); err != nil {
		t.Fatal(err)
	}
	screenshot(t, dash, "grades-export-"+lang, false)
	if p := reqs.problems(); len(p) > 0 {
		t.Errorf("the phone's page reported: %v", p)
	}
}

// spreadsheet lays a CSV out as a spreadsheet shows it: lettered columns,
// numbered rows, a grid, the text of each cell as text.
func spreadsheet(t *testing.T, data string) string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`<!doctype html><meta charset="utf-8"><style>body{margin:0;font:13px Arial,sans-serif}table{border-collapse:collapse}
td,th{border:1px solid #c0c0c0;padding:2px 6px;white-space:nowrap;max-width:16em;overflow:hidden;text-overflow:ellipsis}
th{background:#f1f3f4;color:#444;font-weight:normal}tr:nth-child(2) td{font-weight:bold;background:#e8f0fe}</style><table><tr><th></th>`)
	for i := range rows[0] {
		fmt.Fprintf(&b, "<th>%c</th>", 'A'+i%26)
	}
	b.WriteString("</tr>")
	for i, r := range rows {
		fmt.Fprintf(&b, "<tr><th>%d</th>", i+1)
		for _, c := range r {
			fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(c))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	return b.String()
}
