package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"leaselab/catalog"
	"leaselab/draw"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/labsession"
	"leaselab/live"
)

// pairView is a what-if page: the session's run (A) and the same run with
// one change at one moment (B), drawn one above the other.
type pairView struct {
	*labView
	Change string // the change as the URL wrote it
	// Pair is what the page draws of the pair: its pictures, the
	// difference, the change in the student's words (ChangeIn), its moment.
	Pair  draw.Pair
	query string // the pair's own query (session + vs + vs-at)
}

// Socket is the pair socket's URL, without the query.
func (v *pairView) Socket() string { return v.Href("/labs/" + v.Lab.ID + "/whatif/ws") }

// Next is the pair's URL with one more time command: both runs go on
// together.
func (v *pairView) Next(cmd string) string {
	return v.Href("/labs/" + v.Lab.ID + "/whatif?" + v.query + "&do=" + url.QueryEscape(cmd))
}

// whatifShow draws a pair: run A is the session the query names, run B the
// same run with the change vs landing at vs-at (the run's current time
// when empty or "now"). It needs no script, holds no live session and is
// cached by its URL like the permalink.
func (s *Server) whatifShow(c echo.Context) error {
	lang, course, lab, err := s.labFor(c)
	if err != nil {
		return err
	}
	// Without a change there is no pair yet: back to the lab page's
	// "What if?" form, with the session.
	if strings.TrimSpace(c.QueryParam("vs")) == "" {
		q := c.QueryParams()
		back := url.Values{"seed": q["seed"], "do": q["do"]}
		if q.Get("seed") == "" {
			delete(back, "seed")
		}
		return c.Redirect(http.StatusSeeOther, s.newPage(lang, "", "", "").Href("/labs/"+lab.ID+"?"+back.Encode())+"#whatif")
	}
	return s.cachedPage(c, lab, echo.MIMETextHTMLCharsetUTF8, func() ([]byte, error) {
		p, cmdErr, err := openPair(lang, lab, c.QueryParams())
		if err != nil {
			return nil, err
		}
		v := s.newPairView(lang, course, lab, p, nil)
		defer v.Pair.Release()
		v.Error = errorText(lang, cmdErr)
		v.Share = s.siteURL(c) + v.Href("/labs/"+lab.ID+"/whatif?"+v.query)
		return renderBytes(c, pairPage(v))
	})
}

// openPair rebuilds the pair a URL's query describes. A what-if the lab
// cannot make is a 400 page saying why in the student's language.
func openPair(lang string, lab *labs.Lab, q url.Values) (p *labsession.Pair, refused error, err error) {
	p, refused, err = labsession.OpenPair(lab, q)
	var fe *labsession.ForkError
	switch {
	case errors.As(err, &fe):
		return nil, nil, &pageError{status: http.StatusBadRequest, lang: lang, key: fe.Key(), title: "whatif.title"}
	case err != nil:
		return nil, nil, &pageError{status: http.StatusBadRequest, lang: labs.DefaultLang, key: "error.notfound"}
	}
	return p, refused, nil
}

// newPairView is what the pair page and the pair socket's frames draw of
// a pair: both use it, so a live page shows what a reload would. Its
// pictures are laid out into pooled ones, from shown's (what a pair
// socket's page shows) when they picture the same runs with the same
// difference; free gives them back.
func (s *Server) newPairView(lang string, course *labs.Course, lab *labs.Lab, p *labsession.Pair, shown *draw.PairPictures) *pairView {
	sess := sessionOf(p.Session())
	v := &pairView{
		labView: &labView{
			page:   s.newPage(lang, "/labs/"+lab.ID+"/whatif", lab.Title(lang)+" · "+T(lang, "whatif.title"), "whatif"),
			Course: course, Lab: lab, Session: sess, World: p.A(),
		},
		Change: p.Change(),
		Pair:   *live.PairPicture(lang, s.base, lab, p, shown),
		query:  p.Query(),
	}
	v.page.Query = v.query
	return v
}

// whatifForm is the lab page's small "What if?" form: the changes the
// lab's controls offer and the moments the run has passed through.
type whatifForm struct {
	Changes []ctlOption
	Moments []ctlOption // "now" first, then the distinct event times, latest first
}

// maxMoments bounds the moments offered: the latest ones.
const maxMoments = 40

func whatifFormOf(v *labView) *whatifForm {
	f := &whatifForm{}
	seen := map[string]bool{}
	add := func(cmd string) {
		if seen[cmd] {
			return
		}
		c, err := labsession.Parse(cmd)
		if err != nil || (engine.Fork{Change: c}).Validate() != nil || !v.Lab.Allows(c) {
			return
		}
		seen[cmd] = true
		f.Changes = append(f.Changes, ctlOption{Value: cmd, Text: draw.CommandText(v.Lang, cmd)})
	}
	for _, b := range worldButtons(v.Controls, v.World, v.Lang) {
		add(b.Cmd)
	}
	for _, r := range workerRows(v.Controls, v.World, v.Lang) {
		if r.Freeze {
			for _, o := range r.For {
				if o.Value == "" {
					add("freeze " + r.Name)
				} else {
					add("freeze " + r.Name + " for=" + o.Value)
				}
			}
		}
		for _, b := range r.Buttons {
			add(b.Cmd)
		}
	}
	f.Moments = append(f.Moments, ctlOption{Value: "now", Text: T(v.Lang, "whatif.now") + " (" + catalog.MomentText(v.Lang, v.World.Now()) + ")"})
	ev := v.World.Events()
	last := engine.Time(-1)
	for i := len(ev) - 1; i >= 0 && len(f.Moments) <= maxMoments; i-- {
		t := ev[i].T
		if t == last || t == v.World.Now() {
			continue
		}
		last = t
		f.Moments = append(f.Moments, ctlOption{Value: t.String(), Text: catalog.MomentText(v.Lang, t)})
	}
	return f
}
