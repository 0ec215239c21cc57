package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"leaselab/catalog"
	"leaselab/content"
	"leaselab/draw"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/labsession"
)

// The package's Go clients (get, a class test's client, a load) do not
// ask for gzip: a page's words are the same either way, and compressing
// every page for a test to inflate it again was a sixth of TestEveryPage's
// CPU and most of a large class page's. That pages and assets are served
// gzipped is TestStaticAssetsAreHashedCachedAndGzipped's and
// TestLabPageWeight's (they ask for it), and Chromium asks in every
// browser test.
func init() { http.DefaultTransport.(*http.Transport).DisableCompression = true }

// newTestServer serves the embedded course, as `leaselab serve` does.
func newTestServer(t testing.TB, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	// Work budgets depend on how fast this machine is (and -race makes it
	// slow): tests of other things leave them out of the way, and the
	// budget tests set their own.
	if cfg.SessionWork == 0 {
		cfg.SessionWork = 1000
	}
	if cfg.AddrWork == 0 {
		cfg.AddrWork = 1000
	}
	s, err := New(sharedCourse(cfg))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	return s, ts
}

// courseLoads holds each course the package's servers load, loaded once:
// the embedded course once per base path (its links name the base), and
// a content folder once per base path and bytes (courseKey). A load runs
// every question and goal in the engine, a tenth of a second of two
// cores; a hundred servers start here, a dozen of them on copies of the
// course (copyContent), and the four of TestProblemBannerIsForTheAuthor
// reload the same broken copy. A load depends on nothing but the files'
// bytes and its options (the engine is pure), and a course is only read
// once loaded, by any number of sessions, as one server's sessions share
// it.
var courseLoads struct {
	mu    sync.Mutex
	byKey map[string]*courseLoad
}

type courseLoad struct {
	once sync.Once
	c    *labs.Course
	err  error
}

// sharedCourse is cfg with its server reading the shared load of its
// course: the embedded one, or a content folder's whose bytes a server
// loaded before.
func sharedCourse(cfg Config) Config {
	if cfg.load != nil {
		return cfg
	}
	base := cfg.BasePath
	cfg.load = func(fsys fs.FS, opt labs.Options) (*labs.Course, error) {
		if fsys == content.FS {
			return loadEmbedded(base, opt)
		}
		return loadFolder(base, fsys, opt)
	}
	return cfg
}

// loadFolder is labs.LoadWith(fsys, opt), or the load of the same bytes
// before. A load is kept only when the files are the same after it as
// before: a test edits its folder while a server polls it.
func loadFolder(base string, fsys fs.FS, opt labs.Options) (*labs.Course, error) {
	key, err := courseKey(fsys)
	if err != nil {
		return labs.LoadWith(fsys, opt)
	}
	key = "folder " + base + "\x00" + opt.Root + "\x00" + key
	courseLoads.mu.Lock()
	l := courseLoads.byKey[key]
	courseLoads.mu.Unlock()
	if l != nil {
		return l.c, l.err
	}
	c, err := labs.LoadWith(fsys, opt)
	if after, kerr := courseKey(fsys); kerr == nil && "folder "+base+"\x00"+opt.Root+"\x00"+after == key {
		courseLoads.mu.Lock()
		if courseLoads.byKey == nil {
			courseLoads.byKey = map[string]*courseLoad{}
		}
		courseLoads.byKey[key] = &courseLoad{c: c, err: err}
		courseLoads.mu.Unlock()
	}
	return c, err
}

func loadEmbedded(base string, opt labs.Options) (*labs.Course, error) {
	return loadOnce("embedded "+base, content.FS, opt)
}

func loadOnce(key string, fsys fs.FS, opt labs.Options) (*labs.Course, error) {
	courseLoads.mu.Lock()
	if courseLoads.byKey == nil {
		courseLoads.byKey = map[string]*courseLoad{}
	}
	l := courseLoads.byKey[key]
	if l == nil {
		l = &courseLoad{}
		courseLoads.byKey[key] = l
	}
	courseLoads.mu.Unlock()
	l.once.Do(func() { l.c, l.err = labs.LoadWith(fsys, opt) })
	return l.c, l.err
}

// courseKey is a digest of every file under fsys, its path and its bytes.
func courseKey(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// embeddedCourse is labs.Load(content.FS), loaded once for the tests that
// read the course (the shared load of the servers without a base path,
// whose links are labs.DefaultLink's).
func embeddedCourse(t testing.TB) *labs.Course {
	t.Helper()
	c, err := loadEmbedded("", labs.Options{})
	if err != nil {
		t.Fatalf("embedded course: %v", err)
	}
	return c
}

func get(t testing.TB, u string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header
}

// TestEveryLanguageHasACatalog: each language the site offers has its
// catalog of texts (the catalog's own test checks they have the same keys).
func TestEveryLanguageHasACatalog(t *testing.T) {
	for _, lang := range labs.Langs {
		if !slices.Contains(catalog.Langs(), lang) {
			t.Errorf("no catalog of texts for %s", lang)
		}
	}
}

// TestMessagesForEngineNames checks the UI texts looked up by an engine
// name: every storage mode and every fault a challenge can draw.
func TestMessagesForEngineNames(t *testing.T) {
	var keys []string
	for m := engine.StorageNone; m <= engine.StorageIdempotent; m++ {
		keys = append(keys, "mode."+m.String())
	}
	for _, f := range []string{"spike", "drop", "pause", "partition", "drift", "outage"} {
		keys = append(keys, "fault."+f)
	}
	for _, lang := range labs.Langs {
		for _, k := range keys {
			if strings.HasPrefix(T(lang, k), missingPrefix) {
				t.Errorf("%s: no %q", lang, k)
			}
		}
	}
}

// linkAttrs are the attributes whose values TestEveryPage follows:
// attrValues(page, linkAttrs...) is what the expression
// (?:href|src|action)="([^"]*)" captures.
var linkAttrs = []string{"href", "src", "action"}

// attrValues is the value of every attribute named one of names in s, in
// order: what the expression (?:NAME|NAME...)="([^"]*)" captures (no word
// boundary before the name, as in the expression), found without it: Go's
// expressions took a tenth of the package's CPU on the long pages and
// frames (TestAttrValuesIsTheExpression).
func attrValues(s string, names ...string) []string {
	var out []string
	for i := 0; ; {
		j := strings.Index(s[i:], `="`)
		if j < 0 {
			return out
		}
		j += i
		end := strings.IndexByte(s[j+2:], '"')
		if end < 0 {
			return out // no later =" can close either
		}
		named := false
		for _, n := range names {
			if j-len(n) >= i && s[j-len(n):j] == n {
				named = true
				break
			}
		}
		if !named {
			i = j + 1
			continue
		}
		out = append(out, s[j+2:j+2+end])
		i = j + 2 + end + 1
	}
}

// TestAttrValuesIsTheExpression: attrValues captures what the expression
// does, on made-up markup and on the site's own pages.
func TestAttrValuesIsTheExpression(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{})
	inputs := []string{"", `href=""`, `href="a`, `a href="x" src="y"`, `xhref="1"`, `="x" href="2"`, `href=="3"`, `href="a"="b"`, `href="src="x"`, `title="alt="y"`,
		`<a title="t" aria-label="l" alt="a" placeholder="p" label="n">`, `ahref="1"src="2"action="3"`, `href="a` + "\n" + `b"`, `é href="ſ"`}
	for _, u := range []string{"/id/", "/en/labs/w1-w2", "/id/labs/write-renewal", "/id/lessons/leases"} {
		_, body, _ := get(t, ts.URL+u)
		inputs = append(inputs, body)
	}
	for _, names := range [][]string{linkAttrs, idLabelAttrs} {
		re := regexp.MustCompile(`(?:` + strings.Join(names, "|") + `)="([^"]*)"`)
		for _, s := range inputs {
			var want []string
			for _, m := range re.FindAllStringSubmatch(s, -1) {
				want = append(want, m[1])
			}
			if got := attrValues(s, names...); !slices.Equal(got, want) {
				t.Errorf("%v in %.200q: %q, the expression %q", names, s, got, want)
			}
		}
	}
}

// pageURLs is every page of the embedded course: home, lessons, labs, each
// lab with each answer and goal checked, in every language.
func pageURLs(t *testing.T) []string {
	c := embeddedCourse(t)
	// A missing translation falls back to Indonesian, which keeps the page
	// working but is still a hole in the English site.
	for _, p := range c.Problems {
		if p.Warning {
			t.Errorf("embedded course: %s", p)
		}
	}
	var out []string
	for _, lang := range labs.Langs {
		out = append(out, "/"+lang+"/")
		for _, l := range c.Lessons {
			out = append(out, "/"+lang+"/lessons/"+l.ID)
		}
		for _, lab := range c.Labs {
			base := "/" + lang + "/labs/" + lab.ID
			out = append(out, base, base+"/diagram.svg")
			for _, q := range lab.Questions {
				for _, ch := range q.Choices {
					out = append(out, base+"?"+url.Values{"q": {q.ID}, "choice": {ch.ID}}.Encode())
				}
			}
			for _, g := range lab.Goals {
				out = append(out, base+"?"+url.Values{"goal": {g.ID}}.Encode())
			}
			if ch := lab.Challenge(); ch != nil {
				out = append(out, base+"?challenge=1")
				for _, p := range ch.Params {
					out = append(out, base+"?"+url.Values{"challenge": {"1"}, "p." + p.Name: {"not a value"}}.Encode())
				}
			}
		}
	}
	return out
}

// TestEveryPage renders every page of the embedded course through the real
// handler and follows every link in it. A broken page, a dead link or a UI
// text without a translation fails.
func TestEveryPage(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{})
	seen := map[string]bool{}
	queue := pageURLs(t)
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if seen[u] {
			continue
		}
		seen[u] = true
		code, body, h := get(t, ts.URL+u)
		if code != http.StatusOK {
			t.Errorf("GET %s: %d", u, code)
			continue
		}
		if strings.Contains(body, missingPrefix) {
			i := strings.Index(body, missingPrefix)
			t.Errorf("GET %s: untranslated UI text near %q", u, body[i:min(len(body), i+40)])
		}
		if h.Get("Content-Security-Policy") != contentSecurityPolicy {
			t.Errorf("GET %s: no content security policy", u)
		}
		ct := h.Get("Content-Type")
		if strings.HasPrefix(ct, "image/svg") {
			if err := wellFormed(body); err != nil {
				t.Errorf("GET %s: not well-formed SVG: %v", u, err)
			}
			continue
		}
		if !strings.HasPrefix(ct, "text/html") {
			continue
		}
		if err := wellFormed(stripDoctype(body)); err != nil {
			t.Errorf("GET %s: %v", u, err)
		}
		lang := strings.Split(u, "/")[1]
		if !strings.Contains(body, `<html lang="`+lang+`"`) {
			t.Errorf("GET %s: page not marked as %s", u, lang)
		}
		for _, v := range attrValues(body, linkAttrs...) {
			link := htmlUnescape(v)
			if strings.HasPrefix(link, "#") || strings.HasPrefix(link, "data:") {
				continue
			}
			ref, err := url.Parse(link)
			if err != nil {
				t.Errorf("GET %s: bad link %q", u, link)
				continue
			}
			if ref.Host != "" || ref.Scheme != "" {
				t.Errorf("GET %s: link leaves the site: %q", u, link)
				continue
			}
			ref.Fragment = ""
			abs := (&url.URL{Path: strings.SplitN(u, "?", 2)[0]}).ResolveReference(ref).String()
			if strings.HasSuffix(abs, "/ws") {
				continue
			}
			if !seen[abs] {
				queue = append(queue, abs)
			}
		}
	}
	if len(seen) < 20 {
		t.Errorf("only %d pages seen", len(seen))
	}
	for _, u := range []string{"/id/labs/nope", "/id/lessons/nope", "/xx/", "/xx", "/en/labs/w1-w2?seed=abc"} {
		if code, body, _ := get(t, ts.URL+u); code < 400 || !strings.Contains(body, "leaselab") {
			t.Errorf("GET %s: %d, want an error page", u, code)
		}
	}
}

// wellFormed checks that a page parses as XML: templ writes void elements
// without a closing slash, so those are accepted.
func wellFormed(s string) error {
	d := xml.NewDecoder(strings.NewReader(s))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func stripDoctype(s string) string {
	if i := strings.Index(s, ">"); strings.HasPrefix(strings.ToLower(s), "<!doctype") {
		return s[i+1:]
	}
	return s
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&#39;", "'", "&quot;", `"`).Replace(s)
}

// TestLabPageReplaysTheSession drives the lab without script: each control
// adds its command to the address.
func TestLabPageReplaysTheSession(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	q := url.Values{"do": {"fencing on", "until 4s", "freeze W1", "advance 10s", "advance 8s", "thaw W1", "advance 1s"}}
	code, body, _ := get(t, ts.URL+"/en/labs/w1-w2?"+q.Encode())
	if code != 200 {
		t.Fatal(code)
	}
	for _, want := range []string{
		"the storage rejects file from W1 with token 7 (stale token: 7 &lt; 8)",
		`class="mk reject blocked"`,
		// advances in a row are folded into one
		`<input type="hidden" name="do" value="advance 18s">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Without script, the freeze duration is its own field.
	_, body, _ = get(t, ts.URL+"/en/labs/w1-w2?do=until+4s&do=freeze+W1&for=25s")
	if !strings.Contains(body, `value="freeze W1 for=25s"`) {
		t.Error("freeze duration not folded into the command")
	}
	// A bad command is reported and left out.
	_, body, _ = get(t, ts.URL+"/en/labs/w1-w2?do=freeze+W9&do=advance+1s")
	if !strings.Contains(body, "Command refused") || strings.Contains(body, `value="freeze W9"`) {
		t.Error("bad command not reported, or kept")
	}
	// Replay: the same faults again, with the storage as it is set now.
	q = url.Values{"do": {"fencing on", "until 4s", "freeze W1", "advance 18s", "thaw W1", "advance 1s", "fencing off"}, "replay": {"1"}}
	_, body, _ = get(t, ts.URL+"/en/labs/w1-w2?"+q.Encode())
	if !strings.Contains(body, "the storage accepts file from W1 with token 7") {
		t.Error("replay with fencing off did not accept W1's stale write")
	}
}

func TestStaticAssetsAreHashedCachedAndGzipped(t *testing.T) {
	s, ts := newTestServer(t, Config{})
	for name := range s.assets.urlOf {
		u := s.assets.URL(name)
		if !regexp.MustCompile(`^/static/[a-z]+\.[0-9a-f]{12}\.[a-z]+$`).MatchString(u) {
			t.Errorf("%s: URL %s is not content-hashed", name, u)
		}
		req, _ := http.NewRequest("GET", ts.URL+u, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: %d %q", u, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
		if name != "icon.png" && resp.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: not gzipped", u)
		}
	}
	if code, _, _ := get(t, ts.URL+"/static/app.000000000000.css"); code != 404 {
		t.Errorf("unknown asset: %d", code)
	}
}

// TestLabPageWeight measures the first load of the lab page with all its
// assets, compressed as a browser receives them, and checks that nothing
// is fetched from another site. The budget is what it weighed when its
// scripts and style sheet were first served minified (22.8 KB in
// Indonesian; 32.8 KB as written), and a little room: a first load that
// grows past it must earn its bytes.
func TestLabPageWeight(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	const budget = 24 * 1024
	for _, lang := range labs.Langs {
		total := 0
		fetch := func(u string) string {
			req, _ := http.NewRequest("GET", ts.URL+u, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			total += len(raw)
			if resp.Header.Get("Content-Encoding") != "gzip" {
				return string(raw)
			}
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			plain, _ := io.ReadAll(zr)
			return string(plain)
		}
		page := fetch("/" + lang + "/labs/w1-w2")
		var assets []string
		for _, m := range regexp.MustCompile(`<(?:link|script|img)[^>]*(?:href|src)="([^"]+)"`).FindAllStringSubmatch(page, -1) {
			if strings.Contains(m[1], "//") {
				t.Errorf("third-party request: %s", m[1])
				continue
			}
			assets = append(assets, m[1])
		}
		if !slices.ContainsFunc(assets, func(a string) bool { return strings.HasSuffix(a, ".js") }) {
			t.Error("no script found on the lab page")
		}
		for _, a := range assets {
			fetch(a)
		}
		t.Logf("%s: lab page first load, %d files, %d bytes gzip (budget %d)", lang, 1+len(assets), total, budget)
		if total > budget {
			t.Errorf("%s: lab page weighs %d bytes gzip, over %d", lang, total, budget)
		}
	}
}

func TestRenderDiagramSVG(t *testing.T) {
	var sc engine.Scenario
	for k, v := range map[string]string{"ttl": "15s", "first-token": "7", "fencing": "on"} {
		if err := sc.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, line := range []string{"W1: acquire; work 5s; write file; release", "W2 start=1s: acquire; work 5s; write file; release"} {
		ws, err := engine.ParseWorker(line)
		if err != nil {
			t.Fatal(err)
		}
		sc.Workers = append(sc.Workers, ws)
	}
	w, err := engine.New(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"until 4s", "freeze W1 for=25s", "until 30s"} {
		if err := w.Do(c); err != nil {
			t.Fatal(err)
		}
	}
	for _, lang := range labs.Langs {
		var b bytes.Buffer
		if err := draw.RenderDiagramSVG(&b, w, lang); err != nil {
			t.Fatal(err)
		}
		svg := b.String()
		if err := xml.NewDecoder(strings.NewReader(svg)).Decode(new(struct{ XMLName xml.Name })); err != nil {
			t.Fatalf("%s: not XML: %v", lang, err)
		}
		for _, want := range []string{`xmlns="http://www.w3.org/2000/svg"`, `class="mk reject blocked"`, `class="mk accept"`, `class="freeze"`, `class="pinned safe"`, "7&lt;8", "token 8"} {
			if !strings.Contains(svg, want) {
				t.Errorf("%s: SVG lacks %q", lang, want)
			}
		}
		if strings.Contains(svg, missingPrefix) {
			t.Errorf("%s: untranslated text in the SVG", lang)
		}
	}
}

func BenchmarkLabPage(b *testing.B) {
	s, err := New(sharedCourse(Config{}))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const query = "do=fencing+on&do=until+4s&do=freeze+W1&do=advance+18s&do=thaw+W1&do=advance+6s"
	// cached: the same link again, as a class opening a shared link does.
	// fresh: a new seed each time, so the page is worked out every time.
	for _, fresh := range []bool{false, true} {
		b.Run(map[bool]string{false: "cached", true: "fresh"}[fresh], func(b *testing.B) {
			b.ReportAllocs()
			seed := 0
			for b.Loop() {
				seed++
				u := "/en/labs/w1-w2?" + query
				if fresh {
					u += "&seed=" + strconv.Itoa(seed)
				}
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, httptest.NewRequest("GET", u, nil))
				if rec.Code != 200 {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}

// TestErrorTextSpeaksTheLanguage: a refused command reads in the page's
// language, with no English from the engine on an Indonesian page.
func TestErrorTextSpeaksTheLanguage(t *testing.T) {
	c := embeddedCourse(t)
	lab := c.Lab("w1-w2")
	sess, err := labsession.New(lab, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cmd, id, en string }{
		{"thaw W1", "cairkan: W1 tidak sedang beku", "thaw: W1 is not frozen"},
		{"freeze W9", `tidak ada worker bernama "W9"`, `no worker called "W9"`},
		{"restart W2", "mulai lagi: W2 masih berjalan", "restart: W2 is running"},
		{"replica 1 down", "lab ini tidak menawarkan perintah «matikan replika 1»", "this lab does not offer «replica 1 down»"},
	} {
		err := sess.Do(tc.cmd)
		if err == nil {
			t.Fatalf("%s: no error", tc.cmd)
		}
		if got := errorText("id", err); !strings.Contains(got, tc.id) || englishFromEngine.MatchString(got) {
			t.Errorf("%s in Indonesian: %q", tc.cmd, got)
		}
		if got := errorText("en", err); !strings.Contains(got, tc.en) {
			t.Errorf("%s in English: %q", tc.cmd, got)
		}
	}
	ch := c.Lab("renew-policy")
	if _, err := ch.Challenge().Judge(map[string]string{"renew-margin": "soon"}); err == nil {
		t.Error("renew-margin=soon judged")
	} else if got := errorText("id", err); !strings.Contains(got, `"soon"`) || !strings.Contains(got, "renew-margin") || strings.Contains(got, "duration") {
		t.Errorf("a policy value refused in Indonesian: %q", got)
	}
	if _, err := labsession.Parse("fly W1"); err == nil {
		t.Fatal("fly parsed")
	} else if got := errorText("id", err); got != `perintah "fly" tidak dikenal` {
		t.Errorf("unknown command in Indonesian: %q", got)
	}
}
