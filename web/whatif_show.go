package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"leaselab/catalog"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/web/labsession"
)

// pairView is a what-if page: the session's run (A) and the same run with
// one change at one moment (B), drawn one above the other.
type pairView struct {
	*labView
	Change   string // the change as the URL wrote it
	ChangeIn string // the change in the student's words
	At       engine.Time
	A, B     *Diagram
	Found    bool
	query    string // the pair's own query (session + vs + vs-at)
	runs     *engine.Pair
	diff     engine.Difference // where the runs first part, when Found
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
		defer v.free()
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
func (s *Server) newPairView(lang string, course *labs.Course, lab *labs.Lab, p *labsession.Pair, shown *pairPictures) *pairView {
	sess := p.Session()
	d, found := p.Difference()
	v := &pairView{
		labView: &labView{
			page:   s.newPage(lang, "/labs/"+lab.ID+"/whatif", lab.Title(lang)+" · "+T(lang, "whatif.title"), "whatif"),
			Course: course, Lab: lab, Session: sessionOf(sess), World: p.A(),
		},
		Change: p.Change(), ChangeIn: commandText(lang, p.Change()), At: p.Fork().At, Found: found,
		runs: p.Engine(), query: p.Query(),
	}
	hlA, hlB := map[int]bool{}, map[int]bool{}
	if found && d.A >= 0 {
		hlA[d.A] = true
	}
	if found && d.B >= 0 {
		hlB[d.B] = true
	}
	// A picture laid out from the last one keeps the marks it had, and
	// with them what they highlighted: a new difference draws anew.
	var prevA, prevB *Diagram
	if shown != nil && shown.diff == d && shown.found == found {
		prevA, prevB = shown.a, shown.b
	}
	v.A = livePictures.Get().(*Diagram)
	v.A.layout("wa", p.A(), lang, hlA, diagramOpts{}, prevA)
	v.B = livePictures.Get().(*Diagram)
	v.B.layout("wb", p.B(), lang, hlB, diagramOpts{}, prevB)
	v.diff = d
	v.page.Query = v.query
	return v
}

// free gives v's pictures back to the pool, once they are drawn.
func (v *pairView) free() {
	putPicture(v.A)
	putPicture(v.B)
	v.A, v.B = nil, nil
}

// pairPictures are the pictures a pair socket's page shows, and the
// difference they highlight.
type pairPictures struct {
	a, b  *Diagram
	diff  engine.Difference
	found bool
}

// keep makes v's pictures the ones the page shows; those it showed, which
// v's layout took its marks and messages from, go back to the pool.
func (s *pairPictures) keep(v *pairView) {
	if s.a != nil {
		putPicture(s.a)
		putPicture(s.b)
	}
	*s = pairPictures{a: v.A, b: v.B, diff: v.diff, found: v.Found}
	v.A, v.B = nil, nil
}

// pairCrumb leads back to the lab page with run A's session.
func pairCrumb(v *pairView) svgPart { return func(w *svgw) { w.pairCrumb(v) } }

func (w *svgw) pairCrumb(v *pairView) {
	w.esc(v.T("home.lab"))
	w.s(`: <a href="`)
	w.esc(v.Base)
	w.s("/")
	w.esc(v.Lang)
	w.s("/labs/")
	w.esc(v.Lab.ID)
	w.s("?")
	w.esc(v.Session.Query())
	w.s(`">`)
	w.esc(v.Lab.Title(v.Lang))
	w.s("</a>")
}

// pairLive is the part of a pair that time changes: the sentence and both
// runs. The page draws it and every frame of the pair socket redraws it.
func pairLive(v *pairView) svgPart { return func(w *svgw) { w.pairLive(v) } }

func (w *svgw) pairLive(v *pairView) {
	w.s(`<p id="difference" class="pin`)
	if v.Found {
		w.s(" found")
	}
	w.s(`" data-found="`)
	w.b = strconv.AppendBool(w.b, v.Found)
	w.s(`" data-now="`)
	w.b = v.World.Now().AppendTo(w.b)
	w.s(`"><strong>`)
	w.tmp = labs.AppendDifference(w.tmp[:0], v.runs, v.diff, v.Found, v.Lang, T(v.Lang, "whatif.nameA"), T(v.Lang, "whatif.nameB"))
	w.b = appendEsc(w.b, w.tmp)
	w.s(`</strong></p><section class="world run-a" id="run-a"><h2>`)
	w.esc(v.T("whatif.nameA"))
	w.s(": ")
	w.esc(v.T("whatif.asran"))
	w.s("</h2>")
	w.figure(v.A)
	w.s(`</section><section class="world run-b" id="run-b"><h2>`)
	w.esc(v.T("whatif.nameB"))
	w.s(": ")
	w.esc(v.ChangeIn)
	w.s(" (")
	w.b = catalog.AppendTime(w.b, v.Lang, v.At)
	w.s(")</h2>")
	w.figure(v.B)
	w.s("</section>")
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
		f.Changes = append(f.Changes, ctlOption{Value: cmd, Text: commandText(v.Lang, cmd)})
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
	f.Moments = append(f.Moments, ctlOption{Value: "now", Text: T(v.Lang, "whatif.now") + " (" + timeText(v.Lang, v.World.Now()) + ")"})
	ev := v.World.Events()
	last := engine.Time(-1)
	for i := len(ev) - 1; i >= 0 && len(f.Moments) <= maxMoments; i-- {
		t := ev[i].T
		if t == last || t == v.World.Now() {
			continue
		}
		last = t
		f.Moments = append(f.Moments, ctlOption{Value: t.String(), Text: timeText(v.Lang, t)})
	}
	return f
}
