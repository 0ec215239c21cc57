package web

import (
	"fmt"
	"leaselab/live"
	"net/url"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// BenchmarkBystanderUnderAttack measures what eight clients sending the
// costliest legal messages at the allowed message rate do to another
// student: the student's command-to-frame time, quiet and under attack,
// with the server's default work budgets. The attackers share one address
// (127.0.0.1), the student has another (127.0.0.2). Each attacker cycles
// through a design-challenge verdict for a policy never asked before (not
// cached: a third of a second of engine work), "until 9m59s" on the
// busiest lab (≈ 90 ms and a megabyte of frame) and a reset.
//
//	go test ./web -run '^$' -bench BystanderUnderAttack -benchtime 1x
//
// It reports p50 and p99 in milliseconds, and p99-ratio: under attack over
// quiet (the bar is 3). ATTACK=challenge or ATTACK=until sends only
// that kind; ADDR_WORK sets the address budget; SHOW_TAIL=1 logs the
// slowest answers of both phases.
func BenchmarkBystanderUnderAttack(b *testing.B) {
	_, ts := newTestServer(b, Config{SessionWork: defaultSessionWork, AddrWork: benchAddrWork()})
	u, _ := url.Parse(ts.URL)
	host := u.Host
	const samples = 300
	for b.Loop() {
		quiet := bystander(b, host, samples)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				attack(b, host, i, stop)
			}()
		}
		time.Sleep(2 * time.Second) // the attackers spend their bursts
		loaded := bystander(b, host, samples)
		close(stop)
		wg.Wait()
		q50, q99 := percentile(quiet, 50), percentile(quiet, 99)
		l50, l99 := percentile(loaded, 50), percentile(loaded, 99)
		b.ReportMetric(ms(q50), "quiet-p50-ms")
		b.ReportMetric(ms(q99), "quiet-p99-ms")
		b.ReportMetric(ms(l50), "attack-p50-ms")
		b.ReportMetric(ms(l99), "attack-p99-ms")
		b.ReportMetric(float64(l99)/float64(q99), "p99-ratio")
		if os.Getenv("SHOW_TAIL") != "" {
			tail := func(ds []time.Duration) []time.Duration { s := slices.Clone(ds); slices.Sort(s); return s[len(s)-8:] }
			b.Logf("quiet tail %v\nattack tail %v", tail(quiet), tail(loaded))
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// bystander is a student on w1-w2 who sends a command, waits for its
// answer, and thinks for 50 ms, n times; it returns each command's time to
// its answer.
func bystander(b *testing.B, host string, n int) []time.Duration {
	d := websocket.Dialer{NetDialContext: dialFrom("127.0.0.2")}
	conn, _, err := d.Dial("ws://"+host+"/en/labs/w1-w2/ws", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	var m wireMsg
	if err := conn.ReadJSON(&m); err != nil {
		b.Fatal(err)
	}
	var out []time.Duration
	for i := range n {
		cmd := "advance 100ms"
		if i%100 == 99 {
			cmd = "reset"
		}
		start := time.Now()
		if err := conn.WriteJSON(live.ClientMsg{ID: int64(i + 1), Type: "do", Cmd: cmd}); err != nil {
			b.Fatal(err)
		}
		for {
			conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			if err := conn.ReadJSON(&m); err != nil {
				b.Fatal(err)
			}
			if m.ID == int64(i+1) {
				break
			}
		}
		if m.Type != "ack" {
			b.Fatalf("the bystander's %s: %s %s", cmd, m.Type, m.Error)
		}
		out = append(out, time.Since(start))
		time.Sleep(50 * time.Millisecond) // under the message rate
	}
	return out
}

// attack sends costly messages at the allowed rate until stop, reading
// (and dropping) the answers so that the server never finds it slow.
func attack(b *testing.B, host string, who int, stop <-chan struct{}) {
	d := websocket.Dialer{NetDialContext: dialFrom("127.0.0.1")}
	conn, _, err := d.Dial("ws://"+host+"/en/labs/renew-policy/ws", nil)
	if err != nil {
		b.Error(err)
		return
	}
	defer conn.Close()
	go func() {
		for {
			if _, _, err := conn.NextReader(); err != nil {
				return
			}
		}
	}()
	tick := time.NewTicker(time.Second / live.MsgRate)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		var m live.ClientMsg
		k := i % 3
		switch os.Getenv("ATTACK") {
		case "challenge":
			k = 0
		case "until":
			k = 1 + i%2
		}
		switch k {
		case 0:
			m = live.ClientMsg{Type: "challenge", Values: map[string]string{
				"renew-margin":  fmt.Sprintf("%dms", 1000+(who*7919+i)%5000),
				"renew-attempt": fmt.Sprintf("%dms", 200+i%700),
			}}
		case 1:
			m = live.ClientMsg{Type: "do", Cmd: "until 9m59s"}
		default:
			m = live.ClientMsg{Type: "do", Cmd: "reset"}
		}
		m.ID = int64(i + 1)
		if conn.WriteJSON(m) != nil {
			return
		}
	}
}

func benchAddrWork() float64 {
	if v, err := strconv.ParseFloat(os.Getenv("ADDR_WORK"), 64); err == nil {
		return v
	}
	return defaultAddrWork
}
