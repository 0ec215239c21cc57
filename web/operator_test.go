package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestBasePath serves the site under a sub-path and follows every link,
// asset, form, socket and reload URL of every page: all carry the base.
func TestBasePath(t *testing.T) {
	t.Parallel()
	const base = "/school/leaselab"
	dir := copyContent(t)
	_, ts := newTestServer(t, Config{BasePath: base + "/", Content: os.DirFS(dir), Watch: true})

	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for path, want := range map[string]string{"/": "", base: base + "/", base + "/": base + "/id/", base + "/en": base + "/en/"} {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.Header.Set("Accept-Language", "id")
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Location"); got != want || (want == "" && resp.StatusCode != 404) {
			t.Errorf("GET %s: %d to %q, want %q", path, resp.StatusCode, got, want)
		}
	}

	urlAttr := regexp.MustCompile(`(?:href|src|action|data-ws|data-reload)="([^"]*)"`)
	seen := map[string]bool{}
	queue := []string{base + "/id/", base + "/en/labs/w1-w2?q=storage-checks&choice=rejected", base + "/id/labs/w1-w2/at?do=until+4s"}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if seen[u] {
			continue
		}
		seen[u] = true
		code, body, h := get(t, ts.URL+u)
		if code != 200 {
			t.Errorf("GET %s: %d", u, code)
			continue
		}
		if !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			continue
		}
		for _, m := range urlAttr.FindAllStringSubmatch(body, -1) {
			link := htmlUnescape(m[1])
			if !strings.HasPrefix(link, "/") {
				continue // fragments, data: and relative links
			}
			if !strings.HasPrefix(link, base+"/") {
				t.Errorf("GET %s: %q leaves the base path", u, link)
				continue
			}
			link = strings.SplitN(link, "#", 2)[0]
			if !strings.HasSuffix(link, "/ws") && !strings.Contains(link, reloadPath) && len(seen) < 60 {
				queue = append(queue, link)
			}
		}
	}
	if len(seen) < 15 {
		t.Errorf("only %d pages followed", len(seen))
	}

	// The live socket under the base path.
	c := dialLab(t, ts.URL, base+"/en/labs/w1-w2/ws")
	if m := c.do("advance 1s"); m.Type == "error" {
		t.Errorf("a command under the base path: %+v", m)
	}
	// The lab's own Markdown links (lab:, lesson:) carry the base too.
	if _, body, _ := get(t, ts.URL+base+"/en/labs/w1-w2"); !strings.Contains(body, `href="`+base+`/en/lessons/failure-modes"`) {
		t.Error("a lesson: link in a lab's words lacks the base path")
	}
}

func TestRootFollowsAcceptLanguage(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for header, want := range map[string]string{
		"":                            "/id/",
		"en-US,en;q=0.9":              "/en/",
		"id-ID,id;q=0.9,en;q=0.8":     "/id/",
		"fr-FR,fr;q=0.9,en;q=0.5":     "/en/",
		"de":                          "/id/",
		"en;q=0.3,id;q=0.7":           "/id/",
		"en;q=0, id":                  "/id/",
		"EN":                          "/en/",
		"*":                           "/id/",
		"en;q=not-a-number,id;q=0.99": "/en/",
	} {
		req, _ := http.NewRequest("GET", ts.URL+"/", nil)
		if header != "" {
			req.Header.Set("Accept-Language", header)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Location"); got != want || !strings.Contains(strings.Join(resp.Header.Values("Vary"), ","), "Accept-Language") {
			t.Errorf("Accept-Language %q: to %q (Vary %q), want %q", header, got, resp.Header.Values("Vary"), want)
		}
	}
}

func TestMetricsForOperators(t *testing.T) {
	_, ts := newTestServer(t, Config{Build: BuildInfo{Version: "v1.2.3", Revision: "abc123", GoVersion: "go1.26.8"}})
	get(t, ts.URL+"/id/")
	get(t, ts.URL+"/id/")
	get(t, ts.URL+"/en/labs/nope")
	get(t, ts.URL+"/no/such/place/at/all")
	_, body, _ := get(t, ts.URL+"/metrics")
	for _, want := range []string{
		`leaselab_build_info{version="v1.2.3",revision="abc123",goversion="go1.26.8"} 1` + "\n",
		`leaselab_http_requests_total{route="/:lang/",code="200"} 2` + "\n",
		`leaselab_http_requests_total{route="/:lang/labs/:id",code="404"} 1` + "\n",
		`leaselab_http_requests_total{route="unmatched",code="404"} 1` + "\n",
		"# TYPE process_start_time_seconds gauge\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	m := regexp.MustCompile(`process_start_time_seconds (\d+\.\d+)`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no process_start_time_seconds")
	}
	var start float64
	json.Unmarshal([]byte(m[1]), &start)
	if now := float64(time.Now().Unix()); start > now || start < now-3600 {
		t.Errorf("process start %v is not within the last hour of %v", start, now)
	}
}

func TestAccessLog(t *testing.T) {
	for _, on := range []bool{false, true} {
		var buf syncBuffer
		_, ts := newTestServer(t, Config{AccessLog: on, Logger: slog.New(slog.NewJSONHandler(&buf, nil)), BasePath: "/b"})
		get(t, ts.URL+"/b/en/labs/w1-w2?seed=3")
		var found map[string]any
		sc := bufio.NewScanner(strings.NewReader(buf.String()))
		for sc.Scan() {
			var rec map[string]any
			if err := json.Unmarshal(sc.Bytes(), &rec); err == nil && rec["msg"] == "request" {
				found = rec
			}
		}
		if !on {
			if found != nil {
				t.Errorf("access log off, yet %v", found)
			}
			continue
		}
		if found == nil || found["path"] != "/b/en/labs/w1-w2" || found["route"] != "/:lang/labs/:id" || found["status"] != 200.0 || found["method"] != "GET" {
			t.Errorf("request log line: %v\nlog:\n%s", found, buf.String())
		}
	}
}

// TestProblemBannerIsForTheAuthor: a broken edit shows its problems to a
// browser on the server's machine, not to students (who come through a
// proxy or from elsewhere), unless ShowProblems says otherwise.
func TestProblemBannerIsForTheAuthor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		show            string
		local, viaProxy bool
	}{
		{"", true, false},
		{"loopback", true, false},
		{"all", true, true},
		{"none", false, false},
	} {
		dir := copyContent(t)
		_, ts := newTestServer(t, Config{Content: os.DirFS(dir), Watch: true, PollEvery: 10 * time.Millisecond, ShowProblems: tc.show})
		_, page, _ := get(t, ts.URL+"/en/")
		before := versionIn(t, page)
		labFile := filepath.Join(dir, "labs", "w1-w2", "lab.yaml")
		good, _ := os.ReadFile(labFile)
		os.WriteFile(labFile, []byte(strings.Replace(string(good), "ttl: 15s", "ttl: fifteen", 1)), 0o644)
		banner := func(proxied bool) bool {
			req, _ := http.NewRequest("GET", ts.URL+"/en/labs/w1-w2", nil)
			if proxied {
				req.Header.Set("X-Forwarded-For", "203.0.113.9")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			return strings.Contains(b.String(), `class="problems"`)
		}
		eventually(t, "the broken edit loaded", func() bool {
			_, body, _ := get(t, ts.URL+"/en/")
			return versionIn(t, body) != before
		})
		if got := banner(false); got != tc.local {
			t.Errorf("ShowProblems %q: banner on loopback %v, want %v", tc.show, got, tc.local)
		}
		if got := banner(true); got != tc.viaProxy {
			t.Errorf("ShowProblems %q: banner through a proxy %v, want %v", tc.show, got, tc.viaProxy)
		}
	}
}

var reloadRE = regexp.MustCompile(`data-reload="[^"]*since=([0-9a-f]+)"`)

// versionIn is the content version a page was rendered from.
func versionIn(t *testing.T, body string) string {
	m := reloadRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no reload script in the page")
	}
	return m[1]
}

// TestReloadStream: in --content mode a page's reload stream answers at
// once when the content changed since the page was rendered, and else
// when it changes; without --content there is no stream.
func TestReloadStream(t *testing.T) {
	t.Parallel()
	dir := copyContent(t)
	_, ts := newTestServer(t, Config{Content: os.DirFS(dir), Watch: true, PollEvery: 10 * time.Millisecond})
	_, body, _ := get(t, ts.URL+"/en/")
	v := versionIn(t, body)

	if code, stream, _ := get(t, ts.URL+reloadPath+"?since=stale"); code != 200 || !strings.Contains(stream, "event: reload\ndata: "+v+"\n") {
		t.Errorf("a stale version: %d %q", code, stream)
	}

	resp, err := http.Get(ts.URL + reloadPath + "?since=" + v)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	events := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			events <- sc.Text()
		}
		close(events)
	}()
	enFile := filepath.Join(dir, "labs", "w1-w2", "en.md")
	en, _ := os.ReadFile(enFile)
	if err := os.WriteFile(enFile, append(en, []byte("\nOne more line.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	got := false
	for line := range events {
		if line == "event: reload" {
			got = true
			break
		}
	}
	if !got {
		t.Error("no reload event after an edit")
	}

	_, plain := newTestServer(t, Config{})
	if code, _, _ := get(t, plain.URL+reloadPath+"?since=x"); code != 404 {
		t.Errorf("reload stream without --content: %d, want 404", code)
	}
	if _, body, _ := get(t, plain.URL+"/en/"); strings.Contains(body, "data-reload") {
		t.Error("reload script without --content")
	}
}
