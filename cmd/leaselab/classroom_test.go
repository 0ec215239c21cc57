package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"leaselab/web"
)

// lockedBuffer is serve's stdout, written by its request handlers.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeClassroom: serve --classroom listens on every interface and
// prints, before it serves, the students' address (this machine's LAN
// address with the port bound) and a QR code of it, and the lecturer's
// localhost address. A class opened from the laptop by localhost has its
// join link on the LAN address, on the dashboard and printed in the
// terminal with the class's code and a QR code; the LAN address answers.
// With --public-url that address is the students', and the laptop's
// localhost still opens the dashboard.
func TestServeClassroom(t *testing.T) {
	lanIP, err := web.LANAddress()
	if err != nil {
		t.Fatalf("this machine needs a LAN address for classroom mode: %v", err)
	}
	for _, tc := range []struct{ name, public string }{{"lan", ""}, {"public-url", "https://kelas.example.edu"}} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"--classroom", "--addr", "0.0.0.0:0", "--data", t.TempDir(), "--log-format", "json"}
			if tc.public != "" {
				args = append(args, "--public-url", tc.public)
			}
			out := &lockedBuffer{}
			ctx, cancel := context.WithCancel(context.Background())
			pr, pw := io.Pipe()
			done := make(chan int, 1)
			go func() {
				done <- serve(ctx, args, out, pw)
				pw.Close()
			}()
			t.Cleanup(func() {
				cancel()
				if code := <-done; code != 0 {
					t.Errorf("serve exited %d", code)
				}
			})
			sc := bufio.NewScanner(pr)
			listen := ""
			for listen == "" && sc.Scan() {
				var rec map[string]any
				if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == "serving" {
					listen, _ = rec["listen"].(string)
				}
			}
			go io.Copy(io.Discard, pr)
			_, port, err := net.SplitHostPort(listen)
			if err != nil {
				t.Fatalf("no serving line: %q", listen)
			}
			if host, _, _ := net.SplitHostPort(listen); !net.ParseIP(host).IsUnspecified() {
				t.Errorf("classroom mode listens on %s, want every interface", listen)
			}
			students := "http://" + net.JoinHostPort(lanIP.String(), port)
			if tc.public != "" {
				students = tc.public
			}
			printed := out.String()
			for _, want := range []string{students + "/id/join", "http://localhost:" + port + "/", "█"} {
				if !strings.Contains(printed, want) {
					t.Errorf("the terminal lacks %q:\n%s", want, printed)
				}
			}
			// The lecturer, on the laptop, by localhost.
			local := "http://localhost:" + port
			noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 30 * time.Second}
			resp, err := noFollow.PostForm(local+"/id/class", url.Values{"name": {"Kuliah Pagi"}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			teach := resp.Header.Get("Location")
			if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(teach, "/id/teach/") {
				t.Fatalf("opening a class by localhost: %d %q", resp.StatusCode, teach)
			}
			resp, err = noFollow.Get(local + teach)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			m := regexp.MustCompile(`id="join-code">([A-Z0-9]+)<`).FindStringSubmatch(string(b))
			if m == nil {
				t.Fatalf("dashboard %d without a code", resp.StatusCode)
			}
			join := students + "/id/join?code=" + m[1]
			if !strings.Contains(string(b), `href="`+join+`"`) {
				t.Errorf("the dashboard's join link is not %s", join)
			}
			if strings.Contains(string(b), `id="unreachable"`) {
				t.Error("the classroom's dashboard says phones cannot reach it")
			}
			printed = out.String()
			if !strings.Contains(printed, "Class «Kuliah Pagi» opened: code "+m[1]) || !strings.Contains(printed, join) {
				t.Errorf("the terminal does not print the class's code and join link %s:\n%s", join, printed)
			}
			if tc.public == "" {
				resp, err := http.Get(join)
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Fatalf("the LAN join link does not answer: %v %v", resp, err)
				}
				resp.Body.Close()
			}
		})
	}
}
