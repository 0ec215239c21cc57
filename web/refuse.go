package web

import (
	"encoding/json"
	"html"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"leaselab/budget"
	"leaselab/labs"
	"leaselab/labsession"
	"leaselab/live"
)

// Refusing costs the server too (issue 51): a flood of requests it
// refuses took most of a core answering each with a whole rendered page.
// A refusal for a budget is now made of bytes written once per language
// (no page rendered, no template, nothing compressed), before the body
// is read; it is charged, but only up to the client's ceiling
// (budget.ChargeRefusal); and a client at its ceiling pays in time
// rather than in the server's cores: its connection is closed and its
// next refusal, or its address's next connection, waits refuseHold.

// The refusals for a budget, each said with its page's title.
var (
	busyAddr    = &pageError{status: http.StatusTooManyRequests, key: "busy.text", title: "busy.title"}
	busyStudent = &pageError{status: http.StatusTooManyRequests, key: "busy.student", title: "busy.title"}
)

// busyAnswers are the bodies of the refusals, by refusal, language and
// form (a page, or JSON for a page's script), made once; and how long a
// client at its ceiling waits (refuseHold; tests shorten it).
type busyAnswers struct {
	once sync.Once
	m    map[busyKey][]byte
	hold time.Duration
}

type busyKey struct {
	e    *pageError
	lang string
	json bool
}

// busyBody is the body of refusal e in lang: a short page, or for
// script {"error": text}.
func (s *Server) busyBody(e *pageError, lang string, asJSON bool) []byte {
	s.busy.once.Do(func() {
		s.busy.m = map[busyKey][]byte{}
		css := s.base + s.assets.URL("app.css")
		for _, l := range labs.Langs {
			for _, pe := range []*pageError{busyAddr, busyStudent} {
				text, title := T(l, pe.key), T(l, pe.title)
				js, _ := json.Marshal(map[string]string{"error": text})
				s.busy.m[busyKey{pe, l, true}] = js
				s.busy.m[busyKey{pe, l, false}] = []byte(`<!doctype html><html lang="` + l + `"><head><meta charset="utf-8">` +
					`<meta name="viewport" content="width=device-width,initial-scale=1"><title>` + html.EscapeString(title) + ` · leaselab</title>` +
					`<link rel="stylesheet" href="` + html.EscapeString(css) + `"></head><body><main class="error"><h1>` + html.EscapeString(title) +
					`</h1><p>` + html.EscapeString(text) + `</p></main></body></html>` + "\n")
			}
		}
	})
	if !knownLang(lang) {
		lang = labs.DefaultLang
	}
	return s.busy.m[busyKey{e, lang, asJSON}]
}

// writeBusy answers a refusal for a budget: 429 with when to try again,
// and, when close, the connection closed (net/http then reads nothing
// more of it, not even the rest of a body).
func (s *Server) writeBusy(w http.ResponseWriter, r *http.Request, e *pageError, lang string, retry time.Duration, close bool) {
	asJSON := strings.Contains(r.Header.Get("Accept"), "application/json")
	h := w.Header()
	h.Set("Retry-After", strconv.Itoa(max(1, int(retry.Seconds()+0.999))))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if asJSON {
		h.Set("Content-Type", "application/json")
	} else {
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", contentSecurityPolicy)
	}
	if close {
		h.Set("Connection", "close")
	}
	w.WriteHeader(http.StatusTooManyRequests)
	if r.Method != http.MethodHead {
		w.Write(s.busyBody(e, lang, asJSON))
	}
}

// retryOf is how long a refusal tells the client to wait.
func retryOf(b *budget.Work) time.Duration {
	if be, ok := budget.Wait(b).(*budget.Busy); ok {
		return be.Retry
	}
	return time.Second
}

// hold waits refuseHold before a refusal to a client at its ceiling,
// unless the request or the server ends first.
func (s *Server) hold(r *http.Request) {
	t := time.NewTimer(s.refuseHold())
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	case <-s.ctx.Done():
	}
}

// refuseHold is how long a client at its ceiling waits for each refusal.
func (s *Server) refuseHold() time.Duration {
	if s.busy.hold > 0 {
		return s.busy.hold
	}
	return refuseHold
}

// studentBudget is the budget of the student a request's class cookie
// names, from its client address; nil without one.
func (s *Server) studentBudget(r *http.Request, client string) *budget.Work {
	code, id, ok := studentOf(r)
	if !ok {
		return nil
	}
	return s.addrBudgets.student(client, code+"."+id)
}

// refuseEarly answers, before routing and before a byte of its body is
// read, a request that will be refused for its budget: any request of an
// address at its ceiling, and a form (every POST is one, paid by light)
// of a student or an address in debt. It reports whether it answered.
func (s *Server) refuseEarly(w http.ResponseWriter, r *http.Request) bool {
	client := s.clientAddr(r)
	lang := pathLang(strings.TrimPrefix(r.URL.Path, s.base))
	if s.addrBudgets.over(client) {
		b := s.addrBudgets.get(client)
		budget.ChargeRefusal(budget.RefuseCost, addrCeiling, b)
		s.refused(live.ErrBudget, "a client at its work ceiling asked again", "client", client, "path", labsession.Clip(r.URL.Path))
		if s.proxies.peerTrusted(r) {
			s.hold(r) // the proxy's connection carries others: it is not held at accept
		}
		s.writeBusy(w, r, busyAddr, lang, retryOf(b), true)
		return true
	}
	if r.Method != http.MethodPost {
		return false
	}
	if own := s.studentBudget(r, client); own != nil && budget.Wait(own) != nil {
		s.refuseStudent(w, r, client, own, lang)
		return true
	}
	b := s.addrBudgets.get(client)
	if budget.Wait(b) == nil {
		return false
	}
	budget.ChargeRefusal(budget.RefuseCost, addrCeiling, b)
	s.refused(live.ErrBudget, "a client over its work budget sent a form", "client", client, "path", labsession.Clip(r.URL.Path))
	s.writeBusy(w, r, busyAddr, lang, retryOf(b), atCeiling(b, addrCeiling))
	return true
}

// refuseStudent refuses a student in debt, charged to the student alone:
// their room's address is not put in debt by one student's flood.
func (s *Server) refuseStudent(w http.ResponseWriter, r *http.Request, client string, own *budget.Work, lang string) {
	budget.ChargeRefusal(budget.RefuseCost, studentCeiling, own)
	s.refused(live.ErrBudget, "a student over their work budget sent a form", "client", client, "path", labsession.Clip(r.URL.Path))
	over := atCeiling(own, studentCeiling)
	if over {
		s.hold(r)
	}
	s.writeBusy(w, r, busyStudent, lang, retryOf(own), over)
}

// pathLang is the language a path (without the base path) names, or the
// default.
func pathLang(p string) string {
	seg, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	if knownLang(seg) {
		return seg
	}
	return labs.DefaultLang
}

// refuseHeader answers a request whose header fields are larger than a
// browser sends (431), charged to its address as a refusal, and closes
// the connection. (Reading it was charged as it was read: limitConn.)
func (s *Server) refuseHeader(w http.ResponseWriter, r *http.Request, field string) {
	client := s.clientAddr(r)
	budget.ChargeRefusal(budget.RefuseCost, addrCeiling, s.addrBudgets.get(client))
	s.refused(errHeader, "a request whose header is larger than a browser sends", "client", client, "field", labsession.Clip(field))
	w.Header().Set("Connection", "close")
	http.Error(w, "leaselab: request header too large: "+labsession.Clip(field), http.StatusRequestHeaderFieldsTooLarge)
}
