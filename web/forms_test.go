package web

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"leaselab/class"
)

// send is one request of c's browser with the headers a page would add
// (Origin, Sec-Fetch-Site): the status, the body, the answer's header.
func (c *client) send(method, path string, form url.Values, hdr map[string]string) (int, string, http.Header) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// openClasses is a class store in SQLite in a folder of the test's.
func openClasses(t testing.TB) *class.Service {
	t.Helper()
	svc, err := class.Open(context.Background(), class.Config{Data: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// ownPage is what a form of the server's own page sends.
func ownPage(base string) map[string]string {
	return map[string]string{"Origin": base, "Sec-Fetch-Site": "same-origin"}
}

// otherPort is the same host as base on another port.
func otherPort(t *testing.T, base string) string {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	port := "1"
	if u.Port() == "1" {
		port = "2"
	}
	return u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port)
}

// TestClassFormsOnlyFromOwnPages (issue 50): a student is in a class and
// has voted. Every form that changes what the server keeps (join, open a
// class, vote, leave, the instructor's buttons) sent as another site's
// page sends it (a foreign Origin; Sec-Fetch-Site: cross-site with no
// Origin; a page on another port of the same host; a sandboxed page's
// "null") is refused with 403 and the page in the student's language,
// sets no cookie, and changes nothing: the export is the same byte for
// byte, and the student is still in the class with the same answer. The
// server's own pages still vote, join and leave.
func TestClassFormsOnlyFromOwnPages(t *testing.T) {
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Kelas asli")
	openVote(teacher, teach, "w1-w2", "storage-checks")
	attacker := newClient(t, base)
	_, evilCode := openClass(t, attacker, "id", "Kelas penyerang")

	student := newClient(t, base)
	if st, body, _ := student.send(http.MethodPost, "/id/join", url.Values{"code": {code}, "nick": {"ana"}}, ownPage(base)); st != http.StatusSeeOther {
		t.Fatalf("joining from the join page: %d\n%s", st, clipText(body))
	}
	_, page := student.get("/id/")
	round := regexp.MustCompile(`name="round" value="(\d+)"`).FindStringSubmatch(page)[1]
	if st, _, _ := student.send(http.MethodPost, "/id/class/vote", url.Values{"round": {round}, "choice": {"rejected"}}, ownPage(base)); st != http.StatusSeeOther {
		t.Fatalf("a vote from the class bar: %d", st)
	}
	_, before, _ := teacher.do(http.MethodGet, teach+"/export.json", nil, "")

	attacks := map[string]map[string]string{
		"another site":                    {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
		"cross-site without Origin":       {"Sec-Fetch-Site": "cross-site"},
		"another port, same host":         {"Origin": otherPort(t, base), "Sec-Fetch-Site": "same-site"},
		"another port, no fetch metadata": {"Origin": otherPort(t, base)},
		"a sandboxed page":                {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
	}
	forms := []struct {
		path string
		form url.Values
	}{
		{"/id/join", url.Values{"code": {evilCode}, "nick": {"korban"}}},
		{"/id/join", url.Values{"code": {code}, "key": {"ACEFGHJK"}}},
		{"/id/class", url.Values{"name": {"Kelas palsu"}}},
		{"/id/class/vote", url.Values{"round": {round}, "choice": {"overwrites"}}},
		{"/id/class/leave", nil},
		{teach + "/reveal", url.Values{"round": {round}}},
		{teach + "/activity", url.Values{"lab": {""}}},
		{teach + "/end", url.Values{"confirm": {"1"}}},
		{teach + "/rotate", nil},
		{teach + "/reopen", nil},
		{"/id/lecturer", url.Values{"key": {"ACEFG-HJKMN-PRTWX-Y3467"}}},
	}
	for name, hdr := range attacks {
		for _, f := range forms {
			st, body, h := student.send(http.MethodPost, f.path, f.form, hdr)
			if st != http.StatusForbidden || !strings.Contains(body, "datang dari halaman situs lain") {
				t.Errorf("%s: POST %s: %d, want 403 with the page in Indonesian\n%s", name, f.path, st, clipText(body))
			}
			if ck := h.Values("Set-Cookie"); len(ck) > 0 {
				t.Errorf("%s: POST %s set a cookie: %q", name, f.path, ck)
			}
		}
		// The page's script asks for JSON: it gets the reason as text.
		st, body, _ := student.send(http.MethodPost, "/en/class/vote", url.Values{"round": {round}, "choice": {"overwrites"}},
			map[string]string{"Origin": hdr["Origin"], "Sec-Fetch-Site": hdr["Sec-Fetch-Site"], "Accept": "application/json"})
		if st != http.StatusForbidden || !strings.Contains(body, `"error":"This request came from another site's page`) {
			t.Errorf("%s: a vote from script: %d %s", name, st, body)
		}
	}
	if _, after, _ := teacher.do(http.MethodGet, teach+"/export.json", nil, ""); after != before {
		t.Errorf("the export changed:\nbefore %s\nafter  %s", before, after)
	}
	if _, p := student.get("/id/"); !strings.Contains(p, "Kelas asli") || !strings.Contains(p, "Jawabanmu tersimpan: A") {
		t.Errorf("the student is no longer in the class with answer A:\n%s", clipText(p[strings.Index(p, "<body"):]))
	}

	// The server's own pages: a vote changes the answer, leaving leaves,
	// joining again joins.
	if st, _, _ := student.send(http.MethodPost, "/id/class/vote", url.Values{"round": {round}, "choice": {"overwrites"}}, ownPage(base)); st != http.StatusSeeOther {
		t.Errorf("a vote from the own page: %d", st)
	}
	if _, p := student.get("/id/"); !strings.Contains(p, "Jawabanmu tersimpan: B") {
		t.Error("the own page's vote was not kept")
	}
	if st, _, h := student.send(http.MethodPost, "/id/class/leave", nil, ownPage(base)); st != http.StatusSeeOther || !strings.Contains(h.Get("Set-Cookie"), "Max-Age=0") {
		t.Errorf("leaving from the own page: %d %q", st, h.Get("Set-Cookie"))
	}
	if _, p := student.get("/id/"); strings.Contains(p, `class="classbar"`) {
		t.Error("the student still has the class bar after leaving")
	}
	st, _, h := student.send(http.MethodPost, "/id/join", url.Values{"code": {code}}, map[string]string{"Origin": base})
	if st != http.StatusSeeOther || !strings.Contains(h.Get("Set-Cookie"), "SameSite=Strict") {
		t.Errorf("joining again from the own page (a browser without fetch metadata): %d %q", st, h.Get("Set-Cookie"))
	}
}

// TestClassFormsBehindProxy: behind a trusted proxy the page's origin is
// the name the proxy forwarded, as for the live socket; from anyone else
// the forwarded name is not believed.
func TestClassFormsBehindProxy(t *testing.T) {
	nets, _ := ParseTrustedProxies("127.0.0.1")
	svc := openClasses(t)
	_, ts := newTestServer(t, Config{Classes: svc, TrustedProxies: nets})
	c := newClient(t, ts.URL)
	proxied := map[string]string{"X-Forwarded-Host": "leases.example.edu", "X-Forwarded-Proto": "https", "Sec-Fetch-Site": "same-origin"}
	for origin, want := range map[string]int{"https://leases.example.edu": http.StatusSeeOther, "https://evil.example": http.StatusForbidden, "http://leases.example.edu:8443": http.StatusForbidden} {
		proxied["Origin"] = origin
		if st, body, _ := c.send(http.MethodPost, "/en/class", url.Values{"name": {"Behind a proxy"}}, proxied); st != want {
			t.Errorf("a class opened from %s behind the proxy: %d, want %d\n%s", origin, st, want, clipText(body))
		}
	}
	// From a peer that is no trusted proxy, the forwarded name is ignored.
	req := httptest.NewRequest(http.MethodPost, "/en/class", strings.NewReader("name=x"))
	req.RemoteAddr = "192.0.2.7:4000"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-Host", "leases.example.edu")
	req.Header.Set("Origin", "https://leases.example.edu")
	w := httptest.NewRecorder()
	ts.Config.Handler.ServeHTTP(w, req)
	if w.Code != http.StatusForbidden {
		t.Errorf("a forwarded name from an untrusted peer: %d, want 403", w.Code)
	}
}

// TestClassJoinAsksFirst: a student of one class who joins another is
// asked first, on the server's own page, which names both classes and
// the key to come back with; only that page's answer moves the student.
func TestClassJoinAsksFirst(t *testing.T) {
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	_, first := openClass(t, teacher, "en", "First class")
	_, second := openClass(t, teacher, "en", "Second class")
	st := newClient(t, base)
	st.post("/en/join", url.Values{"code": {first}, "nick": {"ana"}})
	code, page, h := st.send(http.MethodPost, "/en/join", url.Values{"code": {second}, "nick": {"ana"}}, ownPage(base))
	if code != http.StatusOK || !strings.Contains(page, "This browser is in the class First class") || !strings.Contains(page, "Your key in First class: ") || len(h.Values("Set-Cookie")) > 0 {
		t.Fatalf("joining a second class: %d, cookie %q, want the question and no change\n%s", code, h.Values("Set-Cookie"), clipText(page))
	}
	if _, p := st.get("/en/"); !strings.Contains(p, "First class") {
		t.Fatal("asking moved the student")
	}
	token := regexp.MustCompile(`name="switch" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	if token == nil {
		t.Fatal("the question has no answer to send")
	}
	// A made-up answer is asked again; so is the answer for another class.
	for _, form := range []url.Values{
		{"code": {second}, "switch": {strings.Repeat("0", len(token[1]))}},
		{"code": {"WXYWXY"}, "switch": {token[1]}},
	} {
		if code, p, _ := st.send(http.MethodPost, "/en/join", form, ownPage(base)); code == http.StatusSeeOther {
			t.Errorf("a forged answer %v: %d\n%s", form, code, clipText(p))
		}
	}
	if _, p := st.get("/en/"); !strings.Contains(p, "First class") {
		t.Fatal("a forged answer moved the student")
	}
	st.post("/en/join", url.Values{"code": {second}, "nick": {"ana"}, "switch": {token[1]}})
	if _, p := st.get("/en/"); !strings.Contains(p, "Second class") {
		t.Error("the answer did not move the student")
	}
}
