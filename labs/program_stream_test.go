package labs_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"leaselab/labs"
)

// A judgement said as a stream and read back (as a server reads a
// judgement run in a process of its own) is the same verdict: the same
// deciding schedule, event, line, search and flags.
func TestVerdictFromStream(t *testing.T) {
	t.Parallel()
	for _, id := range programLabs(t) {
		p, ref := programLab(t, id)
		progs := []struct{ name, src string }{{"reference", ref}, {"start", p.Start}}
		if id == "write-renewal" {
			progs = append(progs, hostilePrograms[0], hostilePrograms[8])
		}
		for _, c := range progs {
			want := judged(t, p, c.src)
			b, err := json.Marshal(want.Stream())
			if err != nil {
				t.Fatal(err)
			}
			var line labs.JudgementLine
			if err := json.Unmarshal(b, &line); err != nil {
				t.Fatal(err)
			}
			got, err := p.VerdictFrom(c.src, line)
			if err != nil {
				t.Fatalf("%s %s: %v", id, c.name, err)
			}
			if g, w := summary(got), summary(want); !reflect.DeepEqual(g, w) {
				t.Errorf("%s %s: from the stream %+v, judged %+v", id, c.name, g, w)
			}
		}
	}
}

type verdictSummary struct {
	Pass, Searched, SearchCut, TooSlow, Fault bool
	Event                                     int
	Line, Col                                 int32
	Faults                                    string
	Counterexample                            int
}

func summary(v *labs.ProgramVerdict) verdictSummary {
	s := verdictSummary{Pass: v.Pass, Searched: v.Searched(), SearchCut: v.SearchCut, TooSlow: v.TooSlow, Fault: v.Fault != nil, Event: v.Event, Line: v.Line, Col: v.Col, Counterexample: -1}
	if v.Searched() {
		b, _ := json.Marshal(v.Search.Shortest.Faults)
		s.Faults = string(b)
	}
	if v.Counterexample != nil {
		s.Counterexample = v.Counterexample.Index
	}
	return s
}
