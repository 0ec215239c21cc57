package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"leaselab/class"
	"leaselab/labs"
)

// The projector view (issue 43): what the whole lecture room reads, at
// /{lang}/projector/{projector token}. Its token is the class's own
// read-only capability (class.ProjectorToken), not the instructor's: the
// page can be opened on the room's PC, and a photograph of its address
// bar runs nothing. Nothing on it leads to the dashboard, and it shows a
// round's counts only once the instructor chose to show them (or
// revealed the answer): peer instruction needs the first vote unseen.

// projectorView is the projector's page, and its live part.
type projectorView struct {
	*page
	Class    class.Class
	PToken   string
	JoinURL  string // the students' join link, code included
	JoinText string // the same for the eye: host and path, no scheme
	QR       string // the join link as an SVG QR code
	Students int
	Lab      *labs.Lab
	Rounds   []class.Tally // the current question's, oldest first
	Reveal   *answerView   // the engine's answer, once revealed
	Down     bool
	// Clicker is the typed question and the timer's time (issue 44).
	Clicker clickerView
	// Shown is the failing program the lecturer put on it, without its
	// student (class_programs.go, issue 49); nil for none.
	Program *shownView
}

// Question is the class's current question, nil if none.
func (v *projectorView) Question() *labs.Question {
	if v.Lab == nil || v.Class.Now.Question == "" {
		return nil
	}
	return v.Lab.Question(v.Class.Now.Question)
}

// Shown says whether a round's counts are on the projector: the
// instructor showed them, or revealed the answer.
func (v *projectorView) Shown(t class.Tally) bool {
	return t.Round.Shown || t.Round.State == class.RoundRevealed
}

// Share is how much of the class was right, before and after.
func (v *projectorView) Share() string {
	return shareText(&teachView{page: v.page, Rounds: v.Rounds, Reveal: v.Reveal})
}

// Right is the engine's answer once revealed, "" before.
func (v *projectorView) Right() string {
	if v.Reveal == nil {
		return ""
	}
	return v.Reveal.Verdict.Right
}

// projectorFor finds the class a projector link shows: a token no class
// has is not found, whatever it looks like.
func (s *Server) projectorFor(c echo.Context) (string, class.Class, error) {
	lang := c.Param("lang")
	if !knownLang(lang) {
		return labs.DefaultLang, class.Class{}, notFound(labs.DefaultLang)
	}
	if err := s.classesOn(lang); err != nil {
		return lang, class.Class{}, err
	}
	pt := c.Param("ptoken")
	if len(pt) > 200 {
		return lang, class.Class{}, notFound(lang)
	}
	cl, err := s.classes.ByProjector(c.Request().Context(), pt)
	if errors.Is(err, class.ErrNoClass) {
		return lang, cl, notFound(lang)
	}
	if err != nil {
		return lang, cl, classErr(lang, err, "")
	}
	return lang, cl, nil
}

// projectorReq is what the projector's page and stream draw from their
// request: its language, the projector token, the site's address.
type projectorReq struct{ lang, ptoken, site string }

func (s *Server) projectorReqOf(c echo.Context, lang string) projectorReq {
	return projectorReq{lang: lang, ptoken: c.Param("ptoken"), site: s.siteURL(c)}
}

// projectorData reads what the projector shows; the QR code only for the
// whole page (whole).
func (s *Server) projectorData(ctx context.Context, r projectorReq, cl class.Class, whole bool) (*projectorView, error) {
	course, err := s.currentCourse(r.lang)
	if err != nil {
		return nil, err
	}
	lang := r.lang
	p := s.newPage(lang, "/projector/"+r.ptoken, fmt.Sprintf(T(lang, "hall.title"), cl.Name), "hallview projector")
	v := &projectorView{page: p, Class: cl, PToken: r.ptoken}
	v.JoinURL = s.joinURLAt(r.site, lang, cl.Code)
	v.JoinText = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSuffix(v.JoinURL, "?code="+url.QueryEscape(cl.Code)), "https://"), "http://")
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
	v.Clicker = s.clickerOf(ctx, lang, cl, v.Rounds, false)
	if n := len(v.Rounds); n > 0 {
		cur := v.Rounds[n-1]
		if cur.Round.State == class.RoundRevealed && v.Lab != nil && v.Lab.Question(cur.Round.Question) != nil {
			if a, err := s.answer(v.Lab, cur.Round.Question, cur.Round.Choices[0], lang); err == nil {
				if v.Reveal, err = s.answer(v.Lab, cur.Round.Question, a.Verdict.Right, lang); err != nil {
					return nil, err
				}
			}
		}
	}
	if v.Students, err = s.classes.StudentCount(ctx, cl.ID); err != nil {
		v.Down = true
	}
	if v.Program, err = s.newShownView(ctx, lang, cl.ID, v.Lab); err != nil {
		v.Down = true
	}
	return v, nil
}

// projectorShow is the projector's page.
func (s *Server) projectorShow(c echo.Context) error {
	lang, cl, err := s.projectorFor(c)
	if err != nil {
		return err
	}
	v, err := s.projectorData(c.Request().Context(), s.projectorReqOf(c, lang), cl, true)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, projectorPage(v))
}

// projectorHref is the projector's link of a class whose instructor token
// is token, in lang.
func (s *Server) projectorHref(lang, token string) string {
	return s.base + "/" + lang + "/projector/" + class.ProjectorToken(token)
}

// joinURL is the link students join a class by: on the address students
// use (Config.StudentURL: --public-url, or the LAN address in classroom
// mode) whatever name the instructor's own browser used, else on the
// address the request came to.
func (s *Server) joinURL(c echo.Context, lang, code string) string {
	return s.joinURLAt(s.siteURL(c), lang, code)
}

// joinURLAt is joinURL for a request to site (scheme and host).
func (s *Server) joinURLAt(site, lang, code string) string {
	if s.studentURL != "" {
		site = s.studentURL
	}
	return site + s.base + "/" + lang + "/join?code=" + url.QueryEscape(code)
}

// unreachable says why students' phones cannot open a join link, "" when
// they can: the server listens on this machine only, or the link names
// this machine (the instructor opened the dashboard as localhost).
func (s *Server) unreachable(joinURL string) string {
	if s.loopbackOnly && s.studentURL == "" {
		return "hall.loopback"
	}
	u, err := url.Parse(joinURL)
	if err != nil {
		return ""
	}
	h := u.Hostname()
	if ip := net.ParseIP(h); h == "localhost" || strings.HasSuffix(h, ".localhost") || ip != nil && ip.IsLoopback() {
		return "hall.localname"
	}
	return ""
}
