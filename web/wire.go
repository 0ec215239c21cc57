package web

import (
	"math"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// A server message is encoded by hand, not through encoding/json: a play
// frame is mostly markup, and reflection over serverMsg and op, with a
// pass to escape each string, cost about a tenth of a loaded server's CPU.
// The bytes are those encoding/json wrote with SetEscapeHTML(false), the
// fields in serverMsg's order, its newline at the end included
// (TestAppendMsgIsEncodingJSON and FuzzAppendMsg hold the two together),
// so the wire format (docs/protocol.md) is unchanged.

// outMsg is a message queued for the writer: encoded once, under the
// session's lock, when its sequence number and play state are known
// (offer), so that the writer only writes bytes. Pooled: a playing
// session sends five a second.
type outMsg struct {
	b    []byte
	at   time.Time // when the work it answers began
	play bool      // a play-mode frame
}

var outMsgs = sync.Pool{New: func() any { return new(outMsg) }}

// maxPooledMsg is the largest buffer kept for another message: a whole
// picture of a busy run is tens of KB, and the pool should not hold many.
const maxPooledMsg = 256 << 10

// free gives o back to the pool, once it went out or never will.
func (o *outMsg) free() {
	if cap(o.b) > maxPooledMsg {
		o.b = nil
	}
	o.b, o.at, o.play = o.b[:0], time.Time{}, false
	outMsgs.Put(o)
}

// appendMsg appends m as encoding/json encodes it, with a newline.
func appendMsg(b []byte, m *serverMsg) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, m.Seq, 10)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, m.Type)
	if m.ID != 0 {
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, m.ID, 10)
	}
	if len(m.Ops) > 0 {
		b = append(b, `,"ops":[`...)
		for i := range m.Ops {
			if i > 0 {
				b = append(b, ',')
			}
			b = m.Ops[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	if m.Query != "" {
		b = append(b, `,"query":`...)
		b = appendJSONString(b, m.Query)
	}
	if m.Now != "" {
		b = append(b, `,"now":`...)
		b = appendJSONString(b, m.Now)
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
	return append(b, "}\n"...)
}

// appendJSON appends the op as encoding/json encodes it.
func (o *op) appendJSON(b []byte) []byte {
	b = append(b, `{"op":`...)
	b = appendJSONString(b, o.Op)
	b = append(b, `,"target":`...)
	b = appendJSONString(b, o.Target)
	if o.Attr != "" {
		b = append(b, `,"attr":`...)
		b = appendJSONString(b, o.Attr)
	}
	b = append(b, `,"html":`...)
	b = appendJSONString(b, o.HTML)
	return append(b, '}')
}

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
