package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"leaselab/web"
)

// addrEnv names the environment variable that sets the listen address when
// no --addr flag is given.
const addrEnv = "LEASELAB_ADDR"

// shutdownWait is how long open requests get to finish after a signal.
const shutdownWait = 5 * time.Second

// serveCmd serves the course until SIGINT or SIGTERM.
func serveCmd(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr)
}

// serve serves the course until ctx ends, then shuts down gracefully.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	defAddr := "localhost:8080"
	if a := os.Getenv(addrEnv); a != "" {
		defAddr = a
	}
	addr := fs.String("addr", defAddr, "listen address, host:port (env "+addrEnv+")")
	dir := fs.String("content", "", "serve the course from this folder instead of the embedded one, reloading it when files change")
	maxSessions := fs.Int("max-sessions", 2000, "live lab sessions at once; past it a lab page says the server is full")
	idle := fs.Duration("idle-timeout", 15*time.Minute, "close a live session whose student sent nothing this long")
	publicURL := fs.String("public-url", "", "the address students use (https://host[:port]); requests for any other host are refused")
	perAddr := fs.Int("max-conns-per-addr", 512, "connections one client address may hold; behind a proxy, the proxy is one address")
	trustProxy := fs.Bool("trust-proxy", false, "count work budgets by X-Forwarded-For (only behind a proxy that sets it)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: leaselab [serve] [--addr HOST:PORT] [--content DIR] [--max-sessions N] [--idle-timeout D] [--public-url URL] [--max-conns-per-addr N] [--trust-proxy]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "leaselab serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	// A live session keeps little (about 40 KB) but renders a lot of
	// short-lived frames; the default GC target, twice the live heap, would
	// make garbage the larger part of the server's memory. 50 costs a
	// little CPU and measured 88 instead of 110 KB per session with
	// 1,000 playing (leaselab load). GOGC set in the environment wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if *maxSessions < 1 || *idle <= 0 || *perAddr < 1 {
		fmt.Fprintln(stderr, "leaselab serve: --max-sessions, --idle-timeout and --max-conns-per-addr must be positive")
		return 2
	}
	cfg := web.Config{Logger: log, MaxSessions: *maxSessions, IdleTimeout: *idle, PublicURL: *publicURL, TrustProxy: *trustProxy}
	if *publicURL == "" && loopback(*addr) {
		// Only this machine can reach it: answer only to its names, so a
		// page whose name an attacker points here (DNS rebinding) cannot.
		cfg.AllowedHosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	if *dir != "" {
		info, err := os.Stat(*dir)
		if err != nil || !info.IsDir() {
			fmt.Fprintf(stderr, "leaselab serve: --content %s: not a folder\n", *dir)
			return 2
		}
		cfg.Content, cfg.Watch = os.DirFS(*dir), true
	}
	srv, err := web.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab serve: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab serve: %v\n", err)
		srv.Close()
		return 1
	}
	// Timeouts for plain requests, and caps on connections under the file
	// limit: idle connections cannot starve the students (web/guard.go).
	hs := srv.HTTPServer()
	ln = srv.LimitListener(ln, web.ConnLimits{PerAddr: *perAddr})
	fmt.Fprintf(stdout, "leaselab: serving on http://%s/\n", displayAddr(ln.Addr()))
	if *dir != "" {
		fmt.Fprintf(stdout, "leaselab: course from %s, reloaded when its files change\n", *dir)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		srv.Close()
		fmt.Fprintf(stderr, "leaselab serve: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	fmt.Fprintln(stdout, "leaselab: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
	defer cancel()
	srv.Close() // live sessions are hijacked connections: Shutdown does not wait for them
	if err := hs.Shutdown(sctx); err != nil {
		fmt.Fprintf(stderr, "leaselab serve: shutdown: %v\n", err)
		return 1
	}
	return 0
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

// displayAddr is the listen address as a person would type it.
func displayAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	if tcp.IP.IsUnspecified() || tcp.IP.IsLoopback() && tcp.IP.To4() == nil {
		return net.JoinHostPort("localhost", fmt.Sprint(tcp.Port))
	}
	if tcp.IP.IsLoopback() {
		return net.JoinHostPort("localhost", fmt.Sprint(tcp.Port))
	}
	return tcp.String()
}
