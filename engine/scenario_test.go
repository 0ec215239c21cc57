package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestScenarios runs the scenario files in testdata/. Each file builds a
// world and drives it with commands; the expected output is the trace.
// Rewrite the traces after an intended change with
//
//	go test ./engine -run TestScenarios -rewrite
//
// and read every changed line before committing it.
func TestScenarios(t *testing.T) {
	// Only the .txt files: go test -fuzz keeps its crashers in testdata/fuzz.
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) < 12 {
		t.Fatalf("want at least 12 scenario files, found %d (%v)", len(files), err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) { runScenarioFile(t, path) })
	}
}

func runScenarioFile(t *testing.T, path string) {
	{
		var w *World
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "world":
				sc, err := scenarioFromTest(d)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				w, err = New(sc)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return "ok\n"
			case "do":
				if w == nil {
					d.Fatalf(t, "do before world")
				}
				show := traceFilter(d)
				var b strings.Builder
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					line = strings.TrimSpace(line)
					if line == "" || strings.HasPrefix(line, "#") {
						continue
					}
					start := len(w.Events())
					if err := w.Do(line); err != nil {
						fmt.Fprintf(&b, "> %s\nerror: %v\n", line, err)
						continue
					}
					fmt.Fprintf(&b, "> %s\n", line)
					if line == "reset" {
						start = 0
					}
					for i, e := range w.Events()[start:] {
						if show(e) {
							fmt.Fprintf(&b, "#%-3d%s\n", start+i, w.Names().Format(e))
						}
					}
				}
				return b.String()
			case "state":
				return formatState(w)
			case "metrics":
				return formatMetrics(w.Metrics())
			case "overlap":
				return formatOverlap(w)
			case "violations":
				var b strings.Builder
				for _, e := range w.Events() {
					if e.Kind == KindViolation {
						b.WriteString(w.Names().Format(e) + "\n")
						for _, r := range []int32{e.Ref(), e.Ref2()} {
							if r >= 0 {
								fmt.Fprintf(&b, "    #%-3d%s\n", r, w.Names().Format(w.Events()[r]))
							}
						}
					}
				}
				if b.Len() == 0 {
					return "none\n"
				}
				return b.String()
			}
			d.Fatalf(t, "unknown directive %s", d.Cmd)
			return ""
		})
	}
}

// scenarioFromTest reads "world key=value ..." with one worker per input line.
func scenarioFromTest(d *datadriven.TestData) (Scenario, error) {
	var sc Scenario
	for _, a := range d.CmdArgs {
		if len(a.Vals) != 1 {
			return sc, fmt.Errorf("option %s needs one value", a.Key)
		}
		if err := sc.Set(a.Key, a.Vals[0]); err != nil {
			return sc, err
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		ws, err := ParseWorker(line)
		if err != nil {
			return sc, err
		}
		sc.Workers = append(sc.Workers, ws)
	}
	return sc, nil
}

// traceFilter hides message sends and receipts unless the directive says
// "net"; drops are always shown because they are what a fault looks like.
// "quiet" shows only violations; "storage" what the storage did, the
// grants and expiries, the links cut and healed, and the violations.
func traceFilter(d *datadriven.TestData) func(Event) bool {
	if d.HasArg("quiet") {
		return func(e Event) bool { return e.Kind == KindViolation }
	}
	if d.HasArg("storage") {
		return func(e Event) bool {
			switch e.Kind {
			case KindAccept, KindReject, KindReplicate, KindGrant, KindExpire, KindPartition, KindHeal, KindViolation:
				return true
			}
			return false
		}
	}
	if d.HasArg("net") {
		return func(Event) bool { return true }
	}
	return func(e Event) bool { return e.Kind != KindSend && e.Kind != KindRecv }
}

func formatState(w *World) string {
	s := w.Snapshot()
	n := w.Names()
	var b strings.Builder
	c := s.Coordinator
	fmt.Fprintf(&b, "now=%s\n", s.Now)
	holder := "free"
	if c.Holder != NoNode {
		holder = fmt.Sprintf("%s token=%d until=%s", n.Of(c.Holder), c.Token, c.Expires)
	}
	avail := "available"
	if !c.Available {
		avail = "unavailable (" + c.Why.String() + ")"
	}
	fmt.Fprintf(&b, "coord: %s; lease %s; next token %d\n", avail, holder, c.NextToken)
	fmt.Fprintf(&b, "storage: mode=%s highest=%d writes=%d\n", s.Storage.Mode, s.Storage.Highest, len(s.Storage.Ledger))
	for _, wk := range s.Workers {
		state := "running"
		switch {
		case wk.Crashed:
			state = "crashed"
		case wk.Frozen:
			state = "frozen"
		case wk.Done:
			state = "done"
		}
		fmt.Fprintf(&b, "%s: %s", wk.Name, state)
		if wk.Holds {
			fmt.Fprintf(&b, " holds token=%d believes-until=%s believes=%v", wk.Token, wk.BelievedEnd, wk.Believes)
		}
		fmt.Fprintf(&b, " local=%s\n", wk.LocalNow)
	}
	for _, l := range s.Leases {
		fmt.Fprintf(&b, "real   %s token=%d %s..%s\n", n.Of(l.Worker), l.Token, l.Start, l.End)
	}
	for _, l := range s.Beliefs {
		end := "held"
		if l.End != Never {
			end = "let go " + l.End.String()
		}
		fmt.Fprintf(&b, "belief %s token=%d %s..%s (%s)\n", n.Of(l.Worker), l.Token, l.Start, l.Until, end)
	}
	for _, f := range s.Freezes {
		fmt.Fprintf(&b, "frozen %s %s..%s\n", n.Of(f.Worker), f.Start, f.End)
	}
	return b.String()
}

func formatMetrics(m Metrics) string {
	var b strings.Builder
	fmt.Fprintf(&b, "attempts=%d successes=%d failures=%d (transient=%d definitive=%d) rejected=%d lost=%d stale-drops=%d\n",
		m.Attempts, m.Successes, m.Failures, m.Transient, m.Definitive, m.Rejected, m.Lost, m.StaleDrops)
	fmt.Fprintf(&b, "latency p50=%s p99=%s max=%s\n", Percentile(m.Latency, 50), Percentile(m.Latency, 99), Percentile(m.Latency, 100))
	fmt.Fprintf(&b, "remaining-at-success min=%s p50=%s\n", Percentile(m.Remaining, 0), Percentile(m.Remaining, 50))
	most := 0
	for _, r := range m.Retries {
		most = max(most, r)
	}
	fmt.Fprintf(&b, "most retries for one renewal=%d\n", most)
	return b.String()
}

// formatOverlap reports, for every two beliefs of different workers, the
// true time during which both believed they held the lease: the overlap
// REFERENCE.md's scenarios talk about.
func formatOverlap(w *World) string {
	s := w.Snapshot()
	n := w.Names()
	end := func(b BeliefSpan) Time { return min(b.Until, b.End, s.Now) }
	var out strings.Builder
	for i, a := range s.Beliefs {
		for _, b := range s.Beliefs[i+1:] {
			if a.Worker == b.Worker {
				continue
			}
			from, to := max(a.Start, b.Start), min(end(a), end(b))
			if to > from {
				fmt.Fprintf(&out, "%s token=%d and %s token=%d both believe from %s to %s: %s\n", n.Of(a.Worker), a.Token, n.Of(b.Worker), b.Token, from, to, to-from)
			}
		}
	}
	if out.Len() == 0 {
		return "no overlap\n"
	}
	return out.String()
}

// OptionNames lists every option Set takes, and none it refuses as unknown.
func TestOptionNames(t *testing.T) {
	for _, of := range []string{"scenario", "worker"} {
		names := OptionNames(of)
		if len(names) < 15 {
			t.Fatalf("%s: %d options", of, len(names))
		}
		for _, k := range names {
			var err error
			if of == "scenario" {
				var sc Scenario
				err = sc.Set(k, "x")
			} else {
				var ws WorkerSpec
				err = ws.Set(k, "x")
			}
			var unknown *UnknownOptionError
			if errors.As(err, &unknown) {
				t.Errorf("%s option %q is listed but unknown to Set", of, k)
			}
		}
	}
}
