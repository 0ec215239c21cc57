package live

import (
	"encoding/json"
	"testing"

	"leaselab/engine"
)

// heldStep is an Observer that hears nothing of note: a page in a class.
type heldStep struct{}

func (h *heldStep) Step(string)                {}
func (h *heldStep) Goal(string, *engine.World) {}

// answersOf is the answer l gives each message, in order, as JSON.
func answersOf(t *testing.T, l *Conn, msgs ...ClientMsg) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range msgs {
		out = append(out, l.answerForTest(t, m))
	}
	return out
}

// TestHeldCommandTakenBack: a do sent with hold while the finger is down
// is carried out and answered as any do; an undo of it, as the session's
// next message, takes the session back (its query, its run), and the
// next command's answer is the answer a session that never had the held
// command gives, op for op. A held reset is taken back to the run before
// it.
func TestHeldCommandTakenBack(t *testing.T) {
	for _, held := range []string{"advance 5s", "freeze W1", "reset", "advance 1s"} {
		t.Run(held, func(t *testing.T) {
			l := votingForTest(t, nil)
			plain := votingForTest(t, nil)
			first := ClientMsg{ID: 1, Type: "do", Cmd: "advance 2s"}
			answersOf(t, l, first)
			answersOf(t, plain, first)
			before, run := l.sess.Query(), l.sess.Run()

			got := answersOf(t, l, ClientMsg{ID: 2, Type: "do", Cmd: held, Hold: true}, ClientMsg{ID: 3, Type: "undo", Of: 2})
			if got[0]["type"] != "ack" || got[0]["ops"] == nil {
				t.Fatalf("the held %q answered %v, want an ack with its ops", held, got[0])
			}
			if got[1]["type"] != "ack" || got[1]["id"] != 3.0 || got[1]["ops"] != nil || got[1]["query"] != nil {
				t.Fatalf("the undo answered %v, want a bare ack", got[1])
			}
			if q := l.sess.Query(); q != before || l.sess.Run() != run {
				t.Fatalf("after the undo the session is %q (run %d), want %q (run %d)", q, l.sess.Run(), before, run)
			}
			next := ClientMsg{ID: 4, Type: "do", Cmd: "advance 3s"}
			a, b := answersOf(t, l, next)[0], answersOf(t, plain, next)[0]
			delete(a, "seq")
			delete(b, "seq")
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if string(ja) != string(jb) {
				t.Errorf("after the undo the next answer is\n%s\nwithout the held command it is\n%s", ja, jb)
			}
		})
	}
}

// TestHeldCommandStands: an undo takes back only a held do that is the
// session's last message; otherwise (another message came between, the
// do was not held, it was refused, the page is in a class, whose
// observer has heard it) it is refused and the command stands.
func TestHeldCommandStands(t *testing.T) {
	cases := []struct {
		name string
		msgs []ClientMsg
		obs  bool
	}{
		{"another message between", []ClientMsg{{ID: 2, Type: "do", Cmd: "advance 5s", Hold: true}, {ID: 3, Type: "do", Cmd: "advance 1s"}}, false},
		{"a pause between", []ClientMsg{{ID: 2, Type: "do", Cmd: "advance 5s", Hold: true}, {ID: 3, Type: "pause"}}, false},
		{"not held", []ClientMsg{{ID: 2, Type: "do", Cmd: "advance 5s"}}, false},
		{"refused", []ClientMsg{{ID: 2, Type: "do", Cmd: "advance 5s"}, {ID: 3, Type: "do", Cmd: "freeze W9", Hold: true}}, false},
		{"in a class", []ClientMsg{{ID: 2, Type: "do", Cmd: "advance 5s", Hold: true}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := votingForTest(t, nil)
			if c.obs {
				l.obs = &heldStep{}
			}
			answersOf(t, l, ClientMsg{ID: 1, Type: "do", Cmd: "advance 2s"})
			answersOf(t, l, c.msgs...)
			after := l.sess.Query()
			last := c.msgs[len(c.msgs)-1].ID
			got := answersOf(t, l, ClientMsg{ID: 9, Type: "undo", Of: last}, ClientMsg{ID: 10, Type: "undo", Of: 2})
			for i, g := range got {
				if g["type"] != "error" || g["error"] == nil {
					t.Errorf("undo %d answered %v, want an error", i+1, g)
				}
			}
			if q := l.sess.Query(); q != after {
				t.Errorf("after a refused undo the session is %q, want %q", q, after)
			}
		})
	}
}

// TestHeldCommandCounted: while a held command may be taken back, the
// memory ledger counts where it would go back to; once it stands, not.
func TestHeldCommandCounted(t *testing.T) {
	l := votingForTest(t, nil)
	var mem ledgerForTest
	l.mem = &mem
	answersOf(t, l, ClientMsg{ID: 1, Type: "do", Cmd: "advance 2s"})
	answersOf(t, l, ClientMsg{ID: 2, Type: "do", Cmd: "advance 1s", Hold: true})
	mark := l.undo.mark.Footprint()
	if want := SessionOverhead + l.sess.Footprint() + mark; mem.n != want || mark <= 0 {
		t.Errorf("a held command's session counts %d bytes, want %d (its mark's %d among them)", mem.n, want, mark)
	}
	answersOf(t, l, ClientMsg{ID: 3, Type: "pause"})
	if want := SessionOverhead + l.sess.Footprint(); mem.n != want {
		t.Errorf("once the held command stands the session counts %d bytes, want %d", mem.n, want)
	}
}

// ledgerForTest is a Memory that keeps what it was last told.
type ledgerForTest struct{ n int }

func (m *ledgerForTest) Set(n int) { m.n = n }

// TestUndoTwice: a held command is taken back once; a second undo of it
// is refused and changes nothing.
func TestUndoTwice(t *testing.T) {
	l := votingForTest(t, nil)
	answersOf(t, l, ClientMsg{ID: 1, Type: "do", Cmd: "advance 2s"})
	before := l.sess.Query()
	got := answersOf(t, l, ClientMsg{ID: 2, Type: "do", Cmd: "advance 5s", Hold: true},
		ClientMsg{ID: 3, Type: "undo", Of: 2}, ClientMsg{ID: 4, Type: "undo", Of: 2})
	if got[1]["type"] != "ack" || got[2]["type"] != "error" {
		t.Errorf("two undos answered %v and %v, want an ack and an error", got[1]["type"], got[2]["type"])
	}
	if q := l.sess.Query(); q != before {
		t.Errorf("session %q, want %q", q, before)
	}
}
