package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"leaselab/live"
)

// TestClassBytes records what class mode's pages, streams and sockets send
// for one scripted class, with the random parts (join code, tokens,
// student ids and keys, the QR code that carries the code) and the Date
// header replaced by names, into the folder LEASELAB_CLASS_BYTES names:
// run it before and after moving code, and compare the two folders
// (diff -r). Every page is kept whole, with its status and headers; a
// stream is read off its connection as it arrives (its head as sent,
// its body with any chunked framing taken off, which a client never
// sees), and after each step the last event of each name of each stream
// and the last class message of the lab socket are kept. Skipped without the variable.
func TestClassBytes(t *testing.T) {
	dir := os.Getenv("LEASELAB_CLASS_BYTES")
	if dir == "" {
		t.Skip("LEASELAB_CLASS_BYTES is not set: nothing to record")
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &recorder{t: t, dir: dir}
	defer r.close()
	s, base, clk := classWithClock(t)
	r.s, r.base, r.clk = s, base, clk
	r.secret(strings.TrimPrefix(base, "http://"), "HOST")
	r.script()
}

// recorder drives the scripted class and writes what it received.
type recorder struct {
	t        *testing.T
	dir      string
	s        *Server
	base     string
	clk      *live.ManualClock
	files    []recorded
	secrets  map[string]string // random text → its name
	streams  []*rawStream
	sock     *wsClient
	sockMu   sync.Mutex
	sockLog  []string // the socket's class messages and vote answers, raw
	sockLast time.Time
	sockID   int64
}

// close writes what was recorded, every random text named.
func (r *recorder) close() {
	for _, st := range r.streams {
		st.conn.Close()
	}
	for i, f := range r.files {
		path := filepath.Join(r.dir, fmt.Sprintf("%03d-%s", i+1, f.name))
		if err := os.WriteFile(path, []byte(r.clean(f.text)), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

type recorded struct{ name, text string }

// secret names a random text, longest first when replaced.
func (r *recorder) secret(text, name string) {
	if text == "" {
		return
	}
	if r.secrets == nil {
		r.secrets = map[string]string{}
	}
	r.secrets[text] = name
}

var (
	qrSVGText  = regexp.MustCompile(`<svg class="qr"[^>]*>.*?</svg>`)
	dateHeader = regexp.MustCompile(`(?m)^Date: .*\r$`)
	sidCookie  = regexp.MustCompile(`(leaselab_sid|leaselab_newkey)=[^;]*`)
	// A random id that starts like a formula is written after a ' in a
	// spreadsheet's cell, which makes the export a byte longer: the
	// length is left out (the body is compared whole).
	contentLength = regexp.MustCompile(`(?m)^Content-Length: \d+$`)
	keyText       = regexp.MustCompile(`(?:Your key|Kuncimu): ([A-Z0-9]+)`)
	lectKey       = regexp.MustCompile(`\b[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b`)
)

// clean replaces the random texts by their names.
func (r *recorder) clean(s string) string {
	s = qrSVGText.ReplaceAllString(s, `<svg class="qr">QR</svg>`)
	s = dateHeader.ReplaceAllString(s, "Date: DATE\r")
	s = lectKey.ReplaceAllString(s, "LECTURER-KEY")
	s = sidCookie.ReplaceAllString(s, "$1=VALUE")
	s = contentLength.ReplaceAllString(s, "Content-Length: LEN")
	keys := make([]string, 0, len(r.secrets))
	for k := range r.secrets {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return len(b) - len(a) })
	for _, k := range keys {
		if strings.ContainsAny(k[:1], "=+-@") {
			s = strings.ReplaceAll(s, "'"+k, r.secrets[k])
		}
		s = strings.ReplaceAll(s, k, r.secrets[k])
		if q := url.QueryEscape(k); q != k {
			s = strings.ReplaceAll(s, q, r.secrets[k])
		}
	}
	return s
}

func (r *recorder) write(name, text string) {
	r.files = append(r.files, recorded{name, text})
}

// page fetches a path as c and records its status, headers and body.
func (r *recorder) page(name string, c *client, method, path string, form url.Values, accept string) (int, string, http.Header) {
	r.t.Helper()
	st, body, h := c.do(method, path, form, accept)
	r.write(name, fmt.Sprintf("%s %s\n%d\n%s\n%s", method, path, st, headerText(h), body))
	return st, body, h
}

// headerText writes headers sorted, one a line, without Date.
func headerText(h http.Header) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		if k != "Date" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range h[k] {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	return b.String()
}

// rawStream is an event stream read off its connection.
type rawStream struct {
	name   string
	conn   net.Conn
	mu     sync.Mutex
	head   string
	events []string
	last   time.Time
}

// openStream sends GET path with c's cookies on a connection of its own
// and reads what comes back.
func (r *recorder) openStream(name string, c *client, path string) *rawStream {
	r.t.Helper()
	u, _ := url.Parse(r.base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		r.t.Fatal(err)
	}
	var cookies []string
	for _, ck := range c.http.Jar.Cookies(u) {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	req := "GET " + path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nAccept: text/event-stream\r\n"
	if len(cookies) > 0 {
		req += "Cookie: " + strings.Join(cookies, "; ") + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		r.t.Fatal(err)
	}
	st := &rawStream{name: name, conn: conn, last: time.Now()}
	go st.read()
	r.streams = append(r.streams, st)
	return st
}

func (st *rawStream) read() {
	br := bufio.NewReader(st.conn)
	var head strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		head.WriteString(line)
		if line == "\r\n" {
			break
		}
	}
	st.mu.Lock()
	st.head = head.String()
	st.mu.Unlock()
	var body io.Reader = br
	if strings.Contains(head.String(), "Transfer-Encoding: chunked") {
		body = newChunked(br)
	}
	var buf bytes.Buffer
	chunk := make([]byte, 4096)
	for {
		n, err := body.Read(chunk)
		buf.Write(chunk[:n])
		for {
			i := bytes.Index(buf.Bytes(), []byte("\n\n"))
			if i < 0 {
				break
			}
			ev := string(buf.Next(i + 2))
			if strings.HasPrefix(ev, ":") {
				continue // a ping
			}
			st.mu.Lock()
			st.events = append(st.events, ev)
			st.last = time.Now()
			st.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// chunked reads an HTTP/1.1 chunked body.
type chunked struct {
	br   *bufio.Reader
	left int
}

func newChunked(br *bufio.Reader) *chunked { return &chunked{br: br} }

func (c *chunked) Read(p []byte) (int, error) {
	if c.left == 0 {
		line, err := c.br.ReadString('\n')
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseInt(strings.TrimSpace(line), 16, 64)
		if err != nil || n == 0 {
			return 0, io.EOF
		}
		c.left = int(n)
	}
	n, err := c.br.Read(p[:min(len(p), c.left)])
	c.left -= n
	if c.left == 0 && err == nil {
		_, err = c.br.Discard(2)
	}
	return n, err
}

// settle waits until no stream and no socket has received anything for
// a while, then records the last event of each name of each.
func (r *recorder) settle(step string) {
	r.t.Helper()
	quiet := 700 * time.Millisecond
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		busy := false
		for _, st := range r.streams {
			st.mu.Lock()
			busy = busy || time.Since(st.last) < quiet
			st.mu.Unlock()
		}
		r.sockMu.Lock()
		busy = busy || time.Since(r.sockLast) < quiet
		r.sockMu.Unlock()
		if !busy {
			break
		}
	}
	var b strings.Builder
	for _, st := range r.streams {
		st.mu.Lock()
		fmt.Fprintf(&b, "== %s\n", st.name)
		// The last event of each name, in the order of their names.
		last := map[string]string{}
		for _, ev := range st.events {
			name, _, _ := strings.Cut(ev, "\n")
			last[name] = ev
		}
		names := slices.Sorted(maps.Keys(last))
		for _, name := range names {
			b.WriteString(last[name])
		}
		st.mu.Unlock()
	}
	r.sockMu.Lock()
	for i := len(r.sockLog) - 1; i >= 0; i-- {
		if strings.Contains(r.sockLog[i], `"type":"class"`) {
			fmt.Fprintf(&b, "== socket's last class message\n%s\n", r.sockLog[i])
			break
		}
	}
	r.sockMu.Unlock()
	r.write("settled-"+step, b.String())
}

// socket opens a lab's socket as c and keeps its class messages and vote
// answers as they came over the wire (the frames' sequence numbers,
// which count the lab's own frames too, taken out).
func (r *recorder) socket(c *client, path string) {
	r.t.Helper()
	ws := dialAs(r.t, c, path)
	r.sock = ws
	r.sockLast = time.Now()
	seq := regexp.MustCompile(`^\{"seq":\d+,`)
	go func() {
		for {
			ws.conn.SetReadDeadline(time.Time{})
			_, data, err := ws.conn.ReadMessage()
			if err != nil {
				return
			}
			var m wireMsg
			if json.Unmarshal(data, &m) != nil || m.Type == "frame" || m.Type == "ack" {
				continue
			}
			r.sockMu.Lock()
			r.sockLog = append(r.sockLog, seq.ReplaceAllString(string(data), `{"seq":N,`))
			r.sockLast = time.Now()
			r.sockMu.Unlock()
		}
	}()
}

// sockVote votes over the socket and records its answer.
func (r *recorder) sockVote(name string, round int64, choice, sure string) {
	r.t.Helper()
	r.sockMu.Lock()
	r.sockID++
	id := r.sockID + 1000
	before := len(r.sockLog)
	r.sockMu.Unlock()
	msg, _ := json.Marshal(live.ClientMsg{ID: id, Type: "vote", Round: round, Choice: choice, Sure: sure})
	if err := r.sock.conn.WriteMessage(websocket.TextMessage, msg); err != nil {
		r.t.Fatal(err)
	}
	want := `"id":` + strconv.FormatInt(id, 10)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		r.sockMu.Lock()
		for _, m := range r.sockLog[before:] {
			if strings.Contains(m, want) {
				r.sockMu.Unlock()
				r.write(name, m)
				return
			}
		}
		r.sockMu.Unlock()
	}
	r.t.Fatalf("no answer to the socket's vote %s", name)
}

// heads records each stream's head as it was sent.
func (r *recorder) heads() {
	var b strings.Builder
	for _, st := range r.streams {
		st.mu.Lock()
		fmt.Fprintf(&b, "== %s\n%s", st.name, st.head)
		st.mu.Unlock()
	}
	r.write("stream-heads", b.String())
}

// tick moves the clock on, so that what the store orders by time has
// one order.
func (r *recorder) tick() { r.clk.Advance(time.Second) }

func (r *recorder) script() {
	t := r.t
	teacher := newClient(t, r.base)
	r.page("home", teacher, http.MethodGet, "/id/", nil, "")
	_, _, h := r.page("create", teacher, http.MethodPost, "/id/class", url.Values{"name": {"Bytes & Co"}}, "")
	teach := h.Get("Location")
	token := strings.TrimPrefix(teach, "/id/teach/")
	r.secret(token, "TOKEN")
	_, dash, _ := r.page("dashboard", teacher, http.MethodGet, teach, nil, "")
	code := joinCode.FindStringSubmatch(dash)[1]
	r.secret(code, "CODE")
	proj := projectorOf(t, dash)
	r.secret(strings.TrimPrefix(proj, "/id/projector/"), "PTOKEN")
	r.page("projector", teacher, http.MethodGet, proj, nil, "")
	r.openStream("dashboard", teacher, teach+"/events")
	r.openStream("projector", teacher, proj+"/events")
	r.settle("opened")

	r.tick()
	r.page("activity-lab", teacher, http.MethodPost, teach+"/activity", url.Values{"lab": {"w1-w2"}}, "")
	r.settle("lab")
	r.tick()
	r.page("activity-question", teacher, http.MethodPost, teach+"/activity", url.Values{"lab": {"w1-w2"}, "question": {"storage-checks"}, "goal": {"stale-write"}}, "")
	r.settle("question")

	// Three students: Ana on Indonesian pages with the bar's stream, Budi
	// on an English lab page with its socket, Cara with forms only.
	students := map[string]*client{}
	for i, nick := range []string{"Ana", "Budi", "Cara"} {
		r.tick()
		c := newClient(t, r.base)
		students[nick] = c
		r.page("join-form-"+nick, c, http.MethodGet, "/id/join?code="+code, nil, "")
		r.page("join-"+nick, c, http.MethodPost, "/id/join", url.Values{"code": {code}, "nick": {nick}}, "")
		u, _ := url.Parse(r.base)
		for _, ck := range c.http.Jar.Cookies(u) {
			if ck.Name == classCookie {
				r.secret(strings.TrimPrefix(ck.Value, code+"."), "STUDENT"+strconv.Itoa(i+1))
			}
		}
		lang := "id"
		if nick == "Budi" {
			lang = "en"
		}
		_, page, _ := r.page("lab-page-"+nick, c, http.MethodGet, "/"+lang+"/labs/w1-w2", nil, "")
		if m := keyText.FindStringSubmatch(page); m != nil {
			r.secret(m[1], "KEY"+strconv.Itoa(i+1))
		}
	}
	r.openStream("bar-Ana", students["Ana"], "/id/class/events?back=/id/lessons/leases")
	r.socket(students["Budi"], "/en/labs/w1-w2/ws")
	r.settle("joined")
	r.heads()

	r.tick()
	r.page("round-1", teacher, http.MethodPost, teach+"/round", nil, "")
	r.settle("round-1")
	round := openRound(t, students["Ana"])
	rn, _ := strconv.ParseInt(round, 10, 64)
	r.tick()
	r.page("vote-Ana", students["Ana"], http.MethodPost, "/id/class/vote", url.Values{"round": {round}, "choice": {"rejected"}, "bar": {"1"}}, "application/json")
	r.sockVote("vote-Budi", rn, "overwrites", "")
	r.page("vote-Cara", students["Cara"], http.MethodPost, "/id/class/vote", url.Values{"round": {round}, "choice": {"overwrites"}, "back": {"/id/lessons/leases"}}, "")
	r.page("vote-Cara-bad", students["Cara"], http.MethodPost, "/id/class/vote", url.Values{"round": {round}, "choice": {"nonsense"}}, "application/json")
	r.sockVote("vote-Budi-bad", rn, "nonsense", "")
	r.settle("votes-1")
	r.page("bar-page-Cara", students["Cara"], http.MethodGet, "/id/lessons/leases", nil, "")
	r.page("dashboard-votes", teacher, http.MethodGet, teach, nil, "")

	r.tick()
	r.page("show", teacher, http.MethodPost, teach+"/show", url.Values{"round": {round}}, "application/json")
	r.settle("shown")
	r.tick()
	r.page("close", teacher, http.MethodPost, teach+"/close", url.Values{"round": {round}}, "")
	r.settle("closed")

	// The second round, with a timer that closes it.
	r.tick()
	r.page("round-2", teacher, http.MethodPost, teach+"/round", url.Values{"seconds": {"30"}}, "")
	r.settle("round-2")
	round2 := openRound(t, students["Ana"])
	rn2, _ := strconv.ParseInt(round2, 10, 64)
	r.page("dashboard-timer", teacher, http.MethodGet, teach, nil, "")
	r.page("bar-page-Ana-timer", students["Ana"], http.MethodGet, "/id/", nil, "")
	r.tick()
	r.sockVote("vote-2-Budi", rn2, "rejected", "")
	r.page("vote-2-Cara", students["Cara"], http.MethodPost, "/id/class/vote", url.Values{"round": {round2}, "choice": {"rejected"}}, "application/json")
	r.settle("votes-2")
	r.clk.Advance(31 * time.Second)
	for {
		ts, err := r.s.classes.Rounds(t.Context(), roundClass(t, r.s, code))
		if err != nil {
			t.Fatal(err)
		}
		if ts[len(ts)-1].Round.State != "open" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.settle("timer-closed")
	r.page("dashboard-timer-closed", teacher, http.MethodGet, teach, nil, "")
	r.tick()
	r.page("reveal", teacher, http.MethodPost, teach+"/reveal", url.Values{"round": {round2}}, "")
	r.settle("revealed")
	r.page("bar-page-Ana-revealed", students["Ana"], http.MethodGet, "/id/", nil, "")

	// A typed question, asked with confidence and a "why?".
	r.tick()
	r.page("settings", teacher, http.MethodPost, teach+"/settings", url.Values{"nim": {"ask"}, "confidence": {"1"}, "why": {"1"}}, "")
	r.settle("settings")
	r.tick()
	r.page("typed", teacher, http.MethodPost, teach+"/typed", url.Values{"text": {"Is <b>2PC</b> blocking?"}, "choice1": {"Yes"}, "choice2": {"No"}, "right": {"1"}}, "")
	r.settle("typed")
	r.tick()
	r.page("round-typed", teacher, http.MethodPost, teach+"/round", nil, "")
	r.settle("round-typed")
	round3 := openRound(t, students["Ana"])
	rn3, _ := strconv.ParseInt(round3, 10, 64)
	r.tick()
	r.page("vote-3-Ana", students["Ana"], http.MethodPost, "/id/class/vote", url.Values{"round": {round3}, "choice": {"1"}, "sure": {"sure"}, "why": {"the coordinator <may> fail"}, "bar": {"1"}}, "application/json")
	r.sockVote("vote-3-Budi", rn3, "2", "unsure")
	r.settle("votes-3")
	r.page("dashboard-whys", teacher, http.MethodGet, teach, nil, "")
	r.tick()
	r.page("showwhy", teacher, http.MethodPost, teach+"/showwhy", url.Values{"why": {"the coordinator <may> fail"}}, "")
	r.settle("showwhy")
	r.tick()
	r.page("reveal-typed", teacher, http.MethodPost, teach+"/reveal", url.Values{"round": {round3}}, "application/json")
	r.settle("revealed-typed")

	// Where the class is: Budi's commands and a goal.
	r.tick()
	msg, _ := json.Marshal(live.ClientMsg{ID: 999, Type: "do", Cmd: "until 4s"})
	if err := r.sock.conn.WriteMessage(websocket.TextMessage, msg); err != nil {
		t.Fatal(err)
	}
	r.settle("steps")
	r.page("dashboard-steps", teacher, http.MethodGet, teach, nil, "")

	// The lecturer's pages and exports.
	r.page("grades", teacher, http.MethodGet, teach+"/grades", nil, "")
	r.page("export-csv", teacher, http.MethodGet, teach+"/export.csv", nil, "")
	r.page("export-json", teacher, http.MethodGet, teach+"/export.json", nil, "")
	r.page("export-moodle", teacher, http.MethodGet, teach+"/export.moodle.csv", nil, "")
	r.page("list", teacher, http.MethodPost, teach+"/list", url.Values{"text": {"NIM,Nama\n123,Ana A\n=1+1,X\n"}}, "")
	r.page("grades-list", teacher, http.MethodGet, teach+"/grades", nil, "")
	r.page("lecturer", teacher, http.MethodGet, "/id/lecturer", nil, "")
	r.tick()
	r.page("push", teacher, http.MethodPost, teach+"/push", url.Values{"link": {r.base + "/en/labs/w1-w2/at?seed=1"}}, "")
	r.settle("pushed")
	r.page("bar-page-Cara-pushed", students["Cara"], http.MethodGet, "/id/", nil, "")
	r.page("remove-ask", teacher, http.MethodGet, teach, nil, "")
	r.tick()
	r.page("end-ask", teacher, http.MethodPost, teach+"/end", nil, "")
	r.page("end", teacher, http.MethodPost, teach+"/end", url.Values{"confirm": {"1"}}, "")
	r.settle("ended")
	r.page("dashboard-ended", teacher, http.MethodGet, teach, nil, "")
	r.page("bar-page-Ana-ended", students["Ana"], http.MethodGet, "/id/", nil, "")
	r.page("leave", students["Ana"], http.MethodPost, "/id/class/leave", nil, "")
}
