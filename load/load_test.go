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

	r, err := Run(context.Background(), Config{URL: ts.URL, Sessions: 20, Hold: time.Second, Every: 200 * time.Millisecond, PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	if r.Held != 20 || r.Failed != 0 || r.Closed != 0 {
		t.Errorf("held %d, failed %d (%s), closed %d", r.Held, r.Failed, r.FirstDialError, r.Closed)
	}
	if r.Commands == 0 || len(r.Latencies) != int(r.Commands) || r.RSSHeld == 0 {
		t.Errorf("measured nothing: %+v", r)
	}
	var b strings.Builder
	r.Report(&b)
	for _, want := range []string{"sessions held: 20 of 20", "KB per session", "p50", "p99"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}

	// Without --pid the server's /metrics tells its memory.
	if n, err := metricsRSS(mustURL(t, ts.URL)); err != nil || n <= 0 {
		t.Errorf("RSS from /metrics: %d, %v", n, err)
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
	for _, c := range []Config{{Sessions: 0, Hold: time.Second}, {Sessions: MaxSessions + 1, Hold: time.Second}, {Sessions: 1, Hold: time.Hour}} {
		c.URL = "http://127.0.0.1:1"
		if _, err := Run(context.Background(), c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

func TestParseHead(t *testing.T) {
	for in, want := range map[string]head{
		`{"seq":3,"type":"ack","id":17,"ops":[{"op":"replace"`: {typ: "ack", id: 17},
		`{"seq":4,"type":"frame","ops":[`:                      {typ: "frame"},
		`{"seq":5,"type":"error","id":2,"error":"x"}`:          {typ: "error", id: 2},
	} {
		if got := parseHead([]byte(in)); got != want {
			t.Errorf("%s: %+v, want %+v", in, got, want)
		}
	}
}
