package web

import (
	"context"
	"fmt"
	"leaselab/budget"
	"leaselab/live"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"leaselab/labsession"
)

// What keeps one client, or many idle connections, from taking the server
// from everyone else: HTTP timeouts, a cap on connections per address and
// in all, the host names the server answers to, and the work budget of
// heavy pages.

// The HTTP server's timeouts. An upgraded live connection is not bound by
// them: the upgrade clears its deadlines, and its ping and pong keep it.
const (
	// readHeaderTimeout: a request's header must arrive within this.
	readHeaderTimeout = 10 * time.Second
	// readTimeout: the whole request; requests here carry no body to
	// speak of.
	readTimeout = 30 * time.Second
	// writeTimeout: a page to a slow reader; the largest page (a session
	// at its caps) is about a megabyte.
	writeTimeout = 60 * time.Second
	// httpIdleTimeout closes a keep-alive connection that sends nothing.
	httpIdleTimeout = 60 * time.Second
	// maxHeaderBytes leaves room for a link with a session at its caps in
	// the URL (2,000 commands, usually well under 100 KB) and a browser's
	// header fields; past it net/http answers 431 itself and reads no
	// more. It was a megabyte: reading a 900 KB header took 4 ms of the
	// server each time, before it was refused.
	maxHeaderBytes = 128 << 10
	// The header fields besides the request line are bounded to what a
	// browser sends: a field of at most maxHeaderField bytes (servers
	// commonly take 8 KB; browsers cut a Referer at 4 KB), all of them
	// together at most maxHeaderFields. Past either, 431.
	maxHeaderField  = 16 << 10
	maxHeaderFields = 64 << 10
)

// headerTooLarge says which header field, or that all of them together,
// are larger than a browser sends; "" when none is.
func headerTooLarge(h http.Header) string {
	total := 0
	for k, vs := range h {
		for _, v := range vs {
			if len(v) > maxHeaderField {
				return k
			}
			total += len(k) + len(v)
		}
	}
	if total > maxHeaderFields {
		return "all header fields together"
	}
	return ""
}

// HTTPServer is an http.Server for s with the timeouts a public server
// needs. The caller sets Addr or serves a listener (see LimitListener).
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       httpIdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// allowedHosts is the list a request's host must be in: PublicURL's host
// and the extra names. Empty: any host.
func allowedHosts(publicURL string, extra []string) ([]string, error) {
	var out []string
	if publicURL != "" {
		u, err := url.Parse(publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
			return nil, fmt.Errorf("public URL %q: want http(s)://host[:port]", publicURL)
		}
		out = append(out, u.Host)
	}
	for _, h := range extra {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out, nil
}

// hostAllowed reports whether host (a Host header) is one the server
// answers to. An allowed name without a port allows any port.
func (s *Server) hostAllowed(host string) bool {
	if len(s.allowedHosts) == 0 {
		return true
	}
	hn, hp, err := net.SplitHostPort(host)
	if err != nil {
		hn, hp = strings.Trim(host, "[]"), ""
	}
	for _, a := range s.allowedHosts {
		an, ap, err := net.SplitHostPort(a)
		if err != nil {
			an, ap = strings.Trim(a, "[]"), ""
		}
		if strings.EqualFold(strings.TrimSuffix(an, "."), strings.TrimSuffix(hn, ".")) && (ap == "" || ap == hp) {
			return true
		}
	}
	return false
}

// checkHost refuses a request for a host name the server does not answer
// to: a page of another site whose name an attacker pointed at this
// server (DNS rebinding) reads nothing and drives nothing. Behind a
// trusted proxy that keeps its own Host, the name it forwarded names the
// site. Health is answered whatever the name, for probes that use an
// address; metrics are not (they tell who is using the server): scrape them
// by a name the server answers to, or on --metrics-addr.
func (s *Server) checkHost(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if len(s.allowedHosts) == 0 || r.URL.Path == "/healthz" {
			return next(c)
		}
		for _, h := range s.siteHosts(r) {
			if s.hostAllowed(h) {
				return next(c)
			}
		}
		s.refused(errHost, "a request for a host name this server does not answer to", "host", labsession.Clip(r.Host))
		return c.String(http.StatusMisdirectedRequest, "leaselab: this server does not answer to the host "+labsession.Clip(r.Host)+"\n")
	}
}

// heavy bounds the work of a page that runs the engine (a lab with a
// session, a permalink, a verdict) by its client's work budget (a student
// or a browser, client.go), within its address's (issue 43). A cached
// page costs next to nothing, so repeats are free. A submitted program
// is judged in the judgements' queue (judge_queue.go), which gives the
// turn back while it waits: the wait is not charged.
func (s *Server) heavy(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		client := s.clientAddr(r)
		h := &heavyWork{addr: client, key: clientKey(r)}
		h.b = s.addrBudgets.client(client, h.key)
		if err := budget.Start(h.b); err != nil {
			// The refusal is charged to whichever is in debt: the
			// address (its ceiling), or the client alone.
			if room := s.addrBudgets.get(client); room.Owes() > 0 {
				return s.overBudget(c, client, room, err)
			}
			return s.overBudget(c, client, h.b, err)
		}
		h.held = true
		// One heavy page fewer at once than the cores: the players' frames
		// keep one (issue 43). A page waits for its place rather than be
		// refused: a lecture room opening a lab at once is served in turn.
		select {
		case s.heavySlots <- struct{}{}:
			h.slot = s.heavySlots
		case <-r.Context().Done():
			h.give()
			return nil
		case <-s.ctx.Done():
			h.give()
			return nil
		}
		c.SetRequest(r.WithContext(context.WithValue(r.Context(), heavyKey{}, h)))
		start := time.Now()
		defer func() {
			h.give()
			factor := 1
			if c.QueryParam("challenge") != "" || c.QueryParam("measure") != "" {
				factor = budget.VerdictFactor // a challenge's verdict, or a p99 exercise's
			}
			budget.ChargeTimes(start.Add(h.waited), factor, h.b)
		}()
		return next(c)
	}
}

// overBudget refuses a request of a client over its work budget: 429,
// with when to try again, in bytes made once (refuse.go), charged to the
// address up to its ceiling; at its ceiling the connection is closed.
func (s *Server) overBudget(c echo.Context, client string, b *budget.Work, err error) error {
	s.refused(live.ErrBudget, "a client over its work budget asked for a heavy page", "client", client, "path", labsession.Clip(c.Request().URL.Path))
	budget.ChargeRefusal(budget.RefuseCost, addrCeiling, b)
	retry := time.Second
	if be, ok := err.(*budget.Busy); ok {
		retry = be.Retry
	}
	s.writeBusy(c.Response(), c.Request(), busyAddr, langOf(c), retry, atCeiling(b, addrCeiling))
	return nil
}

// maxStoreCharge bounds what one request that writes to the class store
// (a vote) is charged: past it the request waits on the database's lock,
// which costs the server nothing. A class of 300 voting in one second
// behind one address is charged at most 0.6 s of its 5 s burst.
const maxStoreCharge = 2 * time.Millisecond

// light bounds a light request (a vote, a class form) by the student's
// work budget, when the request names a student, and the client
// address's: refused while either is in debt, each charged what it cost
// up to maxStoreCharge. A student in debt is refused at their own cost
// alone (refuseStudent), so one student's flood leaves the rest of the
// room behind their address voting. Unlike heavy it does not wait for
// the address's turn: a class behind one address votes at once.
func (s *Server) light(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		client := s.clientAddr(r)
		own := s.studentBudget(r, client)
		if err := budget.Wait(own); err != nil {
			s.refuseStudent(c.Response(), r, client, own, langOf(c))
			return nil
		}
		b := s.addrBudgets.get(client)
		if err := budget.Wait(b); err != nil {
			return s.overBudget(c, client, b, err)
		}
		start := time.Now()
		defer func() { budget.ChargeFixed(min(time.Since(start), maxStoreCharge), own, b) }()
		return next(c)
	}
}

// ConnLimits caps the connections a server holds: from one address, and in
// all. Past them a connection gets a short page saying so and is closed.
type ConnLimits struct {
	PerAddr int // default 512: a classroom behind one NAT opens a few each
	Total   int // default: the process's file limit, less a reserve
}

// DefaultConnLimits are caps under the process's limit of open files
// (RLIMIT_NOFILE), leaving room for the files and sockets the server
// opens itself.
func DefaultConnLimits() ConnLimits {
	lim := ConnLimits{PerAddr: 512, Total: 4096}
	if n := fileLimit(); n > 0 {
		lim.Total = max(16, n-max(64, n/10))
	}
	lim.PerAddr = min(lim.PerAddr, lim.Total)
	return lim
}

// LimitListener accepts from ln within lim (zero fields take
// DefaultConnLimits'). Each connection counts until it is closed, a
// websocket's too.
func (s *Server) LimitListener(ln net.Listener, lim ConnLimits) net.Listener {
	def := DefaultConnLimits()
	if lim.Total <= 0 {
		lim.Total = def.Total
	}
	if lim.PerAddr <= 0 {
		lim.PerAddr = min(def.PerAddr, lim.Total)
	}
	return &limitListener{Listener: ln, lim: lim, byAddr: map[string]int{}, srv: s}
}

type limitListener struct {
	net.Listener
	lim ConnLimits
	srv *Server

	mu       sync.Mutex
	total    int
	byAddr   map[string]int
	refusing atomic.Int32 // refusal pages being written
}

// maxRefusing bounds the refusal pages written at once; past it a
// connection is just closed.
const maxRefusing = 64

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := hostOf(c.RemoteAddr().String())
		// A trusted proxy carries every student: only the total binds it.
		proxy := l.srv.proxies.trusts(net.ParseIP(addr))
		why := l.admit(addr, proxy)
		if why == "" {
			lc := &limitConn{Conn: c, l: l, addr: addr}
			if !proxy {
				// What is read is charged to the address: a proxy
				// reads for everyone, and its students are charged
				// by their requests.
				lc.budget = l.srv.addrBudgets.get(addr)
				if l.srv.addrBudgets.over(addr) {
					lc.held = true
					l.srv.refused(live.ErrBudget, "an address at its work ceiling opened a connection: held before it is read", "client", addr)
				}
			}
			return lc, nil
		}
		l.srv.refused(errConns, why, "client", addr)
		l.refuse(c)
	}
}

// admit takes a place for a connection from addr, or says why not.
func (l *limitListener) admit(addr string, proxy bool) (why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.total >= l.lim.Total:
		return "the server holds as many connections as it may"
	case !proxy && l.byAddr[addr] >= l.lim.PerAddr:
		return "an address holds --max-conns-per-addr connections"
	}
	l.total++
	l.byAddr[addr]++
	return ""
}

func (l *limitListener) release(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	if l.byAddr[addr]--; l.byAddr[addr] <= 0 {
		delete(l.byAddr, addr)
	}
}

// refusedPage is what a connection past the caps reads. It is written
// before the request is read, so it cannot know the language: it says it
// in both.
const refusedPage = `<!doctype html>
<html lang="id"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>leaselab: server penuh / server full</title></head>
<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5">
<h1>Server sedang penuh</h1>
<p>Server ini sedang memegang terlalu banyak koneksi, dari alamatmu atau dari semua orang. Coba lagi sebentar lagi; pekerjaanmu tersimpan di alamat halaman dan tidak hilang.</p>
<h1 lang="en">The server is full</h1>
<p lang="en">This server holds too many connections right now, from your address or from everyone. Try again in a moment; your work is kept in the page's address and is not lost.</p>
</body></html>
`

var refusedResponse = []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html; charset=utf-8\r\nRetry-After: 10\r\nConnection: close\r\nContent-Length: " +
	strconv.Itoa(len(refusedPage)) + "\r\n\r\n" + refusedPage)

// refuse writes the refusal page and closes c, off the accepting
// goroutine; when many are being refused at once, it just closes.
func (l *limitListener) refuse(c net.Conn) {
	if l.refusing.Add(1) > maxRefusing {
		l.refusing.Add(-1)
		c.Close()
		return
	}
	go func() {
		defer l.refusing.Add(-1)
		defer c.Close()
		c.SetDeadline(time.Now().Add(time.Second))
		// Read the request first: closing a socket with unread data
		// resets it, and the browser would show a reset, not the page.
		buf := make([]byte, 4096)
		c.Read(buf)
		c.Write(refusedResponse)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
	}()
}

// limitConn gives its place back when closed, once. It charges what is
// read from it to its address (readCost), and, held, waits refuseHold
// before its first read: the address was at its ceiling when it
// connected, so what it asks will be refused, and a flood of new
// connections costs the server their sockets, not the reading and
// answering of each.
type limitConn struct {
	net.Conn
	l    *limitListener
	addr string
	once sync.Once

	budget  *budget.Work // the address's; nil behind a trusted proxy
	held    bool
	unpaid  int // bytes read and not charged yet
	started bool
}

func (c *limitConn) Read(p []byte) (int, error) {
	if c.held && !c.started {
		c.started = true
		t := time.NewTimer(c.l.srv.refuseHold())
		select {
		case <-t.C:
		case <-c.l.srv.ctx.Done():
			t.Stop()
		}
	}
	n, err := c.Conn.Read(p)
	if c.budget != nil {
		if c.unpaid += n; c.unpaid >= readChargeEvery {
			budget.ChargeRefusal(time.Duration(c.unpaid>>10)*readCost, addrCeiling, c.budget)
			c.unpaid &= 1<<10 - 1
		}
	}
	return n, err
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c.addr) })
	return err
}
