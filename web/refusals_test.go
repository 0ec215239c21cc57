package web

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"leaselab/labs"
	"leaselab/live"
)

// TestAnswersRefusedInWords: an answer the question does not offer (one
// of 4 KB, a short one), a question and a goal the lab does not have,
// each get their own sentence in the page's language, over the socket
// and on the page without script, never "this command cannot be carried
// out"; and none reaches the engine.
func TestAnswersRefusedInWords(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	big := strings.Repeat("x", 4000)
	id := dialLab(t, ts.URL, "/id/labs/w1-w2/ws")
	en := dialLab(t, ts.URL, "/en/labs/w1-w2/ws")
	for _, tc := range []struct {
		ws   *wsClient
		m    live.ClientMsg
		want string
	}{
		{id, live.ClientMsg{Type: "answer", Question: "storage-checks", Choice: big}, "jawaban ini panjangnya 4000 bita"},
		{en, live.ClientMsg{Type: "answer", Question: "storage-checks", Choice: big}, "this answer is 4000 bytes long"},
		{en, live.ClientMsg{Type: "answer", Question: "storage-checks", Choice: "maybe"}, `"maybe" is not one of this question's choices`},
		{id, live.ClientMsg{Type: "answer", Question: "storage-checks", Choice: "maybe"}, `"maybe" bukan salah satu pilihan`},
		{en, live.ClientMsg{Type: "answer", Question: "nope", Choice: "rejected"}, `this lab has no question "nope"`},
		{id, live.ClientMsg{Type: "goal", Goal: "nope"}, `lab ini tidak punya tugas "nope"`},
		{en, live.ClientMsg{Type: "goal", Goal: strings.Repeat("g", 500)}, `this lab has no goal "` + strings.Repeat("g", 40) + `…"`},
	} {
		r := tc.ws.call(tc.m)
		if r.Type != "error" || !strings.Contains(r.Error, tc.want) {
			t.Errorf("%s %q/%q: %s %q, want %q", tc.m.Type, shortText(tc.m.Question+tc.m.Goal), shortText(tc.m.Choice), r.Type, r.Error, tc.want)
		}
	}
	for _, tc := range []struct{ path, want string }{
		{"/id/labs/w1-w2?q=storage-checks&choice=" + big, "jawaban ini panjangnya 4000 bita"},
		{"/en/labs/w1-w2?q=nope&choice=rejected", "this lab has no question &#34;nope&#34;"},
		{"/en/labs/w1-w2?goal=nope", "this lab has no goal &#34;nope&#34;"},
	} {
		code, page, _ := get(t, ts.URL+tc.path)
		if code != http.StatusOK || !strings.Contains(page, tc.want) || strings.Contains(page, "cannot be carried out") {
			t.Errorf("%s: %d, the page does not say %q", shortText(tc.path), code, tc.want)
		}
	}
}

// TestSearchStoppedFromOutside: a search whose process is ended by a
// signal (as SIGTERM ends it when the machine stops) is said to have
// been stopped, in the student's language, on the stream and on the
// page without script, not as a server error.
func TestSearchStoppedFromOutside(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to stand for a search process")
	}
	_, ts := newTestServer(t, Config{SearchCommand: func(ctx context.Context, lab string, opt labs.SearchOptions) *exec.Cmd {
		return exec.CommandContext(ctx, sh, "-c", "kill -TERM $$")
	}})
	events, stop := openSearch(t, ts.URL+"/id/labs/break-fencing/search?goal=one-pause&seed=0")
	defer stop()
	if v, _ := last(t, events); v.name != "failed" || !strings.Contains(v.data, "pencarian dihentikan sebelum selesai") {
		t.Errorf("the stream of a search stopped from outside ended with %q: %q", v.name, v.data)
	}
	code, page, _ := get(t, ts.URL+"/en/labs/break-fencing/search?goal=one-pause&seed=1")
	if code != http.StatusServiceUnavailable || !strings.Contains(page, "the search was stopped before it finished") {
		t.Errorf("the page of a search stopped from outside: %d\n%s", code, clipText(page))
	}
}
