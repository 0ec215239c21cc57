package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"leaselab/labs"
	"leaselab/labsession"
	"leaselab/program"

	"github.com/labstack/echo/v4"
)

// labShow renders a lab with its world in the state the URL's session
// reaches. Without script, every control is a link to such a URL, and a
// question's or goal's form asks for its verdict in the same page. The
// page depends on its URL only, so it is cached: a link shared with a
// class is worked out once.
func (s *Server) labShow(c echo.Context) error {
	lang, course, lab, err := s.labFor(c)
	if err != nil {
		return err
	}
	if s.full() {
		s.refused(errFull, "a lab page while the server holds its --max-sessions", "max", s.maxSessions)
		c.Response().Header().Set("Retry-After", "30")
		return &pageError{status: http.StatusServiceUnavailable, lang: lang, key: "full.text", title: "full.title"}
	}
	s.labProgress(c.Request(), lab)
	if s.classSubmit(c, lab) {
		// A class keeps each student's Submit (class_programs.go): it is
		// made for this student, never taken from the cache.
		body, err := s.labPageBody(c, lang, course, lab)
		var u *uncachedPage
		if errors.As(err, &u) {
			body, err = u.body, nil
		}
		if err != nil {
			return err
		}
		c.Response().Header().Set("Cache-Control", "no-store")
		return c.HTMLBlob(http.StatusOK, body)
	}
	err = s.cachedPage(c, lab, echo.MIMETextHTMLCharsetUTF8, func() ([]byte, error) {
		return s.labPageBody(c, lang, course, lab)
	})
	var u *uncachedPage
	if errors.As(err, &u) {
		c.Response().Header().Set("Cache-Control", "no-store")
		return c.HTMLBlob(http.StatusOK, u.body)
	}
	return err
}

// labPageBody renders the lab page the URL describes: its session's
// world, and the verdicts its forms ask for. A page with a program's place
// in the judgements' queue comes as an uncachedPage.
func (s *Server) labPageBody(c echo.Context, lang string, course *labs.Course, lab *labs.Lab) ([]byte, error) {
	q := c.QueryParams()
	sess, cmdErr, err := openSession(lab, q)
	if err != nil {
		return nil, err
	}
	v := s.newLabView(c, lang, course, lab, sess, cmdErr)
	s.askedVerdicts(v, q, lang)
	if lab.Program() != nil {
		s.labProgram(c, v, sess, q, cmdErr, lang)
	}
	if ch := lab.Challenge(); ch != nil {
		s.labChallenge(v, ch, q, lang)
	}
	if m := lab.Measured(); m != nil {
		labMeasured(v, m, q, lang)
	}
	if v.Program != nil && v.Program.Queued != nil {
		// Asked again without the #fragment: the same address with
		// one would only scroll the page.
		v.Program.Queued.Again = s.base + c.Request().URL.RequestURI()
	}
	body, err := renderBytes(c, labPage(v))
	if err == nil && v.Program != nil && v.Program.Queued != nil {
		return nil, &uncachedPage{body} // a place in the queue is not the page's for long
	}
	return body, err
}

// newLabView is the lab page of the session's world, with the command
// the URL's session refused, if any, as its error.
func (s *Server) newLabView(c echo.Context, lang string, course *labs.Course, lab *labs.Lab, sess *labsession.Session, cmdErr error) *labView {
	v := &labView{
		page:   s.newPage(lang, "/labs/"+lab.ID, lab.Title(lang), "lab"),
		Course: course, Lab: lab, Session: sessionOf(sess), World: sess.World(), Error: errorText(lang, cmdErr),
		Answered: map[string]*answerView{}, Goals: map[string]*goalView{},
	}
	v.page.Query = sess.Query()
	v.Share = s.siteURL(c) + v.Href("/labs/"+lab.ID)
	if q := sess.Query(); q != "" {
		v.Share += "?" + q
	}
	v.Lead, v.Rest = splitLead(lab.HTML(lang))
	v.Controls = controlsOf(lab)
	return v
}

// askedVerdicts judges the question's answer and the goal the URL asks
// about. Errors name what the URL asked for, briefly: a megabyte in a
// parameter is not echoed back.
func (s *Server) askedVerdicts(v *labView, q url.Values, lang string) {
	if qid, choice := q.Get("q"), q.Get("choice"); qid != "" && choice != "" {
		a, err := s.answer(v.Lab, qid, choice, lang)
		if err != nil {
			v.Error = clipText(errorText(lang, err))
		} else {
			v.Answered[qid] = a
		}
	}
	if gid := q.Get("goal"); gid != "" {
		g, err := checkGoal(v.Lab, gid, v.World, lang)
		if err != nil {
			v.Error = clipText(errorText(lang, err))
		} else {
			v.Goals[gid] = g
		}
	}
}

// labProgram fills in the editor of a lab whose worker the student
// writes: the program, what is wrong with it, its verdict when submitted.
func (s *Server) labProgram(c echo.Context, v *labView, sess *labsession.Session, q url.Values, cmdErr error, lang string) {
	var pe *program.Error
	if errors.As(cmdErr, &pe) {
		v.Error = "" // said in the editor, with its line
	}
	compare := q.Get("compare") != ""
	ask := programAsk{submit: q.Get("submit") != "" || compare, compare: compare}
	pv, err := s.programOf(c.Request().Context(), v.Lab, sess.Program(), q.Get("program"), cmdErr, ask, lang)
	if err != nil {
		v.Error = clipText(errorText(lang, err))
	}
	if pv.Error == "" {
		// A program that fails as the world plays (a value too large,
		// too many steps) stopped its worker: say why, in the editor.
		if fs := v.World.ProgramFaults(); len(fs) > 0 {
			pv.Error = fmt.Sprintf(T(lang, "program.verdict.fault"), program.Describe(fs[0].Err, lang))
		}
	}
	v.Program = pv
	s.programSubmitted(c.Request(), v.Lab, pv) // kept for a student of a class (class_programs.go)
}

// labChallenge fills in a design challenge's policy from the URL, and
// its verdict when the form asks for one.
func (s *Server) labChallenge(v *labView, ch *labs.Challenge, q url.Values, lang string) {
	v.Policy = policyValues(ch, q.Get)
	if q.Get("challenge") != "" {
		j, err := s.judge(v.Lab, v.Policy, lang)
		if err != nil {
			v.Error = clipText(errorText(lang, err))
		} else {
			v.Judged = j
		}
	}
}

// labMeasured fills in the figures the student entered for the lab's
// measured system, and the verdict on them when the form asks for one.
func labMeasured(v *labView, m *labs.Measured, q url.Values, lang string) {
	v.Figures = figureValues(m, lang, q.Get)
	if q.Get("measure") != "" {
		mv, err := judgeMeasured(v.Lab, v.Figures, lang)
		if err != nil {
			v.Unread = clipText(errorText(lang, err))
		} else {
			v.Measured = mv
		}
	}
}

// uncachedPage is a page made whole that must not be kept: a program's
// place in the judgements' queue.
type uncachedPage struct{ body []byte }

func (*uncachedPage) Error() string { return "a page not to keep" }

// clipText shortens an error for a page: at most a few lines.
func clipText(s string) string {
	const n = 300
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
