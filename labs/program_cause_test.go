package labs_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"leaselab/engine"
)

// The verdict's chain (issue 49): beside the late write's line, the line
// that set what it went by. write-renewal's start with a deadline check
// counted from when the answer arrived: the write at line 31 checked
// w.state["until"], which line 13 set from w.now when the grant came,
// and both are said. The starting program checks nothing: its write ran
// on the timer "work", set at line 31. The coordinator lab's start hands
// out the counter kept in c.state, set again after the crash.
func TestVerdictChain(t *testing.T) {
	t.Parallel()
	p, _ := programLab(t, "write-renewal")
	arrived := strings.Replace(p.Start, "        w.write(\"data\", w.state[\"token\"])", "        if w.now < w.state[\"until\"]:\n            w.write(\"data\", w.state[\"token\"])", 1)
	if arrived == p.Start {
		t.Fatal("write-renewal's start changed: this test's edit no longer applies")
	}
	for _, tc := range []struct {
		lab, src   string
		line       int32
		causeLines []int32 // any of these
		kind       engine.CauseKind
		name       string
	}{
		{"write-renewal", arrived, 31, []int32{13}, engine.CauseChecked, `w.state["until"]`},
		{"write-renewal", p.Start, 30, []int32{31}, engine.CauseTimer, "work"},
		// on_start's counter after the crash, or its first step up
		{"write-coordinator-tokens", "", 20, []int32{8, 16}, engine.CauseUsed, `c.state["next"]`},
	} {
		lp, _ := programLab(t, tc.lab)
		src := tc.src
		if src == "" {
			src = lp.Start
		}
		v := judged(t, lp, src)
		c := v.Cause
		if v.Pass || v.Line != tc.line || !slices.Contains(tc.causeLines, c.Line) || c.Kind != tc.kind || c.Name != tc.name {
			t.Errorf("%s: line %d, cause %+v; want line %d, caused by line %v (%v %s)", tc.lab, v.Line, c, tc.line, tc.causeLines, tc.kind, tc.name)
			continue
		}
		if why, _ := v.Why(); c.At > why.T {
			t.Errorf("%s: the cause at %s is after the deciding event at %s", tc.lab, c.At, why.T)
		}
		for _, lang := range []string{"id", "en"} {
			if s := v.CauseText(lang, c.Name); !strings.Contains(s, c.Name) || !strings.Contains(s, fmt.Sprintf(" %d ", c.Line)) {
				t.Errorf("%s (%s): %q", tc.lab, lang, s)
			}
		}
	}
}
