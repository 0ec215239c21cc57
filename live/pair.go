package live

import (
	"errors"
	"net/url"

	"leaselab/draw"
	"leaselab/labs"
	"leaselab/labsession"
)

// The live what-if pair: the pair page's socket. It is a live connection
// like a lab's (conn.go, session.go: the same reader, writer,
// budgets, rate, idle timeout and panic recovery) whose session is a
// labsession.Pair. Only time moves a pair on: play, pause, step, advance
// and until apply to both runs; anything else is refused and changes
// nothing. Every frame redraws the pair's live part whole, with the
// component the page draws it with, so a live page shows what a reload of
// its address would.

// pairRun is a what-if pair as its live page drives it.
type pairRun struct {
	*labsession.Pair
	// shown is what the pair's page shows: its next frame lays its
	// pictures out from these.
	shown draw.PairPictures
}

// handle answers a pair's message: a time command moves both runs on;
// answers, goals, challenges, replays and commands that change the world
// belong to the lab page and are refused.
func (r *pairRun) handle(l *Conn, m ClientMsg) serverMsg {
	if m.kind != msgDo {
		return l.fail(m.ID, labsession.NewForkError("whatif.timeonly", errTimeOnly))
	}
	if err := r.Do(m.Cmd); err != nil {
		return l.fail(m.ID, err)
	}
	l.cfg.Metrics.Command()
	return l.ack(m.ID)
}

var errTimeOnly = errors.New("what if: only time moves a pair on (play, pause, step, advance, until)")

// PairPicture is a what-if pair as its page and its socket's frames draw
// it, so that a live page shows what a reload of its address would; base
// is the site's base path. Its pictures are laid out from shown's (what
// the pair's page shows now) where they can be; nil: anew.
func PairPicture(lang, base string, lab *labs.Lab, p *labsession.Pair, shown *draw.PairPictures) *draw.Pair {
	d, found := p.Difference()
	return &draw.Pair{Lang: lang, Base: base, Lab: lab, Query: p.Session().Query(), ChangeIn: draw.CommandText(lang, p.Change()),
		At: p.Fork().At, Runs: p.Engine(), PairPictures: draw.LayoutPair(p.Engine(), lang, d, found, shown)}
}

// frame redraws the pair's live part and the way back to the lab.
func (r *pairRun) frame(l *Conn, id int64) serverMsg {
	v := PairPicture(l.lang, l.cfg.Base, l.lab, r.Pair, &r.shown)
	m := serverMsg{Type: "frame", ID: id}
	out := m.body()
	out.query = out.Str(r.Query())
	at := out.At()
	out.B = r.A().Now().AppendTo(out.B)
	out.clock = out.Since(at)
	out.Draw(draw.OpReplace, "pair-crumb", draw.PairCrumb(v))
	out.Draw(draw.OpReplace, "pair-live", draw.PairLive(v))
	r.shown.Keep(&v.PairPictures)
	return m
}

// rebuild makes the pair anew from its query (after a panic).
func (r *pairRun) rebuild(l *Conn) error {
	q, _ := url.ParseQuery(r.Query())
	p, _, err := labsession.OpenPair(l.lab, q)
	if err != nil {
		return err
	}
	r.Pair, l.sess = p, p.Session()
	return nil
}
