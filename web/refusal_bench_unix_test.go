//go:build unix

package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"leaselab/budget"
	"leaselab/class"
)

// What one address flooding the server with requests it refuses costs
// the server (issue 51). The flood comes from another process (this test
// binary again, TestFloodHelper), so that the server's CPU time, read
// from the kernel for this process alone, is the server's: a permalink
// flood from an address already in debt, a vote flood from one student of
// a room behind one address (while another student of the same address
// votes ten times a second), and a flood of requests with a 900 KB header.
//
//	go test ./web -run '^$' -bench RefusalFlood -benchtime 1x -count 5
//
// It reports the server's cores (CPU time over wall time) and CPU per
// request answered, the requests a second, and for the votes the share
// of the other student's votes kept during the flood (room-ok-%). Run it
// on two builds alternately to compare (docs/performance.md).
func BenchmarkRefusalFlood(b *testing.B) {
	const conns, seconds = 16, 4.0
	for _, kind := range []string{"permalink", "vote", "header"} {
		b.Run(kind, func(b *testing.B) {
			for b.Loop() {
				s, addr, svc := floodServer(b)
				var req string
				var room func(stop <-chan struct{}) (ok, tried int)
				switch kind {
				case "permalink":
					// The address owes a minute of work, as a flood that ran
					// its budget out would: every permalink is refused.
					budget.ChargeFixed(time.Minute, s.addrBudgets.get("127.0.0.1"))
					req = "GET /en/labs/w1-w2/at?seed=%d&do=until+9m59s HTTP/1.1\r\nHost: " + addr + "\r\n\r\n"
				case "vote":
					base := "http://" + addr
					teacher := newClient(b, base)
					teach, code := openClass(b, teacher, "en", "Flood")
					openVote(teacher, teach, "w1-w2", "storage-checks")
					flooder, other := newClient(b, base), newClient(b, base)
					flooder.post("/en/join", url.Values{"code": {code}})
					other.post("/en/join", url.Values{"code": {code}})
					u, _ := url.Parse(base)
					var cookies []string
					for _, ck := range flooder.http.Jar.Cookies(u) {
						cookies = append(cookies, ck.Name+"="+ck.Value)
					}
					body := "round=1&choice=rejected"
					req = "POST /en/class/vote?n=%d HTTP/1.1\r\nHost: " + addr + "\r\nCookie: " + strings.Join(cookies, "; ") +
						"\r\nAccept: application/json\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
						fmt.Sprint(len(body)) + "\r\n\r\n" + body
					room = func(stop <-chan struct{}) (ok, tried int) {
						tick := time.NewTicker(100 * time.Millisecond)
						defer tick.Stop()
						for i := 0; ; i++ {
							select {
							case <-stop:
								return ok, tried
							case <-tick.C:
							}
							st, _, _ := other.do(http.MethodPost, "/en/class/vote", url.Values{"round": {"1"}, "choice": {[]string{"rejected", "overwrites"}[i%2]}}, "application/json")
							tried++
							if st == http.StatusNoContent {
								ok++
							}
						}
					}
				case "header":
					req = "GET /en/?n=%d HTTP/1.1\r\nHost: " + addr + "\r\nX-Big: " + strings.Repeat("x", 900<<10) + "\r\n\r\n"
				}
				stop := make(chan struct{})
				var roomOK, roomTried int
				var wg sync.WaitGroup
				res, cpu, wall := flood(b, floodSpec{Addr: addr, Request: req, Conns: conns, Seconds: seconds}, func() {
					if room != nil {
						wg.Add(1)
						go func() {
							defer wg.Done()
							time.Sleep(time.Second) // the flood reaches its steady state
							roomOK, roomTried = room(stop)
						}()
					}
				})
				close(stop)
				wg.Wait()
				answered := max(1, res.Requests)
				b.ReportMetric(cpu.Seconds()/wall.Seconds(), "server-cores")
				b.ReportMetric(float64(cpu.Microseconds())/float64(answered), "server-µs/req")
				b.ReportMetric(float64(res.Requests)/wall.Seconds(), "req/s")
				if room != nil {
					b.ReportMetric(100*float64(roomOK)/float64(max(1, roomTried)), "room-ok-%")
				}
				b.Logf("%s: %+v", kind, res)
				_ = svc
			}
		})
	}
}

// floodServer serves the embedded course with class mode on, as serve
// does (its http.Server and listener, the default work budgets), on a
// loopback port.
func floodServer(b *testing.B) (*Server, string, *class.Service) {
	svc, err := class.Open(context.Background(), class.Config{Data: b.TempDir(), Logf: func(string, ...any) {}})
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(sharedCourse(Config{Classes: svc, SessionWork: defaultSessionWork, AddrWork: defaultAddrWork}))
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := s.HTTPServer()
	go hs.Serve(s.LimitListener(ln, ConnLimits{}))
	b.Cleanup(func() {
		hs.Close()
		s.Close()
		svc.Close()
	})
	return s, ln.Addr().String(), svc
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// floodSpec is what TestFloodHelper sends: Request (its %d numbered, so
// that no two are alike) over Conns connections to Addr, as fast as the
// answers come, for Seconds; a connection closed is opened again.
type floodSpec struct {
	Addr    string
	Request string
	Conns   int
	Seconds float64
}

// floodResult is what a flood got: the answers by status, the
// connections it opened, and the requests that got no answer.
type floodResult struct {
	Requests, Connects, Failed int
	Status                     map[int]int
}

// flood runs TestFloodHelper in a process of its own (the spec on its
// standard input: a request may be larger than the environment takes),
// calls started when it starts flooding, and returns what it got and
// this process's CPU time and the wall time from then to its end.
func flood(b *testing.B, spec floodSpec, started func()) (res floodResult, cpu, wall time.Duration) {
	js, _ := json.Marshal(spec)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFloodHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LEASELAB_FLOOD=1")
	cmd.Stdin = strings.NewReader(string(js))
	var errs strings.Builder
	cmd.Stderr = &errs
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var cpu0 time.Duration
	var start time.Time
	sc := bufio.NewScanner(out)
	var said []string
	got := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "FLOOD START":
			cpu0, start = cpuTime(), time.Now()
			started()
		case strings.HasPrefix(line, "FLOOD {"):
			cpu, wall = cpuTime()-cpu0, time.Since(start)
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "FLOOD ")), &res); err != nil {
				b.Fatal(err)
			}
			got = true
		default:
			said = append(said, line)
		}
	}
	if err := cmd.Wait(); err != nil || !got || start.IsZero() {
		b.Fatalf("flood: %v\n%s\n%s", err, strings.Join(said, "\n"), errs.String())
	}
	return res, cpu, wall
}

// TestFloodHelper is the flooding process of BenchmarkRefusalFlood; run
// by itself it does nothing.
func TestFloodHelper(t *testing.T) {
	if os.Getenv("LEASELAB_FLOOD") == "" {
		t.Skip("the flood of BenchmarkRefusalFlood, run by it")
	}
	var spec floodSpec
	if err := json.NewDecoder(os.Stdin).Decode(&spec); err != nil {
		t.Fatal(err)
	}
	fmt.Println("FLOOD START")
	deadline := time.Now().Add(time.Duration(spec.Seconds * float64(time.Second)))
	var mu sync.Mutex
	res := floodResult{Status: map[int]int{}}
	var n int64
	var wg sync.WaitGroup
	for range spec.Conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var conn net.Conn
			var br *bufio.Reader
			for time.Now().Before(deadline) {
				if conn == nil {
					c, err := net.DialTimeout("tcp", spec.Addr, time.Second)
					if err != nil {
						time.Sleep(time.Millisecond)
						continue
					}
					conn, br = c, bufio.NewReader(c)
					mu.Lock()
					res.Connects++
					mu.Unlock()
				}
				mu.Lock()
				n++
				req := fmt.Sprintf(spec.Request, n)
				mu.Unlock()
				conn.SetDeadline(time.Now().Add(5 * time.Second))
				_, werr := io.WriteString(conn, req)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					mu.Lock()
					res.Failed++
					mu.Unlock()
					conn.Close()
					conn = nil
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				res.Requests++
				res.Status[resp.StatusCode]++
				mu.Unlock()
				if resp.Close || werr != nil {
					conn.Close()
					conn = nil
				}
			}
			if conn != nil {
				conn.Close()
			}
		}()
	}
	wg.Wait()
	js2, _ := json.Marshal(res)
	fmt.Printf("FLOOD %s\n", js2)
}

// BenchmarkRefusal measures one refusal of an address in debt (below
// its ceiling), in this process: a permalink (GET, a page) and a vote
// (POST, for script). Each address is refused 5,000 times, then the
// next one takes over, so that the flood never reaches a ceiling.
//
//	go test ./web -run '^$' -bench 'Refusal$' -benchmem
func BenchmarkRefusal(b *testing.B) {
	for _, kind := range []string{"permalink", "vote"} {
		b.Run(kind, func(b *testing.B) {
			svc, err := class.Open(context.Background(), class.Config{Data: b.TempDir(), Logf: func(string, ...any) {}})
			if err != nil {
				b.Fatal(err)
			}
			defer svc.Close()
			s, err := New(sharedCourse(Config{Classes: svc, SessionWork: defaultSessionWork, AddrWork: defaultAddrWork}))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			const per = 5000
			var addr string
			body := strings.NewReader("")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%per == 0 {
					b.StopTimer()
					addr = fmt.Sprintf("10.%d.%d.%d", i/per>>16&255, i/per>>8&255, i/per&255)
					budget.ChargeFixed(addrBurst+time.Second, s.addrBudgets.get(addr))
					b.StartTimer()
				}
				var req *http.Request
				if kind == "permalink" {
					req = httptest.NewRequest(http.MethodGet, "/en/labs/w1-w2/at?do=until+9m", nil)
				} else {
					body.Reset("round=1&choice=rejected")
					req = httptest.NewRequest(http.MethodPost, "/en/class/vote", body)
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					req.Header.Set("Accept", "application/json")
					req.Header.Set("Origin", "http://"+req.Host)
				}
				req.RemoteAddr = addr + ":5000"
				w := httptest.NewRecorder()
				s.ServeHTTP(w, req)
				if w.Code != http.StatusTooManyRequests {
					b.Fatalf("%s from an address in debt: %d", kind, w.Code)
				}
			}
		})
	}
}
