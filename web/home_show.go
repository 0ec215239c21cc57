package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) homeShow(c echo.Context) error {
	lang, course, err := s.courseFor(c)
	if err != nil {
		return err
	}
	p := s.newPage(lang, "/", T(lang, "nav.home"), "home")
	return render(c, http.StatusOK, homePage(&homeView{page: p, Course: course, Classes: s.classes != nil}))
}
