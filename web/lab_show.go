package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// labShow renders a lab with its world in the state the URL's session
// reaches. Without script, every control is a link to such a URL, and a
// question's or goal's form asks for its verdict in the same page.
func (s *Server) labShow(c echo.Context) error {
	lang, course, lab, err := s.labFor(c)
	if err != nil {
		return err
	}
	if s.full() {
		c.Response().Header().Set("Retry-After", "30")
		return &pageError{status: http.StatusServiceUnavailable, lang: lang, key: "full.text", title: "full.title"}
	}
	q := c.QueryParams()
	sess, world, cmdErr, err := replaySession(lab, q)
	if err != nil {
		return err
	}
	v := &labView{
		page:   s.newPage(lang, "/labs/"+lab.ID, lab.Title(lang), "lab"),
		Course: course, Lab: lab, Session: sess, World: world, Error: errorText(lang, cmdErr),
		Answered: map[string]*answerView{}, Goals: map[string]*goalView{},
	}
	v.page.Query = sess.Query()
	v.Lead, v.Rest = splitLead(lab.HTML(lang))
	v.Controls = controlsOf(lab)
	if qid, choice := q.Get("q"), q.Get("choice"); qid != "" && choice != "" {
		a, err := answer(lab, qid, choice, lang)
		if err != nil {
			v.Error = errorText(lang, err)
		} else {
			v.Answered[qid] = a
		}
	}
	if gid := q.Get("goal"); gid != "" {
		g, err := checkGoal(lab, gid, world, lang)
		if err != nil {
			v.Error = errorText(lang, err)
		} else {
			v.Goals[gid] = g
		}
	}
	if ch := lab.Challenge(); ch != nil {
		v.Policy = policyValues(ch, q.Get)
		if q.Get("challenge") != "" {
			j, err := judge(lab, v.Policy, lang)
			if err != nil {
				v.Error = errorText(lang, err)
			} else {
				v.Judged = j
			}
		}
	}
	return render(c, http.StatusOK, labPage(v))
}
