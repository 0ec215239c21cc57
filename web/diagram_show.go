package web

import (
	"bytes"
	"leaselab/draw"

	"github.com/labstack/echo/v4"
)

// diagramShow is the permalink picture of a session, cached by its URL.
func (s *Server) diagramShow(c echo.Context) error {
	lang, _, lab, err := s.labFor(c)
	if err != nil {
		return err
	}
	return s.cachedPage(c, lab, "image/svg+xml; charset=utf-8", func() ([]byte, error) {
		sess, _, err := openSession(lab, c.QueryParams())
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := draw.RenderDiagramSVG(&b, sess.World(), lang); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	})
}
