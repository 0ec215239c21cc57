package live

import (
	"errors"
	"html"
	"sync"
	"time"

	"github.com/gorilla/websocket"

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

// maxVoting is how many votes of one session may wait for the store at
// once: a page sends one a click, so more is a script, which must not
// make the server hold a goroutine for each of its messages.
const maxVoting = 2

// errNoClass refuses a vote from a page whose student is in no class;
// errVoting one sent while maxVoting wait; errVoteBug is a vote a bug
// ended (the log says which).
var (
	errNoClass = &wireError{"class.notjoined", nil, "not a student of a running class"}
	errVoting  = &wireError{"class.voting", nil, "a vote is still being saved"}
	errVoteBug = &wireError{"err.internal.vote", nil, "internal error: the vote was not kept"}
)

// vote hands m to the voter, which answers when the store has written
// it (then), while the session plays on; the answer, "voted" with the
// words that say so or an error, is queued then. Called with l.mu held.
func (l *Conn) vote(m ClientMsg) {
	if err := budget.Wait(l.work, l.addr); err != nil {
		// Over budget, as a costly message would be: "busy", with when
		// to ask again; a client that keeps asking is not a person.
		l.cfg.Metrics.Error(ErrBudget)
		budget.ChargeFixed(budget.RefuseCost, l.work, l.addr)
		if l.refused++; l.refused > maxRefused {
			l.close(websocket.ClosePolicyViolation, "too many messages")
			return
		}
		var be *budget.Busy
		errors.As(err, &be)
		l.send(serverMsg{Type: "error", ID: m.ID, Error: catalog.Error(l.lang, err), Retry: be.Retry.Seconds(), at: m.at})
		return
	}
	l.refused = 0
	var refuse error
	switch {
	case l.voter == nil:
		refuse = errNoClass
	case l.voting >= maxVoting:
		refuse = errVoting
	}
	if refuse != nil {
		budget.ChargeFixed(budget.RefuseCost, l.work, l.addr)
		l.send(serverMsg{Type: "error", ID: m.ID, Error: catalog.Error(l.lang, refuse), at: m.at})
		return
	}
	l.voting++
	start := time.Now()
	var once sync.Once
	then := func(said string, err error) {
		once.Do(func() {
			budget.ChargeFixed(min(time.Since(start), voteCharge), l.work, l.addr)
			reply := serverMsg{Type: "voted", ID: m.ID, html: appendJSONString(nil, html.EscapeString(said)), many: true}
			if err != nil {
				reply = serverMsg{Type: "error", ID: m.ID, Error: catalog.Error(l.lang, err), many: true}
			}
			l.voted(reply)
		})
	}
	defer func() {
		// A panic in the voter fails this vote only.
		if p := recover(); p != nil {
			l.cfg.Metrics.Error(ErrPanic)
			l.cfg.Log.Error("a class vote ended by a panic", "lab", l.lab.ID, "panic", p)
			then("", errVoteBug)
		}
	}()
	l.voter.Vote(m.Round, m.Choice, m.Sure, then)
}

// voted queues a vote's answer: at once when the session is free, else
// (it is busy, or the voter answered within vote, under its lock) from a
// goroutine that waits for it.
func (l *Conn) voted(reply serverMsg) {
	if l.mu.TryLock() {
		l.sendVoted(reply)
		l.mu.Unlock()
		return
	}
	go func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.sendVoted(reply)
	}()
}

// sendVoted queues a vote's answer. Called with l.mu held.
func (l *Conn) sendVoted(reply serverMsg) {
	l.voting--
	if !l.ended {
		l.send(reply)
	}
}
