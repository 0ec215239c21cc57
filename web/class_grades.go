package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"leaselab/class"
	"leaselab/labs"
)

// Grades and what every clicker does (issue 44), the web side: the
// lecturer's grades page (scores, settings, the class list, the exports),
// a vote's timer, a question typed on the spot, confidence and "why?" in
// the class bar, and the course's answers the grades are decided with.

// grading is what a class's gradebook asks of the course the server
// serves: each right answer from the engine's run (labs.Grading).
func (s *Server) grading() labs.Grading {
	cur := s.course.get()
	if cur.course == nil {
		return labs.Grading{Course: &labs.Course{}}
	}
	return labs.Grading{Course: cur.course}
}

// clickerView is what the dashboard, the projector and the bar show of a
// class's clicker: its settings, the typed question it works on, the
// current round's whys (the dashboard's only), and the server's time when
// drawn, for the timers' countdown.
type clickerView struct {
	Lang     string
	Settings class.Settings
	Typed    *class.Typed
	Whys     []class.Why
	Now      time.Time
}

// T is a text in the view's language.
func (c clickerView) T(key string) string { return T(c.Lang, key) }

// maxWhys bounds the whys the dashboard lists.
const maxWhys = 200

// clickerOf reads what a page of cl shows of its clicker; the whys only
// for the dashboard.
func (s *Server) clickerOf(ctx context.Context, lang string, cl class.Class, rounds []class.Tally, dashboard bool) clickerView {
	c := clickerView{Lang: lang, Settings: cl.Settings, Now: s.classNow()}
	if class.IsTyped(cl.Now.Question) {
		if t, err := s.classes.TypedQuestion(ctx, cl.ID, cl.Now.Question); err == nil {
			c.Typed = &t
		}
	}
	if dashboard && len(rounds) > 0 {
		c.Whys, _ = s.classes.Whys(ctx, cl.ID, rounds[len(rounds)-1].Round.ID, maxWhys)
	}
	return c
}

// classNow is the time on the classes' clock: the server's.
func (s *Server) classNow() time.Time { return s.live.Clock.Now() }

// timerLeft is how long until a round closes by itself, as "m:ss".
func timerLeft(c clickerView, r class.Round) string {
	left := max(0, r.Closes.Sub(c.Now))
	secs := int((left + time.Second - 1) / time.Second)
	return fmt.Sprintf("%d:%02d", secs/60, secs%60)
}

// timed says whether a round counts down: open, with a timer.
func timed(r class.Round) bool { return r.State == class.RoundOpen && !r.Closes.IsZero() }

func millis(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// sureText is the reveal's confidence split: the share right among the
// students who said they were sure, and among those who were not; "" when
// none said.
func sureText(lang string, t class.Tally, right string) string {
	sure, unsure := 0, 0
	for _, n := range t.Sure {
		sure += n
	}
	for _, n := range t.Unsure {
		unsure += n
	}
	if right == "" || sure+unsure == 0 {
		return ""
	}
	return fmt.Sprintf(T(lang, "reveal.sure"), percent(t.Sure[right], sure), sure, percent(t.Unsure[right], unsure), unsure)
}

// typedChoice is a typed question's choice with its letter.
func typedChoice(t *class.Typed, id string) string {
	return class.Letter(t.ChoiceIDs(), id) + ". " + t.Choice(id)
}

// typedRight is a typed question's marked choice once its last round is
// revealed, "" before or when none was marked.
func typedRight(c clickerView, rounds []class.Tally) string {
	if c.Typed == nil || len(rounds) == 0 || rounds[len(rounds)-1].Round.State != class.RoundRevealed {
		return ""
	}
	return c.Typed.Right
}

// armTimer closes a timed round when its time comes, on the server's
// clock; a round closed or revealed meanwhile is left as it is.
func (s *Server) armTimer(classID string, round int64, closes time.Time) {
	s.live.Clock.AfterFunc(max(0, closes.Sub(s.classNow())), func() {
		ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
		defer cancel()
		if _, err := s.classes.CloseDue(ctx, classID, round); err != nil && s.ctx.Err() == nil && !errors.Is(err, class.ErrClosed) {
			// The store is down: try again in a while; a vote is refused
			// from the timer's time on all the same.
			s.armTimer(classID, round, s.classNow().Add(5*time.Second))
		}
	})
}

// armTimers sets the timers of the open timed rounds, for a server that
// starts while a class votes.
func (s *Server) armTimers() {
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	ts, err := s.classes.Timed(ctx)
	if err != nil {
		return
	}
	for _, t := range ts {
		s.armTimer(t.Class, t.Round, t.Closes)
	}
}

// gradeAct carries out the forms of issue 44 (the dashboard's timer and
// typed question, the whys, and the grades page's settings and class
// list); handled is false for an act that is none of them.
func (s *Server) gradeAct(c echo.Context, lang string, cl class.Class) (handled bool, err error) {
	ctx := c.Request().Context()
	back := s.base + "/" + lang + "/teach/" + c.Param("token")
	switch c.Param("act") {
	case "timer":
		round, err := strconv.ParseInt(c.FormValue("round"), 10, 64)
		if err != nil {
			return true, classErr(lang, class.ErrNoRound, cl.Code)
		}
		if err := s.startTimer(c, cl, round); err != nil {
			if errors.Is(err, class.ErrBadInput) {
				return true, &pageError{status: http.StatusBadRequest, lang: lang, key: "timer.bad"}
			}
			return true, classErr(lang, err, cl.Code)
		}
	case "typed":
		var choices []string
		for i := 1; i <= 5; i++ {
			choices = append(choices, c.FormValue("choice"+strconv.Itoa(i)))
		}
		right, _ := strconv.Atoi(c.FormValue("right"))
		if _, err := s.classes.Type(ctx, cl.ID, c.FormValue("text"), choices, right); err != nil {
			if errors.Is(err, class.ErrBadInput) {
				return true, &pageError{status: http.StatusBadRequest, lang: lang, key: "typed.bad"}
			}
			return true, classErr(lang, err, cl.Code)
		}
	case "showwhy", "hidewhy":
		why := ""
		if c.Param("act") == "showwhy" {
			why = c.FormValue("why")
		}
		if err := s.classes.ShowWhy(ctx, cl.ID, why); err != nil {
			return true, classErr(lang, err, cl.Code)
		}
	case "settings":
		st := class.Settings{NIM: c.FormValue("nim"), Zone: strings.TrimSpace(c.FormValue("zone")),
			HideNames: c.FormValue("hide") != "", Confidence: c.FormValue("confidence") != "", AskWhy: c.FormValue("why") != ""}
		if other := strings.TrimSpace(c.FormValue("zone_other")); other != "" {
			st.Zone = other
		}
		if st.Zone == class.DefaultZone(cl.Lang) {
			st.Zone = ""
		}
		if err := s.classes.SetSettings(ctx, cl.ID, st); err != nil {
			if errors.Is(err, class.ErrBadInput) {
				return true, &pageError{status: http.StatusBadRequest, lang: lang, key: "grades.settings.bad"}
			}
			return true, classErr(lang, err, cl.Code)
		}
		back += "/grades"
	case "list":
		return true, s.listImport(c, lang, cl)
	default:
		return false, nil
	}
	if wantsJSON(c) {
		return true, c.NoContent(http.StatusNoContent)
	}
	return true, c.Redirect(http.StatusSeeOther, back)
}

// gradesView is the lecturer's grades page.
type gradesView struct {
	*page
	Class      class.Class
	Token      string
	Grades     *class.Grades
	Possible   [3]int
	List       []class.Listed
	NotJoined  []class.Listed
	Unlisted   []class.StudentGrade // students whose NIM is not on the list
	NoNIM      int                  // students who gave no NIM
	Imported   int                  // rows just taken from a class list, -1 for none sent
	Problems   []string             // the rows just refused, in words
	Zones      []string
	Zone       string // the zone the exports use now
	ZoneOther  string // a zone not among Zones
	Down       bool
	NamesShown bool
}

// THref is a path under the class's instructor link.
func (v *gradesView) THref(path string) string { return v.Href("/teach/" + v.Token + path) }

// zones are the time zones the grades page offers: Indonesia's three, and
// UTC; any other is typed.
var zones = []string{"Asia/Jakarta", "Asia/Makassar", "Asia/Jayapura", "UTC"}

// gradesData reads the grades page of a class.
func (s *Server) gradesData(c echo.Context, lang string, cl class.Class) *gradesView {
	ctx := c.Request().Context()
	token := c.Param("token")
	p := s.newPage(lang, "/teach/"+token+"/grades", fmt.Sprintf(T(lang, "grades.title"), cl.Name), "teach grades")
	v := &gradesView{page: p, Class: cl, Token: token, Imported: -1, Zones: zones, Zone: cl.Location().String(), NamesShown: !cl.Settings.HideNames}
	if !slices.Contains(zones, v.Zone) {
		v.ZoneOther = v.Zone
	}
	var err error
	if v.Grades, err = s.classes.Grades(ctx, cl.ID, s.grading()); err != nil {
		v.Down, v.Grades = true, &class.Grades{Class: cl}
	}
	v.Possible[0], v.Possible[1], v.Possible[2] = v.Grades.Possible()
	if v.List, err = s.classes.ClassList(ctx, cl.ID); err != nil {
		v.Down = true
	}
	listed := map[string]bool{}
	for _, l := range v.List {
		listed[l.NIM] = true
		if !l.Joined {
			v.NotJoined = append(v.NotJoined, l)
		}
	}
	for _, st := range v.Grades.Students {
		switch {
		case st.NIM == "":
			v.NoNIM++
		case len(v.List) > 0 && !listed[st.NIM]:
			v.Unlisted = append(v.Unlisted, st)
		}
	}
	return v
}

// gradesShow is the grades page.
func (s *Server) gradesShow(c echo.Context, lang string, cl class.Class) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, gradesPage(s.gradesData(c, lang, cl)))
}

// listImport takes a class list pasted in the page ("text") or uploaded
// ("file"), replaces the class's list with the rows taken, and shows the
// grades page saying what was taken and, row by row, what was refused.
func (s *Server) listImport(c echo.Context, lang string, cl class.Class) error {
	data := []byte(c.FormValue("text"))
	if fh, err := c.FormFile("file"); err == nil && fh.Size > 0 {
		f, err := fh.Open()
		if err != nil {
			return &pageError{status: http.StatusBadRequest, lang: lang, key: "class.badrequest"}
		}
		data, err = io.ReadAll(io.LimitReader(f, class.MaxListSize+1))
		f.Close()
		if err != nil {
			return &pageError{status: http.StatusBadRequest, lang: lang, key: "class.badrequest"}
		}
	}
	rows, problems, err := class.ParseList(data)
	if err != nil {
		return &pageError{status: http.StatusBadRequest, lang: lang, key: "list.unreadable"}
	}
	if err := s.classes.SetList(c.Request().Context(), cl.ID, rows); err != nil {
		return classErr(lang, err, cl.Code)
	}
	v := s.gradesData(c, lang, cl)
	v.Imported = len(rows)
	for _, p := range problems {
		v.Problems = append(v.Problems, listProblemText(lang, p))
	}
	status := http.StatusOK
	if len(problems) > 0 {
		status = http.StatusUnprocessableEntity
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, status, gradesPage(v))
}

// listProblemText says in lang why a row of a class list was refused.
func listProblemText(lang string, p class.ListProblem) string {
	switch p.Why {
	case class.ListDuplicate:
		return fmt.Sprintf(T(lang, "list.duplicate"), p.Line, p.Value, p.Other)
	case class.ListTooMany:
		return fmt.Sprintf(T(lang, "list.toomany"), p.Line, p.Other)
	}
	return fmt.Sprintf(T(lang, "list."+p.Why), p.Line, p.Value)
}

// gradeName is how the grades page names a student: nickname and NIM,
// or, with names hidden, only the start of the anonymous id.
func gradeName(v *gradesView, st class.StudentGrade) string {
	if v.NamesShown && st.Nick != "" {
		return st.Nick
	}
	return fmt.Sprintf(v.T("teach.roster.anon"), st.ID[:min(6, len(st.ID))])
}

// gradeNIM is a student's NIM as the grades page shows it.
func gradeNIM(v *gradesView, nim string) string {
	switch {
	case nim == "":
		return "–"
	case !v.NamesShown:
		return "•••"
	}
	return nim
}

// joinNIMMode is whether the join page asks for the NIM: the mode of the
// class of the code in its link, or of the code just typed.
func (s *Server) joinNIMMode(ctx context.Context, code string) string {
	if code == "" {
		return class.NIMOff
	}
	cl, err := s.classes.ByCode(ctx, code)
	if err != nil {
		return class.NIMOff
	}
	return cl.Settings.NIM
}

// nimRefused says whether the class refused a join for its NIM.
func nimRefused(err error) bool {
	return errors.Is(err, class.ErrNIMRequired) || errors.Is(err, class.ErrNIMTaken) || errors.Is(err, class.ErrNIMBad)
}

// askNIM shows the join form again with the NIM field, before a new
// student joins a class that asks for it from a form that had no such
// field (the code typed on /join): asked is true then.
func (s *Server) askNIM(c echo.Context, lang, code string) (asked bool, err error) {
	if _, sent := c.Request().PostForm["nim"]; sent || c.FormValue("key") != "" {
		return false, nil
	}
	mode := s.joinNIMMode(c.Request().Context(), code)
	if mode == class.NIMOff {
		return false, nil
	}
	if oldCode, oldID, ok := studentOf(c.Request()); ok && oldCode == code {
		if cl, err := s.classes.ByCode(c.Request().Context(), code); err == nil {
			if _, err := s.classes.Student(c.Request().Context(), cl.ID, oldID); err == nil {
				return false, nil // joining again: the NIM kept stays
			}
		}
	}
	return true, s.joinNIMPage(c, lang, code, "join.nim."+mode, http.StatusOK)
}

// joinNIMPage is the join form again, asking for the NIM, with why.
func (s *Server) joinNIMPage(c echo.Context, lang, code, key string, status int) error {
	mode := s.joinNIMMode(c.Request().Context(), code)
	if mode == class.NIMOff {
		mode = class.NIMAsk
	}
	v := &joinView{page: s.newPage(lang, "/join", T(lang, "join.title"), "join"), Code: code, NIM: mode,
		Nick: c.FormValue("nick"), Error: T(lang, key)}
	return render(c, status, joinPage(v))
}

// joinNIMErr is the join form again for a join the class refused for
// its NIM.
func (s *Server) joinNIMErr(c echo.Context, lang, code string, err error) error {
	key := "join.nim.bad"
	switch {
	case errors.Is(err, class.ErrNIMRequired):
		key = "join.nim.require"
	case errors.Is(err, class.ErrNIMTaken):
		key = "join.nim.taken"
	}
	return s.joinNIMPage(c, lang, code, key, http.StatusBadRequest)
}

// openTyped opens a vote on the typed question the class works on, with a
// timer if the form gave one.
func (s *Server) openTyped(c echo.Context, cl class.Class) error {
	ctx := c.Request().Context()
	t, err := s.classes.TypedQuestion(ctx, cl.ID, cl.Now.Question)
	if err != nil {
		return err
	}
	r, err := s.classes.OpenRound(ctx, cl.ID, "", t.ID, t.ChoiceIDs())
	if err != nil {
		return err
	}
	return s.startTimer(c, cl, r.ID)
}

// startTimer gives a round just opened the timer its form asked for
// ("seconds"), if any, and sets it going.
func (s *Server) startTimer(c echo.Context, cl class.Class, round int64) error {
	text := strings.TrimSpace(c.FormValue("seconds"))
	if text == "" || text == "0" {
		return nil
	}
	secs, err := strconv.Atoi(text)
	if err != nil || secs < 5 || secs > int(class.MaxTimer/time.Second) {
		return fmt.Errorf("%w: a timer of %q seconds", class.ErrBadInput, text)
	}
	d := time.Duration(secs) * time.Second
	if err := s.classes.SetTimer(c.Request().Context(), cl.ID, round, d); err != nil {
		return err
	}
	s.armTimer(cl.ID, round, s.classNow().Add(d))
	return nil
}

// barTyped fills a bar's typed question, and once revealed the choice its
// instructor marked right, and the time it is drawn at.
func (s *Server) barTyped(ctx context.Context, b *barView) {
	b.Now = s.classNow()
	if b.Round == nil || !class.IsTyped(b.Round.Round.Question) {
		return
	}
	t, err := s.classes.TypedQuestion(ctx, b.Class.ID, b.Round.Round.Question)
	if err != nil {
		b.Down = true
		return
	}
	b.Typed = &t
	if b.Round.Round.State == class.RoundRevealed {
		b.Right = t.Right
	}
}

// shareOf says how much of the class was right, before and after the
// discussion, by a choice the caller knows right.
func shareOf(v *teachView, right string) string {
	return shareText(&teachView{page: v.page, Rounds: v.Rounds, Reveal: revealOf(right)})
}

// revealOf stands for a revealed answer whose right choice is right.
func revealOf(right string) *answerView { return &answerView{Verdict: &labs.Verdict{Right: right}} }

// roundChoices are the choices of the dashboard's current round.
func roundChoices(v *teachView) []string {
	if cur := v.Current(); cur != nil {
		return cur.Round.Choices
	}
	return nil
}

// listedName is a class list's student as the grades page shows them.
func listedName(v *gradesView, l class.Listed) string {
	if !v.NamesShown {
		return "•••"
	}
	if l.Name == "" {
		return l.NIM
	}
	return l.NIM + " · " + l.Name
}
