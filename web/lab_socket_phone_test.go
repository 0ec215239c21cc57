package web

import (
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"leaselab/live"
)

// TestFirstFrameToAPageThatHasIt: a page's first connection says it shows
// what its address draws (have=1), and its first frame carries the
// session's query and time and no copy of the page; the frames after it
// change the page from there, as they do after a whole first frame.
func TestFirstFrameToAPageThatHasIt(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	const path = "/id/labs/w1-w2/ws?seed=1&do=fencing+on&do=advance+3s"
	whole := dialLab(t, ts.URL, path)
	have := dialLab(t, ts.URL, path+"&have=1")
	if len(whole.first.Ops) == 0 {
		t.Fatal("without have=1 the first frame brings no page")
	}
	if len(have.first.Ops) != 0 {
		t.Errorf("with have=1 the first frame has %d ops, want none", len(have.first.Ops))
	}
	if have.first.Query != whole.first.Query || have.first.Now != whole.first.Now || have.first.Query == "" {
		t.Errorf("with have=1 the first frame says %q at %q, without %q at %q", have.first.Query, have.first.Now, whole.first.Query, whole.first.Now)
	}
	// The next command's frame is the same either way: the server did
	// not count on ops it never sent.
	a, b := whole.do("freeze W1"), have.do("freeze W1")
	if a.Type != "ack" || b.Type != "ack" || len(a.Ops) != len(b.Ops) {
		t.Fatalf("freeze W1: %s with %d ops after a whole first frame, %s with %d after have=1", a.Type, len(a.Ops), b.Type, len(b.Ops))
	}
	for i := range a.Ops {
		if a.Ops[i] != b.Ops[i] {
			t.Errorf("op %d differs: %+v after a whole first frame, %+v after have=1", i, a.Ops[i], b.Ops[i])
		}
	}
}

// TestSocketCompresses: a browser's offer of permessage-deflate is taken,
// play frames arrive whole through it, and a compressed message is held
// to the message size limit once inflated, not only on the wire.
func TestSocketCompresses(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/en/labs/renew-load/ws"
	d := websocket.Dialer{EnableCompression: true}
	conn, resp, err := d.Dial(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if ext := resp.Header.Get("Sec-Websocket-Extensions"); !strings.Contains(ext, "permessage-deflate") {
		t.Fatalf("the server did not take compression: %q", ext)
	}
	c := &wsClient{t: t, conn: conn}
	if c.first = c.next(); c.first.Type != "frame" || len(c.first.Ops) == 0 {
		t.Fatalf("first message: %+v", c.first)
	}
	if m := c.do("advance 9s"); m.Type != "ack" || m.Now != "9s" || len(m.Ops) == 0 {
		t.Fatalf("advance 9s through compression: %s at %q with %d ops", m.Type, m.Now, len(m.Ops))
	}

	// Spaces inflate a thousandfold: a few dozen bytes on the wire, past
	// the limit once read.
	bomb, _, err := d.Dial(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bomb.Close()
	bomb.WriteMessage(websocket.TextMessage, []byte(`{"type":"do","cmd":"`+strings.Repeat(" ", 64*live.MaxMessageSize)+`"}`))
	if code, text := closeCode(t, bomb); code != websocket.CloseMessageTooBig {
		t.Errorf("a message that inflates past the limit: close %d %q, want %d", code, text, websocket.CloseMessageTooBig)
	}
}
