package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// diagramShow is the permalink picture of a session.
func (s *Server) diagramShow(c echo.Context) error {
	lang, _, lab, err := s.labFor(c)
	if err != nil {
		return err
	}
	_, world, _, err := replaySession(lab, c.QueryParams())
	if err != nil {
		return err
	}
	var b strings.Builder
	if err := RenderDiagramSVG(&b, world, lang); err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "image/svg+xml; charset=utf-8", []byte(b.String()))
}
