// Package web serves the course: server-rendered pages in every language,
// and a live lab world per websocket.
package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a-h/templ"
	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"leaselab/class"
	"leaselab/classroom"
	"leaselab/content"
	"leaselab/labs"
	"leaselab/live"
	"leaselab/static"
)

// Config is everything a Server is built from. The zero value serves the
// embedded course.
type Config struct {
	Content   fs.FS         // the course; the embedded one when nil
	Watch     bool          // reload Content when its files change
	PollEvery time.Duration // how often Watch looks; default 500ms
	Static    fs.FS         // CSS and scripts; the embedded ones when nil
	Logger    *slog.Logger

	// MaxSessions bounds the live sessions open at once; past it a lab
	// page says the server is full. Default 2,000.
	MaxSessions int
	// IdleTimeout closes a live session whose client sent nothing this
	// long (play mode does not count). Default 15 minutes.
	IdleTimeout time.Duration

	// PublicURL is the address students use, such as
	// https://leases.example.edu. When set, a request for any other host
	// name is refused (against DNS rebinding), and so is a websocket whose
	// page is not on it.
	PublicURL string
	// AllowedHosts are more host names (or host:port) the server answers
	// to, besides PublicURL's. Empty, with no PublicURL: any.
	AllowedHosts []string
	// TrustedProxies are the networks whose forwarded headers are
	// believed (proxy.go): from a peer inside one, budgets count the
	// student's address it forwarded, the host check and the origin check
	// take the site's name it forwarded, and the per-address connection
	// cap does not apply (every student comes through it). Empty: none,
	// loopback and private networks included.
	TrustedProxies []*net.IPNet
	// MaxClientSessions bounds the live sessions one client address holds
	// at once, the student's own behind a trusted proxy. Default 512 (serve
	// passes --max-conns-per-addr).
	MaxClientSessions int
	// SessionWork and AddrWork are the work budgets, as a share of one
	// core: what one live session, and everything of one client (a
	// student or a browser, client.go; before issue 43 an address) may
	// make the server do. Defaults 0.25 and 0.5.
	SessionWork, AddrWork float64
	// RoomWork is the ceiling of one client address, all its clients
	// together, in cores: a lecture room behind one NAT is one address.
	// Default DefaultRoomWork (serve passes --addr-work); never less than
	// AddrWork.
	RoomWork float64

	// BasePath serves the site under a path such as "/leaselab": every
	// link, asset, socket URL and redirect carries it, and requests
	// outside it are not found. See CleanBasePath.
	BasePath string
	// MetricsElsewhere: /metrics is served by MetricsHandler on an address
	// of its own, and not with the site.
	MetricsElsewhere bool
	// AccessLog logs every request at level Info.
	AccessLog bool
	// ShowProblems says who sees the banner listing content errors:
	// "loopback" (the default: a client on this machine that did not come
	// through a proxy, that is the author), "all" or "none".
	ShowProblems string
	// Build is this binary's version, shown in /metrics.
	Build BuildInfo
	// Clock is the live sessions' clock (idle timeouts, play frames,
	// message rates); the wall clock when nil. Tests move their own.
	Clock live.Clock
	// MaxMemory is the memory the server may use, in bytes: live sessions
	// may hold part of it (a new one is refused near it, never one open
	// dropped). Default DefaultMaxMemory: the container's limit, else half
	// the machine's memory.
	MaxMemory int64
	// MaxMemoryPerAddr is what the live sessions of one client address may
	// hold, in bytes. Default the smaller of 128 MiB and MaxMemory/4.
	MaxMemoryPerAddr int64

	// Classes keeps the classes of class mode (issue 27); nil: class mode
	// is off, and its pages say so.
	Classes *class.Service
	// SearchCommand, when set, runs each search a page asks for in a
	// process of its own (search_process.go); nil: in the server's pool.
	SearchCommand SearchCommand
	// JudgeCommand, when set, judges each written worker a page submits in
	// a process of its own (judge_process.go); nil: in the server.
	JudgeCommand JudgeCommand

	// ClassRetention is how long an ended class is kept, as its
	// instructor is told; default class.DefaultRetention.
	ClassRetention time.Duration
	// JoinsPerAddr is how many students one client address may join a
	// minute, and hold in one class: a lecture room behind one NAT
	// (class_limits.go). Default DefaultJoinsPerAddr (serve passes
	// --joins-per-addr).
	JoinsPerAddr int
	// StudentURL is the address students reach the server by, such as
	// http://192.168.1.23:8080 (classroom mode's LAN address): the join
	// link and QR codes use it whatever name the instructor's browser
	// used. Empty: PublicURL, else the address a request came to.
	StudentURL string
	// LoopbackOnly: the server listens on this machine only, so a class's
	// dashboard says that phones cannot reach it (class_projector.go).
	LoopbackOnly bool
	// ClassOpened, if set, is told of each class opened from a page, with
	// its join link (classroom mode prints it in the terminal).
	ClassOpened func(c class.Class, joinURL string)

	// load reads Content (labs.LoadWith when nil): the package's tests
	// share one load of the embedded course among their servers.
	load func(fs.FS, labs.Options) (*labs.Course, error)
}

// BuildInfo is what a binary knows of its own build.
type BuildInfo struct {
	Version   string // module version, or "(devel)"
	Revision  string // VCS revision, when built from a checkout
	Time      string // the revision's commit time, RFC 3339
	Modified  bool   // the checkout had changes
	GoVersion string
}

// CleanBasePath checks a base path and writes it as Config.BasePath wants
// it: "" or a path that starts with "/" and does not end with one.
func CleanBasePath(p string) (string, error) {
	p = strings.TrimRight(p, "/")
	if p == "" {
		return "", nil
	}
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%q: start it with /, such as /leaselab", p)
	}
	if u, err := url.Parse(p); err != nil || u.Path != p || strings.Contains(p, "//") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") {
		return "", fmt.Errorf("%q: want a plain path such as /leaselab", p)
	}
	return p, nil
}

// Server is the web app. It is an http.Handler.
type Server struct {
	log     *slog.Logger
	course  *courseHolder
	assets  *assets
	echo    *echo.Echo
	handler http.Handler // echo, under the base path

	base         string // Config.BasePath
	watch        bool
	accessLog    bool
	showProblems string
	// metricsElsewhere: Config.MetricsElsewhere
	metricsElsewhere bool
	build            BuildInfo

	// ctx ends every live session when the server closes: http.Server's
	// Shutdown does not wait for hijacked connections.
	ctx      context.Context
	cancel   context.CancelFunc
	sessions sync.WaitGroup
	closeMu  sync.Mutex // orders startSession before Close's wait
	closed   bool

	maxSessions int
	metrics     *metrics
	refusals    refusalLog

	allowedHosts []string // empty: any
	proxies      *proxies
	clients      *clientSessions
	sessionWork  float64
	addrBudgets  *addrBudgets
	busy         busyAnswers // refuse.go
	mem          *memLedger
	// Deterministic results, kept so that asking again costs nothing.
	verdicts *lru[verdictKey, *labs.ChallengeVerdict]
	answers  *lru[answerKey, *labs.Verdict]
	pages    *lru[pageKey, []byte]
	searches *searcher
	// judgeCommand judges written workers apart (Config.JudgeCommand);
	// judgeCPU is the CPU time those processes said they used.
	judgeCommand JudgeCommand
	judgeCPU     atomic.Int64
	judgeRuns    atomic.Int64

	upgrader websocket.Upgrader
	// live is what the live connections are given (package live). Its
	// players draw the play frames of every playing session: one fewer
	// than the cores, so that under load play frames give way (they come
	// late, or a tick passes without one) and a core is left for the
	// students' own commands and for writing frames out (live/play.go).
	live live.Config
	// classes: Config.Classes; creates bounds the classes an address opens.
	classes       *class.Service
	creates       createLimit
	joins         *joinLimits // class_limits.go
	retentionDays int
	room          *classroom.Room // class mode's live half (class_room.go)
	// studentURL, loopbackOnly, classOpened: Config's (class_projector.go)
	studentURL   string
	loopbackOnly bool
	classOpened  func(class.Class, string)
	// judging queues submitted programs' judgements fairly, per student
	// (judge_queue.go); heavySlots are the heavy pages made at once
	// (guard.go's heavy): one core fewer than the server has, so that a
	// room's page loads leave the students' frames a core.
	judging    *judgeQueue
	heavySlots chan struct{}
}

// New builds a server. It fails when the static assets cannot be read or
// the content has errors (a labs.Problems error). Content that breaks
// later, while Watch reloads it, keeps the last good version serving and
// shows its problems in the pages.
func New(cfg Config) (*Server, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	a, err := assetsOf(cfg.Static)
	if err != nil {
		return nil, err
	}
	hosts, err := allowedHosts(cfg.PublicURL, cfg.AllowedHosts)
	if err != nil {
		return nil, err
	}
	s := newServer(cfg, a)
	s.allowedHosts = hosts
	s.upgrader = s.newUpgrader()
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.course = newCourseHolder(cfg.Content, cfg.load, cfg.Logger, labs.Options{Link: func(lang, kind, id string) string {
		return s.base + labs.DefaultLink(lang, kind, id)
	}})
	if cur := s.course.get(); cur.course == nil {
		s.cancel()
		return nil, cur.err
	}
	s.startLive(cfg)
	if cfg.Watch {
		go s.course.watch(s.ctx, cfg.PollEvery)
	}
	if s.classes != nil {
		s.room = classroom.New(classroom.Config{Classes: s.classes, Pages: roomPages{s}, Clock: cfg.Clock, Done: s.ctx})
		go s.armTimers() // the timed votes open when the server starts (class_grades.go)
	}
	s.echo = s.routes()
	s.handler = s.echo
	if s.base != "" {
		s.handler = http.StripPrefix(s.base, s.echo)
	}
	return s, nil
}

// fill puts the defaults in what cfg leaves out, and checks what it says.
func (cfg *Config) fill() error {
	if cfg.Content == nil {
		cfg.Content = content.FS
	}
	if cfg.Static == nil {
		cfg.Static = static.FS
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.PollEvery <= 0 {
		cfg.PollEvery = 500 * time.Millisecond
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = 2000
	}
	if cfg.Clock == nil {
		cfg.Clock = live.WallClock{}
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 15 * time.Minute
	}
	if cfg.MaxClientSessions <= 0 {
		cfg.MaxClientSessions = 512
	}
	if cfg.SessionWork <= 0 {
		cfg.SessionWork = defaultSessionWork
	}
	if cfg.AddrWork <= 0 {
		cfg.AddrWork = defaultAddrWork
	}
	if cfg.MaxMemory <= 0 {
		cfg.MaxMemory = DefaultMaxMemory()
	}
	if cfg.RoomWork <= 0 {
		cfg.RoomWork = DefaultRoomWork()
	}
	if cfg.ClassRetention <= 0 {
		cfg.ClassRetention = class.DefaultRetention
	}
	if cfg.load == nil {
		cfg.load = labs.LoadWith
	}
	base, err := CleanBasePath(cfg.BasePath)
	if err != nil {
		return fmt.Errorf("base path: %w", err)
	}
	cfg.BasePath = base
	switch cfg.ShowProblems {
	case "":
		cfg.ShowProblems = "loopback"
	case "loopback", "all", "none":
	default:
		return fmt.Errorf("ShowProblems %q: want loopback, all or none", cfg.ShowProblems)
	}
	return nil
}

// newServer is the server cfg (filled) describes, before its course,
// its live connections and its routes.
func newServer(cfg Config, a *assets) *Server {
	s := &Server{
		log: cfg.Logger, assets: a, maxSessions: cfg.MaxSessions, metrics: newMetrics(),
		base: cfg.BasePath, watch: cfg.Watch, accessLog: cfg.AccessLog, metricsElsewhere: cfg.MetricsElsewhere, showProblems: cfg.ShowProblems, build: cfg.Build,
		proxies: newProxies(cfg.TrustedProxies), clients: newClientSessions(cfg.MaxClientSessions), sessionWork: cfg.SessionWork, addrBudgets: newAddrBudgets(cfg.AddrWork, addrBurst),
		mem:      newMemLedger(cfg.MaxMemory, cfg.MaxMemoryPerAddr),
		verdicts: newLRU[verdictKey](256, 1<<20, func(*labs.ChallengeVerdict) int { return 1 }),
		answers:  newLRU[answerKey](1024, 1<<20, func(*labs.Verdict) int { return 1 }),
		pages:    newLRU[pageKey](512, 64<<20, func(b []byte) int { return len(b) }),
		searches: newSearcher(cfg.AddrWork, cfg.SearchCommand), judgeCommand: cfg.JudgeCommand,
	}
	s.classes = cfg.Classes
	s.joins = newJoinLimits(cfg.JoinsPerAddr)
	s.addrBudgets.ceil = cfg.RoomWork
	s.judging = newJudgeQueue(s, cfg.JudgeCommand != nil)
	s.heavySlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))
	s.studentURL = strings.TrimRight(cfg.StudentURL, "/")
	if s.studentURL == "" {
		s.studentURL = strings.TrimRight(cfg.PublicURL, "/")
	}
	s.loopbackOnly, s.classOpened = cfg.LoopbackOnly, cfg.ClassOpened
	s.retentionDays = int(cfg.ClassRetention / (24 * time.Hour))
	return s
}

// newUpgrader is how the server upgrades a lab page's request to its
// live socket.
func (s *Server) newUpgrader() websocket.Upgrader {
	return websocket.Upgrader{
		// A client sends one short command at a time (at most
		// maxMessageSize, read through in pieces); every connection holds
		// its read buffer, so it is small.
		ReadBufferSize: 256, WriteBufferSize: 8192,
		// An idle session holds no write buffer; most are idle most of the time.
		WriteBufferPool: &sync.Pool{},
		// No permessage-deflate: gorilla allocates a compressor (a few
		// hundred KB, cleared) for each compressed message and an inflater
		// for each client message once a busy heap has emptied its pools.
		// Measured with 2,000 playing w1-w2 sessions (leaselab load, whose
		// sessions offer it as browsers do): 193-277 µs of server CPU a
		// frame compressing every message of 512 bytes or more, 108 µs
		// only those of 2 KB or more, against 54-83 µs without, and the
		// frames thinned out. Tried again with only messages of 4 KB or
		// more compressed (whole pictures: 3 in 100 messages, over half of
		// the bytes): 55.6-59.5 µs a frame against 43.7-50.6, and the
		// commands' p99 went from 2.6-3.2 ms to 8.9-16.7 (every client
		// message is compressed then, and each takes an inflater; three
		// runs each, alternately). Frames are kept small instead (draw).
		CheckOrigin: func(r *http.Request) bool { return s.checkOrigin(r) == nil },
		Error: func(w http.ResponseWriter, r *http.Request, status int, reason error) {
			http.Error(w, "leaselab: not a live lab connection: "+reason.Error(), status)
		},
	}
}

// startLive fills what the live connections are given (package live)
// and starts its players and render goroutines.
func (s *Server) startLive(cfg Config) {
	s.live = live.Config{
		Clock: cfg.Clock, Log: cfg.Logger, Metrics: s.metrics, Renderers: live.NewRenderers(),
		Players: live.NewPlayers(cfg.Clock), IdleTimeout: cfg.IdleTimeout, Done: s.ctx, Base: s.base,
		Verdicts: verdicts{s},
	}
	for range max(1, runtime.GOMAXPROCS(0)-1) {
		go s.live.Players.Run(s.ctx)
	}
	for range max(8, 4*runtime.GOMAXPROCS(0)) {
		go s.live.Renderers.Run(s.ctx)
	}
}

func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.SchemeExtractor = s.proxies.scheme
	e.IPExtractor = s.proxies.clientIP // the access log's client
	e.Use(s.observe)                   // outermost: it counts what Recover answers too
	e.Use(middleware.Recover())
	e.Use(s.checkHost)
	e.Use(securityHeaders)
	e.Use(s.markAuthor)
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{
		// A form's answer (a vote, a dashboard's button) is a redirect, a
		// status or a line: compressing gains nothing, and a class voting
		// at once drained the compressors' pool, each new one about
		// 800 KB of state (measured: gzip.NewWriterLevel, then Close).
		Skipper: func(c echo.Context) bool {
			r := c.Request()
			p := r.URL.Path
			return (r.Method != http.MethodGet && r.Method != http.MethodHead) ||
				strings.HasPrefix(p, staticPrefix) || strings.HasSuffix(p, "/ws") || strings.HasSuffix(p, "/search") || strings.HasSuffix(p, "/events") || p == reloadPath
		},
		// What fits in a packet or two goes as it is.
		MinLength: 2048,
	}))
	e.Use(s.classBar)  // inside gzip: it writes the bar into the page's HTML
	e.Use(s.browserID) // client.go: budgets follow the browser, not its address
	// Every page and probe answers HEAD as it answers GET, without the
	// body (net/http drops it): uptime monitors often ask with HEAD.
	get := func(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) {
		e.Match([]string{http.MethodGet, http.MethodHead}, path, h, m...)
	}
	get("/", func(c echo.Context) error {
		c.Response().Header().Add("Vary", "Accept-Language")
		return c.Redirect(http.StatusFound, s.base+"/"+preferredLang(c.Request().Header.Get("Accept-Language"))+"/")
	})
	get("/static/:file", func(c echo.Context) error {
		s.assets.serve(c.Response(), c.Request(), c.Param("file"))
		return nil
	})
	get("/healthz", func(c echo.Context) error { return c.String(http.StatusOK, "ok\n") })
	get("/metrics", s.metricsShow)
	get("/:lang", func(c echo.Context) error {
		if !knownLang(c.Param("lang")) {
			return notFound(labs.DefaultLang)
		}
		return c.Redirect(http.StatusFound, s.base+"/"+c.Param("lang")+"/")
	})
	if s.watch {
		e.GET(reloadPath, s.contentChanges)
	}
	get("/:lang/", s.homeShow)
	get("/:lang/lessons/:id", s.lessonShow)
	get("/:lang/labs/:id", s.labShow, s.heavy)
	get("/:lang/labs/:id/diagram.svg", s.diagramShow, s.heavy)
	get("/:lang/labs/:id/at", s.snapshotShow, s.heavy)
	get("/:lang/labs/:id/whatif", s.whatifShow, s.heavy)
	get("/:lang/labs/:id/search", s.searchShow)
	get("/:lang/join", s.joinShow)
	// Every form that changes what the server keeps comes from this
	// site's own pages, is small, and is paid for (forms.go).
	e.POST("/:lang/join", s.joinPost, s.ownForm)
	e.POST("/:lang/class", s.classCreate, s.ownForm)
	e.POST("/:lang/class/vote", s.classVote, s.ownForm)
	e.POST("/:lang/class/leave", s.classLeave, s.ownForm)
	e.GET("/:lang/class/events", s.classEvents)
	get("/:lang/teach/:token", s.teachShow)
	get("/:lang/teach/:token/:view", s.teachShow)
	e.GET("/:lang/teach/:token/events", s.teachEvents)
	get("/:lang/projector/:ptoken", s.projectorShow)
	get("/:lang/lecturer", s.lecturerShow)
	e.POST("/:lang/lecturer", s.lecturerPost, s.ownForm)
	e.GET("/:lang/projector/:ptoken/events", s.projectorEvents)
	e.POST("/:lang/teach/:token/:act", s.teachAct, s.ownForm)
	e.GET("/:lang/labs/:id/ws", s.labSocket)
	e.GET("/:lang/labs/:id/whatif/ws", s.pairSocket)
	return e
}

// contentSecurityPolicy lets a page load only from this server: the rule
// "no CDN, no third-party request" is enforced by the browser too. Inline
// style is allowed for the diagram's own <style>; script is not.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		return next(c)
	}
}

// ServeHTTP serves the site.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if field := headerTooLarge(r.Header); field != "" {
		s.refuseHeader(w, r, field)
		return
	}
	if s.refuseEarly(w, r) {
		return
	}
	if s.base != "" {
		switch p := r.URL.Path; {
		case p == s.base:
			http.Redirect(w, r, s.base+"/", http.StatusFound)
			return
		case p == "/healthz" || p == "/metrics":
			// Probes and scrapers are usually set up without the app's
			// path: they answer at the root too.
			s.echo.ServeHTTP(w, r)
			return
		case !strings.HasPrefix(p, s.base+"/"):
			s.outsideBase(w, r)
			return
		}
	}
	s.handler.ServeHTTP(w, r)
}

// outsideBase answers a request outside the base path: not found, counted
// and logged like every other request.
func (s *Server) outsideBase(w http.ResponseWriter, r *http.Request) {
	c := s.echo.AcquireContext()
	defer s.echo.ReleaseContext(c)
	c.Reset(r, w)
	s.observe(func(echo.Context) error { return notFound(labs.DefaultLang) })(c)
}

// Close ends every live session and stops watching the content.
func (s *Server) Close() {
	s.closeMu.Lock()
	s.closed = true
	s.closeMu.Unlock()
	s.cancel()
	s.sessions.Wait()
}

// startSession counts a live session about to start, unless the server is
// closing: a WaitGroup must not grow from zero while Close waits on it.
func (s *Server) startSession() bool {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed {
		return false
	}
	s.sessions.Add(1)
	return true
}

// newPage fills what every page needs.
func (s *Server) newPage(lang, path, title, kind string) *page {
	b := s.base
	p := &page{Lang: lang, Base: b, Path: path, Title: title, Kind: kind, CSS: b + s.assets.URL("app.css"), JS: b + s.assets.URL("app.js"), Preload: s.assets.Preloads(b, "app.js"), SearchJS: b + s.assets.URL("search.js"), Icon: b + s.assets.URL("icon.png")}
	cur := s.course.get()
	p.Problems = cur.problems
	if s.watch {
		p.Reload, p.ReloadJS = b+reloadPath+"?since="+cur.version, b+s.assets.URL("reload.js")
	}
	return p
}

// render writes a component only once it has rendered in full, so a failed
// render never sends half a page.
func render(c echo.Context, status int, comp templ.Component) error {
	b, err := renderBytes(c, comp)
	if err != nil {
		return err
	}
	return c.HTMLBlob(status, b)
}

// renderBytes renders a whole page into memory.
func renderBytes(c echo.Context, comp templ.Component) ([]byte, error) {
	var buf bytes.Buffer
	if err := comp.Render(c.Request().Context(), &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// renderString renders a fragment for a websocket frame.
func renderString(comp templ.Component) (string, error) {
	var b strings.Builder
	err := comp.Render(context.Background(), &b)
	return b.String(), err
}

// pageError is an error shown as a page with a status.
type pageError struct {
	status int
	lang   string
	key    string // UI text key
	title  string // UI text key of the page's heading; error.title if empty
	args   []any  // what the text names, when it is a format
}

func (e *pageError) Error() string {
	if len(e.args) > 0 {
		return fmt.Sprintf(T(e.lang, e.key), e.args...)
	}
	return T(e.lang, e.key)
}

// Key and Args make a pageError Readable (catalog.Error): a live socket
// says it in the page's language as a page would.
func (e *pageError) Key() string { return e.key }
func (e *pageError) Args() []any { return e.args }

func notFound(lang string) error {
	return &pageError{status: http.StatusNotFound, lang: lang, key: "error.notfound"}
}

func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, lang, msg, title := http.StatusInternalServerError, langOf(c), "", "error.title"
	var pe *pageError
	var he *echo.HTTPError
	switch {
	case asPageError(err, &pe):
		status, lang, msg = pe.status, pe.lang, pe.Error()
		if pe.title != "" {
			title = pe.title
		}
	case asHTTPError(err, &he):
		status = he.Code
		msg = T(lang, "error.notfound")
		if status != http.StatusNotFound {
			msg = http.StatusText(status)
		}
	default:
		s.log.Error("request failed", "path", c.Request().URL.Path, "err", err)
		msg = http.StatusText(status)
	}
	p := s.newPage(lang, "/", T(lang, title), "error")
	if err := render(c, status, errorPage(p, msg)); err != nil {
		c.String(status, msg)
	}
}

// langOf is the language a request asks for, or the default.
func langOf(c echo.Context) string {
	seg := strings.SplitN(strings.TrimPrefix(c.Request().URL.Path, "/"), "/", 2)[0]
	if knownLang(seg) {
		return seg
	}
	return labs.DefaultLang
}
