package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) lessonShow(c echo.Context) error {
	lang, course, err := s.courseFor(c)
	if err != nil {
		return err
	}
	l := course.Lesson(c.Param("id"))
	if l == nil {
		return notFound(lang)
	}
	v := &lessonView{page: s.newPage(lang, "/lessons/"+l.ID, l.Title(lang), "lesson"), Course: course, Lesson: l}
	for i, x := range course.Lessons {
		if x == l && i+1 < len(course.Lessons) {
			v.Next = course.Lessons[i+1]
		}
	}
	return render(c, http.StatusOK, lessonPage(v))
}
