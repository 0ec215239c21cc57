package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestGoalsReachedWithoutCheck: a student's goal counts as reached on the
// dashboard once the engine says their world meets it, without the
// student pressing Check: four commands over the lab's socket, and no
// goal message. A classmate whose world does not meet it is not counted.
func TestGoalsReachedWithoutCheck(t *testing.T) {
	_, base, _ := newClassServer(t, t.TempDir())
	teacher := newClient(t, base)
	teach, code := openClass(t, teacher, "en", "Goals")
	teacher.post(teach+"/activity", url.Values{"lab": {"w1-w2"}})
	for _, cmds := range [][]string{{"fencing on", "until 4s", "freeze W1 for=25s", "until 30s"}, {"freeze W1", "until 4s"}} {
		st := newClient(t, base)
		st.post("/en/join", url.Values{"code": {code}})
		u, _ := url.Parse(base)
		h := http.Header{}
		for _, ck := range st.http.Jar.Cookies(u) {
			h.Add("Cookie", ck.String())
		}
		conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/en/labs/w1-w2/ws", h)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ws := &wsClient{t: t, conn: conn}
		ws.first = ws.next()
		for _, c := range cmds {
			ws.do(c)
		}
	}
	// The notes reach the store through a queue: wait until they did.
	want := `data-goal="reject-stale" data-reached="1" data-working="1"`
	var dash string
	for range 400 {
		if _, dash = teacher.get(teach); strings.Contains(dash, want) {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Errorf("where the class is lacks %q:\n%s", want, clipText(dash[strings.Index(dash, `class="where"`):]))
}
