package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"leaselab/labs"
	"leaselab/live"
)

// wsClient is the test's side of a live lab.
type wsClient struct {
	t     *testing.T
	conn  *websocket.Conn
	seq   int64
	id    int64
	first wireMsg // the frame the connection began with
}

// wireMsg is a server message as it crosses the wire, decoded: what the
// browser reads (docs/protocol.md).
type wireMsg struct {
	Seq     int64    `json:"seq"`
	Type    string   `json:"type"`
	ID      int64    `json:"id,omitempty"`
	Ops     []wireOp `json:"ops,omitempty"`
	Query   string   `json:"query,omitempty"`
	Now     string   `json:"now,omitempty"`
	Playing bool     `json:"playing"`
	Error   string   `json:"error,omitempty"`
	Retry   float64  `json:"retry,omitempty"`
	HTML    string   `json:"html,omitempty"` // a class message's bar
}

// wireOp is an op; on the wire an array: ["op","target","html","attr"].
type wireOp struct {
	Op, Target, Attr, HTML string
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

func dialLab(t *testing.T, base, path string) *wsClient {
	t.Helper()
	u := "ws" + strings.TrimPrefix(base, "http") + path
	conn, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", u, err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &wsClient{t: t, conn: conn}
	if c.first = c.next(); c.first.Type != "frame" {
		t.Fatalf("first message is %q, want a frame", c.first.Type)
	}
	return c
}

// next reads one message and checks that its sequence number follows.
func (c *wsClient) next() wireMsg {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var m wireMsg
	if err := c.conn.ReadJSON(&m); err != nil {
		c.t.Fatalf("read: %v", err)
	}
	if m.Seq != c.seq+1 {
		c.t.Fatalf("seq %d after %d", m.Seq, c.seq)
	}
	c.seq = m.Seq
	return m
}

// call sends a message and returns the answer to it, skipping play frames.
func (c *wsClient) call(m live.ClientMsg) wireMsg {
	c.t.Helper()
	c.id++
	m.ID = c.id
	if err := c.conn.WriteJSON(m); err != nil {
		c.t.Fatal(err)
	}
	for {
		r := c.next()
		if r.ID == m.ID {
			return r
		}
	}
}

func (c *wsClient) do(cmd string) wireMsg {
	c.t.Helper()
	r := c.call(live.ClientMsg{Type: "do", Cmd: cmd})
	if r.Type != "ack" {
		c.t.Fatalf("%s: %s %s", cmd, r.Type, r.Error)
	}
	return r
}

func opHTML(m wireMsg, target string) string {
	var b strings.Builder
	for _, o := range m.Ops {
		if o.Target == target {
			b.WriteString(o.HTML)
		}
	}
	return b.String()
}

func TestLiveLab(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{})
	c := dialLab(t, ts.URL, "/en/labs/w1-w2/ws")

	c.do("fencing on")
	c.do("until 4s")
	c.do("freeze W1")
	c.do("advance 18s")
	r := c.do("thaw W1")
	r2 := c.do("advance 1s")
	events := opHTML(r, "events") + opHTML(r2, "events")
	if !strings.Contains(events, "the storage rejects file from W1 with token 7 (stale token: 7 &lt; 8)") {
		t.Errorf("no rejected write in the appended events:\n%s", events)
	}
	// A paused page's answer brings what changed: the mark is appended.
	if !strings.Contains(opHTML(r2, "diagram")+opHTML(r2, "live-marks"), `class="mk reject blocked"`) {
		t.Error("no rejected write in the diagram")
	}
	if r2.Query != "seed=1&do=fencing+on&do=until+4s&do=freeze+W1&do=advance+19s&do=thaw+W1&do=advance+1s" &&
		!strings.Contains(r2.Query, "do=thaw+W1") {
		t.Errorf("session query %q", r2.Query)
	}

	// Every control's command is one the engine takes.
	for _, cmd := range []string{"step", "crash W2", "restart W2", "partition W1", "heal", "freeze W2 for=5s", "thaw W2", "fencing off", "fencing on"} {
		c.do(cmd)
	}

	// Errors are answers too, and change nothing.
	for _, bad := range []live.ClientMsg{
		{Type: "do", Cmd: "freeze W9"},
		{Type: "do", Cmd: strings.Repeat("x", 500)},
		{Type: "answer", Question: "nope", Choice: "x"},
		{Type: "goal", Goal: "nope"},
		{Type: "dance"},
	} {
		if m := c.call(bad); m.Type != "error" || m.Error == "" {
			t.Errorf("%+v: got %s, want an error", bad, m.Type)
		}
	}
	if err := c.conn.WriteMessage(websocket.TextMessage, []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if m := c.next(); m.Type != "error" || !strings.Contains(m.Error, "JSON") {
		t.Errorf("garbage: %+v", m)
	}

	// The goal is checked against this session's own world.
	g := c.call(live.ClientMsg{Type: "goal", Goal: "reject-stale"})
	if g.Type != "ack" || !strings.Contains(opHTML(g, "goal-verdict-reject-stale"), `data-correct="true"`) {
		t.Errorf("goal verdict: %+v", g)
	}

	// Fencing off, reset, replay: the same faults, and the stale write lands.
	c.do("fencing off")
	r = c.call(live.ClientMsg{Type: "replay"})
	if r.Type != "ack" {
		t.Fatalf("replay: %+v", r)
	}
	if ev := opHTML(r, "events"); !strings.Contains(ev, "the storage accepts file from W1 with token 7") {
		t.Errorf("replay without fencing did not accept the stale write:\n%s", ev)
	}
	if !strings.Contains(r.Query, "do=reset") {
		t.Errorf("replay not in the session: %s", r.Query)
	}

	// Predict questions are decided by the engine's own run.
	a := c.call(live.ClientMsg{Type: "answer", Question: "storage-checks", Choice: "rejected"})
	v := opHTML(a, "verdict-storage-checks")
	if a.Type != "ack" || !strings.Contains(v, `data-correct="true"`) || !strings.Contains(v, `class="hl"`) {
		t.Errorf("answer: %s %s", a.Type, v)
	}

	// Play advances the world on its own until paused.
	p := c.call(live.ClientMsg{Type: "play", Speed: 5})
	if p.Type != "ack" || !p.Playing {
		t.Fatalf("play: %+v", p)
	}
	if m := c.next(); m.Type != "frame" || !m.Playing {
		t.Errorf("no play frame: %+v", m)
	}
	if m := c.call(live.ClientMsg{Type: "pause"}); m.Playing {
		t.Error("still playing after pause")
	}
}

// TestLiveLabResumesByReplay reconnects with the session in the address,
// as the script does after a dropped connection.
func TestLiveLabResumesByReplay(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{})
	c := dialLab(t, ts.URL, "/id/labs/w1-w2/ws?seed=1&do=fencing+on&do=until+4s&do=freeze+W1&do=advance+18s&do=thaw+W1&do=advance+1s")
	r := c.do("step")
	// The first frame draws the resumed session whole; the step's answer
	// brings what changed.
	if !strings.Contains(opHTML(c.first, "status"), "fencing") || !strings.Contains(r.Query, "do=thaw+W1") {
		t.Errorf("resumed session lost its state: %s", r.Query)
	}
}

func TestLiveLabEndsOnClose(t *testing.T) {
	t.Parallel()
	s, ts := newTestServer(t, Config{})
	c := dialLab(t, ts.URL, "/en/labs/w1-w2/ws")
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a hang, not a busy machine
		t.Fatal("Close did not end the live session")
	}
	c.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	var m json.RawMessage
	if err := c.conn.ReadJSON(&m); !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Errorf("after Close: %v, want going away", err)
	}
}

// TestLiveChallenge plays a design challenge against the lab's starting
// policy, which fails, and against nonsense, which is an error.
func TestLiveChallenge(t *testing.T) {
	t.Parallel()
	c0 := embeddedCourse(t)
	var lab *labs.Lab
	for _, l := range c0.Labs {
		if l.Challenge() != nil {
			lab = l
		}
	}
	if lab == nil {
		t.Skip("the course has no design challenge")
	}
	_, ts := newTestServer(t, Config{})
	c := dialLab(t, ts.URL, "/en/labs/"+lab.ID+"/ws")
	r := c.call(live.ClientMsg{Type: "challenge", Values: map[string]string{}})
	v := opHTML(r, "challenge-verdict")
	if r.Type != "ack" || !strings.Contains(v, "data-challenge") || !strings.Contains(v, "runs") {
		t.Errorf("challenge: %s %s %s", r.Type, r.Error, v)
	}
	if m := c.call(live.ClientMsg{Type: "challenge", Values: map[string]string{"no-such-option": "1"}}); m.Type != "error" {
		t.Errorf("bad option: %+v", m)
	}
}
