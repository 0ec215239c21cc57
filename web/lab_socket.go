package web

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"leaselab/budget"
	"leaselab/classroom"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/labsession"
	"leaselab/live"
)

// The live lab's HTTP handler: it checks who asks, rebuilds the session
// the URL describes and hands the upgraded connection to a session loop
// (package live).

// originError is a websocket refused because of its Origin header.
type originError struct{ why string }

func (e *originError) Error() string { return "live lab refused: " + e.why }

// checkOrigin accepts a websocket only from a page of this site, so that
// another site's page cannot drive a student's session: the Origin must be
// an http or https URL, with a host and no user name, whose host and port
// are this site's (the Host header, or the name a trusted proxy forwarded).
// No Origin at all is not a browser (a browser always sends one), and is
// accepted. The sandboxed iframe's "null", file:, data: and the like are
// refused.
func (s *Server) checkOrigin(r *http.Request) error {
	origins := r.Header.Values("Origin")
	if len(origins) == 0 {
		return nil
	}
	if len(origins) > 1 {
		return &originError{"more than one Origin"}
	}
	origin := origins[0]
	u, err := url.Parse(origin)
	switch {
	case err != nil:
		return &originError{"Origin is not a URL"}
	case u.Scheme != "http" && u.Scheme != "https":
		return &originError{"Origin is not an http or https page"}
	case u.User != nil:
		return &originError{"Origin carries a user name"}
	case u.Opaque != "" || u.Hostname() == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "":
		return &originError{"Origin is not scheme://host[:port]"}
	}
	port := u.Port()
	if port == "" {
		port = defaultPort(u.Scheme)
	}
	for _, site := range s.siteHosts(r) {
		if sameHost(u.Hostname(), port, u.Scheme, site) {
			return nil
		}
	}
	return &originError{"another site's page"}
}

// siteHosts are the names this site is reached by, as the request says:
// its Host, and the name a trusted proxy forwarded (proxy.go).
func (s *Server) siteHosts(r *http.Request) []string {
	hosts := []string{r.Host}
	if fh := s.proxies.forwardedHost(r); fh != "" {
		hosts = append(hosts, fh)
	}
	return hosts
}

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// sameHost reports whether site (host or host:port, as a Host header
// writes it) is host:port. A site without a port is reached on the
// default port of the scheme used, which the page's own scheme says.
func sameHost(host, port, scheme, site string) bool {
	sh, sp, err := net.SplitHostPort(site)
	if err != nil {
		sh, sp = strings.Trim(site, "[]"), defaultPort(scheme)
	}
	return sh != "" && strings.EqualFold(strings.TrimSuffix(sh, "."), strings.TrimSuffix(host, ".")) && sp == port
}

// full reports whether the server holds as many live sessions as it may.
func (s *Server) full() bool { return s.metrics.sessionsOpen.Load() >= int64(s.maxSessions) }

// refuseLive upgrades the connection only to close it at once with a
// reason the client shows: a browser's websocket cannot read an HTTP error.
func (s *Server) refuseLive(c echo.Context, code int, reason string) error {
	if conn, err := s.upgrader.Upgrade(c.Response(), c.Request(), nil); err == nil {
		conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
		conn.Close()
	}
	return nil
}

func (s *Server) labSocket(c echo.Context) error {
	lang, _, lab, err := s.labFor(c)
	if err != nil {
		return err
	}
	return s.serveLive(c, lang, lab, 1, func(l *live.Conn) error {
		sess, _, err := openSession(lab, c.QueryParams())
		if err != nil {
			return err
		}
		l.Lab(sess)
		if c.QueryParam("have") == "1" {
			l.Have()
		}
		return nil
	})
}

// pairWeight is what a pair counts as against the server's cap of live
// sessions: it holds two worlds, and each of its frames runs and draws
// both (its work is charged as measured, so about twice a session's).
const pairWeight = 2

func (s *Server) pairSocket(c echo.Context) error {
	lang, _, lab, err := s.labFor(c)
	if err != nil {
		return err
	}
	return s.serveLive(c, lang, lab, pairWeight, func(l *live.Conn) error {
		p, _, err := openPair(lang, lab, c.QueryParams())
		if err != nil {
			return err
		}
		l.Pair(p)
		return nil
	})
}

// serveLive opens a live connection: it refuses another site's page, a
// full server and an address over its budget, lets open rebuild what the
// URL describes into l (paid from the address's budget), and hands the
// upgraded connection to the session loop (package live). weight is how many sessions
// the connection counts as against the server's cap: a what-if pair holds
// two worlds.
func (s *Server) serveLive(c echo.Context, lang string, lab *labs.Lab, weight int64, open func(l *live.Conn) error) error {
	// Another site's page is refused before anything is replayed.
	if err := s.checkOrigin(c.Request()); err != nil {
		s.refused(errOrigin, err.Error(), "origin", labsession.Clip(c.Request().Header.Get("Origin")), "host", labsession.Clip(c.Request().Host))
		return c.String(http.StatusForbidden, "leaselab: "+err.Error()+"\n")
	}
	// A full server says so before it replays anything.
	if n := s.metrics.sessionsOpen.Add(weight); n > int64(s.maxSessions) {
		s.metrics.sessionsOpen.Add(-weight)
		s.refused(errFull, "the server holds its --max-sessions", "max", s.maxSessions)
		return s.refuseLive(c, websocket.CloseTryAgainLater, T(lang, "full.close"))
	}
	client := s.clientAddr(c.Request())
	if !s.clients.take(client) {
		s.metrics.sessionsOpen.Add(-weight)
		s.refused(errConns, "a client holds --max-conns-per-addr live sessions", "client", client)
		return s.refuseLive(c, websocket.CloseTryAgainLater, T(lang, "full.close"))
	}
	opened := false
	defer func() {
		if !opened {
			s.metrics.sessionsOpen.Add(-weight)
			s.clients.give(client)
		}
	}()
	hold, why := s.mem.admit(client)
	if hold == nil {
		s.refused(errMemory, "a client's live sessions, or all, hold their share of memory", "client", client, "share", string(why))
		return s.refuseLive(c, websocket.CloseTryAgainLater, T(lang, "full.memory."+string(why)))
	}
	defer func() {
		if !opened {
			hold.release()
		}
	}()
	// The student's (or browser's) budget, within their address's: a room
	// behind one NAT is one address (issue 43).
	addr := s.addrBudgets.client(client, clientKey(c.Request()))
	if err := budget.Start(addr); err != nil {
		s.refused(live.ErrBudget, "a client over its work budget opened a live lab", "client", client)
		return s.refuseLive(c, websocket.CloseTryAgainLater, errorText(lang, err))
	}
	l := live.New(&s.live, lab, lang, budget.New(s.sessionWork, sessionBurst), addr, hold)
	m := s.classmateOf(c.Request())
	if m != nil {
		l.Observe(s.room.Observer(*m, lab))
		l.Votes(s.room.Voter(*m, lang))
	}
	start := time.Now()
	err := open(l)
	budget.Charge(start, addr)
	addr.Give()
	if err != nil {
		return err
	}
	if !s.startSession() {
		return s.refuseLive(c, websocket.CloseGoingAway, "server shutting down")
	}
	conn, err := s.upgrader.Upgrade(c.Response(), c.Request(), nil)
	if err != nil {
		s.sessions.Done()
		return nil // the upgrader has answered
	}
	opened = true
	s.metrics.sessionsTotal.Add(1)
	go s.runLive(conn, l, lab, m, lang, func() {
		hold.release()
		s.clients.give(client)
		s.metrics.sessionsOpen.Add(-weight)
	})
	return nil
}

// runLive runs an opened live session on conn until it ends, then gives
// back what it held (release: its memory, its client's connection, its
// place under the cap). m is the student's class, nil outside one.
func (s *Server) runLive(conn *websocket.Conn, l *live.Conn, lab *labs.Lab, m *classroom.Member, lang string, release func()) {
	defer s.sessions.Done()
	defer release()
	if m != nil {
		// The class bar comes over this socket (classroom.Room).
		defer s.room.FollowSocket(*m, l, lang)()
	}
	defer func() {
		// A panic that safely could not contain ends this session only.
		if p := recover(); p != nil {
			s.metrics.Error(live.ErrPanic)
			s.log.Error("live lab session ended by a panic", "lab", lab.ID, "panic", p, "session", l.Query())
			conn.Close()
		}
	}()
	l.Run(conn)
}

// verdicts judge a live lab page's answers, challenges and goals as its
// page does (the caches, the templ blocks): live.Verdicts.
type verdicts struct{ s *Server }

func (v verdicts) Answer(lab *labs.Lab, question, choice, lang string) (templ.Component, error) {
	a, err := v.s.answer(lab, question, choice, lang)
	if err != nil {
		return nil, err
	}
	return answerBlock(a), nil
}

func (v verdicts) Challenge(lab *labs.Lab, values map[string]string, lang string) (templ.Component, error) {
	j, err := v.s.judge(lab, values, lang)
	if err != nil {
		return nil, err
	}
	return challengeVerdict(j), nil
}

func (verdicts) Goal(lab *labs.Lab, goal string, w *engine.World, lang string) (templ.Component, error) {
	g, err := checkGoal(lab, goal, w, lang)
	if err != nil {
		return nil, err
	}
	return goalVerdict(g), nil
}
