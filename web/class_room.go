package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"leaselab/class"
	"leaselab/classroom"
	"leaselab/labs"
)

// What class mode's live half (package classroom) draws with, and the
// requests that hand it a browser to follow: a student's event stream, a
// dashboard's and a projector's. The room pushes; the pages, their words
// and how an error reads stay here.

// roomPages draws for the class room (classroom.Pages).
type roomPages struct{ s *Server }

// Bar is the class's bar in lang as every student of it sees it.
func (p roomPages) Bar(ctx context.Context, lang, code string) (classroom.Bar, bool) {
	b, ok := p.s.classBarOf(ctx, lang, code)
	if !ok {
		return classroom.Bar{}, false
	}
	html, err := renderString(classBarBlock(b))
	if err != nil {
		return classroom.Bar{}, false
	}
	return classroom.Bar{Class: b.Class.ID, HTML: html, Counts: b.showsCounts(), Down: b.Down}, true
}

// Voted is what a student's bar says after their vote was kept.
func (roomPages) Voted(lang string, choices []string, choice string) string {
	return voteSaid(lang, choices, choice)
}

// Refused is why a vote over a lab socket was not kept, as a page says
// it: a class error's page, else the store is unavailable.
func (roomPages) Refused(lang, code string, err error) error {
	if e := classErr(lang, err, code); e != err {
		return e
	}
	return &pageError{status: http.StatusServiceUnavailable, lang: lang, key: "class.unavailable"}
}

// showsCounts: the bar shows the vote's counts (or the right answer).
func (b *barView) showsCounts() bool {
	return b.Round != nil && (b.Round.Round.Shown || b.Right != "")
}

// voteSaid is what a student's bar says after their vote was kept.
func voteSaid(lang string, choices []string, choice string) string {
	return fmt.Sprintf(T(lang, "bar.voted"), choiceLetter(choices, choice))
}

// classBarOf is the class's bar in lang as every student of it sees it,
// without what is a student's own; ok is false when the class is gone.
func (s *Server) classBarOf(ctx context.Context, lang, code string) (*barView, bool) {
	cl, err := s.classes.ByCode(ctx, code)
	if errors.Is(err, class.ErrEnded) && cl.ID != "" {
		err = nil
	}
	if err != nil {
		if errors.Is(err, class.ErrUnavailable) {
			b := &barView{page: s.newPage(lang, "/", "", "bar"), Down: true}
			b.Class.Code = code
			return b, true
		}
		return nil, false
	}
	b := s.barOfClass(ctx, lang, cl)
	// Reads may still work (kept in memory, or beside a stuck writer)
	// while nothing can be saved: the bar says so all the same.
	b.Down = b.Down || s.classes.SavesFailing()
	return b, true
}

// classEvents streams a student's class bar: the student's own bar now,
// then the class's after each change, from the class's feed.
func (s *Server) classEvents(c echo.Context) error {
	lang, err := s.joinLang(c)
	if err != nil {
		return err
	}
	code, id, ok := studentOf(c.Request())
	if !ok {
		return c.NoContent(http.StatusNoContent) // EventSource stops on 204
	}
	// The feed hears the class before the student's own bar is drawn:
	// a change meanwhile is sent again (classroom.Mark).
	cl, err := s.classes.ByCode(c.Request().Context(), code)
	if err != nil {
		return c.NoContent(http.StatusNoContent)
	}
	m := s.room.Mark(cl.ID, cl.Code)
	b, ok := s.bar(c.Request().Context(), lang, code, id)
	if !ok || b.Class.ID == "" || b.Class.Ended != nil {
		return c.NoContent(http.StatusNoContent)
	}
	b.Back = s.localBack(lang, c.QueryParam("back"))
	html, err := renderString(classBarBlock(b))
	if err != nil {
		return err
	}
	conn, _, err := http.NewResponseController(c.Response()).Hijack()
	if err != nil {
		// A connection that cannot be taken over (not HTTP/1): the page
		// follows its class when it is loaded again.
		return c.NoContent(http.StatusNoContent)
	}
	s.room.FollowBar(m, conn, lang, classroom.BarStart(html))
	return nil
}

// followView hands a dashboard's or projector's stream to its class's
// feed, with the view drawn now; the feed hears the class before.
func (s *Server) followView(c echo.Context, cl class.Class, v classroom.View) error {
	m := s.room.Mark(cl.ID, cl.Code)
	events, _ := v.Draw(c.Request().Context(), nil)
	conn, _, err := http.NewResponseController(c.Response()).Hijack()
	if err != nil {
		return c.NoContent(http.StatusNoContent) // not HTTP/1: the page shows the class as loaded
	}
	s.room.FollowView(m, conn, classroom.ViewStart(c.Response().Header(), time.Now(), events), v)
	return nil
}

// teachEvents streams the live part of the dashboard (or of its old
// projector view).
func (s *Server) teachEvents(c echo.Context) error {
	lang, cl, err := s.teachFor(c)
	if err != nil {
		return err
	}
	r := s.teachReqOf(c, lang)
	r.projector = c.QueryParam("view") == "projector"
	return s.followView(c, cl, &teachLiveView{s: s, req: r})
}

// teachLiveView is the dashboard's live part as its stream draws it.
type teachLiveView struct {
	s     *Server
	req   teachReq
	old   *teachView // the last one drawn
	round string     // the vote's controls (teachRound) last sent
}

// Draw draws the dashboard's live part ("update"), and the vote's
// controls beside it ("round") when they changed since last sent, as when
// a timer closed the vote: they are not in the live part, and the page is
// not loaded again then, as it is after a button. A class voting at once
// changes only its counts: the students, where they are and their list
// are read again only when they may have changed.
func (v *teachLiveView) Draw(ctx context.Context, changed map[string]bool) ([]byte, bool) {
	cl, err := v.s.classes.ByToken(ctx, v.req.token)
	if err != nil && !(errors.Is(err, class.ErrEnded) && cl.ID != "") {
		return nil, false
	}
	keep := v.old
	if changed == nil || changed[class.ChangedJoin] || changed[class.ChangedProgress] || changed[class.ChangedActivity] || changed[class.ChangedEnd] {
		keep = nil
	}
	tv, err := v.s.teachData(ctx, v.req, cl, false, keep)
	if err != nil {
		return nil, false
	}
	v.old = tv
	html, err := renderString(teachLive(tv))
	if err != nil {
		return nil, false
	}
	events := classroom.Event("update", html)
	if round, err := renderString(teachRound(tv)); err == nil && !v.req.projector && round != v.round {
		v.round = round
		events = append(events, classroom.Event("round", round)...)
	}
	return events, true
}

// projectorEvents streams the projector's live part after each change of
// the class. A rotated class's old projector link reads nothing more.
func (s *Server) projectorEvents(c echo.Context) error {
	lang, cl, err := s.projectorFor(c)
	if err != nil {
		return err
	}
	return s.followView(c, cl, &projectorLiveView{s: s, req: s.projectorReqOf(c, lang)})
}

// projectorLiveView is the projector's live part as its stream draws it.
type projectorLiveView struct {
	s   *Server
	req projectorReq
}

func (v *projectorLiveView) Draw(ctx context.Context, _ map[string]bool) ([]byte, bool) {
	cl, err := v.s.classes.ByProjector(ctx, v.req.ptoken)
	if err != nil {
		return nil, false
	}
	pv, err := v.s.projectorData(ctx, v.req, cl, false)
	if err != nil {
		return nil, false
	}
	html, err := renderString(projectorLive(pv))
	if err != nil {
		return nil, false
	}
	return classroom.Event("update", html), true
}

// classmateOf reads the class cookie and finds its class: the student of
// a running class the request is from, nil for none.
func (s *Server) classmateOf(r *http.Request) *classroom.Member {
	if s.classes == nil {
		return nil
	}
	code, id, ok := studentOf(r)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	cl, err := s.classes.ByCode(ctx, code)
	if err != nil {
		return nil
	}
	return &classroom.Member{ClassID: cl.ID, Code: cl.Code, StudentID: id}
}

// labProgress tells the class of the student a lab page is for (a page
// without script: each control reloads it) the page's last command and,
// when the page checks a goal the student's world reaches, the goal.
func (s *Server) labProgress(r *http.Request, lab *labs.Lab) {
	m := s.classmateOf(r)
	if m == nil {
		return
	}
	q := r.URL.Query()
	if do := q["do"]; len(do) > 0 {
		s.room.Step(*m, lab.ID, do[len(do)-1])
	}
	gid := q.Get("goal")
	if gid == "" || lab.Goal(gid) == nil {
		return
	}
	sess, _, err := openSession(lab, q)
	if err != nil {
		return
	}
	if v, err := lab.CheckGoal(gid, sess.World(), labs.DefaultLang); err == nil && v.Correct {
		s.room.Reached(*m, lab.ID, gid)
	}
}
