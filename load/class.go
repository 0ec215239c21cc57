package load

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// MaxClassStudents bounds one class of a run; MaxClasses the classes.
const (
	MaxClassStudents = 2000
	MaxClasses       = 100
)

// ClassConfig is a run of class mode (issue 27): Classes classes of
// Students students each, every class with its instructor's dashboard
// open; each class opens a vote on Question of Lab, and all its students
// vote in the same second.
type ClassConfig struct {
	URL string // the server, loopback only
	// StudentURL, when set, is another server (a replica on the same
	// database) the students join and vote on, while the instructor's
	// dashboard stays on URL.
	StudentURL string
	Lang       string
	Lab        string   // a lab of the server's course
	Question   string   // a question of Lab
	Choices    []string // the question's choice ids
	Classes    int
	Students   int // per class
	Wait       time.Duration
	// Within spreads the votes: each student votes at a random moment
	// within it of the vote's start, as a room of people answering in
	// the same second does; 0 has them all vote at one instant.
	Within time.Duration
	// Sockets: every student is on the class's lab page, as in a class
	// working on a lab: each keeps the lab's socket open, hears the class
	// bar over it and votes over it (a "vote" message). Without it a
	// student votes with the form (a request each), as a page without a
	// live world does.
	Sockets bool
	// Bars opens each student's class bar stream (/{lang}/class/events)
	// and keeps it open, as a page without a live world does; not with
	// Sockets, whose bar comes over the socket.
	Bars bool
	// VoteAt, if set, holds the vote until it is closed (the classes are
	// opened and joined before); the memory per student is then not
	// measured, since other work runs beside.
	VoteAt <-chan struct{}
	// Apart, if set, has the classes vote one after another, this far
	// apart (class i at i·Apart after the vote's start), as classes that
	// share a server but not a clock do; 0: every class in the same second.
	Apart time.Duration
	// Joined, if set, is called once every student has joined (and
	// opened their socket or bar), before the vote waits for VoteAt.
	Joined func()
	// Until, if set, keeps the classes (their dashboards, sockets and
	// streams) open after the vote until it is closed, as a class stays
	// while its students play: the run returns then, not before.
	Until <-chan struct{}
	// Confidence has each class ask how sure its students are, and each
	// student say (sure and not sure in turn); Timer opens the vote with
	// a timer of this long (issue 44), 0 none.
	Confidence bool
	Timer      time.Duration
}

// ClassResult is what a class run measured.
type ClassResult struct {
	Sent     int             // votes sent
	Accepted int             // votes the server answered 204
	Recorded int             // votes the dashboards counted at the end
	Latency  []time.Duration // per accepted vote: sent until a dashboard counted it
	Answered []time.Duration // per accepted vote: sent until the server answered
	Errors   map[string]int  // refusals by status and text
	Elapsed  time.Duration   // from the first vote to the last dashboard update
	// MemBefore and MemJoined are the server's live heap (at its last
	// collection) and goroutine stacks before the classes opened and once
	// every student joined (with their bars open, if asked).
	MemBefore, MemJoined GoMem
	Students             int
	// Sockets: every student held a lab socket, whose live session the
	// memory per student includes.
	Sockets bool
	// CPU is the server's CPU time from the first vote until every
	// dashboard counted them all (0 when /metrics did not tell).
	CPU time.Duration
	// Beside: the classes voted beside other work (VoteAt), whose CPU
	// is in CPU too.
	Beside bool
}

// PerStudent is the server's memory per student of the run, heap and
// stacks together; 0 when /metrics did not tell.
func (r *ClassResult) PerStudent() int64 {
	if r.Students == 0 || r.MemBefore.Heap == 0 || r.MemJoined.Heap == 0 {
		return 0
	}
	return (r.MemJoined.Heap + r.MemJoined.Stacks - r.MemBefore.Heap - r.MemBefore.Stacks) / int64(r.Students)
}

// Quantile is a quantile of the vote-to-dashboard latencies.
func (r *ClassResult) Quantile(q float64) time.Duration { return quantile(r.Latency, q) }

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	l := slices.Clone(d)
	slices.Sort(l)
	return l[min(len(l)-1, int(q*float64(len(l))))]
}

// Report prints the two lines README quotes and what went wrong.
func (r *ClassResult) Report(w io.Writer) {
	fmt.Fprintf(w, "class votes accepted:       %d of %d\n", r.Accepted, r.Sent)
	fmt.Fprintf(w, "class votes recorded:       %d of %d\n", r.Recorded, r.Sent)
	fmt.Fprintf(w, "vote answered p50, p99:     %.0f ms, %.0f ms\n", msf(quantile(r.Answered, 0.5)), msf(quantile(r.Answered, 0.99)))
	fmt.Fprintf(w, "vote to dashboard p50:      %.0f ms\n", float64(r.Quantile(0.50))/float64(time.Millisecond))
	fmt.Fprintf(w, "vote to dashboard p99:      %.0f ms\n", float64(r.Quantile(0.99))/float64(time.Millisecond))
	switch {
	case r.CPU > 0 && r.Beside:
		fmt.Fprintf(w, "server CPU while voting:    %.0f ms in %.1f s (the sessions beside included)\n", msf(r.CPU), r.Elapsed.Seconds())
	case r.CPU > 0:
		fmt.Fprintf(w, "server CPU for the votes:   %.0f ms (%.2f ms a vote, rendering the dashboards and bars included)\n", msf(r.CPU), msf(r.CPU)/float64(max(1, r.Sent)))
	}
	if n := r.PerStudent(); n != 0 {
		what := "the class alone: bars over event streams"
		if r.Sockets {
			what = "a lab socket each, its live session included"
		}
		fmt.Fprintf(w, "server memory per student:  %.1f KB (%s; live heap %+.1f MB, stacks %+.1f MB for %d students)\n", float64(n)/1024,
			what, mb(r.MemJoined.Heap-r.MemBefore.Heap), mb(r.MemJoined.Stacks-r.MemBefore.Stacks), r.Students)
	}
	keys := make([]string, 0, len(r.Errors))
	for k := range r.Errors {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  refused %d×: %s\n", r.Errors[k], k)
	}
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// RunClasses opens the classes through the server's own pages, as an
// instructor and students would: open a class, choose the lab and the
// question, open the vote, watch the dashboard's event stream, join every
// student, and have them all vote at one instant.
//
// A vote's latency runs from sending it until the first dashboard update,
// received after the vote was answered, that counts at least as many
// votes as had been answered by then: the dashboard shows only counts, so
// that is the first update that must include it.
func RunClasses(ctx context.Context, cfg ClassConfig) (*ClassResult, error) {
	base, root, sroot, err := cfg.check()
	if err != nil {
		return nil, err
	}
	transport := &http.Transport{MaxIdleConnsPerHost: 512, MaxConnsPerHost: 0}
	defer transport.CloseIdleConnections()

	res := &ClassResult{Errors: map[string]int{}, Students: cfg.Classes * cfg.Students, Sockets: cfg.Sockets, Beside: cfg.VoteAt != nil}
	if cfg.VoteAt == nil {
		res.MemBefore = settledMem(ctx, base)
	}
	classes, err := openClasses(ctx, transport, root, sroot, cfg)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cfg.Until != nil {
			select {
			case <-cfg.Until:
			case <-ctx.Done():
			}
		}
		for _, c := range classes {
			c.stop()
		}
	}()
	if err := follow(ctx, classes, sroot, cfg); err != nil {
		return nil, err
	}
	if cfg.Joined != nil {
		cfg.Joined()
	}
	if cfg.VoteAt == nil {
		res.MemJoined = settledMem(ctx, base)
	} else {
		select {
		case <-cfg.VoteAt:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	cpu0, cpuErr := metricsCPU(base)
	first := time.Now()
	vote(ctx, classes, sroot, cfg, res)
	res.Elapsed = counted(classes, cfg, res).Sub(first)
	if cpu1, err := metricsCPU(base); err == nil && cpuErr == nil {
		res.CPU = cpu1 - cpu0
	}
	return res, nil
}

// check checks cfg and fills its defaults; it returns the server's
// address, its pages in cfg's language, and the pages the students use.
func (cfg *ClassConfig) check() (base *url.URL, root, sroot string, err error) {
	if base, err = checkURL(cfg.URL); err != nil {
		return nil, "", "", err
	}
	switch {
	case cfg.Classes < 1 || cfg.Classes > MaxClasses:
		return nil, "", "", fmt.Errorf("classes: 1 to %d", MaxClasses)
	case cfg.Students < 1 || cfg.Students > MaxClassStudents:
		return nil, "", "", fmt.Errorf("students per class: 1 to %d", MaxClassStudents)
	case len(cfg.Choices) < 2:
		return nil, "", "", fmt.Errorf("the question needs at least two choices")
	}
	if cfg.Wait <= 0 {
		cfg.Wait = 10 * time.Second
	}
	root = base.String() + "/" + cfg.Lang
	sroot = root
	if cfg.StudentURL != "" {
		sbase, err := checkURL(cfg.StudentURL)
		if err != nil {
			return nil, "", "", err
		}
		sroot = sbase.String() + "/" + cfg.Lang
	}
	return base, root, sroot, nil
}

// openClasses opens every class at once, each with its dashboard and its
// students; on an error, the classes opened are stopped.
func openClasses(ctx context.Context, transport *http.Transport, root, sroot string, cfg ClassConfig) ([]*loadClass, error) {
	classes := make([]*loadClass, cfg.Classes)
	var wg sync.WaitGroup
	errs := make(chan error, cfg.Classes)
	for i := range classes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := openClass(ctx, transport, root, sroot, cfg, i)
			if err != nil {
				errs <- fmt.Errorf("class %d: %w", i+1, err)
				return
			}
			classes[i] = c
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		for _, c := range classes {
			if c != nil {
				c.stop()
			}
		}
		return nil, err
	}
	return classes, nil
}

// follow has every student follow their class: over the lab's socket
// (Sockets), or over the class bar's stream (Bars).
func follow(ctx context.Context, classes []*loadClass, sroot string, cfg ClassConfig) error {
	if cfg.Sockets {
		return openSockets(ctx, classes, sroot+"/labs/"+url.PathEscape(cfg.Lab)+"/ws")
	}
	if cfg.Bars {
		for _, c := range classes {
			for _, st := range c.students {
				st.bar(c, sroot+"/class/events")
			}
		}
	}
	return nil
}

// vote has every student of a class vote in the same second (at the
// same instant, without Within); the classes vote together, or Apart.
// It returns once every vote was answered.
func vote(ctx context.Context, classes []*loadClass, sroot string, cfg ClassConfig, res *ClassResult) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	for ci, c := range classes {
		for i, st := range c.students {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				wait := time.Duration(ci) * cfg.Apart
				if cfg.Within > 0 {
					wait += rand.N(cfg.Within)
				}
				time.Sleep(wait)
				choice := cfg.Choices[i%len(cfg.Choices)]
				sent := time.Now()
				var status int
				var text string
				if st.ws != nil {
					status, text = st.voteOver(ctx, 1, choice, sureOf(cfg, i))
				} else {
					status, text = st.post(ctx, sroot+"/class/vote", url.Values{"round": {"1"}, "choice": {choice}, "sure": {sureOf(cfg, i)}})
				}
				done := time.Now()
				mu.Lock()
				defer mu.Unlock()
				res.Sent++
				if status != http.StatusNoContent {
					res.Errors[fmt.Sprintf("%d %s", status, text)]++
					return
				}
				res.Accepted++
				res.Answered = append(res.Answered, done.Sub(sent))
				c.acks = append(c.acks, ack{sent, done})
			}()
		}
	}
	close(start)
	wg.Wait()
}

// counted waits, up to cfg.Wait, for the dashboards to count every vote
// accepted, notes the votes recorded and their latencies in res, and
// returns when the last dashboard update came.
func counted(classes []*loadClass, cfg ClassConfig, res *ClassResult) time.Time {
	deadline := time.Now().Add(cfg.Wait)
	var last time.Time
	for _, c := range classes {
		want := len(c.acks)
		for time.Now().Before(deadline) && c.voters() < want {
			time.Sleep(20 * time.Millisecond)
		}
		res.Recorded += c.voters()
		c.mu.Lock()
		if n := len(c.updates); n > 0 && c.updates[n-1].at.After(last) {
			last = c.updates[n-1].at
		}
		c.mu.Unlock()
		res.Latency = append(res.Latency, c.latencies()...)
	}
	return last
}

// settledMem reads the server's live heap as its collector last measured
// it, after asking for pages until a collection has passed (a page
// allocates, and the collector runs after the heap grew by GOGC percent),
// and its goroutine stacks.
func settledMem(ctx context.Context, base *url.URL) GoMem {
	live := func() (int64, int64) {
		v, err := metricsValues(base, "go_gc_heap_live_bytes ", "go_memstats_stack_inuse_bytes ")
		if err != nil {
			return 0, 0
		}
		return int64(v[0]), int64(v[1])
	}
	first, _ := live()
	if first == 0 {
		return GoMem{}
	}
	page := base.String() + "/en/"
	for changes, last, i := 0, first, 1; changes < 2 && i <= 1000 && ctx.Err() == nil; i++ {
		if resp, err := http.Get(page); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if i%10 != 0 {
			continue
		}
		if now, _ := live(); now != last {
			changes, last = changes+1, now
		}
	}
	heap, stacks := live()
	return GoMem{heap, stacks}
}

// bar opens a student's class bar stream and reads it until the class's
// run ends; it returns once the server answered.
func (s *student) bar(c *loadClass, u string) {
	req, _ := http.NewRequestWithContext(c.ctx, "GET", u, nil)
	req.Header.Set("X-Forwarded-For", s.addr)
	req.Header.Set("Accept", "text/event-stream")
	client := &http.Client{Transport: s.client.Transport, Jar: s.client.Jar}
	resp, err := client.Do(req)
	if err != nil {
		return
	}
	go func() {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
}

// ack is one accepted vote: when it was sent and answered.
type ack struct{ sent, done time.Time }

// update is one dashboard update: when it arrived and the round's voters.
type update struct {
	at     time.Time
	voters int
}

// loadClass is one class of a run: its dashboard stream and students.
type loadClass struct {
	token    string
	students []*student
	ctx      context.Context // ends when the run does: the streams close
	cancel   context.CancelFunc
	mu       sync.Mutex
	updates  []update
	acks     []ack // appended under ClassResult's lock, read after
}

func (c *loadClass) stop() { c.cancel() }

func (c *loadClass) voters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.updates) == 0 {
		return 0
	}
	return c.updates[len(c.updates)-1].voters
}

// latencies: for each vote in the order answered, the first update
// after its answer that counts at least its rank.
func (c *loadClass) latencies() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	acks := slices.Clone(c.acks)
	slices.SortFunc(acks, func(a, b ack) int { return a.done.Compare(b.done) })
	var out []time.Duration
	for rank, a := range acks {
		for _, u := range c.updates {
			if u.at.After(a.done) && u.voters >= rank+1 {
				out = append(out, u.at.Sub(a.sent))
				break
			}
		}
	}
	return out
}

// student is one browser: its own cookies and its own address, and the
// lab page's socket when it keeps one (ClassConfig.Sockets).
type student struct {
	client *http.Client
	addr   string
	ws     *websocket.Conn
	voted  chan head // the answer to the socket's vote (id voteID)
}

// voteID is the id of a student's vote message on its socket.
const voteID = 1

// openSockets opens every student's lab socket with its cookies, a few
// at a time, and reads each until its class's run ends.
func openSockets(ctx context.Context, classes []*loadClass, u string) error {
	u = "ws" + strings.TrimPrefix(u, "http")
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	errs := make(chan error, 1)
	for _, c := range classes {
		for _, st := range c.students {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				if err := st.dial(c.ctx, u); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}()
		}
	}
	wg.Wait()
	select {
	case err := <-errs:
		return fmt.Errorf("a student's lab socket: %w", err)
	default:
		return ctx.Err()
	}
}

// dial opens the student's lab socket and reads it until ctx ends: the
// frames and class bars are discarded, the vote's answer is kept.
func (s *student) dial(ctx context.Context, u string) error {
	d := &websocket.Dialer{HandshakeTimeout: 10 * time.Second, ReadBufferSize: 4096, WriteBufferSize: 1024, EnableCompression: true, Jar: s.client.Jar}
	conn, resp, err := d.DialContext(ctx, u, http.Header{"X-Forwarded-For": {s.addr}})
	if err != nil {
		if resp != nil {
			return fmt.Errorf("%w: %s", err, resp.Status)
		}
		return err
	}
	s.ws, s.voted = conn, make(chan head, 1)
	context.AfterFunc(ctx, func() { conn.Close() })
	go func() {
		var b [64]byte
		for {
			_, r, err := conn.NextReader()
			if err != nil {
				close(s.voted)
				return
			}
			n, _ := io.ReadFull(r, b[:])
			h := parseHead(b[:n])
			if h.id == voteID {
				if h.typ == "error" {
					rest, _ := io.ReadAll(io.LimitReader(r, 4096))
					h.err = errorText(append(b[:n:n], rest...))
				}
				select {
				case s.voted <- h:
				default:
				}
			}
			io.Copy(io.Discard, r)
		}
	}()
	return nil
}

// voteOver sends the student's vote over its socket and waits for the
// answer: 204 for "voted", as the form's answer, else 0 and why.
func (s *student) voteOver(ctx context.Context, round int64, choice, sure string) (int, string) {
	msg := fmt.Sprintf(`{"id":%d,"type":"vote","round":%d,"choice":%q,"sure":%q}`, voteID, round, choice, sure)
	s.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := s.ws.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		return 0, err.Error()
	}
	select {
	case h, ok := <-s.voted:
		switch {
		case !ok:
			return 0, "the socket closed"
		case h.typ == "voted":
			return http.StatusNoContent, ""
		default:
			return 0, h.typ + " " + h.err
		}
	case <-ctx.Done():
		return 0, ctx.Err().Error()
	case <-time.After(30 * time.Second):
		return 0, "no answer in 30 s"
	}
}

// errorText is an error message's text.
func errorText(b []byte) string {
	var m struct {
		Error string `json:"error"`
	}
	json.Unmarshal(b, &m)
	return m.Error
}

func newStudent(t *http.Transport) *student {
	jar, _ := cookiejar.New(nil)
	return &student{
		client: &http.Client{Transport: t, Jar: jar, Timeout: 30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		addr: studentAddr(),
	}
}

// post sends a form as the page's script does, and returns the status and
// the start of the body.
func (s *student) post(ctx context.Context, u string, form url.Values) (int, string) {
	req, err := http.NewRequestWithContext(ctx, "POST", u, strings.NewReader(form.Encode()))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Forwarded-For", s.addr)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// joinCode finds the join code on the instructor's dashboard.
var joinCode = regexp.MustCompile(`id="join-code">([A-Z0-9]+)<`)

// roundVoters finds round 1's voters in a dashboard update.
var roundVoters = regexp.MustCompile(`data-round="1" data-voters="(\d+)"`)

// openClass opens one class and its vote on root, starts reading its
// dashboard and joins its students on sroot.
func openClass(ctx context.Context, t *http.Transport, root, sroot string, cfg ClassConfig, n int) (*loadClass, error) {
	teacher := newStudent(t)
	req, _ := http.NewRequestWithContext(ctx, "POST", root+"/class", strings.NewReader(url.Values{"name": {"load " + strconv.Itoa(n+1)}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", teacher.addr)
	resp, err := teacher.client.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	_, token, ok := strings.Cut(loc, "/teach/")
	if resp.StatusCode != http.StatusSeeOther || !ok {
		return nil, fmt.Errorf("opening a class: %s, Location %q", resp.Status, loc)
	}
	c := &loadClass{token: token}
	teach := root + "/teach/" + token
	page, err := teacher.get(ctx, teach)
	if err != nil {
		return nil, err
	}
	m := joinCode.FindStringSubmatch(page)
	if m == nil {
		return nil, fmt.Errorf("no join code on the dashboard")
	}
	code := m[1]
	for _, step := range []struct {
		act  string
		form url.Values
	}{
		{"settings", url.Values{"nim": {"off"}, "confidence": {flag(cfg.Confidence)}}},
		{"activity", url.Values{"lab": {cfg.Lab}}},
		{"activity", url.Values{"lab": {cfg.Lab}, "question": {cfg.Question}}},
		{"round", url.Values{"seconds": {strconv.Itoa(int(cfg.Timer / time.Second))}}},
	} {
		if status, text := teacher.post(ctx, teach+"/"+step.act, step.form); status != http.StatusNoContent {
			return nil, fmt.Errorf("%s: %d %s", step.act, status, text)
		}
	}
	sctx, cancel := context.WithCancel(ctx)
	c.ctx, c.cancel = sctx, cancel
	ready := make(chan error, 1)
	go c.watch(sctx, teacher, teach+"/events", ready)
	if err := <-ready; err != nil {
		cancel()
		return nil, err
	}
	c.students = make([]*student, cfg.Students)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, 32)
	for i := range c.students {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			st := newStudent(t)
			err := st.join(ctx, sroot, code, "s"+strconv.Itoa(i+1))
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			c.students[i] = st
		}()
	}
	wg.Wait()
	if firstErr != nil {
		cancel()
		return nil, firstErr
	}
	return c, nil
}

// join joins the class of code as a student does, from the join page's
// form. A class takes only so many joins a second (the server's join
// limits): a join refused with 429 waits as Retry-After says and tries
// again.
func (s *student) join(ctx context.Context, sroot, code, nick string) error {
	for {
		req, _ := http.NewRequestWithContext(ctx, "POST", sroot+"/join", strings.NewReader(url.Values{"code": {code}, "nick": {nick}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", s.addr)
		resp, err := s.client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusSeeOther:
			return nil
		case resp.StatusCode != http.StatusTooManyRequests:
			return fmt.Errorf("joining: %s", resp.Status)
		}
		wait, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if err != nil || wait < 1 {
			wait = 1
		}
		select {
		case <-time.After(time.Duration(wait) * time.Second):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *student) get(ctx context.Context, u string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
	req.Header.Set("X-Forwarded-For", s.addr)
	resp, err := s.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return string(b), err
}

// watch reads the dashboard's event stream and records each update's
// count of round 1; ready gets nil once the first update arrived.
func (c *loadClass) watch(ctx context.Context, teacher *student, u string, ready chan<- error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
	req.Header.Set("X-Forwarded-For", teacher.addr)
	req.Header.Set("Accept", "text/event-stream")
	client := &http.Client{Transport: teacher.client.Transport, Jar: teacher.client.Jar}
	resp, err := client.Do(req)
	if err != nil {
		ready <- err
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		ready <- fmt.Errorf("dashboard events: %s", resp.Status)
		return
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var data strings.Builder
	signalled := false
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			data.WriteString(d)
			data.WriteByte('\n')
			continue
		}
		if line != "" || data.Len() == 0 {
			continue
		}
		at := time.Now()
		if m := roundVoters.FindStringSubmatch(data.String()); m != nil {
			n, _ := strconv.Atoi(m[1])
			c.mu.Lock()
			c.updates = append(c.updates, update{at, n})
			c.mu.Unlock()
		}
		data.Reset()
		if !signalled {
			signalled = true
			ready <- nil
		}
	}
	if !signalled {
		ready <- fmt.Errorf("dashboard events ended before the first update")
	}
}

// sureOf is how sure the i-th student of a class says they are: sure and
// not sure in turn, with Confidence; else not asked.
func sureOf(cfg ClassConfig, i int) string {
	switch {
	case !cfg.Confidence:
		return ""
	case i%2 == 0:
		return "sure"
	}
	return "unsure"
}

// flag is a form's checkbox: "1" on, "" off.
func flag(on bool) string {
	if on {
		return "1"
	}
	return ""
}
