package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// startServe runs serve with args and JSON logs, and returns the URL it
// logs once it listens, a stop function that returns the exit code, and
// a function that gives the log lines read so far.
func startServe(t *testing.T, args ...string) (url string, stop func() int, logs func() []map[string]any) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, append([]string{"--log-format", "json"}, args...), io.Discard, pw)
		pw.Close()
	}()
	var mu sync.Mutex
	var lines []map[string]any
	logs = func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(lines)
	}
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %v\n%s", err, sc.Text())
		}
		lines = append(lines, rec)
		if rec["msg"] == "serving" {
			url, _ = rec["url"].(string)
			break
		}
	}
	if url == "" {
		cancel()
		t.Fatalf("serve exited with %d before serving; log: %v", <-done, lines)
	}
	go func() {
		for sc.Scan() {
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) == nil {
				mu.Lock()
				lines = append(lines, rec)
				mu.Unlock()
			}
		}
	}()
	stop = func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(10 * time.Second):
			t.Fatal("serve did not shut down")
			return -1
		}
	}
	return url, stop, logs
}

func TestServeLogsTheBoundURLAndShutsDown(t *testing.T) {
	url, stop, _ := startServe(t, "--addr", "127.0.0.1:0")
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0/") {
		t.Errorf("url %q: want the bound address, port picked", url)
	}
	resp, err := http.Get(url + "id/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET %sid/: %d", url, resp.StatusCode)
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

func TestServeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--nope"}, 2, "unknown flag --nope"},
		{[]string{"--idle-timeout", "15"}, 2, `--idle-timeout="15": want a duration such as 15m or 90s`},
		{[]string{"--max-sessions", "lots"}, 2, `--max-sessions="lots": want a whole number such as 2000`},
		{[]string{"--trusted-proxies", "10.0.0.0/99"}, 2, `--trusted-proxies: "10.0.0.0/99": want a network such as`},
		{[]string{"--content", "/does/not/exist"}, 2, "not a folder"},
		{[]string{"extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--max-sessions", "0"}, 2, "--max-sessions must be at least 1"},
		{[]string{"--log-format", "xml"}, 2, "want one of text, json"},
		{[]string{"--show-problems", "students"}, 2, "want one of loopback, all, none"},
		{[]string{"--base-path", "leaselab"}, 2, "start it with /"},
		{[]string{"--addr", "256.0.0.1:99999"}, 1, "cannot listen"},
		{[]string{"--class-retention", "5m"}, 2, "--class-retention must be at least 1h"},
		{[]string{"--joins-per-addr", "0"}, 2, "--joins-per-addr must be at least 1"},
		{[]string{"--database", "mysql://x"}, 2, "want a URL starting with postgres://"},
		{[]string{"--addr", "127.0.0.1:0", "--data", "/etc/hostname/sub"}, 1, "cannot open the class database"},
	} {
		var out, errOut strings.Builder
		code := serve(context.Background(), tc.args, &out, &errOut)
		if code != tc.code || !strings.Contains(errOut.String(), tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d with %q", tc.args, code, errOut.String(), tc.code, tc.msg)
		}
		if out.Len() > 0 {
			t.Errorf("%v: wrote to stdout: %q", tc.args, out.String())
		}
	}
}

// TestServeEnvironment sets every serve flag from its variable.
func TestServeEnvironment(t *testing.T) {
	dir := copyContent(t)
	t.Setenv("LEASELAB_ADDR", "127.0.0.1:0")
	t.Setenv("LEASELAB_CONTENT", dir)
	t.Setenv("LEASELAB_MAX_SESSIONS", "7")
	t.Setenv("LEASELAB_IDLE_TIMEOUT", "3m")
	t.Setenv("LEASELAB_ACCESS_LOG", "true")
	t.Setenv("LEASELAB_BASE_PATH", "/course")
	t.Setenv("LEASELAB_SHOW_PROBLEMS", "none")
	t.Setenv("LEASELAB_LOG_FORMAT", "text") // the command line's json wins
	url, stop, logs := startServe(t)
	if !strings.HasSuffix(url, "/course/") {
		t.Errorf("url %q does not carry LEASELAB_BASE_PATH", url)
	}
	sawContent := false
	for _, l := range logs() {
		sawContent = sawContent || l["content"] == dir
	}
	if !sawContent {
		t.Errorf("LEASELAB_CONTENT not used; log: %v", logs())
	}
	if code, _ := httpGet(t, url+"id/"); code != 200 {
		t.Errorf("GET under the base path: %d", code)
	}
	if stop() != 0 {
		t.Error("exit not 0")
	}

	// Every flag has its variable, and a bad value is a usage error.
	o, code, ok := parseServe(nil, io.Discard, io.Discard)
	if !ok || o.maxSessions != 7 || o.idle != 3*time.Minute || !o.accessLog || o.problems.val != "none" || o.logFormat.val != "text" {
		t.Errorf("from the environment: %+v (code %d)", o, code)
	}
	t.Setenv("LEASELAB_MAX_SESSIONS", "many")
	var errs strings.Builder
	if _, code, _ := parseServe(nil, io.Discard, &errs); code != 2 || !strings.Contains(errs.String(), `LEASELAB_MAX_SESSIONS="many"`) {
		t.Errorf("bad variable: exit %d, %q", code, errs.String())
	}
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeRefusesBrokenContent: broken content at start is listed and the
// server does not start.
func TestServeRefusesBrokenContent(t *testing.T) {
	dir := copyContent(t)
	lab := filepath.Join(dir, "labs", "w1-w2", "lab.yaml")
	b, _ := os.ReadFile(lab)
	os.WriteFile(lab, []byte(strings.Replace(string(b), "ttl: 15s", "ttl: fifteen", 1)), 0o644)
	var errs strings.Builder
	code := serve(context.Background(), []string{"--addr", "127.0.0.1:0", "--content", dir}, io.Discard, &errs)
	want := filepath.Join(dir, "labs", "w1-w2", "lab.yaml") + ":"
	if code != 1 || !strings.Contains(errs.String(), want) || !strings.Contains(errs.String(), "fix them and start again") {
		t.Errorf("exit %d; want 1 naming %s:\n%s", code, want, errs.String())
	}
	if strings.Contains(errs.String(), "msg=serving") {
		t.Error("it served")
	}
}

// TestServeVariableMessages: a bad value in a variable names the variable
// and the form it wants, as a bad flag names the flag.
func TestServeVariableMessages(t *testing.T) {
	for _, tc := range []struct{ name, value, msg string }{
		{"LEASELAB_IDLE_TIMEOUT", "15", `LEASELAB_IDLE_TIMEOUT="15": want a duration such as 15m or 90s`},
		{"LEASELAB_MAX_CONNS_PER_ADDR", "many", `LEASELAB_MAX_CONNS_PER_ADDR="many": want a whole number such as 512`},
		{"LEASELAB_ACCESS_LOG", "yes please", `LEASELAB_ACCESS_LOG="yes please": want true or false`},
		{"LEASELAB_LOG_FORMAT", "xml", `LEASELAB_LOG_FORMAT="xml": want one of text, json`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.name, tc.value)
			var errOut strings.Builder
			_, code, ok := parseServe(nil, io.Discard, &errOut)
			if ok || code != 2 || !strings.Contains(errOut.String(), tc.msg) {
				t.Errorf("ok %v, exit %d, stderr %q; want 2 with %q", ok, code, errOut.String(), tc.msg)
			}
		})
	}
}

// TestServingLineBehindAProxy: with --public-url the serving line gives
// that URL (students use it) and the bound address beside it; the metrics
// address, when set, is logged and answers.
func TestServingLineBehindAProxy(t *testing.T) {
	url, stop, logs := startServe(t, "--addr", "127.0.0.1:0", "--public-url", "https://leases.example.edu", "--base-path", "/ll",
		"--metrics-addr", "127.0.0.1:0", "--trusted-proxies", "127.0.0.1")
	defer stop()
	if url != "https://leases.example.edu/ll/" {
		t.Errorf("serving url %q, want the public URL with the base path", url)
	}
	var listen, metricsURL string
	for _, rec := range logs() {
		switch rec["msg"] {
		case "serving":
			listen, _ = rec["listen"].(string)
		case "serving metrics":
			metricsURL, _ = rec["url"].(string)
		}
	}
	req, _ := http.NewRequest("GET", "http://"+listen+"/ll/id/", nil)
	req.Host = "leases.example.edu"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("the page at the listen address %q: %v %v", listen, err, resp)
	} else {
		resp.Body.Close()
	}
	resp, err := http.Get(metricsURL)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("metrics at %q: %v %v", metricsURL, err, resp)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "leaselab_sessions_open") {
		t.Errorf("metrics address serves %q", b)
	}
	for bound, want := range map[string]string{"[::]:8080": "localhost:8080", "0.0.0.0:80": "localhost:80", "127.0.0.1:9": "127.0.0.1:9", "[::1]:9": "[::1]:9"} {
		if got := browsable(bound); got != want {
			t.Errorf("browsable(%q) = %q, want %q", bound, got, want)
		}
	}
}

// TestTrustedProxiesFlag: --trusted-proxies reads networks and addresses;
// the deprecated --trust-proxy stands for a proxy on this machine.
func TestTrustedProxiesFlag(t *testing.T) {
	o, _, ok := parseServe([]string{"--trusted-proxies", "10.244.0.0/16, 192.0.2.7"}, io.Discard, io.Discard)
	if !ok || len(o.proxies) != 2 || o.proxies[0].String() != "10.244.0.0/16" || o.proxies[1].String() != "192.0.2.7/32" {
		t.Errorf("--trusted-proxies: ok %v, %v", ok, o.proxies)
	}
	o, _, ok = parseServe([]string{"--trust-proxy"}, io.Discard, io.Discard)
	if !ok || len(o.proxies) != 2 || !o.proxies[0].Contains(net.ParseIP("127.0.0.1")) || !o.proxies[1].Contains(net.ParseIP("::1")) {
		t.Errorf("--trust-proxy: ok %v, %v; want loopback", ok, o.proxies)
	}
	if o, _, ok := parseServe(nil, io.Discard, io.Discard); !ok || len(o.proxies) != 0 {
		t.Errorf("by default: %v trusted, want none", o.proxies)
	}
}
