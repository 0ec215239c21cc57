package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tdewolff/minify/v2"
	"github.com/tdewolff/minify/v2/css"
	"github.com/tdewolff/minify/v2/js"

	"leaselab/static"
)

// asset is one embedded static file, ready to serve.
type asset struct {
	name  string // hashed, e.g. app.1f2e3d4c5b6a.css
	ctype string
	plain []byte
	gz    []byte // nil when gzip does not pay
	etag  string
}

// assets serves static files under content-hashed names, so a page always
// asks for exactly the version it was rendered with and the browser may
// keep them forever. A script is an ES module, and its imports of the
// other scripts ("./play.js") are served with their hashed names
// ("./play.1f2e3d4c5b6a.js"), so a module's name changes with any module
// it imports and every one of them may be kept forever too.
type assets struct {
	byName  map[string]*asset   // hashed name → asset
	urlOf   map[string]string   // plain name → /static/hashed name
	imports map[string][]string // plain name of a module → the modules it imports statically, plain names
}

const staticPrefix = "/static/"

// importOf finds a module's imports of its neighbours: `from "./x.js"`,
// `import "./x.js"` and the dynamic `import("./x.js")` (group 1 says
// which).
var importOf = regexp.MustCompile(`(\bfrom\s*|\bimport\s*(\(\s*)?)"\./([a-z0-9_-]+\.js)"`)

// embeddedAssets are the embedded assets, made ready once for every
// server of a process (minifying them takes about 20 ms, and the tests
// start hundreds of servers); nothing changes an assets once loaded.
var embeddedAssets = sync.OnceValues(func() (*assets, error) { return loadAssets(static.FS) })

// assetsOf is fsys's assets, ready to serve.
func assetsOf(fsys fs.FS) (*assets, error) {
	if fsys == fs.FS(static.FS) {
		return embeddedAssets()
	}
	return loadAssets(fsys)
}

func loadAssets(fsys fs.FS) (*assets, error) {
	a := &assets{byName: map[string]*asset{}, urlOf: map[string]string{}, imports: map[string][]string{}}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("static assets: %w", err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) == ".go" {
			continue
		}
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("static assets: %w", err)
		}
		if files[e.Name()], err = minified(e.Name(), data); err != nil {
			return nil, fmt.Errorf("static assets: %w", err)
		}
	}
	for _, e := range entries {
		if _, ok := files[e.Name()]; ok {
			if err := a.add(files, e.Name(), nil); err != nil {
				return nil, fmt.Errorf("static assets: %w", err)
			}
		}
	}
	return a, nil
}

// minified is a script or a style sheet as a browser needs it: without
// its comments, its spaces and its long local names (the same program).
// The sources are written to be read, and their words were a third of
// the bytes of a lab page's first load.
func minified(name string, data []byte) ([]byte, error) {
	mt := ""
	switch path.Ext(name) {
	case ".js":
		mt = "text/javascript"
	case ".css":
		mt = "text/css"
	default:
		return data, nil
	}
	out, err := minifier.Bytes(mt, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

var minifier = func() *minify.M {
	m := minify.New()
	m.AddFunc("text/javascript", js.Minify)
	m.AddFunc("text/css", css.Minify)
	return m
}()

// add makes name ready to serve, after the modules it imports (a module's
// hash is taken over its imports' hashed names). via are the modules
// whose imports led here, to find a cycle.
func (a *assets) add(files map[string][]byte, name string, via []string) error {
	if _, done := a.urlOf[name]; done {
		return nil
	}
	if slices.Contains(via, name) {
		return fmt.Errorf("%s imports itself through %v", name, via)
	}
	data := files[name]
	ext := path.Ext(name)
	if ext == ".js" {
		var failed error
		data = importOf.ReplaceAllFunc(data, func(m []byte) []byte {
			sub := importOf.FindSubmatch(m)
			dep := string(sub[3])
			if _, ok := files[dep]; !ok {
				failed = fmt.Errorf("%s imports %s, which is not there", name, dep)
				return m
			}
			if err := a.add(files, dep, append(via[:len(via):len(via)], name)); err != nil {
				failed = err
				return m
			}
			if len(sub[2]) == 0 && !slices.Contains(a.imports[name], dep) {
				a.imports[name] = append(a.imports[name], dep)
			}
			return []byte(string(sub[1]) + `"./` + path.Base(a.urlOf[dep]) + `"`)
		})
		if failed != nil {
			return failed
		}
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:6])
	hashed := strings.TrimSuffix(name, ext) + "." + hash + ext
	ct := mime.TypeByExtension(ext)
	if ext == ".js" {
		ct = "text/javascript; charset=utf-8"
	}
	as := &asset{name: hashed, ctype: ct, plain: data, etag: `"` + hash + `"`}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	if buf.Len() < len(data) {
		as.gz = buf.Bytes()
	}
	a.byName[hashed] = as
	a.urlOf[name] = staticPrefix + hashed
	return nil
}

// Preloads are the hashed URLs of every module the module name imports,
// directly or not, dynamic imports aside: what a page that runs name
// fetches before it runs, named in its head so that the browser asks
// for them all at once (<link rel="modulepreload">), not one import
// after another.
func (a *assets) Preloads(base, name string) []string {
	var urls []string
	seen := map[string]bool{name: true}
	var walk func(string)
	walk = func(n string) {
		for _, dep := range a.imports[n] {
			if !seen[dep] {
				seen[dep] = true
				urls = append(urls, base+a.urlOf[dep])
				walk(dep)
			}
		}
	}
	walk(name)
	return urls
}

// URL is the hashed URL of a static file by its plain name.
func (a *assets) URL(name string) string {
	if u, ok := a.urlOf[name]; ok {
		return u
	}
	return staticPrefix + name
}

func (a *assets) serve(w http.ResponseWriter, r *http.Request, name string) {
	as, ok := a.byName[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", as.ctype)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", as.etag)
	h.Set("Vary", "Accept-Encoding")
	if r.Header.Get("If-None-Match") == as.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := as.plain
	if as.gz != nil && acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = as.gz
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		if strings.TrimSpace(strings.SplitN(part, ";", 2)[0]) == "gzip" {
			return true
		}
	}
	return false
}
