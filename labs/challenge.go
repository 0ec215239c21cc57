package labs

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"leaselab/engine"
)

// Challenge is a lab's design challenge (the second seed): the student sets
// the holder's renewal policy, and the engine plays many seeded fault
// schedules against it. The verdict is the engine's; nothing is stored.
type Challenge struct {
	Holder string
	Params []Param // the policy options the student may set, in file order

	lab  *Lab
	at   pos
	spec engine.Challenge
}

// Param is one policy option of a challenge: a worker option name and the
// value the lab starts from. A survive-KIND param (survive-pause,
// survive-partition, survive-spike, survive-drop) is not a worker option
// but the tolerance the student states: the longest fault of that kind
// the holder must keep its lease through. The challenge then plays
// faults of that kind up to the stated length, and holds the policy to it.
type Param struct {
	Name    string
	Default string
}

// stated names the fault limits a survive-KIND param sets.
var stated = map[string]func(*engine.FaultLimits) *engine.Time{
	"survive-pause":     func(l *engine.FaultLimits) *engine.Time { return &l.Pause },
	"survive-partition": func(l *engine.FaultLimits) *engine.Time { return &l.Partition },
	"survive-spike":     func(l *engine.FaultLimits) *engine.Time { return &l.Spike },
	"survive-drop":      func(l *engine.FaultLimits) *engine.Time { return &l.Drop },
}

// maxStated is the longest tolerance a student may state: longer than any
// lease in the course, so that "more than the lease" can be asked for and
// be seen to fail.
const maxStated = 30 * engine.Second

// setStated applies a stated tolerance to spec: the holder must survive a
// fault of that kind up to d, and the schedules reach d.
func setStated(spec *engine.Challenge, name, v string) error {
	d, err := engine.ParseTime(v)
	if err != nil || d < 0 || d > maxStated {
		return fmt.Errorf("%s: want a duration from 0s to %s", name, maxStated)
	}
	*stated[name](&spec.Survive) = d
	if f := stated[name](&spec.Faults); *f < d {
		*f = d
	}
	return nil
}

// ChallengeVerdict is the engine's judgement of one policy.
type ChallengeVerdict struct {
	engine.Result
	Policy string // the holder's options as played, "renew-margin=3s ..."
	// World is the counterexample replayed, for its timeline; nil on a pass.
	World *engine.World
}

// Challenge returns the lab's design challenge, or nil.
func (l *Lab) Challenge() *Challenge { return l.challenge }

// Spec is the engine challenge with the lab's default policy.
func (c *Challenge) Spec() engine.Challenge { return c.spec }

// Judge plays the challenge with the student's values for the policy
// options; names not given keep the lab's defaults. A preset, when given,
// replaces the policy whole: a real client's numbers, tested as they are.
func (c *Challenge) Judge(values map[string]string) (*ChallengeVerdict, error) {
	return c.JudgeOn(values, 0)
}

// JudgeOn is Judge on at most workers goroutines (0: every core). A server
// judges each student's policy on one, so that a verdict never takes
// every core from the other students' live sessions.
func (c *Challenge) JudgeOn(values map[string]string, workers int) (*ChallengeVerdict, error) {
	spec, policy, err := c.withPolicy(values)
	if err != nil {
		return nil, err
	}
	res, err := judge(spec, workers)
	if err != nil {
		return nil, err
	}
	v := &ChallengeVerdict{Result: res, Policy: policy}
	if res.Counterexample != nil {
		v.World, err = spec.Play(res.Counterexample)
		if err != nil {
			return nil, err
		}
	}
	return v, nil
}

// judge plays the challenge's runs on every core the process may use, each
// goroutine in one reused world. The runs are independent and the tally
// goes in schedule order, so the verdict is the one engine.Challenge.Judge
// gives.
func judge(spec engine.Challenge, workers int) (engine.Result, error) {
	spec, err := spec.Ready()
	if err != nil {
		return engine.Result{}, err
	}
	runs := make([]engine.Run, spec.Runs)
	errs := make([]error, spec.Runs)
	n := max(1, min(runtime.GOMAXPROCS(0), spec.Runs/16))
	if workers > 0 {
		n = min(n, workers)
	}
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			var w *engine.World
			for i := g; i < len(runs); i += n {
				runs[i], w, errs[i] = spec.PlayRun(i, w)
				if errs[i] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return spec.Tally(runs[:i]), err
		}
	}
	return spec.Tally(runs), nil
}

// ValueError is a policy value the challenge cannot take: Param names the
// option, Value is what the student gave, Err says why (in English).
type ValueError struct {
	Param, Value string
	Err          error
}

func (e *ValueError) Error() string { return e.Err.Error() }
func (e *ValueError) Unwrap() error { return e.Err }

// Key is the catalog's text: an option the challenge does not have, or a
// value it cannot take.
func (e *ValueError) Key() string {
	if e.Value == "" {
		return "err.param"
	}
	return "err.value"
}

// Args are what Key's text names.
func (e *ValueError) Args() []any {
	if e.Value == "" {
		return []any{e.Param}
	}
	return []any{e.Value, e.Param}
}

// withPolicy builds the engine challenge for a set of values.
func (c *Challenge) withPolicy(values map[string]string) (engine.Challenge, string, error) {
	for name := range values {
		if name != "preset" && !slices.ContainsFunc(c.Params, func(p Param) bool { return p.Name == name }) {
			return engine.Challenge{}, "", &ValueError{Param: name, Err: fmt.Errorf("%q is not an option of this challenge", name)}
		}
	}
	spec := c.spec
	spec.Scenario = copyScenario(c.spec.Scenario)
	i := slices.IndexFunc(spec.Scenario.Workers, func(w engine.WorkerSpec) bool { return w.Name == c.Holder })
	ws := &spec.Scenario.Workers[i]
	var parts []string
	if p := strings.TrimSpace(values["preset"]); p != "" {
		if err := ws.Set("preset", p); err != nil {
			return spec, "", &ValueError{Param: "preset", Value: p, Err: err}
		}
		parts = append(parts, "preset="+p)
	}
	for _, p := range c.Params {
		if ws.Preset != "" {
			break // a preset decides everything
		}
		v, ok := values[p.Name]
		if !ok || strings.TrimSpace(v) == "" {
			v = p.Default
		}
		v = strings.TrimSpace(v)
		if len(v) > 32 {
			return spec, "", &ValueError{Param: p.Name, Value: v[:32] + "…", Err: fmt.Errorf("%s: value too long", p.Name)}
		}
		if _, ok := stated[p.Name]; ok {
			continue
		}
		if err := ws.Set(p.Name, v); err != nil {
			return spec, "", &ValueError{Param: p.Name, Value: v, Err: err}
		}
		parts = append(parts, p.Name+"="+v)
	}
	// The stated tolerances hold with a preset too: they are what the
	// policy is held to, not part of it.
	for _, p := range c.Params {
		if _, ok := stated[p.Name]; !ok {
			continue
		}
		v := strings.TrimSpace(values[p.Name])
		if v == "" {
			v = p.Default
		}
		if len(v) > 32 {
			return spec, "", &ValueError{Param: p.Name, Value: v[:32] + "…", Err: fmt.Errorf("%s: value too long", p.Name)}
		}
		if err := setStated(&spec, p.Name, v); err != nil {
			return spec, "", &ValueError{Param: p.Name, Value: v, Err: err}
		}
		parts = append(parts, p.Name+"="+v)
	}
	return spec, strings.Join(parts, " "), nil
}

func parseChallenge(r *report, l *Lab, y ynode) *Challenge {
	kvs, ok := y.mapping(r, "challenge")
	if !ok {
		return nil
	}
	knownKeys(r, kvs, "challenge", challengeKeys...)
	c := &Challenge{lab: l, at: y.pos()}
	c.spec.Scenario = l.scenario
	good := true
	for _, e := range kvs {
		switch e.key {
		case "holder":
			s, _ := e.val.str(r, "holder")
			if !slices.Contains(workerNames(l.scenario), s) {
				r.errorf(e.val.pos(), "holder %q is not a worker of the scenario (%s)", s, strings.Join(workerNames(l.scenario), ", "))
				good = false
			}
			c.Holder, c.spec.Holder = s, s
		case "runs", "seed", "horizon", "faults", "survive":
			good = readSchedules(r, l, e, &c.spec) && good
			if c.spec.Survive.Work > 0 {
				r.errorf(e.val.pos(), "survive work: only a program lab's written worker is judged on its work; a challenge's holder must keep its lease")
				c.spec.Survive.Work, good = 0, false
			}
		case "policy":
			good = c.readPolicy(r, e.val) && good
		}
	}
	if !c.complete(r, good) {
		return nil
	}
	return c
}

// readSchedules reads one of the keys that say which schedules a
// challenge or a program lab plays (runs, seed, horizon, faults, survive)
// into spec; false when its value is wrong.
func readSchedules(r *report, l *Lab, e kv, spec *engine.Challenge) bool {
	switch e.key {
	case "runs", "seed":
		s, _ := e.val.str(r, e.key)
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || (e.key == "runs" && (n < 1 || n > 1000)) {
			r.errorf(e.val.pos(), "%s: want a whole number%s", e.key, map[bool]string{true: " from 1 to 1000", false: ""}[e.key == "runs"])
			return false
		}
		if e.key == "runs" {
			spec.Runs = int(n)
		} else {
			spec.Seed = n
		}
	case "horizon":
		s, _ := e.val.str(r, "horizon")
		d, err := engine.ParseTime(s)
		if err != nil || d < 30*engine.Second || d > 10*engine.Minute {
			r.errorf(e.val.pos(), "horizon %q: want a duration from 30s to 10m", s)
			return false
		}
		spec.Horizon = d
	case "faults", "survive":
		lim, ok := parseFaultLimits(r, l, e.val, e.key)
		if e.key == "faults" {
			spec.Faults = lim
		} else {
			spec.Survive = lim
		}
		return ok
	}
	return true
}

// readPolicy reads policy:, the options the student sets with their
// starting values; false when any is wrong.
func (c *Challenge) readPolicy(r *report, y ynode) bool {
	pkvs, ok := y.mapping(r, "policy")
	if !ok {
		return false
	}
	good := true
	for _, p := range pkvs {
		v, _ := p.val.str(r, p.key)
		if _, ok := stated[p.key]; ok {
			probe := c.spec
			if err := setStated(&probe, p.key, v); err != nil {
				r.errorf(p.val.pos(), "policy: %v", err)
				good = false
				continue
			}
			c.Params = append(c.Params, Param{Name: p.key, Default: v})
			continue
		}
		var probe engine.WorkerSpec
		if err := probe.Set(p.key, v); err != nil {
			at := p.val.pos()
			var unknown *engine.UnknownOptionError
			if errors.As(err, &unknown) {
				at = p.keyAt.pos()
			}
			r.errorf(at, "policy: %v", err)
			good = false
			continue
		}
		if p.key == "preset" {
			r.errorf(p.keyAt.pos(), "policy: preset is offered to students always; list the options they tune")
			good = false
			continue
		}
		c.Params = append(c.Params, Param{Name: p.key, Default: v})
	}
	return good
}

// complete reports what a challenge lacks (a holder, a policy, faults),
// and says whether it is good to use.
func (c *Challenge) complete(r *report, good bool) bool {
	if c.Holder == "" {
		r.errorf(c.at, "a challenge needs holder: the worker whose policy is tested")
		return false
	}
	if len(c.Params) == 0 && good {
		r.errorf(c.at, "a challenge needs policy: the options the student sets, with starting values")
		good = false
	}
	if (c.spec.Faults == engine.FaultLimits{}) && good {
		r.errorf(c.at, "a challenge needs faults: at least one of spike, drop, pause, partition, drift, outage")
		good = false
	}
	return good
}

func parseFaultLimits(r *report, l *Lab, y ynode, what string) (engine.FaultLimits, bool) {
	var lim engine.FaultLimits
	kvs, ok := y.mapping(r, what)
	if !ok {
		return lim, false
	}
	keys := []string{"spike", "drop", "pause", "partition", "drift", "outage"}
	if what == "survive" {
		keys = append(keys, "work")
	}
	knownKeys(r, kvs, what, keys...)
	good := true
	for _, e := range kvs {
		s, _ := e.val.str(r, e.key)
		if e.key == "work" {
			v, ok := strings.CutSuffix(s, "%")
			n, err := strconv.Atoi(v)
			if !ok || err != nil || n < 1 || n > 100 {
				r.errorf(e.val.pos(), "survive work %q: want the share of seconds the written worker must write in, such as 80%%", s)
				good = false
				continue
			}
			lim.Work = n
			continue
		}
		if e.key == "drift" {
			v, ok := strings.CutSuffix(s, "%")
			f, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil || f < 0 || f > 50 {
				r.errorf(e.val.pos(), "%s drift %q: want a share of the clock rate such as 1%%", what, s)
				good = false
				continue
			}
			lim.DriftPPM = int64(f*10_000 + 0.5)
			continue
		}
		d, err := engine.ParseTime(s)
		if err != nil || d < 0 || d > 5*engine.Minute {
			r.errorf(e.val.pos(), "%s %s %q: want a duration up to 5m", what, e.key, s)
			good = false
			continue
		}
		switch e.key {
		case "spike":
			lim.Spike = d
		case "drop":
			lim.Drop = d
		case "pause":
			lim.Pause = d
		case "partition":
			lim.Partition = d
		case "outage":
			if what == "survive" {
				r.errorf(e.keyAt.pos(), "survive: no policy keeps its lease through an outage; list it under faults only")
				good = false
				continue
			}
			if ttl := l.scenario.TTL; d <= ttl+100*engine.Millisecond || d > 60*engine.Second {
				r.errorf(e.val.pos(), "faults outage %q: want a duration longer than the lease (%s) and at most 1m", s, ttl)
				good = false
				continue
			}
			lim.Outage = d
		}
	}
	return lim, good
}

// verifyChallenge plays the lab's starting policy once, so that check
// fails on a challenge that cannot run.
func verifyChallenge(r *report, l *Lab, once judgeOnce) {
	c := l.challenge
	if c == nil {
		return
	}
	if err := once("challenge", func() error { _, err := c.Judge(nil); return err }); err != nil {
		r.errorf(c.at, "challenge: %v", err)
	}
}
