package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"leaselab/class"
	"leaselab/labs"
	"leaselab/live"
)

// The instructor's side of a class: open one, run it from the dashboard
// (a capability URL: whoever holds the link runs the class), show it on a
// projector, export it, end it.

// classesPerHour bounds the classes one client address opens in an hour:
// an instructor opens a few; a script opening thousands fills the disk.
const classesPerHour = 20

// createLimit counts the classes each client address opened this hour.
type createLimit struct {
	mu     sync.Mutex
	window time.Time
	n      map[string]int
}

// take reports whether addr may open one more class now.
func (l *createLimit) take(addr string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.window) >= time.Hour || l.n == nil {
		l.window, l.n = now, map[string]int{}
	}
	if l.n[addr] >= classesPerHour {
		return false
	}
	l.n[addr]++
	return true
}

// classCreate opens a class and sends the instructor to its dashboard.
func (s *Server) classCreate(c echo.Context) error {
	lang := c.Param("lang")
	if !knownLang(lang) {
		return notFound(labs.DefaultLang)
	}
	if err := s.classesOn(lang); err != nil {
		return err
	}
	name := c.FormValue("name")
	addr := s.clientAddr(c.Request())
	if !s.creates.take(addr, s.live.Clock.Now()) {
		s.refused(live.ErrBudget, "a client opened more classes than an hour allows", "client", addr)
		c.Response().Header().Set("Retry-After", "3600")
		return &pageError{status: http.StatusTooManyRequests, lang: lang, key: "class.limit"}
	}
	if len(strings.Fields(name)) == 0 {
		return &pageError{status: http.StatusBadRequest, lang: lang, key: "class.noname"}
	}
	_, token, err := s.createClass(c, name, lang) // classroom.go: the lecturer key
	if errors.Is(err, class.ErrBadInput) {
		return &pageError{status: http.StatusBadRequest, lang: lang, key: "class.badname"}
	}
	if err != nil {
		return classErr(lang, err, "")
	}
	return c.Redirect(http.StatusSeeOther, s.base+"/"+lang+"/teach/"+token)
}

// teachView is the instructor's dashboard, and the projector view.
type teachView struct {
	*page
	Course    *labs.Course
	Class     class.Class
	Token     string
	JoinURL   string
	TeachURL  string // this instructor link, whole
	QR        string // the join link as an SVG QR code
	Students  int
	Lab       *labs.Lab
	Rounds    []class.Tally // the current question's, oldest first
	Reveal    *answerView   // the engine's answer, once revealed
	Progress  []class.GoalProgress
	Roster    []class.RosterRow // the students, on the dashboard only
	Retention int               // days an ended class is kept
	Projector bool
	Down      bool // the store could not be read in full
	// The lecture hall (class_projector.go, classroom.go): the projector's
	// own link, why phones cannot reach the join link ("" if they can),
	// the lecturer key made with the class (shown once), and the minutes
	// left to undo an end (0: none).
	ProjectorURL string
	Unreachable  string
	NewKey       string
	UndoLeft     int
	// Clicker is the typed question, the timer's time and the whys
	// (class_grades.go, issue 44).
	Clicker clickerView
	// Programs is the class's programs in its program lab, on the
	// dashboard only (class_programs.go, issue 49).
	Programs *programsView
}

// Current is the newest round of the current question, nil if none.
func (v *teachView) Current() *class.Tally {
	if len(v.Rounds) == 0 {
		return nil
	}
	return &v.Rounds[len(v.Rounds)-1]
}

// Question is the class's current question, nil if none.
func (v *teachView) Question() *labs.Question {
	if v.Lab == nil || v.Class.Now.Question == "" {
		return nil
	}
	return v.Lab.Question(v.Class.Now.Question)
}

// THref is a path under this class's instructor link.
func (v *teachView) THref(path string) string { return v.Href("/teach/" + v.Token + path) }

// teachFor finds the class an instructor link names: a token no class has
// is not found, whatever it looks like.
func (s *Server) teachFor(c echo.Context) (string, class.Class, error) {
	lang := c.Param("lang")
	if !knownLang(lang) {
		return labs.DefaultLang, class.Class{}, notFound(labs.DefaultLang)
	}
	if err := s.classesOn(lang); err != nil {
		return lang, class.Class{}, err
	}
	token := c.Param("token")
	if len(token) > 200 {
		return lang, class.Class{}, notFound(lang)
	}
	cl, err := s.classes.ByToken(c.Request().Context(), token)
	if errors.Is(err, class.ErrEnded) && cl.ID != "" {
		err = nil
	}
	if errors.Is(err, class.ErrNoClass) {
		return lang, cl, notFound(lang)
	}
	if err != nil {
		return lang, cl, classErr(lang, err, "")
	}
	return lang, cl, nil
}

// rosterLimit bounds the students the dashboard lists; the export has
// them all.
const rosterLimit = 500

// teachReq is what the dashboard's page and stream draw from their
// request: its language, the instructor token, the site's address, and
// whether it is the dashboard's old projector view.
type teachReq struct {
	lang, token, site string
	projector         bool
}

func (s *Server) teachReqOf(c echo.Context, lang string) teachReq {
	return teachReq{lang: lang, token: c.Param("token"), site: s.siteURL(c)}
}

// currentCourse is the course served now, or the page that says it
// cannot be read.
func (s *Server) currentCourse(lang string) (*labs.Course, error) {
	cur := s.course.get()
	if cur.course == nil {
		return nil, &pageError{status: http.StatusServiceUnavailable, lang: lang, key: "error.content"}
	}
	return cur.course, nil
}

// teachData reads everything the dashboard shows. With old (a stream's
// last view) the students, where the class is and the list are old's:
// the caller says they did not change. The QR code is drawn for the
// whole page only (whole).
func (s *Server) teachData(ctx context.Context, r teachReq, cl class.Class, whole bool, old *teachView) (*teachView, error) {
	course, err := s.currentCourse(r.lang)
	if err != nil {
		return nil, err
	}
	lang, token, projector := r.lang, r.token, r.projector
	p := s.newPage(lang, "/teach/"+token, fmt.Sprintf(T(lang, "teach.title"), cl.Name), "teach")
	p.Path = "/teach/" + token
	if projector {
		p.Path += "/projector"
		p.Kind = "teach projector"
	}
	v := &teachView{page: p, Course: course, Class: cl, Token: token, Projector: projector, Retention: s.retentionDays}
	v.JoinURL = s.joinURLAt(r.site, lang, cl.Code)
	v.TeachURL = r.site + v.THref("")
	s.hallData(v)
	if whole {
		if v.QR, err = qrSVG(v.JoinURL, fmt.Sprintf(T(lang, "teach.qr"), cl.Code)); err != nil {
			return nil, err
		}
	}
	if cl.Now.Lab != "" {
		v.Lab = course.Lab(cl.Now.Lab)
	}
	all, err := s.classes.Rounds(ctx, cl.ID)
	if err != nil {
		v.Down = true
	}
	v.Rounds = currentRounds(cl, all)
	v.Clicker = s.clickerOf(ctx, lang, cl, v.Rounds, !projector)
	if cur := v.Current(); cur != nil && cur.Round.State == class.RoundRevealed && v.Lab != nil && v.Lab.Question(cur.Round.Question) != nil {
		if a, err := s.answer(v.Lab, cur.Round.Question, cur.Round.Choices[0], lang); err == nil {
			if v.Reveal, err = s.answer(v.Lab, cur.Round.Question, a.Verdict.Right, lang); err != nil {
				return nil, err
			}
		}
	}
	if old != nil && !old.Down {
		v.Students, v.Progress, v.Roster, v.Programs = old.Students, old.Progress, old.Roster, old.Programs
		return v, nil
	}
	if !projector {
		v.Programs = s.programsOf(ctx, lang, cl, v.Lab)
	}
	if v.Students, err = s.classes.StudentCount(ctx, cl.ID); err != nil {
		v.Down = true
	}
	if v.Lab != nil && len(v.Lab.Goals) > 0 {
		goals := make([]string, len(v.Lab.Goals))
		for i, g := range v.Lab.Goals {
			goals[i] = g.ID
		}
		if v.Progress, err = s.classes.Progress(ctx, cl.ID, v.Lab.ID, goals); err != nil {
			v.Down = true
		}
	}
	if !projector {
		lab := ""
		if v.Lab != nil {
			lab = v.Lab.ID
		}
		if v.Roster, err = s.classes.Roster(ctx, cl.ID, lab, rosterLimit); err != nil {
			v.Down = true
		}
	}
	return v, nil
}

// teachShow is the instructor's dashboard.
func (s *Server) teachShow(c echo.Context) error {
	lang, cl, err := s.teachFor(c)
	if err != nil {
		return err
	}
	switch c.Param("view") {
	case "":
	case "projector":
		// The projector has a link of its own, which runs nothing.
		return c.Redirect(http.StatusSeeOther, s.projectorHref(lang, c.Param("token")))
	case "export.csv", "export.json":
		return s.teachExport(c, lang, cl, strings.TrimPrefix(c.Param("view"), "export."))
	case "export.moodle.csv":
		return s.teachExport(c, lang, cl, class.Moodle)
	case "grades":
		return s.gradesShow(c, lang, cl)
	default:
		return notFound(lang)
	}
	s.classes.KeepProjector(c.Request().Context(), cl.ID, c.Param("token")) // a class opened before projector links gets one now
	v, err := s.teachData(c.Request().Context(), s.teachReqOf(c, lang), cl, true, nil)
	if err != nil {
		return err
	}
	s.shownKey(c, v)
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, teachPage(v))
}

// teachAct carries out one of the dashboard's buttons, then shows the
// dashboard again. With script the page sends the same form and reads
// only the status; the dashboard's stream brings the change.
func (s *Server) teachAct(c echo.Context) error {
	lang, cl, err := s.teachFor(c)
	if err != nil {
		return err
	}
	switch c.Param("act") {
	case "activity":
		err = s.setActivity(c, cl)
	case "round":
		err = s.openRound(c, lang, cl)
	case "close", "show", "hide", "reveal":
		err = s.roundAct(c, cl)
	case "push":
		link, ok := s.pushLink(c.FormValue("link"))
		if !ok {
			return &pageError{status: http.StatusBadRequest, lang: lang, key: "teach.push.bad"}
		}
		err = s.classes.Push(c.Request().Context(), cl.ID, link)
	case "end", "reopen", "rotate":
		return s.teachLife(c, lang, cl) // classroom.go: asked first, undone, new links
	case "remove":
		// A join that is no student (issue 51): its seat and answers go.
		err = s.classes.Remove(c.Request().Context(), cl.ID, c.FormValue("student"))
		if errors.Is(err, class.ErrNotJoined) || errors.Is(err, class.ErrBadInput) {
			return &pageError{status: http.StatusNotFound, lang: lang, key: "teach.remove.absent"}
		}
	default:
		if handled, err := s.programAct(c, lang, cl); handled {
			return err // the class's programs (class_programs.go)
		}
		if handled, err := s.gradeAct(c, lang, cl); handled {
			return err // a form of issue 44 (class_grades.go)
		}
		return notFound(lang)
	}
	if err != nil {
		return classErr(lang, err, cl.Code)
	}
	if c.Request().Header.Get("Accept") == "application/json" {
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, s.base+"/"+lang+"/teach/"+c.Param("token"))
}

// setActivity sets what the class works on: a lab of the course, and of
// it a question and a goal (a new lab's questions are chosen next).
func (s *Server) setActivity(c echo.Context, cl class.Class) error {
	a := class.Activity{Lab: c.FormValue("lab"), Question: c.FormValue("question"), Goal: c.FormValue("goal")}
	_, course, err := s.courseFor(c)
	if err != nil {
		return err
	}
	lab := course.Lab(a.Lab)
	if lab == nil {
		a = class.Activity{}
	} else {
		a.Lesson = lab.Lesson
		if a.Lab != cl.Now.Lab || lab.Question(a.Question) == nil {
			a.Question = "" // a new lab: its questions are chosen next
		}
		if lab.Goal(a.Goal) == nil {
			a.Goal = ""
		}
	}
	return s.classes.SetActivity(c.Request().Context(), cl.ID, a)
}

// openRound opens a vote on the class's question, with a timer if the
// form gave one.
func (s *Server) openRound(c echo.Context, lang string, cl class.Class) error {
	_, course, err := s.courseFor(c)
	if err != nil {
		return err
	}
	if class.IsTyped(cl.Now.Question) {
		return s.openTyped(c, cl) // class_grades.go
	}
	lab := course.Lab(cl.Now.Lab)
	var q *labs.Question
	if lab != nil {
		q = lab.Question(cl.Now.Question)
	}
	if q == nil {
		return &pageError{status: http.StatusBadRequest, lang: lang, key: "teach.noround"}
	}
	r, err := s.classes.OpenRound(c.Request().Context(), cl.ID, lab.ID, q.ID, choiceIDs(q))
	if err != nil {
		return err
	}
	return s.startTimer(c, cl, r.ID)
}

// roundAct closes a round, shows or hides its counts, or reveals it.
func (s *Server) roundAct(c echo.Context, cl class.Class) error {
	var n int64
	if _, err := fmt.Sscan(c.FormValue("round"), &n); err != nil {
		return class.ErrNoRound
	}
	ctx := c.Request().Context()
	switch c.Param("act") {
	case "close":
		return s.classes.CloseRound(ctx, cl.ID, n)
	case "show", "hide":
		return s.classes.ShowCounts(ctx, cl.ID, n, c.Param("act") == "show")
	}
	return s.classes.Reveal(ctx, cl.ID, n)
}

// pushLink is a link to one of this server's labs, as the class keeps
// it: the path after the language and its query ("/labs/w1-w2/at?seed=1"),
// so that each student opens it in their own language. A link to anything
// else is refused.
func (s *Server) pushLink(raw string) (string, bool) {
	if len(raw) > class.MaxLink {
		return "", false
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", false
	}
	path := strings.TrimPrefix(u.Path, s.base)
	parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 4) // lang, "labs", id, rest
	if len(parts) < 3 || !knownLang(parts[0]) || parts[1] != "labs" {
		return "", false
	}
	cur := s.course.get()
	if cur.course == nil || cur.course.Lab(parts[2]) == nil {
		return "", false
	}
	rest := "/labs/" + parts[2]
	if len(parts) == 4 {
		if parts[3] != "at" {
			return "", false
		}
		rest += "/at"
	}
	if u.RawQuery != "" {
		rest += "?" + u.RawQuery
	}
	if len(rest) > class.MaxLink {
		return "", false
	}
	return rest, true
}

// teachExport downloads the class's data.
func (s *Server) teachExport(c echo.Context, lang string, cl class.Class, format string) error {
	mime := "text/csv; charset=utf-8"
	if format == "json" {
		mime = echo.MIMEApplicationJSON
	}
	name := format
	if format == class.Moodle {
		name = "moodle.csv"
	}
	var buf bytes.Buffer
	if err := s.classes.Export(c.Request().Context(), cl.ID, &buf, format, s.grading()); err != nil {
		return classErr(lang, err, cl.Code)
	}
	h := c.Response().Header()
	h.Set("Content-Disposition", `attachment; filename="leaselab-class-`+cl.Code+`.`+name+`"`)
	h.Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, mime, buf.Bytes())
}

// choiceIDs are a question's choices, in the lab's order.
func choiceIDs(q *labs.Question) []string {
	out := make([]string, len(q.Choices))
	for i, ch := range q.Choices {
		out[i] = ch.ID
	}
	return out
}
