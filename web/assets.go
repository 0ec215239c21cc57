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
	"strings"
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
// keep them forever.
type assets struct {
	byName map[string]*asset // hashed name → asset
	urlOf  map[string]string // plain name → /static/hashed name
}

const staticPrefix = "/static/"

func loadAssets(fsys fs.FS) (*assets, error) {
	a := &assets{byName: map[string]*asset{}, urlOf: map[string]string{}}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("static assets: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("static assets: %w", err)
		}
		sum := sha256.Sum256(data)
		hash := hex.EncodeToString(sum[:6])
		ext := path.Ext(e.Name())
		if ext == ".go" {
			continue
		}
		hashed := strings.TrimSuffix(e.Name(), ext) + "." + hash + ext
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
		a.urlOf[e.Name()] = staticPrefix + hashed
	}
	return a, nil
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
