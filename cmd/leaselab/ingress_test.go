package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// ingressSessions is how many students the ingress test brings through one
// proxy: more than the default --max-conns-per-addr (512), which is what an
// ingress pod's single address hit before --trusted-proxies.
const ingressSessions = 600

// nginxConf runs nginx in the foreground as one process, with every file
// it writes in dir, proxying listen to the server at backend as an ingress
// does: websocket upgrades passed, Host kept, the client's address added to
// X-Forwarded-For.
const nginxConf = `daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile 8192;
pid {{dir}}/nginx.pid;
error_log {{dir}}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path {{dir}}/body;
  proxy_temp_path {{dir}}/proxy;
  fastcgi_temp_path {{dir}}/fastcgi;
  uwsgi_temp_path {{dir}}/uwsgi;
  scgi_temp_path {{dir}}/scgi;
  large_client_header_buffers 4 64k;
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  server {
    listen {{listen}};
    location / {
      proxy_pass http://{{backend}};
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_read_timeout 3600s;
    }
  }
}
`

// startNginx runs nginx in front of backend on a free loopback port and
// gives that address; the test is skipped when nginx is not installed.
func startNginx(t *testing.T, backend string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx"} {
			if _, e := os.Stat(p); e == nil {
				bin, err = p, nil
			}
		}
	}
	if err != nil {
		t.Skip("nginx is not installed (apt-get install nginx-light; .ci/run installs it): the test behind a real proxy is skipped")
	}
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().String()
	ln.Close()
	conf := strings.NewReplacer("{{dir}}", dir, "{{listen}}", listen, "{{backend}}", backend).Replace(nginxConf)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", filepath.Join(dir, "error.log"))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if b, _ := os.ReadFile(filepath.Join(dir, "error.log")); t.Failed() && len(b) > 0 {
			t.Logf("nginx error.log:\n%s", b)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", listen)
		if err == nil {
			c.Close()
			return listen
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx does not listen on %s: %v\n%s", listen, err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// studentLoopback is the i-th student's own loopback address, none of
// them 127.0.0.1 (the proxy's, the one trusted).
func studentLoopback(i int) string {
	return fmt.Sprintf("127.1.%d.%d", i/250, i%250+1)
}

// TestBehindNginx: behind a real reverse proxy on loopback, 600 students
// from distinct addresses come through the proxy's one address. With the
// proxy trusted, all 600 live sessions are held (the per-address cap binds
// students, not the proxy), each is counted as its own client (the access
// log's client is the address budgets count against), and a forged
// X-Forwarded-For from a student changes nothing.
func TestBehindNginx(t *testing.T) {
	if testing.Short() {
		t.Skip("600 live sessions through nginx")
	}
	url, stop, logs := startServe(t, "--addr", "127.0.0.1:0", "--trusted-proxies", "127.0.0.1/32", "--access-log")
	defer stop()
	backend := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
	proxy := startNginx(t, backend)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var conns []*websocket.Conn
	var failures []string
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range ingressSessions {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			nd := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(studentLoopback(i))}, Timeout: 10 * time.Second}
			d := websocket.Dialer{NetDialContext: nd.DialContext, HandshakeTimeout: 30 * time.Second}
			h := http.Header{}
			if i%10 == 0 {
				// A forged address in front: the proxy appends the real one.
				h.Set("X-Forwarded-For", "198.51.100.7")
			}
			conn, resp, err := d.DialContext(ctx, "ws://"+proxy+"/en/labs/w1-w2/ws?seed="+strconv.Itoa(i), h)
			if err == nil {
				// The first message is the world's first frame.
				conn.SetReadDeadline(time.Now().Add(30 * time.Second))
				_, _, err = conn.ReadMessage()
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				status := ""
				if resp != nil {
					status = resp.Status
				}
				failures = append(failures, fmt.Sprintf("student %d: %v %s", i, err, status))
				return
			}
			conns = append(conns, conn)
		}()
	}
	wg.Wait()
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	if len(failures) > 0 {
		t.Fatalf("%d of %d sessions through the proxy failed; first: %s", len(failures), ingressSessions, failures[0])
	}

	// All held at once, on the server's own count.
	resp, err := http.Get(url + "metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`(?m)^leaselab_sessions_open (\d+)$`).FindSubmatch(b)
	if m == nil || string(m[1]) != strconv.Itoa(ingressSessions) {
		t.Errorf("sessions open %s, want %d", m, ingressSessions)
	}
	if !strings.Contains(string(b), `leaselab_errors_total{kind="conns"} 0`) {
		t.Errorf("connections were refused:\n%s", b)
	}

	// Each student is a client of its own: the address the access log
	// names is the one its budgets count against.
	clients := map[string]bool{}
	for _, rec := range logs() {
		if rec["msg"] == "request" && strings.HasSuffix(fmt.Sprint(rec["path"]), "/ws") {
			clients[fmt.Sprint(rec["remote"])] = true
		}
	}
	if len(clients) != ingressSessions {
		t.Errorf("%d distinct clients in the access log, want %d", len(clients), ingressSessions)
	}
	for c := range clients {
		if !strings.HasPrefix(c, "127.1.") {
			t.Errorf("a session counted against %q, not its student's address", c)
			break
		}
	}
}
