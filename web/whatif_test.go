package web

import (
	"html"
	"leaselab/labsession"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"leaselab/engine"
	"leaselab/labs"
)

// The pair page draws both runs and says where they part; what it says
// and marks comes from the engine, asked here the same way.
func TestWhatifPage(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{})
	q := "?do=until+4s&do=freeze+W1+for%3D25s&do=until+30s&vs=fencing+on&vs-at=4s"
	code, body, _ := get(t, ts.URL+"/id/labs/w1-w2/whatif"+q)
	if code != http.StatusOK {
		t.Fatalf("status %d: %.400s", code, body)
	}
	sentence := w1w2Pair(t)
	if !strings.Contains(body, html.EscapeString(sentence)) {
		t.Errorf("page lacks the sentence %q", sentence)
	}
	for _, want := range []string{`id="run-a"`, `id="run-b"`, "tanpa perubahan", `id="difference"`, `data-found="true"`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	a, b, ok := strings.Cut(body[strings.Index(body, `id="run-a"`):], `id="run-b"`)
	if !ok {
		t.Fatal("run B is not below run A")
	}
	if strings.Count(a, `class="hl"`) != 1 || strings.Count(b, `class="hl"`) != 1 {
		t.Errorf("each run should mark its side of the difference once: A %d, B %d", strings.Count(a, `class="hl"`), strings.Count(b, `class="hl"`))
	}
	if n := strings.Count(body, "<svg"); n < 2 {
		t.Errorf("%d diagrams, want both", n)
	}
	// Time links carry the pair on.
	if !strings.Contains(body, "whatif?") || !strings.Contains(body, "do=advance+5s") {
		t.Error("no time link that moves both runs")
	}

	// Without a change: back to the lab page's form, with the session.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(ts.URL + "/id/labs/w1-w2/whatif?do=until+4s")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/id/labs/w1-w2?do=until+4s#whatif" {
		t.Errorf("no change: %d to %q, want 303 to the lab page's form", resp.StatusCode, loc)
	}

	for _, tt := range []struct{ q, want string }{
		{"?do=until+4s&vs=frobnicate", "tidak bisa dibaca"},
		{"?do=until+4s&vs=until+9s", "tidak bisa dibaca"},
		{"?do=until+4s&vs=fencing+on&vs-at=banana", "Saat perubahan"},
		{"?do=until+4s&vs=fencing+on&vs-at=40s", "belum sampai"},
		{"?do=until+4s&vs=freeze+W1+for%3D3s", "tidak menawarkan"},
		{"?do=until+4s&vs=clock+W1+skew%3D7s", "tidak menawarkan"},
	} {
		code, body, _ := get(t, ts.URL+"/id/labs/w1-w2/whatif"+tt.q)
		if code != http.StatusBadRequest || !strings.Contains(body, tt.want) {
			t.Errorf("%s: status %d, want 400 saying %q: %.300s", tt.q, code, tt.want, body)
		}
	}
}

// The lab page offers the what-if form with the session, the lab's
// changes and the moments the run has passed.
func TestWhatifForm(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	code, body, _ := get(t, ts.URL+"/en/labs/w1-w2?do=until+10s")
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	i := strings.Index(body, `id="whatif"`)
	if i < 0 {
		t.Fatal("no what-if form")
	}
	form := body[i:]
	form = form[:strings.Index(form, "</form>")]
	// An earlier moment the engine's run passed through is offered.
	course := embeddedCourse(t)
	sess, _, err := labsession.FromQuery(course.Lab("w1-w2"), url.Values{"do": {"until 10s"}})
	if err != nil || len(sess.World().Events()) == 0 {
		t.Fatal("no run", err)
	}
	first := sess.World().Events()[0].T
	for _, want := range []string{`/en/labs/w1-w2/whatif"`, `name="do" value="until 10s"`, `value="fencing on"`, `value="now"`, `value="` + first.String() + `"`} {
		if !strings.Contains(form, want) {
			t.Errorf("form lacks %q", want)
		}
	}
	if strings.Contains(form, `value="advance`) || strings.Contains(form, `value="reset"`) {
		t.Error("a time command is offered as a change")
	}
}

// w1w2Pair is what the engine says for W1/W2 frozen at 4s for 25s and run
// to 30s, forked at 4s with fencing on: the sentence in Indonesian. It
// checks the difference is W1's write at 29s.
func w1w2Pair(t *testing.T) string {
	t.Helper()
	course := embeddedCourse(t)
	lab := course.Lab("w1-w2")
	sess, refused, err := labsession.FromQuery(lab, url.Values{"do": {"until 4s", "freeze W1 for=25s", "until 30s"}})
	if err != nil || refused != nil {
		t.Fatal(err, refused)
	}
	ch, err := labsession.Parse("fencing on")
	if err != nil {
		t.Fatal(err)
	}
	p, err := lab.NewPair(sess.Seed(), engine.Fork{At: 4 * engine.Second, Change: ch})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Replay(sess.Commands()); err != nil {
		t.Fatal(err)
	}
	d, found := engine.FirstDifference(p.A.Events(), p.B.Events())
	if !found || d.A < 0 || d.B < 0 {
		t.Fatalf("the engine finds no difference: %+v", d)
	}
	if ta := p.A.Events()[d.A].T; ta != 29*engine.Second {
		t.Errorf("first difference at %s, want W1's write at 29s", ta)
	}
	return labs.DescribeDifferenceAs(p, d, found, "id", "A", "B")
}

// A lease length is one of the changes a lab can offer: split-brain's
// page offers it, its what-if form lists it, and the pair page forks the
// partition at 0s with a 30-second lease, the first difference being the
// first grant's length, as the engine says.
func TestWhatifLeaseLength(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	code, body, _ := get(t, ts.URL+"/id/labs/split-brain?do=until+5s")
	if code != http.StatusOK {
		t.Fatalf("lab page: %d", code)
	}
	for _, want := range []string{`value="lease 30s"`, `value="lease 10s"`, "durasi lease 30 dtk"} {
		if !strings.Contains(body, want) {
			t.Errorf("the split-brain page lacks %q", want)
		}
	}
	code, body, _ = get(t, ts.URL+"/id/labs/split-brain/whatif?do=until+5s&do=partition+L1+coord&do=until+20s&vs=lease+30s&vs-at=0s")
	if code != http.StatusOK {
		t.Fatalf("pair page: %d: %.300s", code, body)
	}
	c := embeddedCourse(t)
	lab := c.Lab("split-brain")
	p, err := lab.NewPair(1, engine.Fork{Change: engine.Command{Kind: engine.CmdLease, Dur: 30 * engine.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Replay(cmdsOf(t, "until 5s", "partition L1 coord", "until 20s")); err != nil {
		t.Fatal(err)
	}
	d, found := engine.FirstDifference(p.A.Events(), p.B.Events())
	if !found || p.B.Events()[d.B].Kind != engine.KindGrant {
		t.Fatalf("the runs part at %+v (found %v), want the first grant", d, found)
	}
	sentence := labs.DescribeDifferenceAs(p, d, found, "id", T("id", "whatif.nameA"), T("id", "whatif.nameB"))
	if !strings.Contains(body, html.EscapeString(sentence)) || !strings.Contains(sentence, "detik ke-30") {
		t.Errorf("pair page lacks the sentence %q", sentence)
	}
	// A length the lab does not offer is refused.
	if code, _, _ := get(t, ts.URL+"/id/labs/split-brain/whatif?do=until+5s&vs=lease+45s&vs-at=0s"); code != http.StatusBadRequest {
		t.Errorf("an unoffered lease length: %d, want 400", code)
	}
}

func cmdsOf(t *testing.T, src ...string) []engine.Command {
	t.Helper()
	var out []engine.Command
	for _, s := range src {
		c, err := engine.ParseCommand(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}
