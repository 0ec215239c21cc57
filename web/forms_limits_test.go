package web

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"leaselab/budget"
	"leaselab/live"
)

// hugeBody is a body of n bytes made as it is read, from one small
// buffer: the test holds none of it. read counts what the server read.
type hugeBody struct {
	head []byte // sent first: the start of a form
	n    int64
	read int64
}

func (b *hugeBody) Read(p []byte) (int, error) {
	if b.read >= b.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), b.n-b.read)]
	for i := range p {
		if at := b.read + int64(i); at < int64(len(b.head)) {
			p[i] = b.head[at]
		} else {
			p[i] = 'x'
		}
	}
	b.read += int64(len(p))
	return len(p), nil
}

// inProcess sends a request to s from the address from, as a browser of
// s's own page would, and returns the answer.
func inProcess(s *Server, method, path string, body io.Reader, from string, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, body)
	req.RemoteAddr = from + ":40000"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://"+req.Host)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w
}

// joinFrom joins the class of code as a new student (no cookie) from the
// address from.
func joinFrom(s *Server, code, from string) *httptest.ResponseRecorder {
	return inProcess(s, http.MethodPost, "/en/join", strings.NewReader(url.Values{"code": {code}}.Encode()), from, nil)
}

// TestClassFormsRefuseHugeBodies (issue 51): a 40 MB body to each class
// form, said in Content-Length or sent without one, as a form or as
// multipart, is refused with 413 in the sender's language: with its
// length known, before a byte of it is read; without, after at most
// maxFormBytes. Twenty of them allocate next to nothing (not the 800 MB
// they carry), leave the heap where it was, write no temporary file, and
// are charged to the sender's budget. Over a real connection, the 413
// comes back before the body is sent.
func TestClassFormsRefuseHugeBodies(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where multipart parts too large for memory would go
	s, base, _ := newClassServer(t, t.TempDir())
	teach, _ := openClass(t, newClient(t, base), "en", "Big bodies")
	const size = 40 << 20
	paths := []string{"/en/join", "/id/class", "/en/class/vote", "/en/class/leave", teach + "/round"}
	bodies := []struct {
		name, contentType string
		head              string
	}{
		{"form", "application/x-www-form-urlencoded", "code=ACEFGH&nick="},
		{"multipart", "multipart/form-data; boundary=XX", "--XX\r\nContent-Disposition: form-data; name=\"nick\"; filename=\"a\"\r\n\r\n"},
	}
	b := s.addrBudgets.get("192.0.2.9")
	charged := b.Used()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, p := range paths {
		for _, kind := range bodies {
			for _, known := range []bool{true, false} {
				body := &hugeBody{head: []byte(kind.head), n: size}
				req := httptest.NewRequest(http.MethodPost, p, body)
				req.ContentLength = -1 // sent chunked: the server learns the length by reading
				if known {
					req.ContentLength = size
				}
				req.RemoteAddr = "192.0.2.9:40000"
				req.Header.Set("Content-Type", kind.contentType)
				req.Header.Set("Origin", "http://"+req.Host)
				w := httptest.NewRecorder()
				s.ServeHTTP(w, req)
				switch {
				case w.Code != http.StatusRequestEntityTooLarge:
					t.Errorf("%s, %s, length known %v: %d, want 413", p, kind.name, known, w.Code)
				case known && body.read != 0:
					t.Errorf("%s, %s: read %d bytes of a body whose length said it was too large", p, kind.name, body.read)
				case body.read > maxFormBytes+1:
					t.Errorf("%s, %s, chunked: read %d bytes, more than the limit %d", p, kind.name, body.read, maxFormBytes)
				}
				if want := "far larger"; strings.HasPrefix(p, "/en/") && !strings.Contains(w.Body.String(), want) {
					t.Errorf("%s: the refusal does not say why in English", p)
				}
			}
		}
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("20 bodies of 40 MB: %.1f MB allocated while refusing them; heap %.1f MB before, %.1f MB after",
		float64(allocated)/(1<<20), float64(before.HeapAlloc)/(1<<20), float64(after.HeapAlloc)/(1<<20))
	if allocated > 8<<20 {
		t.Errorf("refusing 20 bodies of 40 MB allocated %d MB", allocated>>20)
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 2<<20 {
		t.Errorf("the heap grew by %d KB", grew>>10)
	}
	if files, _ := os.ReadDir(tmp); len(files) > 0 {
		t.Errorf("temporary files were written: %v", files)
	}
	if got := b.Used() - charged; got < 20*budget.RefuseCost {
		t.Errorf("the sender was charged %v for 20 refusals, want at least %v", got, 20*budget.RefuseCost)
	}

	// Over a connection: the header says 40 MB; the answer comes before
	// any of it is sent.
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second)) // a hung server fails the test, a slow one does not
	fmt.Fprintf(conn, "POST /en/class/vote HTTP/1.1\r\nHost: %s\r\nContent-Type: multipart/form-data; boundary=XX\r\nContent-Length: %d\r\n\r\n",
		strings.TrimPrefix(base, "http://"), size)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer before the body: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !resp.Close {
		t.Errorf("over a connection: %s, closing %v; want 413 and the connection closed", resp.Status, resp.Close)
	}
}

// TestClassJoinFlood (issue 51): a script's 2,000 joins in one second
// from one address get a third of a minute's joins of an address, and
// real students from their own addresses then all get in: the class is
// not full. The script, going on for minutes, never holds more than an
// address's seats (a room's); a room of 300 behind one NAT address, all
// joining within a minute, gets in whole, and the 301st from it is told
// why not. Time is the server's clock, moved by the test.
func TestClassJoinFlood(t *testing.T) {
	clock := live.NewManualClock()
	svc := openClasses(t)
	s, ts := newTestServer(t, Config{Classes: svc, Clock: clock})
	teacher := newClient(t, ts.URL)
	_, code := openClass(t, teacher, "en", "Flooded")
	count := func(from string, n int) map[int]int {
		got := map[int]int{}
		for range n {
			got[joinFrom(s, code, from).Code]++
		}
		return got
	}
	burst := DefaultJoinsPerAddr / 3
	got := count("203.0.113.66", 2000)
	t.Logf("2,000 scripted joins in one second: %v", got)
	if got[http.StatusSeeOther] != burst || got[http.StatusTooManyRequests] != 2000-burst {
		t.Errorf("2,000 joins from one address at once: %v, want %d in and the rest 429", got, burst)
	}
	w := joinFrom(s, code, "203.0.113.66")
	if w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "Many students are joining from your network") {
		t.Errorf("a join past the address's rate: no Retry-After, or no reason:\n%s", clipText(w.Body.String()))
	}
	for i := range 60 {
		if w := joinFrom(s, code, "198.51.100."+strconv.Itoa(i+1)); w.Code != http.StatusSeeOther {
			t.Fatalf("real student %d: %d\n%s", i+1, w.Code, clipText(w.Body.String()))
		}
	}
	// The script goes on, 500 joins a minute for ten minutes.
	for range 10 {
		clock.Advance(time.Minute)
		count("203.0.113.66", 500)
	}
	classes := must(svc.ByCode(t.Context(), code))
	if n := must(svc.StudentCount(t.Context(), classes.ID)); n != DefaultJoinsPerAddr+60 {
		t.Errorf("after ten minutes of the script: %d students, want its %d seats and the 60 students", n, DefaultJoinsPerAddr)
	}
	if w := joinFrom(s, code, "203.0.113.66"); w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "300 students of this class have joined from your network") {
		t.Errorf("the script past its seats: %d\n%s", w.Code, clipText(w.Body.String()))
	}

	// A lecture room behind one NAT address: 300 join within a minute.
	_, room := openClass(t, teacher, "en", "Behind a NAT")
	for i := range DefaultJoinsPerAddr {
		if w := joinFrom(s, room, "10.20.30.40"); w.Code != http.StatusSeeOther {
			t.Fatalf("student %d of the room: %d\n%s", i+1, w.Code, clipText(w.Body.String()))
		}
		clock.Advance(time.Minute / DefaultJoinsPerAddr)
	}
	clock.Advance(time.Minute)
	if w := joinFrom(s, room, "10.20.30.40"); w.Code != http.StatusConflict {
		t.Errorf("student 301 behind the NAT: %d, want 409", w.Code)
	}
}

// TestClassJoinRatePerClass: joins from many addresses at once fill at
// most classJoinBurst places; the rest wait classJoinRate a second.
func TestClassJoinRatePerClass(t *testing.T) {
	clock := live.NewManualClock()
	svc := openClasses(t)
	s, ts := newTestServer(t, Config{Classes: svc, Clock: clock})
	_, code := openClass(t, newClient(t, ts.URL), "en", "Many addresses")
	got := map[int]int{}
	for i := range classJoinBurst + 100 {
		got[joinFrom(s, code, fmt.Sprintf("10.1.%d.%d", i/250, i%250+1)).Code]++
	}
	if got[http.StatusSeeOther] != classJoinBurst || got[http.StatusTooManyRequests] != 100 {
		t.Errorf("%d joins from as many addresses at once: %v, want %d in", classJoinBurst+100, got, classJoinBurst)
	}
	clock.Advance(100 * time.Second / classJoinRate)
	for i := range 100 {
		if w := joinFrom(s, code, fmt.Sprintf("10.2.0.%d", i+1)); w.Code != http.StatusSeeOther {
			t.Fatalf("join %d after the wait: %d", i+1, w.Code)
		}
	}
}

// TestClassRestoreLockout (issue 51): restoring with a key, an address
// gets restoreTries wrong keys; then every key is refused, the right one
// too, until restoreEvery has passed, and then one try again. Another
// address is not held up.
func TestClassRestoreLockout(t *testing.T) {
	clock := live.NewManualClock()
	svc := openClasses(t)
	s, ts := newTestServer(t, Config{Classes: svc, Clock: clock})
	_, code := openClass(t, newClient(t, ts.URL), "en", "Keys")
	student := newClient(t, ts.URL)
	student.post("/en/join", url.Values{"code": {code}})
	_, page := student.get("/en/")
	key := regexp.MustCompile(`Your key: ([A-Z0-9]+)`).FindStringSubmatch(page)
	if key == nil {
		t.Fatal("no key in the class bar")
	}
	restore := func(from, k string) *httptest.ResponseRecorder {
		return inProcess(s, http.MethodPost, "/en/join", strings.NewReader(url.Values{"code": {code}, "key": {k}}.Encode()), from, nil)
	}
	guesser := "203.0.113.77"
	for i := range restoreTries {
		if w := restore(guesser, fmt.Sprintf("AAAAAA%c%c", 'C'+i%3, 'E')); w.Code != http.StatusNotFound {
			t.Fatalf("wrong key %d: %d", i+1, w.Code)
		}
	}
	w := restore(guesser, key[1])
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "Too many wrong keys") {
		t.Errorf("the right key after %d wrong: %d, want 429\n%s", restoreTries, w.Code, clipText(w.Body.String()))
	}
	if w := restore("198.51.100.5", key[1]); w.Code != http.StatusSeeOther {
		t.Errorf("the right key from another address: %d", w.Code)
	}
	clock.Advance(restoreEvery)
	if w := restore(guesser, key[1]); w.Code != http.StatusSeeOther {
		t.Errorf("the right key a minute later: %d", w.Code)
	}
	restore(guesser, "AAAAAAAA")
	if w := restore(guesser, "AAAAAAAC"); w.Code != http.StatusTooManyRequests {
		t.Errorf("a second wrong key in the minute after the lockout: %d, want 429", w.Code)
	}
}

// TestClassBlankName: a class without a name is refused, in the
// instructor's language, and none is opened.
func TestClassBlankName(t *testing.T) {
	_, base, _ := newClassServer(t, t.TempDir())
	c := newClient(t, base)
	for lang, want := range map[string]string{"en": "Give your class a name", "id": "Beri kelasmu nama"} {
		for _, name := range []string{"", "   ", "\t\u00a0\n"} {
			st, body, h := c.do(http.MethodPost, "/"+lang+"/class", url.Values{"name": {name}}, "")
			if st != http.StatusBadRequest || !strings.Contains(body, want) || h.Get("Location") != "" {
				t.Errorf("%s, name %q: %d, want 400 with %q", lang, name, st, want)
			}
		}
	}
}

// TestClassRemoveStudent: the dashboard lists each join with a button
// that removes it; a removed student's seat and vote go, their next vote
// is refused, and removing them again says they are gone.
func TestClassRemoveStudent(t *testing.T) {
	_, base, svc := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "en", "Removals")
	openVote(teacher, teach, "w1-w2", "storage-checks")
	real, bot := newClient(t, base), newClient(t, base)
	real.post("/en/join", url.Values{"code": {code}, "nick": {"ana"}})
	bot.post("/en/join", url.Values{"code": {code}, "nick": {"zz bot"}})
	for _, st := range []*client{real, bot} {
		if code, _, _ := st.do(http.MethodPost, "/en/class/vote", url.Values{"round": {"1"}, "choice": {"rejected"}}, "application/json"); code != http.StatusNoContent {
			t.Fatalf("vote: %d", code)
		}
	}
	_, dash := teacher.get(teach)
	m := regexp.MustCompile(`name="student" value="([^"]+)">\s*<button type="submit" aria-label="Remove zz bot from the class">`).FindStringSubmatch(dash)
	if m == nil || strings.Count(dash, `aria-label="Remove `) != 2 {
		t.Fatalf("the roster has no remove button for each student:\n%s", clipText(dash[strings.Index(dash, `id="roster"`):]))
	}
	teacher.post(teach+"/remove", url.Values{"student": {m[1]}})
	cl := must(svc.ByCode(t.Context(), code))
	tally := must(svc.Rounds(t.Context(), cl.ID))[0]
	if n := must(svc.StudentCount(t.Context(), cl.ID)); n != 1 || tally.Voters != 1 {
		t.Errorf("after the removal: %d students, %d voters; want 1 and 1", n, tally.Voters)
	}
	if code, _, _ := bot.do(http.MethodPost, "/en/class/vote", url.Values{"round": {"1"}, "choice": {"overwrites"}}, "application/json"); code != http.StatusForbidden {
		t.Errorf("the removed student's vote: %d, want 403", code)
	}
	if st, body, _ := teacher.do(http.MethodPost, teach+"/remove", url.Values{"student": {m[1]}}, ""); st != http.StatusNotFound || !strings.Contains(body, "no longer in this class") {
		t.Errorf("removing again: %d", st)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
