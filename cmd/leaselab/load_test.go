package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"leaselab/class"
	"leaselab/web"
)

func TestLoadCommand(t *testing.T) {
	t.Parallel()
	s, err := web.New(web.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer func() { s.Close(); ts.Close() }()

	var out, errs strings.Builder
	if code := run([]string{"load", "--url", ts.URL, "--sessions", "5", "--hold", "500ms", "--every", "100ms"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, want := range []string{"sessions held: 5 of 5", "KB per session", "command-to-frame latency: p50"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	for _, args := range [][]string{
		{"load", "--url", "http://example.org"},
		{"load", "--sessions", "0"},
		{"load", "extra"},
	} {
		errs.Reset()
		if code := run(args, &out, &errs); code == 0 || errs.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs.String())
		}
	}
}

// TestLoadClassCommand: load's class mode against a server with classes:
// students on the lab page vote over its socket, or with the form, or
// while sessions play; every vote is recorded and the lines README
// quotes are printed.
func TestLoadClassCommand(t *testing.T) {
	t.Parallel()
	svc, err := class.Open(context.Background(), class.Config{Data: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	s, err := web.New(web.Config{Classes: svc})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer func() { s.Close(); ts.Close() }()
	// The votes come within 200 ms of the vote's start rather than the
	// default second: the same votes, in a fifth of the waiting.
	for _, args := range [][]string{
		{"--classes", "2", "--class-students", "3", "--vote-within", "200ms"},
		{"--classes", "2", "--class-students", "3", "--class-sockets=false", "--vote-within", "200ms"},
		{"--classes", "1", "--class-students", "3", "--sessions", "3", "--hold", "900ms", "--every", "100ms", "--vote-within", "200ms"},
		{"--classes", "2", "--class-students", "3", "--sessions", "3", "--hold", "900ms", "--every", "100ms", "--classes-apart", "200ms", "--vote-within", "0"},
	} {
		var out, errs strings.Builder
		if code := run(append([]string{"load", "--url", ts.URL}, args...), &out, &errs); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs.String())
		}
		n := map[string]string{"2": "6", "1": "3"}[args[1]]
		for _, want := range []string{"class votes recorded:       " + n + " of " + n, "vote to dashboard p99:"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out.String())
			}
		}
		if strings.Contains(out.String(), "refused") {
			t.Errorf("%v: votes refused:\n%s", args, out.String())
		}
	}
}
