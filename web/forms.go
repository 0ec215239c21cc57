package web

import (
	"errors"
	"mime"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"leaselab/budget"
	"leaselab/class"
	"leaselab/labsession"
	"leaselab/live"
)

// Every form that changes what the server keeps (joining, opening a
// class, voting, leaving, the instructor's buttons) is taken only from
// this site's own pages (issue 50), is small, and is paid for from its
// sender's work budget (issue 51). ownForm wraps each of those routes.

// maxFormBytes bounds the body of a form. The largest the pages send is
// a vote whose "back" field carries the page's address (at most maxBack
// bytes, escaped once more in the form): a few kilobytes.
const maxFormBytes = 16 << 10

// maxListForm bounds the one larger form, a class list pasted or
// uploaded on an instructor's grades page: thousands of rows.
const maxListForm = class.MaxListSize + 64<<10

// errTooLarge is a form body over maxFormBytes.
var errTooLarge = errors.New("a form body larger than the pages send")

// formOrigin accepts a form only from a page of this site, by the same
// rule as the live socket's (checkOrigin: the Origin's host and port are
// the request's Host, or the name a trusted proxy forwarded; with a
// public URL, checkHost has already refused any other Host). A browser
// that says the request came from another site (Sec-Fetch-Site:
// cross-site, or same-site: another port or another name of the same
// domain) is refused whether or not it sent an Origin. No Origin and no
// Sec-Fetch-Site at all is not a browser's form (a script of the
// operator's, leaselab load), and is accepted, as on the socket.
func (s *Server) formOrigin(r *http.Request) error {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none": // none: the person typed or bookmarked it
	default:
		return &originError{"a form from another site's page (Sec-Fetch-Site: " + labsession.Clip(site) + ")"}
	}
	return s.checkOrigin(r)
}

// readForm reads a form's body, at most maxFormBytes of it: a body that
// says it is longer is refused before a byte of it is read, and one of
// unknown length is cut there. A multipart body this small is held in
// memory, never in temporary files.
func readForm(c echo.Context) error {
	r := c.Request()
	limit := int64(maxFormBytes)
	if c.Param("act") == "list" && c.Param("token") != "" {
		limit = maxListForm // an instructor's class list (issue 44)
	}
	if r.ContentLength > limit {
		return errTooLarge
	}
	r.Body = http.MaxBytesReader(c.Response().Writer, r.Body, limit)
	var err error
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		err = r.ParseMultipartForm(limit)
	} else {
		err = r.ParseForm()
	}
	if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
		return errTooLarge
	}
	return err
}

// ownForm guards a route that changes what the server keeps: another
// site's page is refused (403), so is a body over maxFormBytes (413, and
// the connection is closed rather than the rest read), and the form is
// then paid from the sender's work budget as a vote is (light). Every
// refusal is charged what answering it costs, in the sender's language.
func (s *Server) ownForm(next echo.HandlerFunc) echo.HandlerFunc {
	paid := s.light(next)
	return func(c echo.Context) error {
		r := c.Request()
		lang := langOf(c)
		client := s.clientAddr(r)
		if err := s.formOrigin(r); err != nil {
			budget.ChargeFixed(budget.RefuseCost, s.addrBudgets.get(client))
			s.refused(errOrigin, err.Error(), "client", client, "origin", labsession.Clip(r.Header.Get("Origin")),
				"path", labsession.Clip(r.URL.Path))
			return classAnswer(c, &pageError{status: http.StatusForbidden, lang: lang, key: "form.foreign", title: "form.foreign.title"})
		}
		if err := readForm(c); err != nil {
			budget.ChargeFixed(budget.RefuseCost, s.addrBudgets.get(client))
			if !errors.Is(err, errTooLarge) {
				return classAnswer(c, &pageError{status: http.StatusBadRequest, lang: lang, key: "class.badrequest"})
			}
			s.refused(live.ErrSize, "a form body larger than the pages send", "client", client,
				"length", strconv.FormatInt(r.ContentLength, 10), "path", labsession.Clip(r.URL.Path))
			c.Response().Header().Set("Connection", "close")
			return classAnswer(c, &pageError{status: http.StatusRequestEntityTooLarge, lang: lang, key: "form.toolarge"})
		}
		return paid(c)
	}
}
