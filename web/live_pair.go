package web

import (
	"errors"
	"net/url"

	"github.com/labstack/echo/v4"

	"leaselab/draw"
	"leaselab/engine"
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
		l.pair, l.sess = p, p.Session()
		return nil
	})
}

// next is the frame the connection sends now: its pair's or its lab
// session's.
func (l *live) next(id int64) serverMsg {
	if l.pair != nil {
		return l.pairFrame(id)
	}
	return l.frame(id)
}

// advance moves the world on by a time command (play mode).
func (l *live) advance(c engine.Command) error {
	if l.pair != nil {
		return l.pair.Apply(c)
	}
	return l.sess.Apply(c)
}

// handlePair answers a pair's message: a time command moves both runs
// on; answers, goals, challenges, replays and commands that change the
// world belong to the lab page and are refused.
func (l *live) handlePair(m clientMsg) serverMsg {
	if m.kind != msgDo {
		return l.fail(m.ID, labsession.NewForkError("whatif.timeonly", errTimeOnly))
	}
	if err := l.pair.Do(m.Cmd); err != nil {
		return l.fail(m.ID, err)
	}
	l.srv.metrics.commands.Add(1)
	return l.ack(m.ID)
}

var errTimeOnly = errors.New("what if: only time moves a pair on (play, pause, step, advance, until)")

// pairFrame redraws the pair's live part and the way back to the lab.
func (l *live) pairFrame(id int64) serverMsg {
	v := l.srv.newPairView(l.lang, nil, l.lab, l.pair, &l.pairShown)
	m := serverMsg{Type: "frame", ID: id}
	out := m.body()
	out.query = out.Str(v.query)
	at := out.At()
	out.B = l.pair.A().Now().AppendTo(out.B)
	out.clock = out.Since(at)
	out.Draw(draw.OpReplace, "pair-crumb", draw.PairCrumb(&v.Pair))
	out.Draw(draw.OpReplace, "pair-live", draw.PairLive(&v.Pair))
	l.pairShown.Keep(&v.Pair.PairPictures)
	return m
}

// rebuildPair makes the pair anew from its query (after a panic).
func (l *live) rebuildPair() error {
	q, _ := url.ParseQuery(l.pair.Query())
	p, _, err := labsession.OpenPair(l.lab, q)
	if err != nil {
		return err
	}
	l.pair, l.sess = p, p.Session()
	return nil
}
