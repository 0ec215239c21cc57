package load

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"net/http/httptest"
	"net/url"

	"leaselab/web"
)

func TestRunPlaysSessions(t *testing.T) {
	s, err := web.New(web.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer func() { s.Close(); ts.Close() }()

	r, err := Run(context.Background(), Config{URL: ts.URL, Sessions: 20, Idle: 300, Hold: time.Second, Every: 200 * time.Millisecond, PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	if r.Held != 20 || r.Failed != 0 || r.Closed != 0 {
		t.Errorf("held %d, failed %d (%s), closed %d", r.Held, r.Failed, r.FirstDialError, r.Closed)
	}
	if r.IdleHeld != 300 || r.IdleFailed != 0 || r.IdleClosed != 0 {
		t.Errorf("idle: held %d, failed %d, closed %d", r.IdleHeld, r.IdleFailed, r.IdleClosed)
	}
	if r.PlayFrames == 0 || r.PlayFrames > r.Frames || r.CPU <= 0 || r.CPUPerFrame() <= 0 || r.RSSIdle == 0 || r.LoadCPU <= 0 {
		t.Errorf("no frames or CPU measured: %+v", r)
	}
	if r.Commands == 0 || len(r.Latencies) != int(r.Commands) || r.RSSHeld == 0 {
		t.Errorf("measured nothing: %+v", r)
	}
	var b strings.Builder
	r.Report(&b)
	for _, want := range []string{"sessions held: 20 of 20", "idle sessions held: 300 of 300", "KB per idle session", "KB of goroutine stacks", "KB per playing session", "µs per frame", "load generator CPU", "p50", "p99"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}

	// The server shares this process with the generator, whose garbage
	// makes the heap in use between two collections noise beside small
	// sessions; 300 reader goroutines' stacks are not (30 were not enough
	// beside stacks freed by earlier tests and kept for reuse).
	if r.GoBefore.Heap <= 0 || r.GoIdle.Heap <= 0 || r.GoIdle.Stacks <= r.GoBefore.Stacks {
		t.Errorf("300 idle sessions added no stacks, or the heap was not read: %+v before, %+v with them", r.GoBefore, r.GoIdle)
	}

	// Without --pid the server's /metrics tells its memory and CPU time.
	if n, err := metricsRSS(mustURL(t, ts.URL)); err != nil || n <= 0 {
		t.Errorf("RSS from /metrics: %d, %v", n, err)
	}
	if d, err := metricsCPU(mustURL(t, ts.URL)); err != nil || d <= 0 {
		t.Errorf("CPU from /metrics: %s, %v", d, err)
	}
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := checkURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestRunStaysOnThisMachine(t *testing.T) {
	for _, u := range []string{"http://example.org/", "http://10.0.0.1:8080", "https://127.0.0.1:8080", "ftp://localhost", "http://0.0.0.0:8080"} {
		if _, err := Run(context.Background(), Config{URL: u, Sessions: 1, Hold: time.Second}); err == nil {
			t.Errorf("%s: no error", u)
		}
	}
	for _, c := range []Config{{Sessions: 0, Hold: time.Second}, {Sessions: MaxSessions + 1, Hold: time.Second}, {Sessions: 1, Hold: time.Hour}, {Sessions: 1, Idle: MaxSessions, Hold: time.Second}, {Sessions: 1, Idle: -1, Hold: time.Second}} {
		c.URL = "http://127.0.0.1:1"
		if _, err := Run(context.Background(), c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

func TestParseStatCPU(t *testing.T) {
	// utime 250 and stime 50 ticks; the command name holds a space and a ')'.
	line := "4242 (lease lab) x) S 1 4242 4242 0 -1 4194560 2000 0 0 0 250 50 0 0 20 0 9 0 100 1000000 500"
	d, err := parseStatCPU(line)
	if err != nil || d != 3*time.Second {
		t.Errorf("got %s, %v; want 3s", d, err)
	}
	for _, bad := range []string{"", "4242 no-paren S 1", "1 (x) S 1 2 3", "1 (x) S 1 2 3 4 5 6 7 8 9 10 x 50 0"} {
		if _, err := parseStatCPU(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if d, err := procCPU(os.Getpid()); err != nil || d < 0 {
		t.Errorf("this process: %s, %v", d, err)
	}
}

func TestParseHead(t *testing.T) {
	for in, want := range map[string]head{
		`{"seq":3,"type":"ack","id":17,"ops":[["replace"`: {typ: "ack", id: 17},
		`{"seq":4,"type":"frame","ops":[`:                 {typ: "frame"},
		`{"seq":5,"type":"error","id":2,"error":"x"}`:     {typ: "error", id: 2},
	} {
		if got := parseHead([]byte(in)); got != want {
			t.Errorf("%s: %+v, want %+v", in, got, want)
		}
	}
}

func TestLabControlsNameTheLabsWorkers(t *testing.T) {
	frame := []byte(`{"seq":1,"type":"frame","ops":[["replace","status","<div data-worker=\"A\" data-frozen=\"false\"></div><div data-worker=\"B\"></div><div data-worker=\"C\"></div>"]]}`)
	got := strings.Join(labControls(frame), "|")
	for _, want := range []string{"freeze A for=5s", "thaw A", "crash B", "restart B"} {
		if !strings.Contains(got, want) {
			t.Errorf("controls %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "W1") || strings.Contains(got, "W2") {
		t.Errorf("controls %q still name W1 or W2", got)
	}
	one := strings.Join(labControls([]byte(`{"ops":[["replace","status","<div data-worker=\"H\">"]]}`)), "|")
	if !strings.Contains(one, "crash H") || !strings.Contains(one, "freeze H") {
		t.Errorf("one worker: %q", one)
	}
	if got := labControls([]byte("not json")); len(got) != len(Controls) || got[1] != Controls[1] {
		t.Errorf("no workers: %q", got)
	}
}
