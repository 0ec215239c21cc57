package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"leaselab/class"
)

// TestClassNew opens a class from the command line: its links name the
// base URL and the language, and the class is in the database the server
// would open, reachable by its code and its instructor token.
func TestClassNew(t *testing.T) {
	dir := t.TempDir()
	var out, errOut strings.Builder
	code := classCmd([]string{"new", "--data", dir, "--name", "Sistem Terdistribusi A", "--lang", "en",
		"--base-url", "https://leases.example.edu/leaselab/"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	m := regexp.MustCompile(`join code: +(\S+)\njoin link: +(\S+)\ninstructor link: +(\S+)\n`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("output:\n%s", out.String())
	}
	joinCode, join, teach := m[1], m[2], m[3]
	if join != "https://leases.example.edu/leaselab/en/join?code="+joinCode {
		t.Errorf("join link %s", join)
	}
	token, ok := strings.CutPrefix(teach, "https://leases.example.edu/leaselab/en/teach/")
	if !ok {
		t.Fatalf("instructor link %s", teach)
	}
	svc, err := class.Open(context.Background(), class.Config{Data: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	byToken, err := svc.ByToken(context.Background(), token)
	if err != nil || byToken.Code != joinCode || byToken.Name != "Sistem Terdistribusi A" || byToken.Lang != "en" {
		t.Errorf("the class by its token: %+v, %v", byToken, err)
	}

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"old"}, `the command is "leaselab class new [flags]"`},
		{[]string{"new", "--data", dir, "--lang", "fr"}, "--lang: want one of en, id"},
		{[]string{"new", "--data", dir, "--base-url", "leases.example.edu"}, "--base-url: want a URL"},
		{[]string{"new", "--data", dir, "--name", "<b>x</b>"}, "--name:"},
	} {
		var out, errOut strings.Builder
		if code := classCmd(tc.args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), tc.msg) {
			t.Errorf("%v: exit %d, %q; want 2 with %q", tc.args, code, errOut.String(), tc.msg)
		}
	}
}
