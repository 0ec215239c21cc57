package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"leaselab/catalog"
	"leaselab/class"
	"leaselab/engine"
	"leaselab/labs"
)

// The class's programs (issue 49), the web side: every Submit of a
// class's student in a program lab is kept with the engine's verdict and
// the schedule that broke it; the dashboard counts them, and the lecturer
// puts one failing program, without its student, on the projector.

// classSubmit reports a Submit in a program lab by a student of a class:
// its page is made for this student (programSubmitted keeps it).
func (s *Server) classSubmit(c echo.Context, lab *labs.Lab) bool {
	return lab.Program() != nil && c.QueryParam("submit") != "" && s.classmateOf(c.Request()) != nil
}

// programSubmitted tells the class of the student a program lab's page is
// for what they submitted and the engine's verdict on it.
func (s *Server) programSubmitted(r *http.Request, lab *labs.Lab, pv *programView) {
	if pv == nil || pv.verdict == nil || pv.Queued != nil {
		return
	}
	if m := s.classmateOf(r); m != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		s.classes.Submitted(ctx, m.ClassID, m.StudentID, submissionOf(lab, pv.Text, pv.verdict)) // the store logs its own trouble
	}
}

// submissionOf is a program and the engine's verdict on it as a class
// keeps them: the kind of verdict, and for a failure the deciding
// schedule in the engine's short form, the line that acted and when.
func submissionOf(lab *labs.Lab, text string, v *labs.ProgramVerdict) class.Submission {
	sub := class.Submission{Lab: lab.ID, Text: text, Line: int(v.Line)}
	why, _ := v.Why()
	switch {
	case v.Compile != nil:
		sub.Verdict, sub.Line = class.VerdictCompile, 0
	case v.TooSlow:
		sub.Verdict = class.VerdictSlow
	case v.Pass:
		sub.Verdict, sub.Line = class.VerdictPass, 0
	case v.Faulted():
		sub.Verdict, sub.Moment = class.VerdictFault, int64(why.T)
	default:
		sub.Verdict, sub.Moment, sub.Schedule = class.VerdictFail, int64(why.T), scheduleKey(v)
	}
	return sub
}

// scheduleKey is a failed verdict's deciding schedule in the engine's
// short form, "pause 6s at 14s; cut 2s at 3s": the search's shortest,
// else the random schedule's faults that began by the deciding event;
// "" for a schedule without faults.
func scheduleKey(v *labs.ProgramVerdict) string {
	var fs []engine.SearchFault
	if v.Searched() {
		fs = v.Search.Shortest.Faults
	} else if ce := v.FaultsBefore().Counterexample; ce != nil {
		for _, f := range ce.Faults {
			fs = append(fs, engine.SearchFault{At: f.At, Kind: f.Kind, Size: f.Size, Rate: f.Rate})
		}
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, "; ")
}

// parseSchedule reads a schedule scheduleKey wrote; ok is false for
// anything else.
func parseSchedule(key string) (fs []engine.SearchFault, ok bool) {
	if strings.TrimSpace(key) == "" {
		return nil, true
	}
	for part := range strings.SplitSeq(key, "; ") {
		f, ok := engine.ParseSearchFault(part)
		if !ok {
			return nil, false
		}
		fs = append(fs, f)
	}
	return fs, true
}

// scheduleWords is a kept schedule in lang's words: its faults, or that
// it needed none.
func scheduleWords(lang, key string) string {
	fs, ok := parseSchedule(key)
	switch {
	case !ok:
		return key
	case len(fs) == 0:
		return T(lang, "programs.nofault")
	}
	return labs.FaultList(lang, fs)
}

// programsView is the dashboard's panel of the class's programs in the
// current program lab, and the program on the projector.
type programsView struct {
	Lang  string
	Tally class.ProgramTally
	Shown *shownView
	Down  bool
}

// T is a text in the view's language.
func (p *programsView) T(key string) string { return T(p.Lang, key) }

// Counts says how many submitted, passed, failed and erred.
func (p *programsView) Counts(students int) string {
	t := p.Tally
	return fmt.Sprintf(p.T("programs.counts"), t.Submitted, students, t.Passed, t.Failed, t.Errors)
}

// Commonest is the commonest breaking schedule in words and how many
// failing programs it broke; "" when none failed.
func (p *programsView) Commonest() string {
	if len(p.Tally.Schedules) == 0 {
		return ""
	}
	sc := p.Tally.Schedules[0]
	return fmt.Sprintf(p.T("programs.commonest"), scheduleWords(p.Lang, sc.Schedule), sc.N, p.Tally.Failed)
}

// Others are the other breaking schedules, each with its count.
func (p *programsView) Others() []string {
	var out []string
	for _, sc := range p.Tally.Schedules[min(1, len(p.Tally.Schedules)):] {
		out = append(out, fmt.Sprintf(p.T("programs.other"), scheduleWords(p.Lang, sc.Schedule), sc.N))
	}
	return out
}

// shownView is the failing program on the projector, without its
// student: its lines, the line that acted, the schedule that broke it.
type shownView struct {
	Lang     string
	Lab      *labs.Lab
	P        class.ShownProgram
	Lines    []string
	Schedule string // in words
	// Query opens the program in its lab's page (its link's "prog"), ""
	// when it has none: the dashboard's link to its verdict and diagram.
	Query string
}

// T is a text in the view's language.
func (v *shownView) T(key string) string { return T(v.Lang, key) }

// Head says which of the failing programs this is.
func (v *shownView) Head() string { return fmt.Sprintf(v.T("programs.shown.h"), v.P.Pick, v.P.Of) }

// Why says when the schedule broke it, and the line that acted.
func (v *shownView) Why() string {
	at := catalog.MomentText(v.Lang, engine.Time(v.P.Moment))
	if v.P.Line > 0 {
		return fmt.Sprintf(v.T("programs.shown.line"), at, v.P.Line)
	}
	return fmt.Sprintf(v.T("programs.shown.at"), at)
}

// shownLine is one line of the shown program, with its number; Cut
// stands for lines left out.
type shownLine struct {
	N          int
	Text       string
	Acted, Cut bool
}

// Window is at most n of the program's lines (all for n 0), around the
// line that acted when there is one, with a Cut line for those left out
// above and below.
func (v *shownView) Window(n int) []shownLine {
	from, to := 0, len(v.Lines)
	if n > 0 && to > n {
		if v.P.Line > 0 {
			from = max(0, min(v.P.Line-1-n/2, to-n))
		}
		to = from + n
	}
	var lines []shownLine
	if from > 0 {
		lines = append(lines, shownLine{Cut: true})
	}
	for i := from; i < to; i++ {
		lines = append(lines, shownLine{N: i + 1, Text: v.Lines[i], Acted: i+1 == v.P.Line})
	}
	if to < len(v.Lines) {
		lines = append(lines, shownLine{Cut: true})
	}
	return lines
}

// projectorLines is how many of a shown program's lines the projector
// shows: what a room reads at 1920×1080 beside the join code.
const projectorLines = 24

// newShownView reads the program on the projector, nil when none or
// when it is of another lab than lab.
func (s *Server) newShownView(ctx context.Context, lang, classID string, lab *labs.Lab) (*shownView, error) {
	p, err := s.classes.Shown(ctx, classID)
	if err != nil || p == nil || lab == nil || p.Lab != lab.ID {
		return nil, err
	}
	return &shownView{Lang: lang, Lab: lab, P: *p, Lines: strings.Split(strings.TrimRight(p.Text, "\n"), "\n"),
		Schedule: scheduleWords(lang, p.Schedule)}, nil
}

// programsOf reads the dashboard's panel for the class's lab, nil when
// it is no program lab.
func (s *Server) programsOf(ctx context.Context, lang string, cl class.Class, lab *labs.Lab) *programsView {
	if lab == nil || lab.Program() == nil {
		return nil
	}
	pv := &programsView{Lang: lang}
	var err error
	if pv.Tally, err = s.classes.Programs(ctx, cl.ID, lab.ID); err != nil {
		pv.Down = true
	}
	if pv.Shown, err = s.newShownView(ctx, lang, cl.ID, lab); err != nil {
		pv.Down = true
	}
	if pv.Shown != nil {
		if sess, _, err := openSession(lab, url.Values{"program": {pv.Shown.P.Text}}); err == nil && sess.Program() != "" {
			pv.Shown.Query = sess.Query() + "&submit=1"
		}
	}
	return pv
}

// programAct carries out the dashboard's program buttons: show the first
// failing program of the class's lab on the projector, the next, the
// one before, or take it off; handled is false for another act.
func (s *Server) programAct(c echo.Context, lang string, cl class.Class) (handled bool, err error) {
	ctx := c.Request().Context()
	switch c.Param("act") {
	case "showprogram":
		err = s.classes.ShowProgram(ctx, cl.ID, cl.Now.Lab, 0)
	case "nextprogram":
		err = s.classes.ShowProgram(ctx, cl.ID, cl.Now.Lab, 1)
	case "prevprogram":
		err = s.classes.ShowProgram(ctx, cl.ID, cl.Now.Lab, -1)
	case "hideprogram":
		err = s.classes.HideProgram(ctx, cl.ID)
	default:
		return false, nil
	}
	switch {
	case errors.Is(err, class.ErrNoProgram), errors.Is(err, class.ErrBadInput):
		return true, &pageError{status: http.StatusConflict, lang: lang, key: "programs.none"}
	case err != nil:
		return true, classErr(lang, err, cl.Code)
	}
	if c.Request().Header.Get("Accept") == "application/json" {
		return true, c.NoContent(http.StatusNoContent)
	}
	return true, c.Redirect(http.StatusSeeOther, s.base+"/"+lang+"/teach/"+c.Param("token")+"#programs")
}
