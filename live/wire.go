package live

import (
	"encoding/json"
	"leaselab/draw"
	"math"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// The live lab's wire format: what the browser and the server say to
// each other over the websocket (docs/protocol.md describes it for
// people), and how a server message is written.

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
	msgVote                     // a class vote (class mode), for the Voter
	msgUndo                     // take back a held command (do with hold)

	// Kinds the reader gives a message itself; a client cannot send them.
	msgRefused // over the message rate
	msgInvalid // not a message at all
)

// clientKinds are the types a client may send, by their wire names.
var clientKinds = map[string]msgKind{
	"do": msgDo, "replay": msgReplay, "play": msgPlay, "pause": msgPause,
	"answer": msgAnswer, "challenge": msgChallenge, "goal": msgGoal,
	"vote": msgVote, "undo": msgUndo,
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

// ClientMsg is one message from the browser; docs/protocol.md lists them.
type ClientMsg struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
	Cmd  string `json:"cmd,omitempty"`
	// Hold, on do, says the finger that sent it is still down: the
	// command may be taken back (undo) until the session's next message.
	Hold bool `json:"hold,omitempty"`
	// Of, on undo, is the id of the held do to take back.
	Of    int64   `json:"of,omitempty"`
	Speed float64 `json:"speed,omitempty"`
	// Every, on play, is how far apart the page wants play frames, in
	// seconds of real time (a slow phone asks for fewer).
	Every float64 `json:"every,omitempty"`
	// Rows, on play, says whether play frames bring the event list its
	// new rows: false while the page's list is closed (absent keeps the
	// last, initially true).
	Rows     *bool  `json:"rows,omitempty"`
	Question string `json:"question,omitempty"`
	Choice   string `json:"choice,omitempty"`
	Goal     string `json:"goal,omitempty"`
	// Round is a class vote's round (class mode); Choice its answer, and
	// Sure how sure the student is ("sure", "unsure"; issue 44).
	Round int64  `json:"round,omitempty"`
	Sure  string `json:"sure,omitempty"`
	// Values are a design challenge's policy options, by name.
	Values map[string]string `json:"values,omitempty"`

	kind msgKind   // from Type, or set by the reader
	why  string    // msgInvalid: what was wrong
	at   time.Time // when it arrived, for the frame latency
}

// decodeClientMsg reads one message off the wire. What is not a message
// comes back as msgInvalid; a type no client may send as msgUnknown.
func decodeClientMsg(data []byte) ClientMsg {
	var m ClientMsg
	if err := json.Unmarshal(data, &m); err != nil {
		return ClientMsg{kind: msgInvalid, why: "not a JSON message: " + err.Error()}
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
//	 "at":"4 s","x":120,"playing":true,"error":"...","retry":1.5,"html":"..."}
//
// with id, ops, query, now, at, x, error, retry and html left out when
// empty (x when the "now" line did not move).
type serverMsg struct {
	Seq     int64
	Type    string // frame, ack, error, voted; a notice's own (notice.go)
	ID      int64
	b       *msgBody // ops, query and now; nil: none
	Playing bool
	Error   string
	// Retry, on an error for work over the budget, is how many seconds
	// until the session may ask again.
	Retry float64
	// html is a notice's markup, quoted (notice.go), or a voted
	// message's words, as markup, quoted (vote.go).
	html []byte

	at   time.Time // when the work it answers began
	play bool      // a play-mode frame
	many bool      // one of a class's many at once (budget.Crowd)
}

// A server message is encoded by hand, not through encoding/json: a play
// frame is mostly markup, and reflection over serverMsg and op, with a
// pass to escape each string, cost about a tenth of a loaded server's CPU.
// The bytes are those encoding/json writes with SetEscapeHTML(false), the
// fields in serverMsg's order and each op an array of strings, its
// newline at the end included (TestAppendMsgIsEncodingJSON and
// FuzzAppendMsg hold the two together), as docs/protocol.md has them.

// outMsg is a message queued for the writer: encoded once, under the
// session's lock, when its sequence number and play state are known
// (offer), so that the writer only writes bytes. Pooled: a playing
// session sends five a second.
type outMsg struct {
	b    []byte
	at   time.Time // when the work it answers began
	play bool      // a play-mode frame
	many bool      // one of a class's many at once (budget.Crowd)
}

// Messages that went out are kept for their buffers, in two bounded free
// lists: many small ones, for the incremental frames that are most of what
// goes out (renew-load's are about 6 KB, w1-w2's 1 KB), and a few large
// ones, for whole pictures. Unlike a sync.Pool, what they keep is bounded:
// a burst of frames queued to a thousand sessions at once (frames falling
// due together, or a collection's pause) leaves garbage behind, rather
// than as many buffers, each as large as the largest frame it ever held,
// kept alive until two collections pass (they were a fifth of a playing
// renew-load session's heap). At most 128 × 16 KB + 8 × 128 KB are kept:
// about as many as a thousand playing sessions have out at once.
var smallMsgs, largeMsgs = make(chan *outMsg, 128), make(chan *outMsg, 8)

const (
	tinyMsg  = 1 << 10   // a message this short needs no kept buffer
	smallMsg = 16 << 10  // a small buffer's room
	largeMsg = 128 << 10 // the largest buffer kept
)

// newOutMsg is a message to encode m into, with a kept buffer if one is
// free, else a new one as large as m will be (growing one from nothing
// would copy a frame several times over).
func newOutMsg(m *serverMsg) *outMsg {
	need := m.sizeGuess()
	if need <= tinyMsg {
		// An answer, an error, a notice, a time-only frame: a kept buffer
		// if one is free, else one of its own size. A class's votes are
		// answered in the same second, a few thousand small messages at
		// once: a buffer of smallMsg each was tens of megabytes of garbage,
		// and the collections it brought on held up every playing session.
		select {
		case o := <-smallMsgs:
			return o
		default:
			return &outMsg{b: make([]byte, 0, need)}
		}
	}
	list := smallMsgs
	if need > smallMsg {
		list = largeMsgs
	}
	var o *outMsg
	select {
	case o = <-list:
	default:
		o = new(outMsg)
	}
	if cap(o.b) < need {
		o.b = make([]byte, 0, max(need, smallMsg))
	}
	return o
}

// sizeGuess is about how long m is encoded: its texts, an eighth more for
// the quotes in markup that JSON escapes, and each op's words.
func (m *serverMsg) sizeGuess() int {
	n := 128 + len(m.Error) + len(m.html)
	if m.b != nil {
		n += len(m.b.B) + len(m.b.B)/8 + 48*len(m.b.Ops)
	}
	return n
}

// free keeps o for another message, once it went out or never will.
func (o *outMsg) free() {
	list := smallMsgs
	switch c := cap(o.b); {
	case c > largeMsg, c < smallMsg: // too large to keep, or a tiny one's own
		return
	case c > smallMsg:
		list = largeMsgs
	}
	o.b, o.at, o.play = o.b[:0], time.Time{}, false
	select {
	case list <- o:
	default: // enough are kept
	}
}

// msgBody is what a message carries besides its head: its ops (draw.Edits,
// their texts in one buffer, so that a frame makes no string per op), its
// query and its time. Pooled: a body goes back once offer has encoded it.
type msgBody struct {
	draw.Edits
	query, clock draw.Span
}

var msgBodies = sync.Pool{New: func() any { return new(msgBody) }}

// body is m's body, taken from the pool the first time.
func (m *serverMsg) body() *msgBody {
	if m.b == nil {
		m.b = msgBodies.Get().(*msgBody)
	}
	return m.b
}

// free gives m's body back to the pool: m is encoded, or will never be.
func (m *serverMsg) free() {
	b := m.b
	if b == nil {
		return
	}
	m.b = nil
	b.Reset()
	b.query, b.clock = draw.Span{}, draw.Span{}
	msgBodies.Put(b)
}

// appendMsg appends m as encoding/json encoded it, with a newline.
func appendMsg(b []byte, m *serverMsg) []byte {
	body := m.b
	if body == nil {
		body = &noBody
	}
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, m.Seq, 10)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, m.Type)
	if m.ID != 0 {
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, m.ID, 10)
	}
	if len(body.Ops) > 0 {
		b = append(b, `,"ops":[`...)
		for i, o := range body.Ops {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendOp(b, &body.Edits, o)
		}
		b = append(b, ']')
	}
	if q := body.Text(body.query); len(q) > 0 {
		b = append(b, `,"query":`...)
		b = appendJSONString(b, q)
	}
	if now := body.Text(body.clock); len(now) > 0 {
		b = append(b, `,"now":`...)
		b = appendJSONString(b, now)
	}
	if at := body.Text(body.Clock); len(at) > 0 {
		b = append(b, `,"at":`...)
		b = appendJSONString(b, at)
	}
	if body.Moved {
		b = append(b, `,"x":`...)
		b = strconv.AppendInt(b, int64(body.NowX), 10)
	}
	b = append(b, `,"playing":`...)
	b = strconv.AppendBool(b, m.Playing)
	if m.Error != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, m.Error)
	}
	// encoding/json refuses NaN and infinities (the write failed, the
	// client was dropped); a retry is a duration's seconds, never one, and
	// such a value is left out like a zero rather than end a session.
	if r := m.Retry; r != 0 && !math.IsNaN(r) && !math.IsInf(r, 0) {
		b = append(b, `,"retry":`...)
		b = appendJSONFloat(b, r)
	}
	if len(m.html) > 0 {
		b = append(b, `,"html":`...)
		b = append(b, m.html...)
	}
	return append(b, "}\n"...)
}

// appendOp appends one op as an array, ["op","target","html","attr"]:
// the attribute only on attr, the html left out of remove (and of a
// swap to nothing). Named fields cost a play frame a fifth of its bytes.
func appendOp(b []byte, e *draw.Edits, o draw.Op) []byte {
	b = append(b, `["`...)
	b = append(b, o.Kind.String()...)
	b = append(b, `",`...)
	b = appendJSONString(b, e.Text(o.Target))
	if o.HTML.To > o.HTML.From || o.Attr.To > o.Attr.From || o.Kind != draw.OpRemove {
		b = append(b, ',')
		b = appendJSONString(b, e.Text(o.HTML))
	}
	if o.Attr.To > o.Attr.From {
		b = append(b, ',')
		b = appendJSONString(b, e.Text(o.Attr))
	}
	return append(b, ']')
}

// noBody is the body of a message without one: no ops, no query, no time.
var noBody msgBody

// jsonSafe are the ASCII bytes a JSON string holds as they are when HTML
// is not escaped: all but the control characters, the quote and the
// backslash.
var jsonSafe = func() (s [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		s[c] = c != '"' && c != '\\'
	}
	return s
}()

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as encoding/json quotes a string with
// SetEscapeHTML(false): control characters, the quote and the backslash
// escaped, invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped (they
// end a line in JavaScript).
func appendJSONString[S string | []byte](b []byte, s S) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		// Only the bytes that begin one multi-byte rune: a string
		// conversion of a slice this short needs no allocation.
		r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONFloat appends a finite f as encoding/json writes a float64:
// like ES6's number to string, exponents unpadded.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-07 becomes e-7
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// wireError is a refusal the live connection finds itself (a message over the
// rate, a message that is not one, a panic): Readable, like every other.
type wireError struct {
	key  string
	args []any
	msg  string // in English, for logs and tests
}

func (e *wireError) Error() string { return e.msg }

// Key is the catalog's text for the refusal.
func (e *wireError) Key() string { return e.key }

// Args are what the text names.
func (e *wireError) Args() []any { return e.args }
