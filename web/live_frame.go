package web

import (
	"leaselab/draw"
)

// frame renders what changed: the picture, the state, the session, and
// the events the list does not show yet (draw.LivePage).
func (l *live) frame(id int64) serverMsg {
	w := l.sess.World()
	if !l.playing {
		l.view = nil
	}
	p := l.view
	if !p.Shows(w) || l.shown < 0 || l.shownRun != l.sess.Run() {
		p = nil
	}
	m := serverMsg{Type: "frame", ID: id}
	out := m.body()
	at := out.At()
	out.B = l.sess.AppendQuery(out.B)
	out.query = out.Since(at)
	at = out.At()
	out.B = w.Now().AppendTo(out.B)
	out.clock = out.Since(at)
	v := draw.Live{Lang: l.lang, Base: l.srv.base, Lab: l.lab, Session: l.sess}
	if p == nil {
		p = draw.Whole(&out.Edits, &v)
	} else if err := p.Next(&out.Edits, &v); err != nil {
		l.view = nil
		m.free()
		return serverMsg{Type: "error", ID: id, Error: errorText(l.lang, err)}
	}
	if l.playing {
		l.view = p
	}
	events := w.Events()
	whole := l.shown < 0 || l.shown > len(events) || l.shownRun != l.sess.Run()
	draw.EventEdits(&out.Edits, l.lang, w, l.shown, whole)
	l.shown, l.shownRun = len(events), l.sess.Run()
	return m
}
