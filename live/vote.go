package live

import (
	"html"
	"time"

	"leaselab/budget"
	"leaselab/catalog"
)

// Class votes over the lab socket (class mode, docs/protocol.md, type
// "vote"). A lecture room votes in the same second; from a lab page the
// votes come over the sockets already open, which costs the server a
// message each rather than a new connection and a request each.

// voteCharge bounds what one vote is charged: past it the vote waits on
// the store's writer, which costs the server nothing (as a vote sent as a
// form is charged, web/guard.go).
const voteCharge = 2 * time.Millisecond

// errNoClass refuses a vote from a page whose student is in no class;
// errVoteBug is a vote a bug ended (the log says which).
var (
	errNoClass = &wireError{"class.notjoined", nil, "not a student of a running class"}
	errVoteBug = &wireError{"err.internal.vote", nil, "internal error: the vote was not kept"}
)

// vote hands m to the voter on a goroutine of its own, so that the
// session plays on while the store writes; the answer, "voted" with the
// words that say so or an error, is queued when the vote is stored.
// Called with l.mu held.
func (l *Conn) vote(m ClientMsg) {
	if l.voter == nil {
		budget.ChargeFixed(budget.RefuseCost, l.work, l.addr)
		l.send(serverMsg{Type: "error", ID: m.ID, Error: catalog.Error(l.lang, errNoClass), at: m.at})
		return
	}
	l.tasks.Add(1)
	go func() {
		defer l.tasks.Done()
		start := time.Now()
		said, err := l.voteSafely(m)
		budget.ChargeFixed(min(time.Since(start), voteCharge), l.work, l.addr)
		reply := serverMsg{Type: "voted", ID: m.ID, html: appendJSONString(nil, html.EscapeString(said))}
		if err != nil {
			reply = serverMsg{Type: "error", ID: m.ID, Error: catalog.Error(l.lang, err)}
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if !l.ended {
			l.send(reply)
		}
	}()
}

// voteSafely calls the voter; a panic in it fails this vote only.
func (l *Conn) voteSafely(m ClientMsg) (said string, err error) {
	defer func() {
		if p := recover(); p != nil {
			l.cfg.Metrics.Error(ErrPanic)
			l.cfg.Log.Error("a class vote ended by a panic", "lab", l.lab.ID, "panic", p)
			said, err = "", errVoteBug
		}
	}()
	return l.voter.Vote(m.Round, m.Choice)
}
