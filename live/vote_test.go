package live

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"leaselab/budget"
	"leaselab/labsession"
)

// voterFunc is a Voter made of a function that answers at once, from
// another goroutine, as the store's writer does.
type voterFunc func(round int64, choice string) (string, error)

func (f voterFunc) Vote(round int64, choice, _ string, then func(string, error)) {
	said, err := f(round, choice)
	done := make(chan struct{})
	go func() {
		defer close(done)
		then(said, err)
	}()
	<-done
}

// laterVoter keeps each vote's then until the test answers it.
type laterVoter struct{ thens chan func(string, error) }

func (v laterVoter) Vote(_ int64, _, _ string, then func(string, error)) { v.thens <- then }

// votingForTest is a session whose answers stay in its queue (no socket).
func votingForTest(t *testing.T, v Voter) *Conn {
	t.Helper()
	lab := testCourse(t).Lab("w1-w2")
	sess, err := labsession.New(lab, 1)
	if err != nil {
		t.Fatal(err)
	}
	l := &Conn{cfg: testConfig(), lab: lab, lang: "id", sess: sess, runs: labRun{sess}, shown: -1, out: make(chan *outMsg, sendQueue), writing: true,
		work: budget.New(0.25, 2*time.Second), addr: budget.New(1, 2*time.Second), voter: v}
	return l
}

// answerForTest sends m as the reader does and returns the message
// queued for it.
func (l *Conn) answerForTest(t *testing.T, m ClientMsg) map[string]any {
	t.Helper()
	m.kind = clientKinds[m.Type]
	m.at = time.Now()
	l.mu.Lock()
	l.receive(m)
	l.mu.Unlock()
	select {
	case o := <-l.out:
		var got map[string]any
		if err := json.Unmarshal(o.b, &got); err != nil {
			t.Fatalf("%s: %v", o.b, err)
		}
		return got
	case <-time.After(10 * time.Second):
		t.Fatalf("no answer to %+v", m)
		return nil
	}
}

// TestVoteOverTheSocket: a vote message reaches the Voter with its round
// and choice, off the session's lock; its answer says what was kept as
// markup (escaped); a refusal, a page in no class and a Voter that
// panics are answered in the page's language, and the session plays on.
func TestVoteOverTheSocket(t *testing.T) {
	var gotRound int64
	var gotChoice string
	l := votingForTest(t, voterFunc(func(round int64, choice string) (string, error) {
		gotRound, gotChoice = round, choice
		switch choice {
		case "no":
			return "", &wireError{"class.roundclosed", nil, "closed"}
		case "bug":
			panic("a bug")
		}
		return "kept <" + choice + ">", nil
	}))
	got := l.answerForTest(t, ClientMsg{ID: 7, Type: "vote", Round: 3, Choice: "b&c"})
	if got["type"] != "voted" || got["id"] != 7.0 || got["html"] != "kept &lt;b&amp;c&gt;" || gotRound != 3 || gotChoice != "b&c" {
		t.Errorf("a vote: %v (round %d, choice %q)", got, gotRound, gotChoice)
	}
	if got := l.answerForTest(t, ClientMsg{ID: 8, Type: "vote", Round: 3, Choice: "no"}); got["type"] != "error" || got["error"] != "Pemungutan suara ini sudah ditutup." {
		t.Errorf("a refused vote: %v", got)
	}
	if got := l.answerForTest(t, ClientMsg{ID: 9, Type: "vote", Round: 3, Choice: "bug"}); got["type"] != "error" || got["error"] != "Terjadi kesalahan di server, jadi suaramu belum tersimpan. Coba kirim lagi." {
		t.Errorf("a vote whose voter panicked: %v", got)
	}
	if n := l.cfg.Metrics.(*testMetrics).errors.Load(); n != 1 {
		t.Errorf("%d errors counted, want the panic's 1", n)
	}
	if got := l.answerForTest(t, ClientMsg{ID: 10, Type: "do", Cmd: "until 4s"}); got["type"] != "ack" {
		t.Errorf("the session after the votes answers %v, want ack", got["type"])
	}

	outside := votingForTest(t, nil)
	if got := outside.answerForTest(t, ClientMsg{ID: 1, Type: "vote", Round: 3, Choice: "a"}); got["type"] != "error" || got["error"] != "Kamu belum bergabung ke kelas ini." {
		t.Errorf("a vote from a page in no class: %v", got)
	}
}

// TestVotesWaitingAndOverBudget: a session has at most maxVoting votes
// waiting for the store, the next is refused in the page's language
// (a script must not make the store hold a vote a message); the waiting
// ones are answered when the store is done; a session over its work
// budget is told when to ask again, as for a command.
func TestVotesWaitingAndOverBudget(t *testing.T) {
	v := laterVoter{make(chan func(string, error), maxVoting+1)}
	l := votingForTest(t, v)
	send := func(id int64) {
		l.mu.Lock()
		l.receive(ClientMsg{ID: id, Type: "vote", kind: msgVote, Round: 1, Choice: "a", at: time.Now()})
		l.mu.Unlock()
	}
	for id := int64(1); id <= maxVoting+1; id++ {
		send(id)
	}
	o := <-l.out
	var got map[string]any
	json.Unmarshal(o.b, &got)
	if got["type"] != "error" || got["id"] != float64(maxVoting+1) || got["error"] != "Suaramu yang tadi masih disimpan; tunggu sebentar, lalu kirim lagi." {
		t.Errorf("vote %d while %d wait: %v", maxVoting+1, maxVoting, got)
	}
	if len(v.thens) != maxVoting {
		t.Fatalf("%d votes reached the voter, want %d", len(v.thens), maxVoting)
	}
	for range maxVoting {
		then := <-v.thens
		go then("kept", nil) // the store's writer, another goroutine
	}
	for range maxVoting {
		select {
		case o := <-l.out:
			json.Unmarshal(o.b, &got)
			if got["type"] != "voted" {
				t.Errorf("a waiting vote was answered %v", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a waiting vote was never answered")
		}
	}
	// Answered, they wait no more: a vote goes through again.
	send(9)
	select {
	case then := <-v.thens:
		then("kept", nil) // from this goroutine, the session free
	case <-time.After(10 * time.Second):
		t.Fatal("a vote after the others were answered did not reach the voter")
	}
	if o := <-l.out; !strings.Contains(string(o.b), `"type":"voted"`) {
		t.Errorf("the vote after: %s", o.b)
	}

	broke := votingForTest(t, voterFunc(func(int64, string) (string, error) {
		t.Error("a vote over budget reached the voter")
		return "", nil
	}))
	broke.work = budget.New(0.25, time.Second)
	budget.ChargeFixed(10*time.Second, broke.work)
	if got := broke.answerForTest(t, ClientMsg{ID: 1, Type: "vote", Round: 1, Choice: "a"}); got["type"] != "error" || got["retry"] == nil {
		t.Errorf("a vote over budget: %v, want an error with retry", got)
	}
}
