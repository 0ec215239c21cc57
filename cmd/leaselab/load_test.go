package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"leaselab/web"
)

func TestLoadCommand(t *testing.T) {
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
