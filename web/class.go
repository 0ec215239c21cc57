package web

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"leaselab/class"
	"leaselab/labs"
)

// Class mode (issue 27): the web side of a class. The class package keeps
// what is stored; this file holds what every class page shares: the
// student's cookie, the class bar every page of a student carries, and
// how the class's errors read.

// classCookie names the class a browser joined and the anonymous student
// id it keeps there: "CODE.ID". Nothing else about the student is in it.
const classCookie = "leaselab_class"

// classCookieAge keeps a student in a class across reloads and restarts
// for as long as an ended class's data is kept by default.
const classCookieAge = 30 * 24 * time.Hour

// barSlot is the empty class bar every layout writes; for a student of a
// class, classBar writes the bar in its place. Pages in the cache keep the
// empty slot, so one student's bar is never served to another.
var barSlot = []byte(`<div id="classbar"></div>`)

// studentOf reads the class cookie: the class code and the student id.
func studentOf(r *http.Request) (code, id string, ok bool) {
	ck, err := r.Cookie(classCookie)
	if err != nil {
		return "", "", false
	}
	code, id, ok = strings.Cut(ck.Value, ".")
	if !ok || code == "" || id == "" || len(ck.Value) > 100 {
		return "", "", false
	}
	return code, id, true
}

// setStudent keeps code and id in the browser. The cookie is SameSite
// Strict (issue 50): a request another site's page starts, a top-level
// navigation too, does not carry it, so it cannot vote, leave, or note a
// step or a goal (a lab page's ?do= and ?goal=) for the student. The join
// link still works from a chat app: its page is a form that needs no
// cookie, and pressing Join sends it from this site's page, which
// carries the cookie. A page opened from another site (a lab's link in
// a chat) comes without the bar; the student's next click on the site
// has it again.
func (s *Server) setStudent(c echo.Context, code, id string) {
	c.SetCookie(&http.Cookie{
		Name: classCookie, Value: code + "." + id, Path: s.base + "/",
		MaxAge: int(classCookieAge / time.Second), HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: c.Scheme() == "https",
	})
}

// forgetStudent takes the class out of the browser.
func (s *Server) forgetStudent(c echo.Context) {
	c.SetCookie(&http.Cookie{Name: classCookie, Value: "", Path: s.base + "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// classErr is a class error as a page: its status and its catalog text.
func classErr(lang string, err error, code string) error {
	pe := &pageError{status: http.StatusBadRequest, lang: lang, key: "class.badrequest"}
	switch {
	case errors.Is(err, class.ErrNoClass):
		pe.status, pe.key, pe.title = http.StatusNotFound, "class.noclass", "class.noclass.title"
		pe.args = []any{code}
	case errors.Is(err, class.ErrEnded):
		pe.status, pe.key, pe.title = http.StatusGone, "class.ended", "class.ended.title"
		pe.args = []any{code}
	case errors.Is(err, class.ErrUnavailable):
		pe.status, pe.key = http.StatusServiceUnavailable, "class.unavailable"
	case errors.Is(err, class.ErrNotJoined):
		pe.status, pe.key = http.StatusForbidden, "class.notjoined"
	case errors.Is(err, class.ErrNoKey):
		pe.status, pe.key = http.StatusNotFound, "class.badkey"
	case errors.Is(err, class.ErrRoundClosed), errors.Is(err, class.ErrNoRound):
		pe.status, pe.key = http.StatusConflict, "class.roundclosed"
	case errors.Is(err, class.ErrClassFull):
		pe.status, pe.key = http.StatusConflict, "class.full"
	case errors.Is(err, class.ErrRoundLimit):
		pe.status, pe.key = http.StatusConflict, "class.roundlimit"
	case errors.Is(err, class.ErrBadChoice):
		pe.key = "class.badchoice"
	case errors.Is(err, class.ErrBadInput):
		pe.key = "class.badrequest"
	case errors.Is(err, context.Canceled):
		return err
	default:
		return err
	}
	return pe
}

// classesOn refuses a class route when the server keeps no classes.
func (s *Server) classesOn(lang string) error {
	if s.classes == nil {
		return &pageError{status: http.StatusNotFound, lang: lang, key: "class.off"}
	}
	return nil
}

// cleanCode writes a join code as it is stored: capitals, without the
// spaces and dashes a person types between groups.
func cleanCode(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	s = strings.NewReplacer(" ", "", "-", "", ".", "").Replace(s)
	if len(s) > 2*class.CodeLength {
		s = s[:2*class.CodeLength]
	}
	return s
}

// barView is the class bar of one student on one page.
type barView struct {
	*page
	Class   class.Class
	Student class.Student
	Lab     *labs.Lab    // the lab the class works on, nil if none
	Round   *class.Tally // the newest round of the class's question
	Mine    string       // the student's choice in Round, "" if none
	Right   string       // the engine's answer once revealed (a typed question's: the one its instructor marked)
	Typed   *class.Typed // the round's question when the instructor typed it (issue 44)
	Now     time.Time    // the server's time when drawn, for a timer's countdown
	Back    string       // where a vote without script returns
	Down    bool         // the store is unavailable
	Joined  bool         // the first page after joining (classroom.go)
}

// Question is the round's question, nil if none.
func (b *barView) Question() *labs.Question {
	if b.Lab == nil || b.Round == nil {
		return nil
	}
	return b.Lab.Question(b.Round.Round.Question)
}

// ChoiceText is a choice of the round's question in the page's language.
func (b *barView) ChoiceText(id string) string {
	if b.Round == nil {
		return id
	}
	if b.Typed != nil {
		return typedChoice(b.Typed, id)
	}
	return choiceText(b.Question(), b.Round.Round.Choices, id, b.Lang)
}

// choiceLetter names the i-th choice of a round as a class says it
// aloud: A, B, C…
func choiceLetter(choices []string, id string) string {
	for i, c := range choices {
		if c == id && i < 26 {
			return string(rune('A' + i))
		}
	}
	return id
}

// choiceText is a choice's letter and its words in lang.
func choiceText(q *labs.Question, choices []string, id, lang string) string {
	if q != nil {
		if c := q.Choice(id); c != nil {
			return choiceLetter(choices, id) + ". " + c.Text(lang)
		}
	}
	return choiceLetter(choices, id)
}

// questionNumber is the question's place in its lab, from 1; 0 if absent.
func questionNumber(lab *labs.Lab, qid string) int {
	if lab == nil {
		return 0
	}
	for i, q := range lab.Questions {
		if q.ID == qid {
			return i + 1
		}
	}
	return 0
}

// currentRounds are the rounds of the class's current question, oldest first.
func currentRounds(cl class.Class, all []class.Tally) []class.Tally {
	var out []class.Tally
	for _, t := range all {
		if (t.Round.Lab == cl.Now.Lab || class.IsTyped(t.Round.Question)) && t.Round.Question == cl.Now.Question {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b class.Tally) int { return int(a.Round.ID - b.Round.ID) })
	return out
}

// bar reads what a student's class bar shows. ok is false when the
// request carries no class, or one the store no longer knows.
func (s *Server) bar(ctx context.Context, lang, code, id string) (*barView, bool) {
	b, ok := s.classBarOf(ctx, lang, code)
	if !ok || b.Class.ID == "" {
		return b, ok
	}
	st, err := s.classes.Student(ctx, b.Class.ID, id)
	if err != nil && !errors.Is(err, class.ErrUnavailable) {
		return nil, false
	}
	b.Student, b.Down = st, b.Down || err != nil
	if b.Round != nil && !b.Down {
		mine, err := s.classes.Votes(ctx, b.Class.ID, id)
		if err != nil {
			b.Down = true
		}
		b.Mine = mine[b.Round.Round.ID]
	}
	return b, true
}

// barOfClass is the bar of a class in lang, the same for each of its
// students: what the class works on, its newest round and, once
// revealed, the engine's answer.
func (s *Server) barOfClass(ctx context.Context, lang string, cl class.Class) *barView {
	b := &barView{page: s.newPage(lang, "/", "", "bar"), Class: cl}
	if cur := s.course.get(); cur.course != nil && cl.Now.Lab != "" {
		b.Lab = cur.course.Lab(cl.Now.Lab)
	}
	if cl.Ended != nil {
		return b
	}
	all, err := s.classes.Rounds(ctx, cl.ID)
	if err != nil {
		b.Down = true
		return b
	}
	if rs := currentRounds(cl, all); len(rs) > 0 {
		t := rs[len(rs)-1]
		b.Round = &t
		s.barTyped(ctx, b) // a typed question, its marked choice once revealed (class_grades.go)
		if t.Round.State == class.RoundRevealed && b.Lab != nil {
			if a, err := s.answer(b.Lab, t.Round.Question, t.Round.Choices[0], lang); err == nil {
				b.Right = a.Verdict.Right
			}
		}
	}
	return b
}

// classBar writes a student's class bar into the page in place of the
// empty slot. It wraps page routes; a page without the slot, a request
// without a class cookie, and anything but HTML pass as they are.
func (s *Server) classBar(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if s.classes == nil || r.Method != http.MethodGet {
			return next(c)
		}
		code, id, ok := studentOf(r)
		if !ok {
			return next(c)
		}
		lang := langOf(c)
		joined := !strings.HasPrefix(r.URL.Path, staticPrefix) && s.justJoined(c)
		w := &barWriter{ResponseWriter: c.Response().Writer, fill: func() []byte {
			b, ok := s.bar(r.Context(), lang, code, id)
			if !ok {
				return nil
			}
			b.Joined = joined
			b.Back = requestPath(r)
			if q := r.URL.RawQuery; q != "" && len(q) < maxBack {
				b.Back += "?" + q
			}
			html, err := renderString(classBarBlock(b))
			if err != nil {
				return nil
			}
			return []byte(html)
		}}
		c.Response().Writer = w
		return next(c)
	}
}

// maxBack bounds the page address a vote without script returns to: a
// session at its caps has a long one, and the bar carries it twice.
const maxBack = 2000

// barWriter fills the bar's slot in the first write of an HTML page: a
// page is rendered whole before it is written (render), so its slot is in
// that write.
type barWriter struct {
	http.ResponseWriter
	fill func() []byte
	once sync.Once
}

func (w *barWriter) Write(p []byte) (int, error) {
	done := false
	w.once.Do(func() {
		if !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
			return
		}
		i := bytes.Index(p, barSlot)
		if i < 0 {
			return
		}
		bar := w.fill()
		if bar == nil {
			return
		}
		out := make([]byte, 0, len(p)+len(bar))
		out = append(append(append(out, p[:i]...), bar...), p[i+len(barSlot):]...)
		if _, err := w.ResponseWriter.Write(out); err != nil {
			return
		}
		done = true
	})
	if done {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *barWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// localBack is where a form returns: a path of this site in lang, else
// the home page. A link elsewhere is not followed (no open redirect).
func (s *Server) localBack(lang, back string) string {
	u, err := url.Parse(back)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, s.base+"/"+lang+"/") || strings.Contains(u.Path, "//") {
		return s.base + "/" + lang + "/"
	}
	return u.RequestURI()
}
