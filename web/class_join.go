package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"leaselab/class"
	"leaselab/labs"
	"leaselab/live"
)

// The student's side of a class: join with the code (or come back with
// the key on another device), vote from the class bar, leave.

// joinView is the join page.
type joinView struct {
	*page
	Code  string
	Error string // what went wrong with the last try, in the page's language
	// NIM is whether the form asks for the student number (class.NIMOff,
	// NIMAsk, NIMRequire: the class of Code's), and Nick the nickname
	// typed before the page asked for it (issue 44).
	NIM, Nick string
}

func (s *Server) joinLang(c echo.Context) (string, error) {
	lang := c.Param("lang")
	if !knownLang(lang) {
		return labs.DefaultLang, notFound(labs.DefaultLang)
	}
	return lang, s.classesOn(lang)
}

// joinShow is the join form, the code filled in from a join link.
func (s *Server) joinShow(c echo.Context) error {
	lang, err := s.joinLang(c)
	if err != nil {
		return err
	}
	v := &joinView{page: s.newPage(lang, "/join", T(lang, "join.title"), "join"), Code: cleanCode(c.QueryParam("code"))}
	if v.Code != "" {
		v.page.Query = "code=" + v.Code
	}
	v.NIM = s.joinNIMMode(c.Request().Context(), v.Code)
	return render(c, http.StatusOK, joinPage(v))
}

// joinPost joins a class, or with a key restores a student of it, keeps
// the student in the browser's cookie and opens what the class works on.
// A browser in another class is asked first (askSwitch).
func (s *Server) joinPost(c echo.Context) error {
	lang, err := s.joinLang(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	code := cleanCode(c.FormValue("code"))
	if asked, err := s.askSwitch(c, lang, code); asked || err != nil {
		return err
	}
	if asked, err := s.askNIM(c, lang, code); asked || err != nil {
		return err
	}
	var st class.Student
	if key := cleanCode(c.FormValue("key")); key != "" {
		st, err = s.restoreStudent(c, lang, code, key)
	} else {
		st, err = s.joinStudent(c, lang, code)
	}
	if nimRefused(err) {
		return s.joinNIMErr(c, lang, code, err)
	}
	if err != nil {
		return err
	}
	s.setStudent(c, code, st.ID)
	s.joined(c) // the next page's bar confirms it (classroom.go)
	cl, err := s.classes.ByCode(ctx, code)
	next := s.base + "/" + lang + "/"
	if err == nil && cl.Now.Lab != "" {
		next = s.base + "/" + lang + "/labs/" + url.PathEscape(cl.Now.Lab)
	}
	return c.Redirect(http.StatusSeeOther, next)
}

// joinStudent joins the class of code: a new student within the limits
// of the client's address and of the class (class_limits.go), or again
// the student this browser already is in it.
func (s *Server) joinStudent(c echo.Context, lang, code string) (class.Student, error) {
	ctx := c.Request().Context()
	cl, err := s.classes.ByCode(ctx, code)
	if err != nil {
		return class.Student{}, classErr(lang, err, code)
	}
	id := "" // a new student: the class draws the id
	if oldCode, oldID, ok := studentOf(c.Request()); ok && oldCode == cl.Code {
		id = oldID // a second join from this browser is the same student
	}
	// Only a student the class has joins again for free: an id made up
	// in a cookie is a new student, as any other.
	again := false
	if id != "" {
		_, err := s.classes.Student(ctx, cl.ID, id)
		again = err == nil
	}
	addr := s.clientAddr(c.Request())
	if !again {
		if no := s.joins.join(cl.ID, addr, s.live.Clock.Now()); no != nil {
			return class.Student{}, s.joinRefused(c, lang, addr, no)
		}
	}
	st, err := s.classes.JoinAs(ctx, code, id, c.FormValue("nick"), c.FormValue("nim"))
	if err != nil && !again {
		s.joins.unjoin(cl.ID, addr)
	}
	if nimRefused(err) {
		return st, err // the join form asks again (joinNIMErr)
	}
	if errors.Is(err, class.ErrBadInput) {
		return st, &pageError{status: http.StatusBadRequest, lang: lang, key: "class.badnick"}
	}
	if err != nil {
		return st, classErr(lang, err, code)
	}
	return st, nil
}

// restoreStudent finds the student of a key, unless the client's address
// has tried too many wrong keys: then every key is refused for a while,
// the right one too, so that guessing tells nothing.
func (s *Server) restoreStudent(c echo.Context, lang, code, key string) (class.Student, error) {
	addr := s.clientAddr(c.Request())
	if wait := s.joins.restoreWait(addr, s.live.Clock.Now()); wait > 0 {
		return class.Student{}, s.joinRefused(c, lang, addr, &joinRefusal{key: "join.locked", retry: wait})
	}
	st, err := s.classes.Restore(c.Request().Context(), code, key)
	if errors.Is(err, class.ErrNoKey) {
		s.joins.wrongKey(addr, s.live.Clock.Now())
	}
	if err != nil {
		return st, classErr(lang, err, code)
	}
	return st, nil
}

// joinRefused answers a join past a limit: 429 with when to try again,
// or 409 when waiting does not help (the address holds its seats).
func (s *Server) joinRefused(c echo.Context, lang, addr string, no *joinRefusal) error {
	s.refused(live.ErrRate, "a join past a class limit ("+no.key+")", "client", addr)
	if no.retry <= 0 {
		return &pageError{status: http.StatusConflict, lang: lang, key: no.key, args: []any{s.joins.perAddr}}
	}
	secs := int((no.retry + time.Second - 1) / time.Second)
	c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
	return &pageError{status: http.StatusTooManyRequests, lang: lang, key: no.key, args: []any{secs}}
}

// classVote records a student's answer in a round.
func (s *Server) classVote(c echo.Context) error {
	lang, err := s.joinLang(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	code, id, ok := studentOf(c.Request())
	if !ok {
		return classAnswer(c, &pageError{status: http.StatusForbidden, lang: lang, key: "class.notjoined"})
	}
	round, err := strconv.ParseInt(c.FormValue("round"), 10, 64)
	if err != nil {
		return classAnswer(c, classErr(lang, class.ErrNoRound, code))
	}
	var choices []string
	cl, err := s.classes.ByCode(ctx, code)
	if err == nil {
		choices, err = s.classes.Cast(ctx, cl.ID, id, round, c.FormValue("choice"), class.ParseConfidence(c.FormValue("sure")))
	}
	if why := c.FormValue("why"); err == nil && strings.TrimSpace(why) != "" {
		err = s.classes.SetWhy(ctx, cl.ID, id, round, why) // the "why?" sent with the vote (issue 44)
	}
	if err != nil {
		return classAnswer(c, classErr(lang, err, code))
	}
	if c.FormValue("bar") == "1" {
		// The page's script: the words that say the vote was kept; the
		// rest of the bar is the class's and comes from its feed.
		return c.JSON(http.StatusOK, map[string]string{"said": voteSaid(lang, choices, c.FormValue("choice"))})
	}
	if wantsJSON(c) {
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, s.localBack(lang, c.FormValue("back")))
}

// wantsJSON: the page's script (or a load generator) sent the form and
// reads the status, not a page.
func wantsJSON(c echo.Context) bool {
	return strings.Contains(c.Request().Header.Get("Accept"), "application/json")
}

// classAnswer is an error as the caller reads it: a page, or for script
// a status and the text to show.
func classAnswer(c echo.Context, err error) error {
	var pe *pageError
	if wantsJSON(c) && errors.As(err, &pe) {
		return c.JSON(pe.status, map[string]string{"error": pe.Error()})
	}
	return err
}

// classLeave takes the class out of this browser.
func (s *Server) classLeave(c echo.Context) error {
	lang, err := s.joinLang(c)
	if err != nil {
		return err
	}
	s.forgetStudent(c)
	return c.Redirect(http.StatusSeeOther, s.base+"/"+lang+"/")
}
