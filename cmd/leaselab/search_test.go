package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The shortest breaking schedule leaselab search prints replays, through
// leaselab run, to the same harm at the same time; the text output says
// the counts and the permalink.
func TestSearchReplaysThroughRun(t *testing.T) {
	for _, lab := range []string{"break-fencing", "break-check", "break-margin"} {
		code, out, errs := runCLI("search", lab, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", lab, code, errs)
		}
		var rep searchReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: %v\n%s", lab, err, out)
		}
		if rep.Shortest == nil || rep.Schedules == 0 {
			t.Fatalf("%s: nothing breaks it: %s", lab, out)
		}
		if !strings.HasPrefix(rep.Shortest.Permalink, "/id/labs/"+lab+"/at?") {
			t.Errorf("%s: permalink %q", lab, rep.Shortest.Permalink)
		}
		args := []string{"run", lab}
		for _, c := range rep.Shortest.Commands {
			args = append(args, "--do", c)
		}
		code, trace, errs := runCLI(args...)
		if code != 0 {
			t.Fatalf("%s: run exit %d: %s", lab, code, errs)
		}
		var first string
		for _, line := range strings.Split(trace, "\n") {
			if strings.Contains(line, "VIOLATION "+rep.Shortest.Harm) {
				first = line
				break
			}
		}
		if first == "" || !strings.Contains(first, " "+rep.Shortest.At+" ") {
			t.Errorf("%s: the search saw %s at %s; the replay's first such line is %q", lab, rep.Shortest.Harm, rep.Shortest.At, first)
		}
	}
	code, out, _ := runCLI("search", "renew-policy", "--faults", "1")
	if code != 0 || !strings.Contains(out, "no schedule within these bounds breaks it") || !strings.Contains(out, "schedules decided") {
		t.Errorf("renew-policy, one fault: exit %d\n%s", code, out)
	}
	if code, _, errs := runCLI("search", "w1-w2"); code != 1 || !strings.Contains(errs, "has no search") {
		t.Errorf("a lab without bounds: exit %d: %s", code, errs)
	}
}
