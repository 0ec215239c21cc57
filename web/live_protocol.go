package web

import (
	"encoding/json"
	"time"
)

// The live lab's protocol: what the browser and the server say to each
// other over the websocket. docs/protocol.md describes it for people.

// msgKind is what a client message asks for. The session dispatches on it,
// once; the text form is only the wire's.
type msgKind uint8

const (
	msgUnknown   msgKind = iota // a type no client may send
	msgDo                       // apply one command
	msgReplay                   // run the current run again from its start
	msgPlay                     // advance time on its own, at a speed
	msgPause                    // stop playing
	msgAnswer                   // judge a predict question's choice
	msgChallenge                // judge a design challenge's policy
	msgGoal                     // judge a goal on the student's world

	// Kinds the reader gives a message itself; a client cannot send them.
	msgRefused // over the message rate
	msgInvalid // not a message at all
)

// clientKinds are the types a client may send, by their wire names.
var clientKinds = map[string]msgKind{
	"do": msgDo, "replay": msgReplay, "play": msgPlay, "pause": msgPause,
	"answer": msgAnswer, "challenge": msgChallenge, "goal": msgGoal,
}

// costly reports whether a kind runs the engine or renders a frame: those
// are paid from the session's and the address's work budgets.
func (k msgKind) costly() bool {
	switch k {
	case msgDo, msgReplay, msgAnswer, msgChallenge, msgGoal:
		return true
	}
	return false
}

// clientMsg is one message from the browser; docs/protocol.md lists them.
type clientMsg struct {
	ID       int64   `json:"id"`
	Type     string  `json:"type"`
	Cmd      string  `json:"cmd,omitempty"`
	Speed    float64 `json:"speed,omitempty"`
	Question string  `json:"question,omitempty"`
	Choice   string  `json:"choice,omitempty"`
	Goal     string  `json:"goal,omitempty"`
	// Values are a design challenge's policy options, by name.
	Values map[string]string `json:"values,omitempty"`

	kind msgKind   // from Type, or set by the reader
	why  string    // msgInvalid: what was wrong
	at   time.Time // when it arrived, for the frame latency
}

// decodeClientMsg reads one message off the wire. What is not a message
// comes back as msgInvalid; a type no client may send as msgUnknown.
func decodeClientMsg(data []byte) clientMsg {
	var m clientMsg
	if err := json.Unmarshal(data, &m); err != nil {
		return clientMsg{kind: msgInvalid, why: "not a JSON message: " + err.Error()}
	}
	m.kind = clientKinds[m.Type]
	return m
}

// serverMsg is one message to the browser. Every one carries the next
// sequence number, so the client can tell a gap. Seq, type and id come
// first: a client may read just those. Its ops, query and time are in its
// body (wire.go); appendMsg writes it as docs/protocol.md has it:
//
//	{"seq":1,"type":"frame","id":2,"ops":[...],"query":"...","now":"4s",
//	 "playing":true,"error":"...","retry":1.5}
//
// with id, ops, query, now, error and retry left out when empty.
type serverMsg struct {
	Seq     int64
	Type    string // frame, ack, error
	ID      int64
	b       *msgBody // ops, query and now; nil: none
	Playing bool
	Error   string
	// Retry, on an error for work over the budget, is how many seconds
	// until the session may ask again.
	Retry float64

	at   time.Time // when the work it answers began
	play bool      // a play-mode frame
}
