package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"leaselab/draw"
	"math"
	"slices"
	"strings"
	"testing"
)

// wireMsg is a server message as it crosses the wire, decoded: what the
// browser reads (docs/protocol.md). It is also what encoding/json encoded
// before messages were encoded by hand, so the encoder is held to it.
type wireMsg struct {
	Seq     int64    `json:"seq"`
	Type    string   `json:"type"`
	ID      int64    `json:"id,omitempty"`
	Ops     []wireOp `json:"ops,omitempty"`
	Query   string   `json:"query,omitempty"`
	Now     string   `json:"now,omitempty"`
	At      string   `json:"at,omitempty"`
	X       *int     `json:"x,omitempty"`
	Playing bool     `json:"playing"`
	Error   string   `json:"error,omitempty"`
	Retry   float64  `json:"retry,omitempty"`
	HTML    string   `json:"html,omitempty"`
}

// wireOp is an op; on the wire an array: ["op","target","html","attr"],
// the attribute only on attr, the html left out of a remove.
type wireOp struct {
	Op, Target, Attr, HTML string
}

func (o wireOp) MarshalJSON() ([]byte, error) {
	a := []string{o.Op, o.Target}
	if o.HTML != "" || o.Attr != "" || o.Op != "remove" {
		a = append(a, o.HTML)
	}
	if o.Attr != "" {
		a = append(a, o.Attr)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(a)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

func (o *wireOp) UnmarshalJSON(data []byte) error {
	var a []string
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	if len(a) < 2 || len(a) > 4 {
		return fmt.Errorf("an op of %d parts: %s", len(a), data)
	}
	a = append(a, "", "")
	*o = wireOp{Op: a[0], Target: a[1], HTML: a[2], Attr: a[3]}
	return nil
}

// jsonOf is w as encoding/json encodes it, HTML unescaped: the bytes the
// server sent before it encoded messages itself.
func jsonOf(t testing.TB, w *wireMsg) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// opKinds are the ops a frame may carry, in their order.
var opKinds = []draw.OpKind{draw.OpReplace, draw.OpAppend, draw.OpSwap, draw.OpRemove, draw.OpText, draw.OpAttr}

// msgOf builds w as the server builds a message: its texts written into
// its body. An op's name must be one the server sends.
func msgOf(w *wireMsg) serverMsg {
	m := serverMsg{Seq: w.Seq, Type: w.Type, ID: w.ID, Playing: w.Playing, Error: w.Error, Retry: w.Retry}
	if w.HTML != "" {
		m.html = NewNotice(w.Type, w.HTML).html
	}
	if len(w.Ops) == 0 && w.Query == "" && w.Now == "" && w.At == "" && w.X == nil {
		return m
	}
	b := m.body()
	for _, o := range w.Ops {
		k := slices.IndexFunc(opKinds, func(k draw.OpKind) bool { return k.String() == o.Op })
		if k < 0 {
			panic("no op " + o.Op)
		}
		if o.Attr != "" {
			t := b.Str(o.Target)
			b.SetAttr(t, o.Attr, b.Str(o.HTML))
			b.Ops[len(b.Ops)-1].Kind = draw.OpKind(k)
			continue
		}
		b.Put(draw.OpKind(k), o.Target, o.HTML)
	}
	b.query = b.Str(w.Query)
	b.clock = b.Str(w.Now)
	b.Clock = b.Str(w.At)
	if w.X != nil {
		b.NowX, b.Moved = *w.X, true
	}
	return m
}

// wireOf is m as the browser reads it: encoded, then decoded.
func wireOf(m serverMsg) wireMsg {
	var w wireMsg
	if err := json.Unmarshal(appendMsg(nil, &m), &w); err != nil {
		panic(err)
	}
	return w
}

// sameAsJSON fails t when the server's encoding of w is not encoding/json's.
func sameAsJSON(t testing.TB, w *wireMsg) {
	t.Helper()
	m := msgOf(w)
	got := appendMsg(nil, &m)
	if want := jsonOf(t, w); !bytes.Equal(got, want) {
		t.Fatalf("encoded\n%q\nencoding/json:\n%q", got, want)
	}
}

func TestAppendMsgIsEncodingJSON(t *testing.T) {
	for _, w := range []wireMsg{
		{Type: "frame"},
		{Seq: 1, Type: "ack", ID: 7, Playing: true},
		{Seq: 3, Type: "error", ID: -2, Error: `too many messages: at most 30 a second`, Retry: 1},
		{Seq: 4, Type: "error", Retry: 0.25},
		{Seq: 5, Type: "error", Retry: 1e-7},    // an exponent, unpadded
		{Seq: 6, Type: "error", Retry: 1.5e21},  // an exponent
		{Seq: 7, Type: "error", Retry: -123.75}, // not a retry, but a float
		{Seq: math.MaxInt64, Type: "frame", ID: math.MinInt64, Query: "seed=1&do=freeze+W1+for%3D25s", Now: "1m5.25s", Ops: []wireOp{
			{Op: "replace", Target: "status", HTML: `<dl class="status"><dd id="now">4s</dd></dl>`},
			{Op: "attr", Target: "live-plot", Attr: "transform", HTML: "translate(-12,0)"},
			{Op: "remove", Target: "live-g12"},
			{Op: "text", Target: "now", HTML: ""},
		}},
		// What a string may hold: markup, quotes and backslashes, every
		// control character, DEL, non-ASCII text, the two separators
		// JavaScript ends lines at, and bytes that are not UTF-8.
		{Type: "frame", Ops: []wireOp{{Op: "append", Target: `a"b\c`, HTML: "<p a=\"1\">&amp; 'x' </p>\x7f"}}},
		{Type: "frame", Ops: []wireOp{{Op: "swap", Target: "x", Attr: "odd"}, {Op: "text", Target: "", HTML: "only"}}},
		{Type: "frame", Error: "\x00\x01\x07\b\t\n\v\f\r\x1b\x1f", Now: "Ω → ≤ 日本 😀"},
		{Type: "frame", Error: "line\u2028para\u2029end", Query: "\xff\xfe x \xc3 \xe2\x80 \xed\xa0\x80 \xf4\x90\x80\x80"},
		{Type: "frame", Error: "\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa"},
		{Seq: 9, Type: "frame", Now: "5.2s", At: "5,2 dtk", X: new(254), Playing: true},
		{Seq: 10, Type: "frame", At: "1 m 5 s", X: new(0)},
		{Seq: 11, Type: "frame", X: new(-3)},
		{Seq: 8, Type: "class", HTML: "<aside id=\"classbar\">A. \u2028 \xff \\ </aside>"},
	} {
		sameAsJSON(t, &w)
	}
}

// FuzzAppendMsg holds the encoder to encoding/json on any strings and
// numbers.
func FuzzAppendMsg(f *testing.F) {
	f.Add(int64(1), "frame", int64(0), "replace", "status", "", "<b>x</b>", "seed=1", "4s", true, "", 0.0)
	f.Add(int64(9), "error", int64(3), "attr", "live-box", "data-now", "12", "", "", false, "slow \u2028 \xff", 2.5)
	f.Add(int64(-1), "ack", int64(-5), "text", "now", "", "\x00\"\\\u2029", "q=\xc3", "1m", false, "e", 1e-9)
	f.Fuzz(func(t *testing.T, seq int64, typ string, id int64, opName, target, attr, html, query, now string, playing bool, errText string, retry float64) {
		if math.IsNaN(retry) || math.IsInf(retry, 0) {
			return // encoding/json refuses them; appendMsg leaves them out
		}
		w := wireMsg{Seq: seq, Type: typ, ID: id, Query: query, Now: now, At: now, Playing: playing, Error: errText, Retry: retry}
		if playing {
			w.X = new(int(seq))
		}
		if opName != "" {
			w.Ops = []wireOp{{Op: opKinds[len(opName)%len(opKinds)].String(), Target: target, Attr: attr, HTML: html}, {Op: "remove", Target: html}}
		}
		sameAsJSON(t, &w)
	})
}

// A retry that is not a number is left out rather than fail the write.
func TestAppendMsgLeavesOutRetryNotANumber(t *testing.T) {
	for _, r := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		m := serverMsg{Type: "error", Retry: r}
		if got := string(appendMsg(nil, &m)); got != `{"seq":0,"type":"error","playing":false}`+"\n" {
			t.Errorf("retry %v: %s", r, got)
		}
	}
}

// What the free lists keep is bounded, in number and in size: a burst of
// messages out at once leaves garbage, not buffers kept for good.
func TestSentMessagesKeepBoundedRoom(t *testing.T) {
	drain := func() {
		for len(smallMsgs) > 0 {
			<-smallMsgs
		}
		for len(largeMsgs) > 0 {
			<-largeMsgs
		}
	}
	drain()
	defer drain()
	msg := func(n int) *serverMsg {
		m := &serverMsg{Type: "frame"}
		m.body().S(strings.Repeat("x", n))
		return m
	}
	var out []*outMsg
	for range 1000 { // a burst: all out at once
		m := msg(2000)
		o := newOutMsg(m)
		o.b = appendMsg(o.b[:0], m)
		m.free()
		out = append(out, o)
	}
	big := msg(100 << 10)
	o := newOutMsg(big)
	if cap(o.b) < big.sizeGuess() {
		t.Fatalf("a 100 KB message got %d bytes of room", cap(o.b))
	}
	out = append(out, o)
	huge := msg(1 << 20)
	out = append(out, newOutMsg(huge))
	for _, o := range out {
		o.free()
	}
	if len(smallMsgs) != cap(smallMsgs) || len(largeMsgs) != 1 {
		t.Errorf("kept %d small and %d large, want %d and 1", len(smallMsgs), len(largeMsgs), cap(smallMsgs))
	}
	// A kept buffer serves the next message of its size without growing.
	m := msg(2000)
	o = newOutMsg(m)
	before := cap(o.b)
	o.b = appendMsg(o.b[:0], m)
	if cap(o.b) != before || before > smallMsg {
		t.Errorf("a kept small buffer of %d bytes became %d", before, cap(o.b))
	}
	o.free()
	if o := newOutMsg(big); cap(o.b) < big.sizeGuess() || cap(o.b) > largeMsg {
		t.Errorf("the kept large buffer has %d bytes", cap(o.b))
	}
}

// An op goes as an array (docs/protocol.md): what it does, its target,
// its markup or text, and only on attr the attribute; a remove is two.
func TestOpsAreArrays(t *testing.T) {
	m := msgOf(&wireMsg{Seq: 3, Type: "frame", At: "5,2 dtk", X: new(254), Playing: true, Ops: []wireOp{
		{Op: "text", Target: "cmd-0", HTML: "maju 5,2 dtk"},
		{Op: "attr", Target: "live-plot", Attr: "transform", HTML: "translate(-12,0)"},
		{Op: "remove", Target: "live-g12"},
		{Op: "append", Target: "live-marks", HTML: `<g class="mk"></g>`},
	}})
	want := `{"seq":3,"type":"frame","ops":[["text","cmd-0","maju 5,2 dtk"],["attr","live-plot","translate(-12,0)","transform"],["remove","live-g12"],["append","live-marks","<g class=\"mk\"></g>"]],"at":"5,2 dtk","x":254,"playing":true}` + "\n"
	if got := string(appendMsg(nil, &m)); got != want {
		t.Errorf("encoded\n%s\nwant\n%s", got, want)
	}
}

// A short message (an answer, a vote's "voted", a time-only frame) takes
// a kept buffer if one is free, else one of its own size, and that one
// is not kept: a class's votes answered in one second must not each make
// a small buffer of smallMsg bytes (they were tens of megabytes).
func TestShortMessagesTakeNoNewRoom(t *testing.T) {
	for len(smallMsgs) > 0 {
		<-smallMsgs
	}
	voted := &serverMsg{Type: "voted", ID: 7, html: appendJSONString(nil, "Your answer is saved: B.")}
	o := newOutMsg(voted)
	if cap(o.b) >= smallMsg || cap(o.b) < voted.sizeGuess() {
		t.Errorf("a short message with no buffer kept got %d bytes of room, want about %d", cap(o.b), voted.sizeGuess())
	}
	o.b = appendMsg(o.b[:0], voted)
	o.free()
	if len(smallMsgs) != 0 {
		t.Errorf("a short message's own buffer was kept")
	}
	// A kept buffer serves it when there is one.
	kept := &outMsg{b: make([]byte, 0, smallMsg)}
	kept.free()
	if o := newOutMsg(voted); o != kept {
		t.Errorf("a short message did not take the kept buffer")
	}
}
