package web

import (
	"context"
	"database/sql"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"leaselab/live"
)

// TestClassBarSaysVotesCannotBeSaved: while the class's store cannot
// save (here SQLite's write lock is held by another connection, so reads
// still work and a vote fails after the store's busy wait), every
// student's bar says, in their language, that votes cannot be saved: on
// a lab socket and on an event stream, pushed to them, not only on the
// next page. Once a save succeeds again, the bars say nothing of it.
func TestClassBarSaysVotesCannotBeSaved(t *testing.T) {
	dir := t.TempDir()
	_, base, _ := newClassServer(t, dir)
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "id", "Simpan")
	openVote(teacher, teach, "w1-w2", "storage-checks")
	voter, watcher := newClient(t, base), newClient(t, base)
	voter.post("/id/join", url.Values{"code": {code}})
	watcher.post("/en/join", url.Values{"code": {code}})
	_, page := voter.get("/id/labs/w1-w2")
	m := regexp.MustCompile(`name="round" value="(\d+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no open vote in the bar")
	}
	round, _ := strconv.ParseInt(m[1], 10, 64)
	ws := dialAs(t, voter, "/id/labs/w1-w2/ws")
	stream := barEvents(t, watcher)
	if first := <-stream; strings.Contains(first, `class="cb-down"`) {
		t.Fatal("the bar says the store is down before it is")
	}

	// Another connection takes SQLite's write lock and keeps it.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "class.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lock, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}

	// voteAndBar votes over the socket and reads until both the vote's
	// answer and the next class bar came, in whichever order.
	voteAndBar := func(choice string) (answer, bar wireMsg) {
		t.Helper()
		ws.id++
		id := ws.id
		if err := ws.conn.WriteJSON(live.ClientMsg{ID: id, Type: "vote", Round: round, Choice: choice}); err != nil {
			t.Fatal(err)
		}
		for answer.Type == "" || bar.Type == "" {
			ws.conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // the store's busy wait is 5 s
			r := ws.next()
			switch {
			case r.ID == id:
				answer = r
			case r.Type == "class":
				bar = r
			}
		}
		return answer, bar
	}
	answer, bar := voteAndBar("rejected")
	if answer.Type != "error" || !strings.Contains(answer.Error, "tidak bisa disimpan") {
		t.Errorf("a vote the store cannot save: %s %q", answer.Type, answer.Error)
	}
	if !strings.Contains(bar.HTML, `class="cb-down"`) || !strings.Contains(bar.HTML, "Jawaban tidak bisa disimpan sekarang") {
		t.Errorf("the voter's bar (socket, Indonesian) does not say votes cannot be saved:\n%s", clipText(bar.HTML))
	}
	select {
	case ev := <-stream:
		if !strings.Contains(ev, `class="cb-down"`) || !strings.Contains(ev, "Votes cannot be saved right now") {
			t.Errorf("the other student's bar (stream, English) does not say votes cannot be saved:\n%s", clipText(ev))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the other student's stream got no bar when saving failed")
	}

	if _, err := lock.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	answer, bar = voteAndBar("overwrites")
	if answer.Type != "voted" {
		t.Errorf("a vote once the store saves again: %s %q", answer.Type, answer.Error)
	}
	if strings.Contains(bar.HTML, `class="cb-down"`) {
		t.Errorf("the voter's bar still says votes cannot be saved:\n%s", clipText(bar.HTML))
	}
	select {
	case ev := <-stream:
		if strings.Contains(ev, `class="cb-down"`) {
			t.Errorf("the other student's bar still says votes cannot be saved:\n%s", clipText(ev))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the other student's stream got no bar when saving came back")
	}
}
