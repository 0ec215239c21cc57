package labs

import (
	"fmt"
	"time"

	"leaselab/engine"
)

// A written worker's judgement can run in a process of its own, as a
// search does (search_stream.go): a server runs leaselab judge --format
// stream at the lowest CPU priority, so that judging never slows the
// students the server answers, and a judgement's garbage is collected
// apart from theirs. The process prints one JudgementLine; the server
// replays the deciding schedule itself (VerdictFrom).

// JudgementLine is a judgement as leaselab judge --format stream says it:
// the random schedules' counts and the index of the one that decided, the
// search's result, and what the judgement cost.
type JudgementLine struct {
	Pass             bool `json:"pass"`
	Runs             int  `json:"runs"`
	SafetyFailures   int  `json:"safety_failures,omitempty"`
	LivenessFailures int  `json:"liveness_failures,omitempty"`
	MustSurvive      int  `json:"must_survive,omitempty"`
	// Counterexample is the deciding random schedule's index, -1 for none.
	Counterexample int           `json:"counterexample"`
	Search         *StreamResult `json:"search,omitempty"`
	Beyond         *StreamResult `json:"beyond,omitempty"`
	SearchCut      bool          `json:"search_cut,omitempty"`
	TooSlow        bool          `json:"too_slow,omitempty"`
	Spent          uint64        `json:"spent"`
	HotLine        int32         `json:"hot_line,omitempty"`
	CPU            time.Duration `json:"cpu_ns,omitempty"`
}

// Stream says v as a stream does. v is a judgement of a program that
// compiled.
func (v *ProgramVerdict) Stream() JudgementLine {
	j := JudgementLine{
		Pass: v.Pass, Runs: v.Runs, SafetyFailures: v.SafetyFailures, LivenessFailures: v.LivenessFailures,
		MustSurvive: v.MustSurvive, Counterexample: -1, SearchCut: v.SearchCut, TooSlow: v.TooSlow, Spent: v.Spent,
	}
	if v.TooSlow {
		j.HotLine = v.Line
	}
	if ce := v.Counterexample; ce != nil {
		j.Counterexample = ce.Index
	}
	if v.Search != nil {
		j.Search = StreamResultOf(v.Search.SearchResult)
	}
	if v.Beyond != nil {
		j.Beyond = StreamResultOf(v.Beyond.SearchResult)
	}
	return j
}

// VerdictFrom is the verdict of a judgement of src run elsewhere (a
// server's judgement in a process of its own): j holds its counts, the
// deciding schedule's index and the search's result. The deciding
// schedules are replayed here, so the worlds and the lines are this
// process's own; a schedule that does not fail here is an error.
func (p *ProgramSpec) VerdictFrom(src string, j JudgementLine) (*ProgramVerdict, error) {
	c, err := p.Compile(src)
	if err != nil {
		return &ProgramVerdict{Compile: err, Event: -1}, nil
	}
	v := &ProgramVerdict{
		Result: engine.Result{Pass: j.Pass, Runs: j.Runs, SafetyFailures: j.SafetyFailures, LivenessFailures: j.LivenessFailures, MustSurvive: j.MustSurvive},
		Event:  -1, worker: p.Worker, side: p.Side, Spent: j.Spent, SearchCut: j.SearchCut,
	}
	if j.TooSlow {
		v.TooSlow, v.Pass, v.Line = true, false, j.HotLine
		return v, nil
	}
	spec := p.spec
	spec.Scenario = p.Scenario(c.Traced()) // replays only: their causes noted
	if j.Counterexample >= 0 {
		spec, err := spec.Ready()
		if err != nil {
			return nil, err
		}
		if j.Counterexample >= spec.Runs {
			return nil, fmt.Errorf("judgement: schedule %d of %d", j.Counterexample, spec.Runs)
		}
		run, w, err := spec.PlayRun(j.Counterexample, nil)
		if err != nil {
			return nil, err
		}
		if !run.Failed {
			return nil, fmt.Errorf("judgement: schedule %d does not fail here", j.Counterexample)
		}
		v.Counterexample, v.World, v.Event = &run, w, run.Event
		v.locate(v.Event)
	}
	for _, s := range []struct {
		res  *StreamResult
		spec *SearchSpec
		dst  **SearchVerdict
	}{{j.Search, p.lab.search, &v.Search}, {j.Beyond, p.beyond, &v.Beyond}} {
		if s.res == nil || s.spec == nil {
			continue
		}
		res, err := s.res.SearchResult()
		if err != nil {
			return nil, err
		}
		l, err := p.lab.WithProgram(src)
		if err != nil {
			return nil, err
		}
		l.search = s.spec
		if *s.dst, err = l.VerdictOf(SearchOptions{}, res); err != nil {
			return nil, err
		}
	}
	v.searchDecides()
	return v, nil
}
