package web

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"leaselab/draw"
	"leaselab/labsession"
	"leaselab/live"
)

// w1w2PairQuery is W1 frozen at 4s for 25s, run to 30s, and B with
// fencing on from 4s: the runs part at W1's write at 29s.
const w1w2PairQuery = "do=until+4s&do=freeze+W1+for%3D25s&do=until+30s&vs=fencing+on&vs-at=4s"

// pairLiveOf is the pair page's live part as the server draws it for a
// query: what every frame of the pair socket must equal.
func pairLiveOf(t *testing.T, base, lang, query string) string {
	t.Helper()
	code, body, _ := get(t, base+"/"+lang+"/labs/w1-w2/whatif?"+query)
	if code != http.StatusOK {
		t.Fatalf("pair page %s: status %d", query, code)
	}
	const open, end = `<div id="pair-live">`, `</div><p class="share-box share-here">`
	i, j := strings.Index(body, open), strings.Index(body, end)
	if i < 0 || j < i {
		t.Fatalf("pair page %s has no live part", query)
	}
	return body[i+len(open) : j]
}

// openPairOf is the pair a query names, built by the engine here.
func openPairOf(t *testing.T, query string) *labsession.Pair {
	t.Helper()
	course := embeddedCourse(t)
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := labsession.OpenPair(course.Lab("w1-w2"), q)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The pair socket moves both runs on together, keeps the difference and
// its sentence, draws what the pair page would at the same address, and
// refuses what is not time without changing the pair.
func TestLivePair(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{})
	sentence := w1w2Pair(t)
	c := dialLab(t, ts.URL, "/id/labs/w1-w2/whatif/ws?"+w1w2PairQuery)
	if got, want := opHTML(c.first, "pair-live"), pairLiveOf(t, ts.URL, "id", w1w2PairQuery); got != want {
		t.Errorf("first frame differs from the page's live part")
	}

	query := c.first.Query
	for _, cmd := range []string{"advance 5s", "advance 1s", "until 40s"} {
		r := c.do(cmd)
		if r.Query == query {
			t.Fatalf("%s: the pair's query did not change", cmd)
		}
		query = r.Query
		p := openPairOf(t, r.Query)
		if p.A().Now() != p.B().Now() || r.Now != p.A().Now().String() {
			t.Errorf("%s: frame at %s; the engine has A at %s and B at %s", cmd, r.Now, p.A().Now(), p.B().Now())
		}
		live := opHTML(r, "pair-live")
		if !strings.Contains(live, html.EscapeString(sentence)) {
			t.Errorf("%s: the difference sentence is gone", cmd)
		}
		if live != pairLiveOf(t, ts.URL, "id", r.Query) {
			t.Errorf("%s: the frame differs from the pair page at %s", cmd, r.Query)
		}
		if !strings.Contains(opHTML(r, "pair-crumb"), "/id/labs/w1-w2?") {
			t.Errorf("%s: no way back to the lab page with run A", cmd)
		}
	}
	if !strings.Contains(query, "vs=fencing+on&vs-at=4s") {
		t.Errorf("the pair's query lost its change: %s", query)
	}

	// What is not time is refused in the student's language, and the pair
	// stays as it was: the next time command goes on from the same place.
	for _, bad := range []live.ClientMsg{
		{Type: "do", Cmd: "fencing off"},
		{Type: "do", Cmd: "reset"},
		{Type: "do", Cmd: "freeze W2"},
		{Type: "replay"},
		{Type: "answer", Question: "storage-checks", Choice: "rejected"},
		{Type: "goal", Goal: "reject-stale"},
	} {
		m := c.call(bad)
		if m.Type != "error" || m.Error != T("id", "whatif.timeonly") {
			t.Errorf("%+v: %s %q, want refused as not a time command", bad, m.Type, m.Error)
		}
		if len(m.Ops) > 0 || m.Query != "" {
			t.Errorf("%+v: a refusal carries a frame", bad)
		}
	}
	if m := c.call(live.ClientMsg{Type: "do", Cmd: "freeze W9"}); m.Type != "error" {
		t.Errorf("freeze W9: %s", m.Type)
	}
	want := openPairOf(t, query)
	if err := want.Do("advance 1s"); err != nil {
		t.Fatal(err)
	}
	if r := c.do("advance 1s"); r.Query != want.Query() {
		t.Errorf("after the refusals the pair went on to %s, want %s", r.Query, want.Query())
	}

	// Play moves both on by itself until paused.
	if p := c.call(live.ClientMsg{Type: "play", Speed: 5}); p.Type != "ack" || !p.Playing {
		t.Fatalf("play: %+v", p)
	}
	m := c.next()
	if m.Type != "frame" || !m.Playing || m.Now == "" {
		t.Errorf("no play frame: %+v", m)
	} else if p := openPairOf(t, m.Query); p.A().Now().String() != m.Now || p.B().Now() != p.A().Now() {
		t.Errorf("play frame at %s, the engine's pair at %s/%s", m.Now, p.A().Now(), p.B().Now())
	}
	if m := c.call(live.ClientMsg{Type: "pause"}); m.Playing {
		t.Error("still playing after pause")
	}
}

// Every play frame of a pair draws what the pair page draws at the
// frame's address, though a frame lays its pictures out from the last
// frame's: through a difference that appears while the pair plays, and
// through one there all along.
func TestPairFramesDrawTheirPage(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{})
	for _, query := range []string{
		"do=until+4s&do=freeze+W1+for%3D25s&vs=fencing+on&vs-at=4s", // they part at 29s
		w1w2PairQuery,
	} {
		p := openPairOf(t, query)
		c := dialLab(t, ts.URL, "/en/labs/w1-w2/whatif/ws?"+query)
		parted := false
		for range 40 {
			m := c.do("advance 1s")
			if err := p.Do("advance 1s"); err != nil {
				t.Fatal(err)
			}
			if m.Query != p.Query() {
				t.Fatalf("%s: the socket's pair is at %s, the engine's at %s", query, m.Query, p.Query())
			}
			got := opHTML(m, "pair-live")
			if want := pairLiveOf(t, ts.URL, "en", m.Query); got != want {
				t.Fatalf("%s, at %s: the frame differs from the pair page:\n%s", query, m.Now, firstDiff(got, want))
			}
			_, found := p.Difference()
			parted = parted || found
		}
		if !parted {
			t.Errorf("%s: the runs never part", query)
		}
	}
}

// A pair's pictures laid out from the last ones take their marks over in
// place; what those highlighted must not stay when the difference is new:
// here the pictures shown highlighted nothing, and the runs part at
// event 12 of run A, which they already drew.
func TestPairPicturesFollowTheDifference(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t, Config{})
	course := embeddedCourse(t)
	q, _ := url.ParseQuery("do=until+8s&vs=crash+W1&vs-at=2s")
	p, _, err := labsession.OpenPair(course.Lab("w1-w2"), q)
	if err != nil {
		t.Fatal(err)
	}
	if d, found := p.Difference(); !found || d.A < 0 {
		t.Fatalf("the runs do not part in run A: %+v %v", d, found)
	}
	shown := draw.PairPictures{A: draw.PageDiagram("wa", p.A(), "en", nil), B: draw.PageDiagram("wb", p.B(), "en", nil)}
	v := srv.newPairView("en", nil, course.Lab("w1-w2"), p, &shown)
	fresh := srv.newPairView("en", nil, course.Lab("w1-w2"), p, nil)
	for _, side := range []struct{ got, want *draw.Diagram }{{v.Pair.A, fresh.Pair.A}, {v.Pair.B, fresh.Pair.B}} {
		got, _ := renderString(draw.Figure(side.got))
		want, _ := renderString(draw.Figure(side.want))
		if got != want {
			t.Errorf("%s differs from a fresh picture:\n%s", side.want.ID, firstDiff(got, want))
		}
	}
}

// A step moves run A to its next event and run B to the same time.
func TestLivePairStep(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{})
	c := dialLab(t, ts.URL, "/en/labs/w1-w2/whatif/ws?do=until+4s&vs=fencing+on")
	r := c.do("step")
	p := openPairOf(t, r.Query)
	if r.Now == "4s" || p.A().Now() != p.B().Now() || r.Now != p.A().Now().String() {
		t.Errorf("step: frame at %s, A at %s, B at %s", r.Now, p.A().Now(), p.B().Now())
	}
}

// A query that names no pair is refused before the upgrade, in words.
func TestLivePairRefusesBadQueries(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	for _, q := range []string{
		"do=until+4s",
		"do=until+4s&vs=frobnicate",
		"do=until+4s&vs=fencing+on&vs-at=40s",
		"do=until+4s&vs=clock+W1+skew%3D7s",
		"seed=banana&vs=fencing+on",
	} {
		u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/id/labs/w1-w2/whatif/ws?" + q
		conn, resp, err := websocket.DefaultDialer.Dial(u, nil)
		if err == nil {
			conn.Close()
			t.Errorf("%s: the socket opened", q)
			continue
		}
		if resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %v, want a 400", q, err)
		}
	}
}

// firstDiff shows where got and want part.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-200, 0)
	return "got:  …" + got[lo:min(i+200, len(got))] + "\nwant: …" + want[lo:min(i+200, len(want))]
}
