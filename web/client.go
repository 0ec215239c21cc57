package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// Who a request's work is charged to (issue 43). Behind a campus NAT a
// whole lecture room is one client address, so budgets follow the student
// wherever the server can tell students apart: a student of a class by
// their class cookie, anyone else by the browser's own session cookie (a
// random id this server gives a browser that has none). The address stays
// a ceiling over all of them (addrBudgets). A cookie the server did not
// give names a client of its own, whose work its address still pays, as
// every client's; and the same cookie from another address is another
// client, so a copied cookie spends nothing of its owner's.

// browserCookie is a browser's own session id, kept until it closes.
const browserCookie = "leaselab_sid"

// clientKey is the name of a request's client within its address: its
// class cookie, else its browser's session id, else "" (the address's
// clients without a cookie, together).
func clientKey(r *http.Request) string {
	if code, id, ok := studentOf(r); ok {
		return "c:" + code + "." + id
	}
	if ck, err := r.Cookie(browserCookie); err == nil && ck.Value != "" && len(ck.Value) <= 64 {
		return "b:" + ck.Value
	}
	return ""
}

// browserID gives a browser that has no session id one, on the pages it
// loads (not on static files, probes or refusals).
func (s *Server) browserID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && !strings.HasPrefix(r.URL.Path, staticPrefix) &&
			r.URL.Path != "/healthz" && r.URL.Path != "/metrics" && !strings.HasSuffix(r.URL.Path, "/ws") {
			if _, err := r.Cookie(browserCookie); err != nil {
				b := make([]byte, 16)
				rand.Read(b)
				c.SetCookie(&http.Cookie{Name: browserCookie, Value: base64.RawURLEncoding.EncodeToString(b), Path: s.base + "/",
					HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: c.Scheme() == "https"})
			}
		}
		return next(c)
	}
}

// clientTag names a client for a map and a log line: its address and a
// short hash of its key (the cookie's value itself stays out of logs).
func clientTag(addr, key string) string {
	if key == "" {
		return addr
	}
	sum := sha256.Sum256([]byte(key))
	return addr + " " + hex.EncodeToString(sum[:4])
}
