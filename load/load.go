// Package load plays many live lab sessions against a leaselab server on
// this machine and measures what a classroom would feel: how many sessions
// the server holds, how much memory each costs it, and how long a command
// takes to come back as a frame.
//
// It only talks to a loopback address, opens a bounded number of sessions
// and stops by itself after a bounded time.
package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
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
	Sessions int           // live sessions to open and hold
	Lab      string        // the lab every session plays
	Lang     string        // id or en
	Hold     time.Duration // how long all sessions play once opened
	Every    time.Duration // how often each session sends a control
	Speed    float64       // play speed, virtual seconds per real second
	Dialers  int           // sessions being opened at once
	PID      int           // the server's process, for its RSS; 0 reads /metrics
}

// Result is what a run measured.
type Result struct {
	Wanted, Held, Failed int
	Hold                 time.Duration
	FirstDialError       string
	RSSBefore, RSSHeld   int64 // bytes, the server's resident set
	Commands             int64 // commands answered
	Errors               int64 // of those, answered with an error
	Timeouts             int64 // commands not answered within 5 s
	Frames               int64 // messages received in all
	Closed               int64 // sessions the server closed during the hold
	Latencies            []time.Duration
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

// PerSession is the server's added memory per held session, in bytes.
func (r *Result) PerSession() int64 {
	if r.Held == 0 {
		return 0
	}
	return (r.RSSHeld - r.RSSBefore) / int64(r.Held)
}

// Report writes the result for a person.
func (r *Result) Report(w io.Writer) {
	fmt.Fprintf(w, "sessions held: %d of %d (%d failed to open", r.Held, r.Wanted, r.Failed)
	if r.FirstDialError != "" {
		fmt.Fprintf(w, "; first: %s", r.FirstDialError)
	}
	fmt.Fprintf(w, "; %d closed by the server)\n", r.Closed)
	fmt.Fprintf(w, "server RSS: %.1f MB before, %.1f MB holding them: %.1f KB per session\n",
		mb(r.RSSBefore), mb(r.RSSHeld), float64(r.PerSession())/1024)
	perSec := 0.0
	if r.Held > 0 {
		perSec = float64(r.Frames) / float64(r.Held) / r.Hold.Seconds()
	}
	fmt.Fprintf(w, "commands answered: %d (%d errors, %d unanswered in 5 s); messages received: %d, %.1f a second per session\n",
		r.Commands, r.Errors, r.Timeouts, r.Frames, perSec)
	fmt.Fprintf(w, "command-to-frame latency: p50 %s, p99 %s, max %s\n",
		ms(r.Quantile(0.5)), ms(r.Quantile(0.99)), ms(r.Quantile(1)))
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// controls are what each session sends in turn, as a student clicking
// through a lab would; a reset now and then keeps the world young.
var controls = []string{
	"fencing on", "freeze W1 for=5s", "advance 1s", "step", "thaw W1",
	"fencing off", "crash W2", "restart W2", "advance 5s", "reset",
}

// Run opens the sessions, plays them for cfg.Hold, closes them and
// returns what it measured. It fails only when it cannot start.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	base, err := checkURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Sessions < 1 || cfg.Sessions > MaxSessions {
		return nil, fmt.Errorf("sessions must be between 1 and %d", MaxSessions)
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
	rss := func() (int64, error) { return metricsRSS(base) }
	if cfg.PID > 0 {
		rss = func() (int64, error) { return procRSS(cfg.PID) }
	}
	res := &Result{Wanted: cfg.Sessions, Hold: cfg.Hold}
	if res.RSSBefore, err = rss(); err != nil {
		return nil, fmt.Errorf("server memory: %w", err)
	}

	wsURL := "ws" + strings.TrimPrefix(base.String(), "http") + "/" + cfg.Lang + "/labs/" + cfg.Lab + "/ws"
	dialer := &websocket.Dialer{HandshakeTimeout: 10 * time.Second, ReadBufferSize: 4096, WriteBufferSize: 1024}

	// Open every session, a few at a time, as a classroom arriving.
	sessions := make([]*session, cfg.Sessions)
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, cfg.Dialers)
	for i := range sessions {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			s, err := dial(ctx, dialer, wsURL, res)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.Failed++
				if res.FirstDialError == "" {
					res.FirstDialError = err.Error()
				}
				return
			}
			sessions[i] = s
			res.Held++
		}()
	}
	wg.Wait()

	// Play every session for the hold time; each sends a control now and
	// then, starting at a random moment so they do not march in step.
	holdCtx, cancel := context.WithTimeout(ctx, cfg.Hold)
	defer cancel()
	lat := make([][]time.Duration, len(sessions))
	for i, s := range sessions {
		if s == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat[i] = s.play(holdCtx, cfg, res)
		}()
	}
	// The resident set is sampled while everything plays; its peak counts.
	if n, err := rss(); err == nil {
		res.RSSHeld = n
	}
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-holdCtx.Done():
				return
			case <-t.C:
				if n, err := rss(); err == nil {
					mu.Lock()
					res.RSSHeld = max(res.RSSHeld, n)
					mu.Unlock()
				}
			}
		}
	}()
	wg.Wait()
	<-sampled
	for _, s := range sessions {
		if s != nil {
			s.close()
		}
	}
	for _, l := range lat {
		res.Latencies = append(res.Latencies, l...)
	}
	return res, nil
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

// session is one live lab from the client's side.
type session struct {
	conn    *websocket.Conn
	res     *Result
	pending atomic.Int64 // the id of the command awaiting its answer
	answer  chan struct{}
	done    chan struct{}
	closed  atomic.Bool
}

func dial(ctx context.Context, d *websocket.Dialer, u string, res *Result) (*session, error) {
	conn, resp, err := d.DialContext(ctx, u, nil)
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
	s := &session{conn: conn, res: res, answer: make(chan struct{}, 1), done: make(chan struct{})}
	go s.read()
	return s, nil
}

// read counts every message and signals the answer to the pending command.
func (s *session) read() {
	defer close(s.done)
	for {
		_, r, err := s.conn.NextReader()
		if err != nil {
			if !s.closed.Load() {
				atomic.AddInt64(&s.res.Closed, 1)
			}
			return
		}
		// Only the head is read: a frame's HTML is the server's work, not ours.
		head := make([]byte, 64)
		n, _ := io.ReadFull(r, head)
		io.Copy(io.Discard, r)
		atomic.AddInt64(&s.res.Frames, 1)
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

// play starts play mode and sends a control every cfg.Every until ctx
// ends, returning each command's time to its answer.
func (s *session) play(ctx context.Context, cfg Config, res *Result) []time.Duration {
	var out []time.Duration
	id := int64(0)
	send := func(msg string) bool {
		s.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
		return s.conn.WriteMessage(websocket.TextMessage, []byte(msg)) == nil
	}
	id++
	if !send(`{"id":` + strconv.FormatInt(id, 10) + `,"type":"play","speed":` + strconv.FormatFloat(cfg.Speed, 'g', -1, 64) + `}`) {
		return nil
	}
	wait := time.NewTimer(rand.N(cfg.Every))
	defer wait.Stop()
	for k := rand.IntN(len(controls)); ; k++ {
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
		if !send(`{"id":` + strconv.FormatInt(id, 10) + `,"type":"do","cmd":"` + controls[k%len(controls)] + `"}`) {
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

// metricsRSS asks the server for its resident set, which it reads from its
// own /proc entry.
func metricsRSS(base *url.URL) (int64, error) {
	resp, err := http.Get(base.String() + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "process_resident_memory_bytes "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return int64(f), err
		}
	}
	return 0, errors.New("/metrics has no process_resident_memory_bytes")
}
