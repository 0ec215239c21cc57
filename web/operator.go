package web

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"leaselab/labs"
)

// observe counts every request by route and status for /metrics, and
// logs it when the access log is on.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		if err := next(c); err != nil {
			c.Error(err) // write the error page now, so its status is counted
		}
		route := c.Path()
		if route == "" || route == "/*" {
			route = "unmatched" // a fixed label: clients cannot grow the metrics
		}
		res := c.Response()
		s.metrics.request(route, res.Status)
		if s.accessLog {
			r := c.Request()
			s.log.Info("request", "method", r.Method, "path", requestPath(r), "route", route, "status", res.Status,
				"bytes", res.Size, "duration", time.Since(start), "remote", c.RealIP())
		}
		return nil
	}
}

// requestPath is the path a request asked for, as the client wrote it:
// the base path stripped in front of the routes is still on it.
func requestPath(r *http.Request) string {
	if u, err := url.ParseRequestURI(r.RequestURI); err == nil {
		return u.Path
	}
	return r.URL.Path
}

type authorKey struct{}

// markAuthor notes in the request's context whether the client is the
// author, who sees the banner of content errors. On "loopback" that is a
// client on this machine whose request came through no proxy: behind a
// proxy on the same host, every student's request comes from loopback too.
func (s *Server) markAuthor(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		author := false
		switch s.showProblems {
		case "all":
			author = true
		case "loopback":
			host, _, err := net.SplitHostPort(r.RemoteAddr)
			ip := net.ParseIP(host)
			proxied := r.Header.Get("X-Forwarded-For") != "" || r.Header.Get("Forwarded") != "" || r.Header.Get("X-Real-Ip") != ""
			author = err == nil && ip != nil && ip.IsLoopback() && !proxied
		}
		if author {
			c.SetRequest(r.WithContext(context.WithValue(r.Context(), authorKey{}, true)))
		}
		return next(c)
	}
}

// isAuthor reports whether a page is rendered for the content's author.
func isAuthor(ctx context.Context) bool {
	v, _ := ctx.Value(authorKey{}).(bool)
	return v
}

// An Accept-Language header is read only this far: a browser sends a few
// dozen bytes, and a huge one must cost no more than a normal one.
const (
	maxAcceptLanguage = 256 // bytes
	maxLangPrefs      = 16  // entries
)

// preferredLang is the course language an Accept-Language header prefers
// most, or the default language: the first of the highest weight. It reads
// a bounded prefix and allocates nothing.
func preferredLang(header string) string {
	if len(header) > maxAcceptLanguage {
		header = header[:maxAcceptLanguage]
		// The entry cut in two is dropped, not misread.
		if i := strings.LastIndexByte(header, ','); i >= 0 {
			header = header[:i]
		}
	}
	best, bestQ := labs.DefaultLang, 0.0
	for n := 0; header != "" && n < maxLangPrefs; n++ {
		var part string
		part, header, _ = strings.Cut(header, ",")
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		base, _, _ := strings.Cut(strings.TrimSpace(tag), "-")
		for _, lang := range labs.Langs {
			if strings.EqualFold(base, lang) && q > bestQ {
				best, bestQ = lang, q
			}
		}
	}
	return best
}

// reloadPath is where, in --content mode, a page learns that the content
// changed: a server-sent event stream (static/reload.js listens).
const reloadPath = "/_reload"

// reloadPing keeps an idle stream from being closed by a proxy.
const reloadPing = 25 * time.Second

// startEvents begins a stream of server-sent events; the browser's
// EventSource tries again a second after a drop.
func startEvents(w *echo.Response) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass events on as they come
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 1000\n\n")
}

// contentChanges sends the event "reload" as soon as the content differs
// from the version the page was rendered from (?since=), at once if it
// already does. A browser's EventSource reconnects by itself after a drop.
func (s *Server) contentChanges(c echo.Context) error {
	since := c.QueryParam("since")
	w := c.Response()
	startEvents(w)
	ping := time.NewTicker(reloadPing)
	defer ping.Stop()
	for {
		next := s.course.next()
		if v := s.course.get().version; v != since {
			fmt.Fprintf(w, "event: reload\ndata: %s\n\n", v)
			w.Flush()
			return nil
		}
		w.Flush()
		select {
		case <-next:
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
		case <-c.Request().Context().Done():
			return nil
		case <-s.ctx.Done():
			return nil
		}
	}
}
