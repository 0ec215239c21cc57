package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"leaselab/class"
	"leaselab/labs"
	"leaselab/web"
)

// shutdownWait is how long open requests get to finish after a signal.
const shutdownWait = 5 * time.Second

const serveAbout = `
Serves the course: lessons, labs and their live worlds, at the address it
prints once it listens. With --content DIR it serves the course in DIR
instead of the embedded one, reloads it when a file changes, and open pages
refresh themselves.

Everything it says goes to stderr through one structured log (--log-format).
Content with errors at start is listed and the server does not start
(exit 1); a broken edit while serving keeps the last good version serving
and shows its errors to the author (--show-problems).`

// serveOptions is what serve's flags and environment ask for.
type serveOptions struct {
	addr, dir   string
	maxSessions int
	idle        time.Duration
	accessLog   bool
	logFormat   *oneOf
	basePath    string
	problems    *oneOf
	publicURL   string
	perAddr     int
	proxies     []*net.IPNet // --trusted-proxies, and loopback for --trust-proxy
	trustProxy  bool         // deprecated: --trusted-proxies 127.0.0.0/8,::1
	metricsAddr string
	maxMemory   byteSize
	memPerAddr  byteSize
	classes     classOptions
	joinsAddr   int     // --joins-per-addr
	searchHere  bool    // --search-in-server
	classroom   bool    // --classroom (classroom.go)
	addrWork    float64 // --addr-work, cores; 0: web.DefaultRoomWork
}

// parseServe reads serve's flags; ok false carries the exit code.
func parseServe(args []string, stdout, stderr io.Writer) (o serveOptions, code int, ok bool) {
	f := newFlags("serve", "leaselab [serve] [flags]", serveAbout)
	f.env = true
	f.StringVar(&o.addr, "addr", "localhost:8080", "where to listen, as `HOST:PORT`: :8080 serves a classroom, port 0 picks a free one")
	f.StringVar(&o.dir, "content", "", "serve the course in folder `DIR` instead of the embedded one, reloading it when files change")
	f.IntVar(&o.maxSessions, "max-sessions", 2000, "at most `N` live lab sessions at once; past it a lab page says the server is full")
	f.DurationVar(&o.idle, "idle-timeout", 15*time.Minute, "close a live session whose student sent nothing for `D`, a duration such as 15m or 90s")
	f.BoolVar(&o.accessLog, "access-log", false, "log every request: method, path, route, status, bytes, duration")
	o.logFormat = newOneOf("text", "text", "json")
	f.Var(o.logFormat, "log-format", "log as text or json (one object per line)")
	f.StringVar(&o.basePath, "base-path", "", "serve under the path `/P` (such as /leaselab), behind a proxy that forwards it unchanged; /healthz and /metrics answer at the root too")
	o.problems = newOneOf("loopback", "loopback", "all", "none")
	f.Var(o.problems, "show-problems", "who sees the banner of content errors: loopback (the author on this machine, not through a proxy), all, or none")
	f.StringVar(&o.publicURL, "public-url", "", "the address students use, a `URL` such as https://leases.example.edu: requests for any other host name are refused, and the serving line shows it")
	f.IntVar(&o.perAddr, "max-conns-per-addr", 512, "at most `N` connections from one client address; a trusted proxy is bound by the total only")
	var proxies string
	f.StringVar(&proxies, "trusted-proxies", "", "the networks `CIDR,...` of the proxies in front of the server, such as the ingress's pod network: their X-Forwarded-For, X-Real-IP, Forwarded and X-Forwarded-Host headers are believed, nobody else's")
	f.BoolVar(&o.trustProxy, "trust-proxy", false, "deprecated: the same as --trusted-proxies 127.0.0.0/8,::1 (a proxy on this machine)")
	f.StringVar(&o.metricsAddr, "metrics-addr", "", "serve /metrics (and /healthz) on `HOST:PORT` instead, for any host name; the site then has no /metrics")
	f.Var(&o.maxMemory, "max-memory", "memory the server may use, such as 1GiB: near it new live sessions are refused, and GOMEMLIMIT is set to nine tenths of it when unset (default: the container's limit, else half the machine's memory)")
	f.Var(&o.memPerAddr, "max-memory-per-addr", "memory the live sessions of one client address may hold (default the smaller of 128MiB and a quarter of --max-memory)")
	f.BoolVar(&o.searchHere, "search-in-server", false, "run the schedule searches pages ask for, and the judgements of submitted programs, inside the server (searches in a pool that rests between parts), instead of each in a process of its own at the lowest CPU priority")
	o.classes.flags(f)
	f.Float64Var(&o.addrWork, "addr-work", 0, "the work all students behind one client address may make the server do together, in `CORES` (a lecture room behind one NAT is one address; each student or browser has half a core of its own within it); default half the server's cores, at least 1")
	f.IntVar(&o.joinsAddr, "joins-per-addr", web.DefaultJoinsPerAddr, "students one client address may join to classes a minute (a third of them at once), and hold in one class: a lecture room behind one NAT is `N` students")
	f.BoolVar(&o.classroom, "classroom", false, "a lecture from this laptop: listen on every interface (:8080 unless --addr says otherwise) and print the address students use, this machine's LAN address (or --public-url), with a QR code; classes' join links and QR codes use it")
	f.group("Listening", "addr", "classroom", "base-path", "public-url", "metrics-addr")
	f.group("Behind a proxy", "trusted-proxies", "trust-proxy")
	f.group("Limits", "max-sessions", "idle-timeout", "max-conns-per-addr", "addr-work", "max-memory", "max-memory-per-addr", "search-in-server")
	f.group("Content", "content", "show-problems")
	f.group("Classes", "data", "database", "class-retention", "joins-per-addr")
	f.group("Logging", "log-format", "access-log")
	pos, code, ok := f.parse(args, stdout, stderr)
	if !ok {
		return o, code, false
	}
	switch {
	case len(pos) > 0:
		return o, usageError(stderr, "serve", "unexpected argument %q", pos[0]), false
	case o.maxSessions < 1:
		return o, usageError(stderr, "serve", "--max-sessions must be at least 1"), false
	case o.idle <= 0:
		return o, usageError(stderr, "serve", "--idle-timeout must be positive"), false
	case o.perAddr < 1:
		return o, usageError(stderr, "serve", "--max-conns-per-addr must be at least 1"), false
	case o.joinsAddr < 1:
		return o, usageError(stderr, "serve", "--joins-per-addr must be at least 1"), false
	case o.addrWork < 0:
		return o, usageError(stderr, "serve", "--addr-work must be positive, in cores such as 2 or 0.5"), false
	}
	o.classes.explicit = f.given("data") || f.given("database")
	if o.classroom && !f.given("addr") {
		o.addr = ":8080"
	}
	if o.classroom && !f.given("addr-work") {
		o.addrWork = float64(runtime.GOMAXPROCS(0)) // the room has the laptop to itself
	}
	if msg := o.classes.check(); msg != "" {
		return o, usageError(stderr, "serve", "%s", msg), false
	}
	if o.dir != "" {
		if info, err := os.Stat(o.dir); err != nil || !info.IsDir() {
			return o, usageError(stderr, "serve", "--content %s: not a folder", o.dir), false
		}
	}
	if _, err := web.CleanBasePath(o.basePath); err != nil {
		return o, usageError(stderr, "serve", "--base-path: %v", err), false
	}
	nets, err := web.ParseTrustedProxies(proxies)
	if err != nil {
		return o, usageError(stderr, "serve", "--trusted-proxies: %v", err), false
	}
	o.proxies = nets
	if o.trustProxy {
		o.proxies = append(o.proxies, web.LoopbackProxies...)
	}
	return o, 0, true
}

// newLogger is the one log every line of serve goes through.
func newLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// serveCmd serves the course until SIGINT or SIGTERM.
func serveCmd(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr)
}

// serve serves the course until ctx ends, then shuts down gracefully.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, code, ok := parseServe(args, stdout, stderr)
	if !ok {
		return code
	}
	log := newLogger(stderr, o.logFormat.val)
	cfg := webConfig(o, log)
	classes, ok := openClasses(ctx, o, &cfg, log)
	if !ok {
		return 1
	}
	if classes != nil {
		defer classes.Close()
	}
	var ln net.Listener
	if o.classroom {
		// Listening first: the students' address carries the port bound.
		var ok bool
		if ln, ok = classroomListen(o, &cfg, stdout, log); !ok {
			return 1
		}
	}
	srv, err := web.New(cfg)
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		logStartError(log, o.dir, err)
		return 1
	}
	defer srv.Close()
	return runServer(ctx, o, cfg, srv, ln, log)
}

// memoryCeiling is the memory the server may use, and tunes the Go
// collector to it.
func memoryCeiling(o serveOptions) int64 {
	// A class's memory is mostly its worlds' logs, which hold no pointers
	// for the collector to follow, and a play frame allocates next to
	// nothing, so collecting more often costs little CPU: the heap the
	// collector lets grow past what is live is most of what a session
	// costs beyond its world. Measured with leaselab load (1,000 playing
	// renew-load): 96 KB a session at 20, 117 at 50, for about a tenth more
	// CPU per frame than at 50. GOGC set in the environment wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(20)
	}
	// The memory ceiling: new sessions are refused near it (web/memory.go),
	// and the collector works harder as the heap nears nine tenths of it,
	// rather than let the kernel kill every student's session at once.
	maxMemory := int64(o.maxMemory)
	if maxMemory == 0 {
		maxMemory = web.DefaultMaxMemory()
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(maxMemory / 10 * 9)
	}
	return maxMemory
}

// webConfig is the server's configuration from serve's options (the
// class store aside).
func webConfig(o serveOptions, log *slog.Logger) web.Config {
	base, _ := web.CleanBasePath(o.basePath)
	cfg := web.Config{
		Logger: log, MaxSessions: o.maxSessions, IdleTimeout: o.idle,
		AccessLog: o.accessLog, BasePath: base, ShowProblems: o.problems.val, Build: buildInfo(),
		PublicURL: o.publicURL, TrustedProxies: o.proxies, MaxClientSessions: o.perAddr, MetricsElsewhere: o.metricsAddr != "",
		MaxMemory: memoryCeiling(o), MaxMemoryPerAddr: int64(o.memPerAddr), JoinsPerAddr: o.joinsAddr,
		RoomWork: o.addrWork,
	}
	if o.trustProxy {
		log.Warn("--trust-proxy is deprecated: it trusts a proxy on this machine, as --trusted-proxies 127.0.0.0/8,::1 does; say that instead")
	}
	if o.publicURL == "" && loopback(o.addr) {
		// Only this machine can reach it: answer only to its names, so a
		// page whose name an attacker points here (DNS rebinding) cannot.
		cfg.AllowedHosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	// A class's dashboard then says phones cannot reach it (issue 43).
	cfg.LoopbackOnly = loopback(o.addr)
	if o.dir != "" {
		cfg.Content, cfg.Watch = os.DirFS(o.dir), true
	}
	if !o.searchHere {
		if exe, err := os.Executable(); err == nil {
			cfg.SearchCommand = searchCommand(exe, o.dir)
			cfg.JudgeCommand = judgeCommand(exe, o.dir)
		} else {
			log.Warn("searches and judgements run inside the server: cannot find this program to start them apart", "err", err)
		}
	}
	return cfg
}

// openClasses opens the class store into cfg and purges it while ctx
// lasts. Without it class mode is off, unless the store was asked for
// (--data, --database) or is newer than this program: then ok is false
// and the server does not start.
func openClasses(ctx context.Context, o serveOptions, cfg *web.Config, log *slog.Logger) (classes *class.Service, ok bool) {
	classes, err := o.classes.open(ctx, log)
	switch {
	case err == nil:
		cfg.Classes, cfg.ClassRetention = classes, o.classes.retention
		go purgeClasses(ctx, classes, log)
		log.Info("classes", "store", o.classes.where(), "retention", o.classes.retention.String())
		return classes, true
	case o.classes.explicit || errors.Is(err, class.ErrNewerSchema):
		log.Error("cannot open the class database", "store", o.classes.where(), "err", err)
		return nil, false
	default:
		// The default folder cannot be made here (a read-only image, say):
		// the course is served, class mode says it is off.
		log.Error("class mode is off: the default class database cannot be opened; give --data DIR or --database URL", "store", o.classes.where(), "err", err)
		return nil, true
	}
}

// runServer serves srv on ln (on o.addr when ln is nil) and the metrics
// on theirs until ctx ends or a server stops.
func runServer(ctx context.Context, o serveOptions, cfg web.Config, srv *web.Server, ln net.Listener, log *slog.Logger) int {
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", o.addr); err != nil {
			log.Error("cannot listen", "addr", o.addr, "err", err)
			return 1
		}
	}
	// Timeouts for plain requests, and caps on connections under the file
	// limit: idle connections cannot starve the students (web/guard.go).
	hs := srv.HTTPServer()
	ln = srv.LimitListener(ln, web.ConnLimits{PerAddr: o.perAddr})
	if o.dir != "" {
		log.Info("course from a folder, reloaded when its files change", "content", o.dir)
	}
	errc := make(chan error, 2)
	var ms *http.Server
	if o.metricsAddr != "" {
		var ok bool
		if ms, ok = serveMetrics(o.metricsAddr, srv, errc, log); !ok {
			return 1
		}
	}
	log.Info("serving", "url", servingURL(o.publicURL, ln.Addr().String(), cfg.BasePath), "listen", ln.Addr().String(), "version", versionLine(cfg.Build), "max_memory", (*byteSize)(&cfg.MaxMemory).String())
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		log.Error("server stopped", "err", err)
		return 1
	case <-ctx.Done():
	}
	return shutDown(srv, hs, ms, log)
}

// serveMetrics serves /metrics (and /healthz) on addr; a server that
// stops says so on errc.
func serveMetrics(addr string, srv *web.Server, errc chan<- error, log *slog.Logger) (*http.Server, bool) {
	mln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Error("cannot listen", "metrics-addr", addr, "err", err)
		return nil, false
	}
	ms := &http.Server{Handler: srv.MetricsHandler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	log.Info("serving metrics", "url", "http://"+browsable(mln.Addr().String())+"/metrics")
	go func() { errc <- ms.Serve(mln) }()
	return ms, true
}

// shutDown gives open requests shutdownWait to finish; live sessions end
// at once.
func shutDown(srv *web.Server, hs, ms *http.Server, log *slog.Logger) int {
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
	defer cancel()
	srv.Close() // live sessions are hijacked connections: Shutdown does not wait for them
	if ms != nil {
		ms.Shutdown(sctx)
	}
	if err := hs.Shutdown(sctx); err != nil {
		log.Error("shutdown", "err", err)
		return 1
	}
	return 0
}

// servingURL is the address the serving line gives: the public URL when
// there is one (students use that), else the address bound (port 0 shows
// the port picked), written so that a browser on this machine opens it.
func servingURL(publicURL, bound, base string) string {
	if publicURL != "" {
		return strings.TrimRight(publicURL, "/") + base + "/"
	}
	return "http://" + browsable(bound) + base + "/"
}

// browsable is a bound address a browser can open: a wildcard host
// (0.0.0.0, ::) is not one, localhost is.
func browsable(bound string) string {
	host, port, err := net.SplitHostPort(bound)
	if err != nil {
		return bound
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// loopback reports whether a listen address is reachable from this
// machine only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// logStartError says why the server did not start: for broken content,
// one line per problem, as leaselab check prints them.
func logStartError(log *slog.Logger, dir string, err error) {
	var ps labs.Problems
	if !errors.As(err, &ps) {
		log.Error("cannot start", "err", err)
		return
	}
	src := "the embedded course"
	if dir != "" {
		src = dir
	}
	for _, p := range ps {
		if !p.Warning {
			if dir != "" {
				p.File = filepath.Join(dir, filepath.FromSlash(p.File))
			}
			log.Error("content error", "problem", p.String())
		}
	}
	log.Error(fmt.Sprintf("the course has %d error(s); fix them and start again (leaselab check lists them)", ps.Errors()), "content", src)
}

// searchProcessEnv marks a process a server started to run a search or a
// judgement (a test binary then acts as leaselab: main_test.go).
const searchProcessEnv = "LEASELAB_SEARCH_PROCESS"

// searchCommand runs a page's search as this program's search command, in
// a process of its own at the lowest CPU priority, on the course the
// server serves: the folder dir, or the embedded course when dir is "".
func searchCommand(exe, dir string) web.SearchCommand {
	return func(ctx context.Context, lab string, opt labs.SearchOptions) *exec.Cmd {
		args := []string{"search", lab, "--format", "stream", "--background"}
		if opt.Faults > 0 {
			args = append(args, "--faults", strconv.Itoa(opt.Faults))
		}
		for _, kv := range opt.Set {
			args = append(args, "--set", kv)
		}
		return apart(ctx, exe, dir, args)
	}
}

// apart is the command that runs this program with args in a process of
// its own, on the course the server serves: the folder dir, or the
// embedded course when dir is "".
func apart(ctx context.Context, exe, dir string, args []string) *exec.Cmd {
	if dir != "" {
		args = append(args, "--content", dir)
	} else {
		args = append(args, "--embedded")
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), searchProcessEnv+"=1")
	return cmd
}

// judgeCommand judges a submitted program as this program's judge
// command, in a process of its own at the lowest CPU priority, on the
// course the server serves (as searchCommand).
func judgeCommand(exe, dir string) web.JudgeCommand {
	return func(ctx context.Context, lab string) *exec.Cmd {
		return apart(ctx, exe, dir, []string{"judge", lab, "--background"})
	}
}
