// Package load plays many live lab sessions against a leaselab server and
// measures what a classroom would feel. It runs on the server's machine
// and measures how many sessions
// the server holds, how much memory each costs it (an idle one, open but not
// playing, and a playing one), how much CPU a frame costs it, and how long
// a command takes to come back as a frame.
//
// It only talks to a loopback address, opens a bounded number of sessions
// and stops by itself after a bounded time.
package load

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// MaxSessions bounds one run; more than this is not a classroom.
const MaxSessions = 10_000

// Config is one load run.
type Config struct {
	URL      string        // the server, e.g. http://127.0.0.1:8080; loopback only
	Sessions int           // live sessions to open, play and hold
	Idle     int           // sessions that only connect and answer pings, opened first
	Lab      string        // the lab every session plays
	Lang     string        // id or en
	Hold     time.Duration // how long all sessions play once opened
	Every    time.Duration // how often each session sends a control
	Speed    float64       // play speed, virtual seconds per real second
	Dialers  int           // sessions being opened at once
	PID      int           // the server's process, for its RSS and CPU; 0 reads /metrics
	// Searches keep that many schedule searches running beside the
	// sessions, each from an address of its own, each a new design (the
	// server's cache never answers them): what students proving designs
	// cost the students playing.
	Searches int
	// SearchLab is the lab whose design challenge the searches prove
	// (default renew-policy).
	SearchLab string
	// Ready, if set, is waited for once every session is open, before
	// the hold begins (a class run beside the sessions joins its students
	// meanwhile: the hold measures the sessions beside the classes, not
	// beside their arrival, as it does not measure the sessions' own).
	Ready func(context.Context) error
	// Holding, if set, is called when every session is open and the
	// hold begins (a class run votes during it).
	Holding func()
}

// Result is what a run measured.
type Result struct {
	Wanted, Held, Failed int // playing sessions
	IdleWanted, IdleHeld int // idle sessions: open, not playing
	IdleFailed           int
	IdleClosed           int64 // idle sessions the server closed
	Hold                 time.Duration
	FirstDialError       string
	// The server's resident set, bytes: before any session, with the idle
	// sessions open, and at its peak while everything plays.
	RSSBefore, RSSIdle, RSSHeld int64
	// What the server's Go runtime holds (from its /metrics), before any
	// session and with the idle ones open: it shows what the resident set
	// is made of, and counts sessions honestly even when the server's
	// resident set is still as large as an earlier run left it.
	GoBefore, GoIdle GoMem
	CPU              time.Duration // server CPU (user+system) during the hold; 0 if unknown
	// LoadCPU is this generator's own CPU during the hold: on one machine
	// it takes its share of the cores the server's latency is measured on.
	LoadCPU    time.Duration
	PlayFrames int64 // messages the playing sessions received during the hold
	Commands   int64 // commands answered
	Errors     int64 // of those, answered with an error
	Timeouts   int64 // commands not answered within 5 s
	Frames     int64 // messages received in all
	Closed     int64 // sessions the server closed during the hold
	Latencies  []time.Duration
	// Searches asked and finished with a verdict during the hold, and the
	// search events (progress, verdicts) read.
	SearchesAsked, SearchesDone, SearchEvents int64
}

// Quantile is the q-th latency (0 ≤ q ≤ 1) of the commands answered.
func (r *Result) Quantile(q float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	s := slices.Clone(r.Latencies)
	slices.Sort(s)
	i := int(q * float64(len(s)-1))
	return s[i]
}

// GoMem is what a Go server's runtime holds, in bytes: heap spans in use
// (live objects and garbage not yet swept) and goroutine stacks.
type GoMem struct{ Heap, Stacks int64 }

// GoPerIdle is the server's added heap and stacks per idle session, in
// bytes; zeros when the server's /metrics does not tell them.
func (r *Result) GoPerIdle() GoMem {
	if r.IdleHeld == 0 || r.GoBefore.Heap == 0 || r.GoIdle.Heap == 0 {
		return GoMem{}
	}
	n := int64(r.IdleHeld)
	return GoMem{(r.GoIdle.Heap - r.GoBefore.Heap) / n, (r.GoIdle.Stacks - r.GoBefore.Stacks) / n}
}

// PerSession is the server's added memory per playing session, in bytes:
// its peak while playing less what it held with only the idle ones open.
func (r *Result) PerSession() int64 {
	if r.Held == 0 {
		return 0
	}
	return (r.RSSHeld - r.RSSIdle) / int64(r.Held)
}

// PerIdle is the server's added memory per idle session, in bytes.
func (r *Result) PerIdle() int64 {
	if r.IdleHeld == 0 {
		return 0
	}
	return (r.RSSIdle - r.RSSBefore) / int64(r.IdleHeld)
}

// CPUPerFrame is the server's CPU time per message sent to a playing
// session during the hold, idle sessions' pings and all: what a frame costs.
func (r *Result) CPUPerFrame() time.Duration {
	if r.PlayFrames == 0 {
		return 0
	}
	return r.CPU / time.Duration(r.PlayFrames)
}

// Report writes the result for a person.
func (r *Result) Report(w io.Writer) {
	fmt.Fprintf(w, "sessions held: %d of %d (%d failed to open", r.Held, r.Wanted, r.Failed)
	if r.FirstDialError != "" {
		fmt.Fprintf(w, "; first: %s", r.FirstDialError)
	}
	fmt.Fprintf(w, "; %d closed by the server)\n", r.Closed)
	if r.IdleWanted > 0 {
		fmt.Fprintf(w, "idle sessions held: %d of %d (%d failed to open; %d closed by the server)\n", r.IdleHeld, r.IdleWanted, r.IdleFailed, r.IdleClosed)
		fmt.Fprintf(w, "server RSS: %.1f MB before, %.1f MB with the idle ones: %.1f KB per idle session\n",
			mb(r.RSSBefore), mb(r.RSSIdle), float64(r.PerIdle())/1024)
		if g := r.GoPerIdle(); g.Heap != 0 {
			fmt.Fprintf(w, "server Go runtime per idle session: %.1f KB of heap, %.1f KB of goroutine stacks\n", float64(g.Heap)/1024, float64(g.Stacks)/1024)
		}
		fmt.Fprintf(w, "server RSS playing: %.1f MB at the peak: %.1f KB per playing session\n", mb(r.RSSHeld), float64(r.PerSession())/1024)
	} else {
		fmt.Fprintf(w, "server RSS: %.1f MB before, %.1f MB holding them: %.1f KB per session\n",
			mb(r.RSSBefore), mb(r.RSSHeld), float64(r.PerSession())/1024)
	}
	if r.CPU > 0 {
		fmt.Fprintf(w, "server CPU: %.2f s in %s (%.0f%% of one core): %.1f µs per frame over %d frames\n",
			r.CPU.Seconds(), r.Hold, 100*r.CPU.Seconds()/r.Hold.Seconds(), float64(r.CPUPerFrame())/float64(time.Microsecond), r.PlayFrames)
	}
	if r.LoadCPU > 0 {
		fmt.Fprintf(w, "load generator CPU: %.2f s in %s (%.0f%% of one core), on the same machine as the server\n",
			r.LoadCPU.Seconds(), r.Hold, 100*r.LoadCPU.Seconds()/r.Hold.Seconds())
	}
	perSec := 0.0
	if r.Held > 0 {
		perSec = float64(r.Frames) / float64(r.Held) / r.Hold.Seconds()
	}
	fmt.Fprintf(w, "commands answered: %d (%d errors, %d unanswered in 5 s); messages received: %d, %.1f a second per session\n",
		r.Commands, r.Errors, r.Timeouts, r.Frames, perSec)
	fmt.Fprintf(w, "command-to-frame latency: p50 %s, p99 %s, max %s\n",
		ms(r.Quantile(0.5)), ms(r.Quantile(0.99)), ms(r.Quantile(1)))
	if r.SearchesAsked > 0 {
		fmt.Fprintf(w, "schedule searches beside them: %d asked, %d finished with a verdict, %d events read\n", r.SearchesAsked, r.SearchesDone, r.SearchEvents)
	}
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// Controls are what each session sends in turn, as a student clicking
// through a lab would; a reset now and then keeps the world young. W1 and
// W2 stand for the lab's first two workers, read from its first frame.
var Controls = []string{
	"fencing on", "freeze W1 for=5s", "advance 1s", "step", "thaw W1",
	"fencing off", "crash W2", "restart W2", "advance 5s", "reset",
}

var students atomic.Uint32

// studentAddr is a new address in 10.0.0.0/8 for each session.
func studentAddr() string {
	n := students.Add(1)
	return fmt.Sprintf("10.%d.%d.%d", n>>16&0xff, n>>8&0xff, n&0xff)
}

// workerAttr finds the workers in a frame's status panel.
var workerAttr = regexp.MustCompile(`data-worker="([^"]+)"`)

// labControls is controls with W1 and W2 replaced by the first two
// workers a frame names (its one worker twice when it has one).
func labControls(frame []byte) []string {
	var m struct {
		Ops [][]string `json:"ops"` // ["op","target","html","attr"]
	}
	var workers []string
	if json.Unmarshal(frame, &m) == nil {
		for _, o := range m.Ops {
			if len(o) < 3 {
				continue
			}
			for _, w := range workerAttr.FindAllStringSubmatch(o[2], -1) {
				if !slices.Contains(workers, w[1]) {
					workers = append(workers, w[1])
				}
			}
		}
	}
	if len(workers) == 0 {
		return Controls
	}
	r := strings.NewReplacer("W1", workers[0], "W2", workers[min(1, len(workers)-1)])
	out := make([]string, len(Controls))
	for i, c := range Controls {
		out[i] = r.Replace(c)
	}
	return out
}

// Run opens the sessions, plays them for cfg.Hold, closes them and
// returns what it measured. It fails only when it cannot start.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	base, err := cfg.check()
	if err != nil {
		return nil, err
	}
	m := cfg.meters(base)
	res := &Result{Wanted: cfg.Sessions, IdleWanted: cfg.Idle, Hold: cfg.Hold}
	if res.RSSBefore, err = m.rss(); err != nil {
		return nil, fmt.Errorf("server memory: %w", err)
	}
	res.RSSIdle = res.RSSBefore
	res.GoBefore, _ = metricsGo(base)

	wsURL := "ws" + strings.TrimPrefix(base.String(), "http") + "/" + cfg.Lang + "/labs/" + cfg.Lab + "/ws"
	// Every session offers compression (permessage-deflate), as every
	// browser does: the server pays for it where it accepts.
	dialer := &websocket.Dialer{HandshakeTimeout: 10 * time.Second, ReadBufferSize: 4096, WriteBufferSize: 1024, EnableCompression: true}

	// Open every session, a few at a time, as a classroom arriving: the
	// idle ones first, so that the memory they hold is measured alone.
	var idleFrames, idleClosed, frames, closed atomic.Int64
	idle, idleHeld, idleFailed, firstIdleErr := openAll(ctx, dialer, wsURL, cfg.Idle, cfg.Dialers, nil, &idleFrames, &idleClosed)
	res.IdleHeld, res.IdleFailed = idleHeld, idleFailed
	defer closeAll(idle)
	if cfg.Idle > 0 {
		time.Sleep(time.Second) // let the server's first frames go out and its heap settle
		if n, err := m.rss(); err == nil {
			res.RSSIdle = n
		}
		res.GoIdle, _ = metricsGo(base)
	}
	sessions, held, failed, firstErr := openAll(ctx, dialer, wsURL, cfg.Sessions, cfg.Dialers, res, &frames, &closed)
	res.Held, res.Failed, res.FirstDialError = held, failed, cmp.Or(firstErr, firstIdleErr)
	if cfg.Ready != nil {
		if err := cfg.Ready(ctx); err != nil {
			closeAll(sessions)
			return nil, err
		}
	}
	// Play every session for the hold time.
	holdCtx, cancel := context.WithTimeout(ctx, cfg.Hold)
	defer cancel()
	if cfg.Holding != nil {
		cfg.Holding()
	}
	framesBefore := frames.Load()
	cpuBefore, cpuErr := m.cpu()
	selfBefore, selfErr := procCPU(os.Getpid())
	lat := playAll(holdCtx, base, cfg, sessions, m, res)
	res.PlayFrames = frames.Load() - framesBefore
	if cpuAfter, err := m.cpu(); err == nil && cpuErr == nil {
		res.CPU = cpuAfter - cpuBefore
	}
	if selfAfter, err := procCPU(os.Getpid()); err == nil && selfErr == nil {
		res.LoadCPU = selfAfter - selfBefore
	}
	closeAll(sessions)
	res.Frames, res.Closed, res.IdleClosed = frames.Load(), closed.Load(), idleClosed.Load()
	for _, l := range lat {
		res.Latencies = append(res.Latencies, l...)
	}
	return res, nil
}

// check checks cfg and fills its defaults; it returns the server's
// address.
func (cfg *Config) check() (*url.URL, error) {
	base, err := checkURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Sessions < 1 || cfg.Sessions > MaxSessions {
		return nil, fmt.Errorf("sessions must be between 1 and %d", MaxSessions)
	}
	if cfg.Idle < 0 || cfg.Sessions+cfg.Idle > MaxSessions {
		return nil, fmt.Errorf("idle and playing sessions together must be at most %d", MaxSessions)
	}
	if cfg.Hold <= 0 || cfg.Hold > 10*time.Minute {
		return nil, errors.New("hold must be between 0 and 10m")
	}
	if cfg.Every <= 0 {
		cfg.Every = 2 * time.Second
	}
	if cfg.Dialers <= 0 {
		cfg.Dialers = 50
	}
	if cfg.Speed <= 0 {
		cfg.Speed = 5
	}
	if cfg.Lang == "" {
		cfg.Lang = "en"
	}
	if cfg.Lab == "" {
		cfg.Lab = "w1-w2"
	}
	return base, nil
}

// meters read the server's resident memory and CPU time: from /proc
// with a PID, else from its /metrics.
type meters struct {
	rss func() (int64, error)
	cpu func() (time.Duration, error)
}

func (cfg *Config) meters(base *url.URL) meters {
	if cfg.PID > 0 {
		return meters{func() (int64, error) { return procRSS(cfg.PID) }, func() (time.Duration, error) { return procCPU(cfg.PID) }}
	}
	return meters{func() (int64, error) { return metricsRSS(base) }, func() (time.Duration, error) { return metricsCPU(base) }}
}

// closeAll closes the sessions opened.
func closeAll(sessions []*session) {
	for _, s := range sessions {
		if s != nil {
			s.close()
		}
	}
}

// playAll plays every session until ctx ends, each sending a control now
// and then, starting at a random moment so they do not march in step,
// with cfg.Searches searches running beside; it samples the server's
// resident set meanwhile (its peak counts) and returns each session's
// latencies.
func playAll(ctx context.Context, base *url.URL, cfg Config, sessions []*session, m meters, res *Result) [][]time.Duration {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range cfg.Searches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			search(ctx, base, cfg, i, res)
		}()
	}
	lat := make([][]time.Duration, len(sessions))
	for i, s := range sessions {
		if s == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat[i] = s.play(ctx, cfg, res)
		}()
	}
	if n, err := m.rss(); err == nil {
		res.RSSHeld = n
	}
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if n, err := m.rss(); err == nil {
					mu.Lock()
					res.RSSHeld = max(res.RSSHeld, n)
					mu.Unlock()
				}
			}
		}
	}()
	wg.Wait()
	<-sampled
	return lat
}

// search keeps one schedule search running until ctx ends: it asks for a
// proof of a design no search asked before and reads its events to the
// verdict, then asks for the next.
func search(ctx context.Context, base *url.URL, cfg Config, i int, res *Result) {
	lab := cmp.Or(cfg.SearchLab, "renew-policy")
	addr := studentAddr()
	for n := 0; ctx.Err() == nil; n++ {
		// A margin of its own per search and round: a new design each time.
		margin := fmt.Sprintf("%dms", 1000+i%10+10*(n%300))
		u := base.String() + "/" + cfg.Lang + "/labs/" + lab + "/search?prove=1&p.renew-margin=" + margin
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return
		}
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("X-Forwarded-For", addr)
		atomic.AddInt64(&res.SearchesAsked, 1)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
		failed := false
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "event: ") {
				atomic.AddInt64(&res.SearchEvents, 1)
				failed = failed || line == "event: failed"
				if line == "event: verdict" {
					atomic.AddInt64(&res.SearchesDone, 1)
				}
			}
		}
		resp.Body.Close()
		if failed { // refused (busy, a bad design): do not ask again at once
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// openAll opens n sessions, at most dialers at a time. Each counts the
// messages it receives in frames, and in closed whether the server closed it.
func openAll(ctx context.Context, d *websocket.Dialer, u string, n, dialers int, res *Result, frames, closed *atomic.Int64) (ss []*session, held, failed int, firstErr string) {
	ss = make([]*session, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, dialers)
	for i := range ss {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			s, err := dial(ctx, d, u, res, frames, closed)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed++
				if firstErr == "" {
					firstErr = err.Error()
				}
				return
			}
			ss[i] = s
			held++
		}()
	}
	wg.Wait()
	return ss, held, failed, firstErr
}

// checkURL refuses anything but a loopback http address.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("%s: only http:// on this machine", raw)
	}
	host := u.Hostname()
	if host == "localhost" {
		host = "127.0.0.1"
		u.Host = net.JoinHostPort(host, u.Port())
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("%s: load goes only to a loopback address such as 127.0.0.1", raw)
	}
	u.Path, u.RawQuery = strings.TrimSuffix(u.Path, "/"), ""
	return u, nil
}

// session is one live lab from the client's side. An idle one only reads:
// gorilla's default handler answers the server's pings while it does.
type session struct {
	conn    *websocket.Conn
	res     *Result // nil for an idle session
	frames  *atomic.Int64
	closedN *atomic.Int64
	// controls are what a playing session sends, with the lab's workers.
	controls []string
	pending  atomic.Int64 // the id of the command awaiting its answer
	answer   chan struct{}
	done     chan struct{}
	closed   atomic.Bool
}

func dial(ctx context.Context, d *websocket.Dialer, u string, res *Result, frames, closed *atomic.Int64) (*session, error) {
	// Each session comes as a student of its own: a server run with
	// --trusted-proxies 127.0.0.1 counts its work budgets by this address, as it would
	// behind a proxy, instead of by the one loopback address.
	h := http.Header{"X-Forwarded-For": {studentAddr()}}
	conn, resp, err := d.DialContext(ctx, u, h)
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("%s: %s", err, resp.Status)
		}
		return nil, err
	}
	// The first message is the world's first frame.
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, data, err := conn.ReadMessage()
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("first frame: %w", err)
	}
	if h := parseHead(data); h.typ != "frame" {
		conn.Close()
		return nil, fmt.Errorf("first message is %q, not a frame", h.typ)
	}
	conn.SetReadDeadline(time.Time{})
	var ctl []string
	if res != nil { // a playing session: it will send controls
		ctl = labControls(data)
	}
	s := &session{conn: conn, res: res, controls: ctl, frames: frames, closedN: closed, answer: make(chan struct{}, 1), done: make(chan struct{})}
	go s.read()
	return s, nil
}

// read counts every message and signals the answer to the pending command.
func (s *session) read() {
	defer close(s.done)
	var head [64]byte
	for {
		_, r, err := s.conn.NextReader()
		if err != nil {
			if !s.closed.Load() {
				s.closedN.Add(1)
			}
			return
		}
		// Only the head is read: a frame's HTML is the server's work, not ours.
		n, _ := io.ReadFull(r, head[:])
		io.Copy(io.Discard, r)
		s.frames.Add(1)
		h := parseHead(head[:n])
		if h.id != 0 && h.id == s.pending.Load() {
			if h.typ == "error" {
				atomic.AddInt64(&s.res.Errors, 1)
			}
			select {
			case s.answer <- struct{}{}:
			default:
			}
		}
	}
}

// playSpread is the time within which the sessions press play: the
// server's play tick.
const playSpread = 200 * time.Millisecond

// play starts play mode and sends a control every cfg.Every until ctx
// ends, returning each command's time to its answer.
func (s *session) play(ctx context.Context, cfg Config, res *Result) []time.Duration {
	var out []time.Duration
	id := int64(0)
	send := func(msg string) bool {
		s.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
		return s.conn.WriteMessage(websocket.TextMessage, []byte(msg)) == nil
	}
	// Each presses play at a moment of its own within a play tick, as a
	// room of students does: 2,000 sessions pressing it in the same
	// millisecond would all fall due together every tick, a burst no room
	// makes.
	select {
	case <-ctx.Done():
		return nil
	case <-time.After(rand.N(playSpread)):
	}
	id++
	if !send(`{"id":` + strconv.FormatInt(id, 10) + `,"type":"play","speed":` + strconv.FormatFloat(cfg.Speed, 'g', -1, 64) + `}`) {
		return nil
	}
	wait := time.NewTimer(rand.N(cfg.Every))
	defer wait.Stop()
	for k := rand.IntN(len(s.controls)); ; k++ {
		select {
		case <-ctx.Done():
			return out
		case <-s.done:
			return out
		case <-wait.C:
		}
		id++
		s.pending.Store(id)
		select { // a late answer to the last command is not this one's
		case <-s.answer:
		default:
		}
		start := time.Now()
		if !send(`{"id":` + strconv.FormatInt(id, 10) + `,"type":"do","cmd":"` + s.controls[k%len(s.controls)] + `"}`) {
			return out
		}
		select {
		case <-s.answer:
			out = append(out, time.Since(start))
			atomic.AddInt64(&res.Commands, 1)
		case <-time.After(5 * time.Second):
			atomic.AddInt64(&res.Timeouts, 1)
		case <-s.done:
			return out
		}
		wait.Reset(cfg.Every)
	}
}

func (s *session) close() {
	s.closed.Store(true)
	s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	s.conn.Close()
	<-s.done
}

// head is the start of a server message: the server writes seq, type and
// id first (docs/protocol.md), so they can be read without the rest.
type head struct {
	typ string
	id  int64
	err string // an error's text, where it was read (class votes)
}

func parseHead(b []byte) head {
	var h head
	if i := bytes.Index(b, []byte(`"type":"`)); i >= 0 {
		rest := b[i+8:]
		if j := bytes.IndexByte(rest, '"'); j >= 0 {
			h.typ = string(rest[:j])
		}
	}
	if i := bytes.Index(b, []byte(`"id":`)); i >= 0 {
		rest := b[i+5:]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		h.id, _ = strconv.ParseInt(string(rest[:j]), 10, 64)
	}
	return h
}

// procRSS reads a process's resident set from /proc.
func procRSS(pid int) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("pid %d: no VmRSS in /proc", pid)
}

// procCPU reads a process's CPU time, user and system, from /proc.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's times:
// 100 on every Linux build this runs on.
const clockTicks = 100

// parseStatCPU reads utime and stime (fields 14 and 15) from a
// /proc/PID/stat line. The command name, field 2, may hold spaces and
// parentheses, so the fields are counted from its last ')'.
func parseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("/proc stat: no command name")
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, errors.New("/proc stat: too few fields")
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// metricsCPU asks the server for its CPU time (process_cpu_seconds_total).
func metricsCPU(base *url.URL) (time.Duration, error) {
	v, err := metricsValue(base, "process_cpu_seconds_total ")
	return time.Duration(v * float64(time.Second)), err
}

// metricsRSS asks the server for its resident set, which it reads from its
// own /proc entry.
func metricsRSS(base *url.URL) (int64, error) {
	v, err := metricsValue(base, "process_resident_memory_bytes ")
	return int64(v), err
}

// metricsGo asks the server for its Go heap in use and goroutine stacks.
func metricsGo(base *url.URL) (GoMem, error) {
	v, err := metricsValues(base, "go_memstats_heap_inuse_bytes ", "go_memstats_stack_inuse_bytes ")
	if err != nil {
		return GoMem{}, err
	}
	return GoMem{int64(v[0]), int64(v[1])}, nil
}

// metricsValue reads one sample, named with its trailing space, from the
// server's /metrics.
func metricsValue(base *url.URL, name string) (float64, error) {
	v, err := metricsValues(base, name)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// metricsValues reads samples, each named with its trailing space, from
// one answer of the server's /metrics.
func metricsValues(base *url.URL, names ...string) ([]float64, error) {
	resp, err := http.Get(base.String() + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	vals := make([]float64, len(names))
	found := make([]bool, len(names))
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		for i, name := range names {
			if v, ok := strings.CutPrefix(sc.Text(), name); ok {
				if vals[i], err = strconv.ParseFloat(v, 64); err != nil {
					return nil, fmt.Errorf("/metrics %s: %w", strings.TrimSpace(name), err)
				}
				found[i] = true
			}
		}
	}
	for i, ok := range found {
		if !ok {
			return nil, fmt.Errorf("/metrics has no %s", strings.TrimSpace(names[i]))
		}
	}
	return vals, nil
}
