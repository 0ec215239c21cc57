package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestServePrintsURLAndShutsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{"--addr", "127.0.0.1:0"}, pw, &stderr)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() {
		t.Fatal("no output")
	}
	line := lines.Text()
	const prefix = "leaselab: serving on "
	if !strings.HasPrefix(line, prefix) {
		t.Fatalf("first line %q", line)
	}
	url := strings.TrimPrefix(line, prefix)
	resp, err := http.Get(url + "id/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET %sid/: %d", url, resp.StatusCode)
	}
	go io.Copy(io.Discard, pr)
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not shut down")
	}
}

func TestServeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--nope"}, 2, "flag provided but not defined"},
		{[]string{"--content", "/does/not/exist"}, 2, "not a folder"},
		{[]string{"extra"}, 2, "unexpected argument"},
		{[]string{"--addr", "256.0.0.1:99999"}, 1, "leaselab serve:"},
		{[]string{"-h"}, 0, "--content"},
	} {
		var out, errOut strings.Builder
		code := serve(context.Background(), tc.args, &out, &errOut)
		if code != tc.code || !strings.Contains(errOut.String(), tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d with %q", tc.args, code, errOut.String(), tc.code, tc.msg)
		}
	}
}

func TestServeAddressFromEnvironment(t *testing.T) {
	t.Setenv(addrEnv, "127.0.0.1:0")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() { done <- serve(ctx, nil, pw, io.Discard); pw.Close() }()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() || !strings.Contains(lines.Text(), "http://localhost:") {
		t.Errorf("first line %q", lines.Text())
	}
	go io.Copy(io.Discard, pr)
	cancel()
	<-done
}
