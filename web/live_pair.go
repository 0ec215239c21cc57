package web

import (
	"errors"
	"net/url"

	"github.com/labstack/echo/v4"

	"leaselab/draw"
	"leaselab/labsession"
)

// The live what-if pair: the pair page's socket. It is a live connection
// like a lab's (live_conn.go, live_session.go: the same reader, writer,
// budgets, rate, idle timeout and panic recovery) whose session is a
// labsession.Pair. Only time moves a pair on: play, pause, step, advance
// and until apply to both runs; anything else is refused and changes
// nothing. Every frame redraws the pair's live part whole, with the
// component the page draws it with, so a live page shows what a reload of
// its address would.

// pairWeight is what a pair counts as against the server's cap of live
// sessions: it holds two worlds, and each of its frames runs and draws
// both (its work is charged as measured, so about twice a session's).
const pairWeight = 2

func (s *Server) pairSocket(c echo.Context) error {
	lang, _, lab, err := s.labFor(c)
	if err != nil {
		return err
	}
	return s.serveLive(c, lang, lab, pairWeight, func(l *live) error {
		p, _, err := openPair(lang, lab, c.QueryParams())
		if err != nil {
			return err
		}
		l.runs, l.sess = &pairRun{Pair: p}, p.Session()
		return nil
	})
}

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
func (r *pairRun) handle(l *live, m clientMsg) serverMsg {
	if m.kind != msgDo {
		return l.fail(m.ID, labsession.NewForkError("whatif.timeonly", errTimeOnly))
	}
	if err := r.Do(m.Cmd); err != nil {
		return l.fail(m.ID, err)
	}
	l.srv.metrics.commands.Add(1)
	return l.ack(m.ID)
}

var errTimeOnly = errors.New("what if: only time moves a pair on (play, pause, step, advance, until)")

// frame redraws the pair's live part and the way back to the lab.
func (r *pairRun) frame(l *live, id int64) serverMsg {
	v := l.srv.newPairView(l.lang, nil, l.lab, r.Pair, &r.shown)
	m := serverMsg{Type: "frame", ID: id}
	out := m.body()
	out.query = out.Str(v.query)
	at := out.At()
	out.B = r.A().Now().AppendTo(out.B)
	out.clock = out.Since(at)
	out.Draw(draw.OpReplace, "pair-crumb", draw.PairCrumb(&v.Pair))
	out.Draw(draw.OpReplace, "pair-live", draw.PairLive(&v.Pair))
	r.shown.Keep(&v.Pair.PairPictures)
	return m
}

// rebuild makes the pair anew from its query (after a panic).
func (r *pairRun) rebuild(l *live) error {
	q, _ := url.ParseQuery(r.Query())
	p, _, err := labsession.OpenPair(l.lab, q)
	if err != nil {
		return err
	}
	r.Pair, l.sess = p, p.Session()
	return nil
}
