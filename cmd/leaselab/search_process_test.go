package main

import (
	"bufio"
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"leaselab/labs"
)

// TestServeSearchesInAProcess: serve runs a page's search as this
// program's search command, in a process of its own at the lowest
// priority, and the page's verdict is the one the engine gives in this
// process; a search whose page goes away ends its process.
func TestServeSearchesInAProcess(t *testing.T) {
	t.Setenv(backgroundEnv, "off") // what is tested is the process, not its priority
	c, err := embeddedCourse()
	if c == nil {
		t.Fatal(err)
	}
	lab := c.Lab("break-fencing")
	g := lab.Goal("one-pause")
	if lab == nil || g == nil {
		t.Fatal("break-fencing's goal one-pause is gone; pick another break it goal")
	}
	want, err := g.Shortest(labs.SearchOptions{})
	if err != nil || want.Shortest == nil {
		t.Fatalf("the engine here: %v, %+v", err, want)
	}

	url, stop, _ := startServe(t, "--addr", "127.0.0.1:0")
	defer stop()
	code, page := httpGet(t, url+"en/labs/break-fencing/search?goal=one-pause")
	if code != 200 {
		t.Fatalf("GET the goal's search: %d\n%s", code, page)
	}
	m := regexp.MustCompile(`([0-9,]+) schedules`).FindStringSubmatch(page)
	if !strings.Contains(page, `data-broken="true"`) || m == nil || strings.ReplaceAll(m[1], ",", "") != strconv.Itoa(want.Schedules) {
		t.Errorf("the page's verdict is not the engine's (%d schedules, broken): %q\n%s", want.Schedules, m, page)
	}
	if q := strings.ReplaceAll(want.Query, "&", "&amp;"); !strings.Contains(page, q) {
		t.Errorf("the page does not link the replay %q", want.Query)
	}
	_, metrics := httpGet(t, url+"metrics")
	if !strings.Contains(metrics, `leaselab_searches_total{where="process"} 1`) {
		t.Errorf("metrics: want one search run in a process:\n%s", grepLines(metrics, "search"))
	}
	if m := regexp.MustCompile(`leaselab_search_cpu_seconds_total ([0-9.]+)`).FindStringSubmatch(metrics); m == nil || m[1] == "0.000" {
		t.Errorf("metrics: the process's CPU time is not counted: %q", m)
	}

	// A bad option is said before any process starts.
	code, page = httpGet(t, url+"en/labs/renew-policy/search?prove=1&p.renew-margin=soon")
	if code == 200 || strings.Contains(page, "search process") {
		t.Errorf("a bad policy value: %d\n%s", code, page)
	}

	// A long search, left: its process ends.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"en/labs/renew-policy/search?prove=1&p.renew-margin=3s", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && !strings.Contains(sc.Text(), "parts,") { // a progress line from the process
	}
	busy := func() string {
		_, m := httpGet(t, url+"metrics")
		return regexp.MustCompile(`leaselab_search_places_busy (\d+)`).FindStringSubmatch(m)[1]
	}
	if b := busy(); b != "1" {
		t.Errorf("while the search runs, places busy %s, want 1", b)
	}
	cancel()
	resp.Body.Close()
	for deadline := time.Now().Add(20 * time.Second); busy() != "0"; {
		if time.Now().After(deadline) {
			t.Fatal("the search's process did not end when its page went away")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
