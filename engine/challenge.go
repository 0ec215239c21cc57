package engine

import (
	"fmt"
	"slices"
)

// A Challenge tests a holder's renewal policy against many seeded fault
// schedules: the design challenge of the second seed. The engine is the
// judge — a policy passes when, in every run, the holder never acts after
// its lease expired (nor beside another holder), and it keeps the lease
// through every schedule whose faults stay within the Survive limits.
type Challenge struct {
	Scenario Scenario // the world; it must have a worker called Holder
	Holder   string
	Runs     int    // how many schedules; default 200
	Seed     uint64 // the schedules are drawn from this seed
	Horizon  Time   // how long each run lasts; default 2m
	Faults   FaultLimits
	Survive  FaultLimits // a schedule within these limits must not cost the lease
	// Harm lists the violations that fail a run; nil: every violation.
	// A lab whose storage fences late writes may judge only the harm that
	// lands (stale-write, lost-update), not the late act itself.
	Harm []Reason

	prepared *Prepared // Scenario, prepared by Ready for every run
}

// FaultLimits bounds each kind of fault in a schedule. A zero field turns
// that kind off (or, in Survive, means the holder need not survive it).
type FaultLimits struct {
	Spike     Time  // extra delay on the holder's link to the coordinator
	Drop      Time  // how long the link drops everything
	Pause     Time  // how long the holder freezes
	Partition Time  // how long the holder is cut off from the coordinator
	DriftPPM  int64 // how far the holder's clock rate strays, either way
	// Work, in Survive only and for a written worker, is the share of
	// the seconds from its first grant to the horizon, in percent, in
	// which the holder must write: keeping the lease is not enough, it
	// must keep working. 0: at least one write.
	Work int
	// Outage cuts the holder off from the coordinator for longer than the
	// lease: from the TTL up to Outage. No margin outlasts it, so the
	// holder always loses the lease, and such a run is judged on safety
	// only: a policy that retries past its deadline or does not stop at
	// expiry acts without its lease. Meaningless in Survive.
	Outage Time
}

// FaultKind is what a fault of a schedule does; a page says it with the
// catalog key "fault." followed by the kind.
type FaultKind string

// The kinds of fault a challenge draws from.
const (
	FaultSpike     FaultKind = "spike"     // the holder's link to the coordinator slows
	FaultDrop      FaultKind = "drop"      // that link loses every message
	FaultPause     FaultKind = "pause"     // the holder freezes
	FaultPartition FaultKind = "partition" // the holder is cut off from the coordinator
	FaultDrift     FaultKind = "drift"     // the holder's clock runs fast or slow
	FaultOutage    FaultKind = "outage"    // a partition longer than any lease
)

// More kinds a schedule search places (SearchKind).
const (
	FaultPauseAtCheck FaultKind = "pause-at-check" // the holder freezes the moment its next check passes
	FaultCut          FaultKind = "cut"            // the holder is cut off from everyone
	FaultJump         FaultKind = "jump"           // the holder's clock jumps
	FaultReplica      FaultKind = "replica"        // a coordinator replica is down
)

// Fault is one fault of a schedule.
type Fault struct {
	At    Time
	Kind  FaultKind
	Size  Time  // delay, or duration
	Rate  int64 // drift: the clock rate in ppm
	Hold  Time  // spike: how long the extra delay lasts
	Cmds  []Command
	Heals []Command // applied at At+Size (or At+Hold)
}

// Run is one run of a challenge.
type Run struct {
	Index    int
	Seed     uint64
	Faults   []Fault
	Commands []Command // the whole run as a command list: replay it to see it
	Survive  bool      // the holder had to keep its lease through this one
	Failed   bool
	Safety   bool  // failed on safety (a violation), not only liveness
	Event    int   // index of the deciding event in the run's log, -1 if none
	Why      Event // the deciding event
}

// Result is a challenge's verdict.
type Result struct {
	Pass             bool
	Runs             int
	SafetyFailures   int
	LivenessFailures int
	MustSurvive      int // runs within the Survive limits
	// Counterexample is the shortest failing run: fewest faults, then the
	// earliest deciding event. Nil when the policy passes.
	Counterexample *Run
}

func (c *Challenge) defaults() {
	if c.Runs == 0 {
		c.Runs = 200
	}
	if c.Horizon == 0 {
		c.Horizon = 2 * Minute
	}
}

// Schedule draws run i's faults. The same challenge and i always give the
// same schedule.
func (c Challenge) Schedule(i int) Run {
	c.defaults()
	seed := c.Seed*1_000_003 + uint64(i)*7919 + 1
	r := rng{s: seed}
	type kind struct {
		name FaultKind
		max  Time
	}
	var kinds []kind
	for _, k := range []kind{{FaultSpike, c.Faults.Spike}, {FaultDrop, c.Faults.Drop}, {FaultPause, c.Faults.Pause}, {FaultPartition, c.Faults.Partition}, {FaultDrift, Time(c.Faults.DriftPPM)}, {FaultOutage, c.Faults.Outage}} {
		if k.max > 0 {
			kinds = append(kinds, k)
		}
	}
	run := Run{Index: i, Seed: seed, Survive: true, Event: -1}
	if len(kinds) == 0 {
		return run
	}
	h := c.Holder
	n := 1 + int(r.upTo(2))
	start, end := 10*Second, c.Horizon-20*Second
	for range n {
		k := kinds[r.upTo(int64(len(kinds)-1))]
		f := Fault{At: start + Time(r.upTo(int64(end-start))), Kind: k.name}
		f.At -= f.At % 100 // whole tenths of a second read better
		size := 100 + Time(r.upTo(int64(k.max-100)))
		size -= size % 100
		switch k.name {
		case FaultSpike:
			f.Size, f.Hold = size, 2*Second+Time(r.upTo(int64(8*Second)))
			f.Hold -= f.Hold % 100
			f.Cmds = []Command{{Kind: CmdLink, A: h, B: "coord", HasDelay: true, Dur: c.Scenario.Delay + size}}
			f.Heals = []Command{{Kind: CmdLink, A: h, B: "coord", HasDelay: true, Dur: c.Scenario.Delay}}
		case FaultDrop:
			f.Size = size
			f.Cmds = []Command{{Kind: CmdLink, A: h, B: "coord", HasLoss: true, LossPPM: 1_000_000}}
			f.Heals = []Command{{Kind: CmdLink, A: h, B: "coord", HasLoss: true, LossPPM: c.Scenario.LossPPM}}
		case FaultPause:
			f.Size = size
			f.Cmds = []Command{{Kind: CmdFreeze, A: h, Dur: size}}
		case FaultPartition:
			f.Size = size
			f.Cmds = []Command{{Kind: CmdPartition, A: h, B: "coord"}}
			f.Heals = []Command{{Kind: CmdHeal, A: h, B: "coord"}}
		case FaultOutage:
			// From just over the lease up to the limit: longer than any
			// margin a policy could choose.
			ttl := c.Scenario.TTL
			f.Size = ttl + 100 + Time(r.upTo(int64(k.max-ttl-100)))
			f.Size -= f.Size % 100
			if f.At+f.Size > c.Horizon { // healed by the end of the run
				f.At = c.Horizon - f.Size
				f.At -= f.At % 100
			}
			f.Cmds = []Command{{Kind: CmdPartition, A: h, B: "coord"}}
			f.Heals = []Command{{Kind: CmdHeal, A: h, B: "coord"}}
		case FaultDrift:
			d := 1 + r.upTo(c.Faults.DriftPPM-1)
			if r.upTo(1) == 0 {
				d = -d
			}
			f.Rate = 1_000_000 + d
			f.Cmds = []Command{{Kind: CmdClock, A: h, HasRate: true, Rate: f.Rate}}
		}
		if f.Kind == FaultOutage {
			// An outage is its run's only fault, so the verdict is about
			// whether the policy stops when its margin is gone, not about
			// a pause landing on top (which only fencing could answer).
			run.Faults, run.Survive = []Fault{f}, false
			break
		}
		run.Survive = run.Survive && c.survivable(f)
		run.Faults = append(run.Faults, f)
	}
	slices.SortStableFunc(run.Faults, func(a, b Fault) int { return int(a.At - b.At) })
	run.Commands = c.commands(run.Faults)
	return run
}

func (c Challenge) survivable(f Fault) bool {
	s := c.Survive
	switch f.Kind {
	case FaultSpike:
		return f.Size <= s.Spike
	case FaultDrop:
		return f.Size <= s.Drop
	case FaultPause:
		return f.Size <= s.Pause
	case FaultPartition:
		return f.Size <= s.Partition
	case FaultDrift:
		d := f.Rate - 1_000_000
		return max(d, -d) <= s.DriftPPM
	}
	return false // an outage outlasts every lease: never survivable
}

// commands lays a schedule out as one command list: run until each fault
// starts or ends, apply it, and run to the horizon.
func (c Challenge) commands(fs []Fault) []Command {
	type step struct {
		at  Time
		cmd Command
	}
	var steps []step
	for _, f := range fs {
		for _, cmd := range f.Cmds {
			steps = append(steps, step{f.At, cmd})
		}
		end := f.At + f.Size
		if f.Kind == FaultSpike {
			end = f.At + f.Hold
		}
		for _, cmd := range f.Heals {
			steps = append(steps, step{end, cmd})
		}
	}
	slices.SortStableFunc(steps, func(a, b step) int { return int(a.at - b.at) })
	var cmds []Command
	for _, s := range steps {
		if s.at > 0 {
			cmds = append(cmds, Command{Kind: CmdUntil, At: s.at})
		}
		cmds = append(cmds, s.cmd)
	}
	return append(cmds, Command{Kind: CmdUntil, At: c.Horizon})
}

// Play runs one schedule and judges it; it returns the world it ran in.
func (c Challenge) Play(run *Run) (*World, error) {
	return c.PlayIn(nil, run)
}

// PlayIn is Play in a world that is reused (World.Reuse) when w is not
// nil, so that many runs in a row allocate little. It returns the world
// the run was played in.
func (c Challenge) PlayIn(w *World, run *Run) (*World, error) {
	if c.prepared != nil {
		w = c.prepared.NewIn(w, c.Scenario.Seed)
	} else if w == nil {
		var err error
		if w, err = New(c.Scenario); err != nil {
			return nil, err
		}
	} else if err := w.Reuse(c.Scenario); err != nil {
		return nil, err
	}
	holder, ok := w.Worker(c.Holder)
	if !ok {
		return nil, fmt.Errorf("the challenge's holder %q is not a worker of its scenario", c.Holder)
	}
	for _, cmd := range run.Commands {
		// A freeze may land on a crashed or frozen holder; such a command
		// is refused and the schedule goes on, as it would for a student.
		if err := w.Apply(cmd); err != nil && cmd.Kind == CmdUntil {
			return w, err
		}
	}
	run.Failed, run.Safety, run.Event = false, false, -1
	evs := w.Events()
	for i, e := range evs {
		other := NoNode
		if e.Kind == KindViolation && e.Reason() == ViolationSplitBrain && e.Ref2() >= 0 {
			other = evs[e.Ref2()].Node
		}
		if e.Kind == KindViolation && (e.Peer() == holder || other == holder || w.writtenSide()) && (c.Harm == nil || slices.Contains(c.Harm, e.Reason())) {
			run.Failed, run.Safety, run.Event, run.Why = true, true, i, e
			return w, nil
		}
	}
	if w.judgeSides(holder, run) || w.p.sc.Workers[holder].Logic != nil && w.judgeProgram(holder, run, c.Survive.Work) {
		return w, nil
	}
	if run.Survive {
		for i, e := range w.Events() {
			if e.Kind == KindLost && e.Node == holder {
				run.Failed, run.Event, run.Why = true, i, e
				return w, nil
			}
		}
	}
	return w, nil
}

// validFaults reports limits a schedule cannot be drawn from.
func (c Challenge) validFaults() error {
	if o := c.Faults.Outage; o > 0 {
		if c.Scenario.TTL == 0 {
			return fmt.Errorf("an outage outlasts the lease, but the scenario's lease never expires (ttl 0s)")
		}
		if o <= c.Scenario.TTL+100 {
			return fmt.Errorf("outage %s must be longer than the lease (%s): it is the fault no margin outlasts", o, c.Scenario.TTL)
		}
		if o > c.Horizon-10*Second {
			return fmt.Errorf("outage %s does not fit in a run of %s", o, c.Horizon)
		}
	}
	if c.Survive.Outage > 0 {
		return fmt.Errorf("survive cannot hold an outage: no policy keeps a lease through one")
	}
	return nil
}

// Ready checks the challenge and fills in its defaults (Runs, Horizon).
// A caller that plays the runs itself (PlayRun, perhaps on several
// goroutines, each with its own world) starts from the challenge Ready
// returns and ends with Tally. That challenge holds its scenario prepared
// (Prepare) once for all its runs: a challenge changed after Ready must be
// made Ready again.
func (c Challenge) Ready() (Challenge, error) {
	c.defaults()
	p, err := Prepare(c.Scenario)
	if err != nil {
		return c, err
	}
	if err := c.validFaults(); err != nil {
		return c, err
	}
	c.prepared = p
	return c, nil
}

// PlayRun draws schedule i and plays it, in w reused when w is not nil.
// Runs are independent: any order, on any goroutine, gives the same runs.
func (c Challenge) PlayRun(i int, w *World) (Run, *World, error) {
	run := c.Schedule(i)
	w, err := c.PlayIn(w, &run)
	if err != nil {
		return run, w, fmt.Errorf("run %d: %w", i, err)
	}
	return run, w, nil
}

// Tally folds played runs, in schedule order, into the verdict.
func (c Challenge) Tally(runs []Run) Result {
	res := Result{Runs: len(runs)}
	for i := range runs {
		run := &runs[i]
		if run.Survive {
			res.MustSurvive++
		}
		if !run.Failed {
			continue
		}
		if run.Safety {
			res.SafetyFailures++
		} else {
			res.LivenessFailures++
		}
		if ce := res.Counterexample; ce == nil || shorter(run, ce) {
			r := *run
			res.Counterexample = &r
		}
	}
	res.Pass = res.Counterexample == nil
	return res
}

// Judge runs every schedule, one after another in one reused world, and
// returns the verdict.
func (c Challenge) Judge() (Result, error) {
	c, err := c.Ready()
	if err != nil {
		return Result{}, err
	}
	runs := make([]Run, c.Runs)
	var w *World
	for i := range runs {
		if runs[i], w, err = c.PlayRun(i, w); err != nil {
			return c.Tally(runs[:i]), err
		}
	}
	return c.Tally(runs), nil
}

// shorter orders failing runs: safety failures first, then fewer faults,
// then the earlier deciding event.
func shorter(a, b *Run) bool {
	if a.Safety != b.Safety {
		return a.Safety
	}
	if len(a.Faults) != len(b.Faults) {
		return len(a.Faults) < len(b.Faults)
	}
	return a.Why.T < b.Why.T
}
