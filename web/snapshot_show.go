package web

import (
	"github.com/labstack/echo/v4"
)

// snapshotShow is a permalink: the world a session's lab, seed and
// commands reach, drawn on the server with no script and no live
// connection, with a way to go on from there live. It holds no session,
// so it works when the server is full too, and it is cached by its URL.
func (s *Server) snapshotShow(c echo.Context) error {
	lang, course, lab, err := s.labFor(c)
	if err != nil {
		return err
	}
	return s.cachedPage(c, lab, echo.MIMETextHTMLCharsetUTF8, func() ([]byte, error) {
		sess, cmdErr, err := openSession(lab, c.QueryParams())
		if err != nil {
			return nil, err
		}
		v := &labView{
			page:   s.newPage(lang, "/labs/"+lab.ID+"/at", lab.Title(lang)+" · "+T(lang, "snap.title"), "snapshot"),
			Course: course, Lab: lab, Session: sessionOf(sess), World: sess.World(), Error: errorText(lang, cmdErr),
		}
		v.page.Query = sess.Query()
		link := s.siteURL(c) + v.Href("/labs/"+lab.ID+"/at?"+sess.Query())
		return renderBytes(c, snapshotPage(v, link))
	})
}
