package main

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeJudgesInAProcess: serve judges a submitted program as this
// program's judge command, in a process of its own at the lowest
// priority, and the page shows the verdict the engine gives here: the
// reference passes, the starting program fails at the line the engine
// names, and a program that expands a value is told so in words.
func TestServeJudgesInAProcess(t *testing.T) {
	t.Setenv(backgroundEnv, "off") // what is tested is the process, not its priority
	c, err := embeddedCourse()
	if c == nil {
		t.Fatal(err)
	}
	p := c.Lab("write-renewal").Program()
	start, err := p.Judge(p.Start, 1)
	if err != nil || start.Pass || start.Line == 0 {
		t.Fatalf("the engine here: %v, %+v", err, start)
	}

	u, stop, _ := startServe(t, "--addr", "127.0.0.1:0", "--max-memory", "256MiB")
	defer stop()
	// get is a GET that waits as Retry-After says when the address's work
	// budget (serve's own) asks it to, as a student would be asked.
	get := func(path string) (int, string) {
		t.Helper()
		for try := 0; ; try++ {
			resp, err := http.Get(u + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusTooManyRequests || try == 10 {
				return resp.StatusCode, string(body)
			}
			wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			time.Sleep(time.Duration(max(wait, 1)) * time.Second)
		}
	}
	submit := func(src string) string {
		t.Helper()
		for {
			code, body := get("en/labs/write-renewal?" + url.Values{"program": {src}, "submit": {"1"}}.Encode())
			if code != 200 {
				t.Fatalf("Submit: %d\n%s", code, body)
			}
			// Waiting in the judgements' queue (issue 43): the page asks
			// again by itself, as this does.
			if strings.Contains(body, `id="program-queued"`) {
				time.Sleep(200 * time.Millisecond)
				continue
			}
			return html.UnescapeString(body)
		}
	}
	page := submit(p.Start)
	if !strings.Contains(page, `data-program="1"`) || !strings.Contains(page, `data-correct="false"`) {
		t.Fatalf("the starting program's verdict is missing or passes:\n%s", page)
	}
	if m := regexp.MustCompile(`data-line="(\d+)"`).FindStringSubmatch(page); m == nil || m[1] != strconv.Itoa(int(start.Line)) {
		t.Errorf("the page names line %q, the engine here %d", m, start.Line)
	}
	page = submit("def on_start(w, ev):\n    l = [\"x\"*4096]*4096\n    s = str([l]*4096)\n")
	if !strings.Contains(page, "too large to work on") {
		t.Errorf("an expanding value is not said in words:\n%s", grepLines(page, "verdict"))
	}
	// The same programs carried in a link run in the server's own live
	// world (the lab page, its permalink and its diagram): each is told
	// in words, and the server's heap stays far below its --max-memory.
	for _, src := range []string{
		"def on_start(w, ev):\n    l = [\"x\"*4096]*4096\n    s = str([l]*4096)\n",
		"def on_start(w, ev):\n    l = [\"x\"*4096]*4096\n    s = \"%s\" % ([l]*4096,)\n",
		"def on_start(w, ev):\n    l = [[\"x\"*4096]*4096]*4096\n    s = l == [l]\n",
	} {
		q := url.Values{"program": {src}}.Encode()
		for _, path := range []string{"en/labs/write-renewal?do=until+5s&", "en/labs/write-renewal/at?until=30s&", "en/labs/write-renewal/diagram.svg?until=30s&"} {
			code, page := get(path + q)
			if code != 200 && code != 400 {
				t.Fatalf("%s: %d\n%s", path, code, page)
			}
			// The lab page says it in its editor; the permalink and the
			// diagram show the worker stopped.
			if strings.HasPrefix(path, "en/labs/write-renewal?") && !strings.Contains(html.UnescapeString(page), "too large to work on") {
				t.Errorf("%s: the program's refusal is not said:\n%s", path, grepLines(page, "large"))
			}
		}
	}
	code, metrics := get("metrics")
	if code != 200 {
		t.Fatalf("metrics: %d\n%s", code, metrics)
	}
	if m := regexp.MustCompile(`go_memstats_heap_inuse_bytes (\d+)`).FindStringSubmatch(metrics); m == nil {
		t.Errorf("metrics: no heap:\n%s", grepLines(metrics, "heap"))
	} else if heap, _ := strconv.Atoi(m[1]); heap > 128<<20 {
		t.Errorf("the server's heap after the hostile links: %d bytes", heap)
	}
	if !strings.Contains(metrics, "leaselab_judgements_in_process_total 2") {
		t.Errorf("metrics: want two judgements run in a process:\n%s", grepLines(metrics, "judge"))
	}
	if m := regexp.MustCompile(`leaselab_judge_cpu_seconds_total ([0-9.]+)`).FindStringSubmatch(metrics); m == nil || m[1] == "0.000" {
		t.Errorf("metrics: the processes' CPU time is not counted: %q", m)
	}
}
