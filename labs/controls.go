package labs

import (
	"fmt"
	"slices"
	"strings"

	"leaselab/engine"
)

// Controls is what a lab's live page offers a student: the commands its
// story needs and no others. Time (play, step, advance, until, reset) is
// always offered. The socket refuses a command the lab does not offer, and
// check refuses a goal whose proof needs one.
type Controls struct {
	HasFreeze bool          // freeze W (until thawed) and thaw W
	Freeze    []engine.Time // freeze W for=D, for each D
	FreezeOn  []engine.Kind // freeze W on=K [for=D], for each K
	Crash     bool          // crash W and restart W
	Cut       []string      // partition W (everyone), partition W coord, partition W storage; heal
	Fencing   bool          // fencing on and fencing off
	Storage   []engine.StorageMode
	Link      *LinkControl
	Clock     *ClockControl
	Replica   bool          // replica N down|up
	Until     []engine.Time // "run until" buttons (until is always allowed)
	// Lease offers lease D for each D, and back to the scenario's own
	// length: the length of the leases granted and renewed from then on.
	Lease []engine.Time
}

// LinkControl offers link W TO delay=D or loss=P for the listed values,
// and back to the scenario's own delay and loss.
type LinkControl struct {
	To    []string      // coord, storage
	Delay []engine.Time // offered delays
	Loss  []int64       // offered losses, per million
}

// ClockControl offers clock W skew=D, jump=D or rate=R for the listed
// values (skew=0s and rate=1 undo).
type ClockControl struct {
	Skew, Jump []engine.Time
	Rate       []int64 // as engine.Command.Rate (parts per million of real time)
}

// CutEveryone, CutCoord and CutStorage are the ways a worker can be cut off.
const (
	CutEveryone = "everyone"
	CutCoord    = "coord"
	CutStorage  = "storage"
)

// defaultControls is what a lab without controls: offers.
func defaultControls() *Controls {
	return &Controls{
		HasFreeze: true,
		Freeze:    []engine.Time{5 * engine.Second, 10 * engine.Second, 25 * engine.Second, 40 * engine.Second},
		Crash:     true,
		Cut:       []string{CutEveryone},
		Fencing:   true,
	}
}

// Controls is what the lab's live page offers.
func (l *Lab) Controls() *Controls {
	if l.controls == nil {
		return defaultControls()
	}
	return l.controls
}

// Allows reports whether the lab's page offers cmd.
func (l *Lab) Allows(cmd engine.Command) bool { return l.allowsErr(cmd) == nil }

// Refusal says why a lab does not offer a command, or nil when it does.
func (l *Lab) Refusal(cmd engine.Command) error { return l.allowsErr(cmd) }

func (l *Lab) allowsErr(cmd engine.Command) error {
	c := l.Controls()
	no := func(what string) error { return fmt.Errorf("this lab does not offer %s", what) }
	isWorker := func(n string) bool { return slices.Contains(workerNames(l.scenario), n) }
	switch cmd.Kind {
	case engine.CmdAdvance, engine.CmdStep, engine.CmdUntil, engine.CmdReset:
		return nil
	case engine.CmdFreeze:
		switch {
		case !c.HasFreeze:
			return no("freezing a worker")
		case cmd.Dur != 0 && !slices.Contains(c.Freeze, cmd.Dur):
			return no("a freeze of " + cmd.Dur.String())
		case cmd.On != 0 && !slices.Contains(c.FreezeOn, cmd.On):
			return no("a freeze on " + cmd.On.String())
		}
		return nil
	case engine.CmdThaw:
		if !c.HasFreeze {
			return no("thawing a worker")
		}
		return nil
	case engine.CmdCrash, engine.CmdRestart:
		if !c.Crash {
			return no("crashing and restarting a worker")
		}
		return nil
	case engine.CmdStorage:
		if slices.Contains(c.Storage, cmd.Mode) {
			return nil
		}
		if c.Fencing && (cmd.Mode == engine.StorageNone || cmd.Mode == engine.StorageFencing) {
			return nil
		}
		return no("the storage mode " + cmd.Mode.String())
	case engine.CmdPartition:
		how := CutEveryone
		if cmd.B != "" {
			other := cmd.B
			if !isWorker(cmd.A) {
				other = cmd.A
			}
			how = other
		}
		if !slices.Contains(c.Cut, how) {
			return no("cutting a worker off from " + how)
		}
		return nil
	case engine.CmdHeal:
		if len(c.Cut) == 0 {
			return no("healing links")
		}
		return nil
	case engine.CmdLink:
		lc := c.Link
		if lc == nil {
			return no("changing a link")
		}
		other := cmd.B
		if !isWorker(cmd.A) {
			other = cmd.A
		}
		if !slices.Contains(lc.To, other) {
			return no("changing the link to " + other)
		}
		if cmd.HasDelay && cmd.Dur != l.scenario.Delay && !slices.Contains(lc.Delay, cmd.Dur) {
			return no("a link delay of " + cmd.Dur.String())
		}
		if cmd.HasLoss && cmd.LossPPM != l.scenario.LossPPM && !slices.Contains(lc.Loss, cmd.LossPPM) {
			return no("that link loss")
		}
		return nil
	case engine.CmdClock:
		cc := c.Clock
		if cc == nil {
			return no("changing a clock")
		}
		if cmd.HasSkew && cmd.Skew != 0 && !slices.Contains(cc.Skew, cmd.Skew) {
			return no("a clock skew of " + cmd.Skew.String())
		}
		if cmd.HasJump && !slices.Contains(cc.Jump, cmd.Jump) {
			return no("a clock jump of " + cmd.Jump.String())
		}
		if cmd.HasRate && cmd.Rate != 1_000_000 && !slices.Contains(cc.Rate, cmd.Rate) {
			return no("that clock rate")
		}
		return nil
	case engine.CmdReplica:
		if !c.Replica {
			return no("taking coordinator replicas down")
		}
		return nil
	case engine.CmdLease:
		if len(c.Lease) == 0 {
			return no("changing the lease length")
		}
		if cmd.Dur != l.scenario.TTL && !slices.Contains(c.Lease, cmd.Dur) {
			return no("a lease of " + cmd.Dur.String())
		}
		return nil
	}
	return no("that command")
}

// parseControls reads a lab's controls: mapping.
func parseControls(r *report, y ynode) *Controls {
	kvs, ok := y.mapping(r, "controls")
	if !ok {
		return nil
	}
	knownKeys(r, kvs, "controls", "freeze", "crash", "cut", "fencing", "storage", "link", "clock", "replica", "until", "lease")
	c := &Controls{}
	for _, e := range kvs {
		switch e.key {
		case "freeze":
			c.HasFreeze = true
			if isMapping(e.val) {
				f, _ := e.val.mapping(r, "controls.freeze")
				knownKeys(r, f, "controls.freeze", "for", "on")
				for _, fe := range f {
					switch fe.key {
					case "for":
						c.Freeze = durations(r, fe.val, "controls.freeze.for", true)
					case "on":
						for _, it := range words(r, fe.val, "controls.freeze.on") {
							cmd, err := engine.ParseCommand("freeze W on=" + it.s)
							if err != nil {
								r.errorf(it.at, "controls.freeze.on: want check, work or acquired, not %q", it.s)
								continue
							}
							c.FreezeOn = append(c.FreezeOn, cmd.On)
						}
					}
				}
			} else {
				c.Freeze = durations(r, e.val, "controls.freeze", true)
			}
		case "crash":
			c.Crash = flag(r, e.val, "controls.crash")
		case "fencing":
			c.Fencing = flag(r, e.val, "controls.fencing")
		case "replica":
			c.Replica = flag(r, e.val, "controls.replica")
		case "cut":
			for _, it := range words(r, e.val, "controls.cut") {
				switch it.s {
				case CutEveryone, CutCoord, CutStorage:
					c.Cut = append(c.Cut, it.s)
				default:
					r.errorf(it.at, "controls.cut: want everyone, coord or storage, not %q", it.s)
				}
			}
		case "storage":
			for _, it := range words(r, e.val, "controls.storage") {
				m, err := engine.ParseStorageMode(it.s)
				if err != nil {
					r.errorf(it.at, "controls.storage: %v", err)
					continue
				}
				c.Storage = append(c.Storage, m)
			}
		case "until":
			c.Until = durations(r, e.val, "controls.until", true)
		case "lease":
			c.Lease = durations(r, e.val, "controls.lease", true)
		case "link":
			c.Link = &LinkControl{}
			f, _ := e.val.mapping(r, "controls.link")
			knownKeys(r, f, "controls.link", "to", "delay", "loss")
			for _, fe := range f {
				switch fe.key {
				case "to":
					for _, it := range words(r, fe.val, "controls.link.to") {
						if it.s != "coord" && it.s != "storage" {
							r.errorf(it.at, "controls.link.to: want coord or storage, not %q", it.s)
							continue
						}
						c.Link.To = append(c.Link.To, it.s)
					}
				case "delay":
					c.Link.Delay = durations(r, fe.val, "controls.link.delay", false)
				case "loss":
					for _, it := range words(r, fe.val, "controls.link.loss") {
						cmd, err := engine.ParseCommand("link W storage loss=" + it.s)
						if err != nil {
							r.errorf(it.at, "controls.link.loss: %q: want a probability such as 50%% or 0.5", it.s)
							continue
						}
						c.Link.Loss = append(c.Link.Loss, cmd.LossPPM)
					}
				}
			}
			if len(c.Link.To) == 0 {
				r.errorf(e.keyAt.pos(), "controls.link needs to: the links a student may change (coord, storage)")
			}
		case "clock":
			c.Clock = &ClockControl{}
			f, _ := e.val.mapping(r, "controls.clock")
			knownKeys(r, f, "controls.clock", "skew", "jump", "rate")
			for _, fe := range f {
				for _, it := range words(r, fe.val, "controls.clock."+fe.key) {
					cmd, err := engine.ParseCommand("clock W " + fe.key + "=" + it.s)
					if err != nil {
						r.errorf(it.at, "controls.clock.%s: %v", fe.key, err)
						continue
					}
					switch fe.key {
					case "skew":
						c.Clock.Skew = append(c.Clock.Skew, cmd.Skew)
					case "jump":
						c.Clock.Jump = append(c.Clock.Jump, cmd.Jump)
					case "rate":
						c.Clock.Rate = append(c.Clock.Rate, cmd.Rate)
					}
				}
			}
		}
	}
	return c
}

func isMapping(y ynode) bool {
	_, ok := y.mapping(&report{}, "")
	if !ok {
		return false
	}
	_, isSeq := y.seq(&report{}, "")
	s, isScalar := y.scalar()
	return !isSeq && !(isScalar && s != "")
}

// flag reads a control that is on when named: "crash:" or "crash: true".
func flag(r *report, y ynode, what string) bool {
	s, ok := y.scalar()
	switch {
	case ok && (s == "" || s == "true" || s == "yes" || s == "on"):
		return true
	case ok && (s == "false" || s == "no" || s == "off"):
		return false
	}
	r.errorf(y.pos(), "%s: leave it empty or write true", what)
	return false
}

type word struct {
	s  string
	at pos
}

// words reads a list of scalars, or one scalar.
func words(r *report, y ynode, what string) []word {
	if s, ok := y.scalar(); ok {
		if s == "" {
			return nil
		}
		return []word{{s, y.pos()}}
	}
	items, ok := y.seq(r, what)
	if !ok {
		return nil
	}
	var out []word
	for _, it := range items {
		if s, ok := it.str(r, what+" item"); ok {
			out = append(out, word{strings.TrimSpace(s), it.pos()})
		}
	}
	return out
}

func durations(r *report, y ynode, what string, positive bool) []engine.Time {
	var out []engine.Time
	for _, it := range words(r, y, what) {
		d, err := engine.ParseTime(it.s)
		if err != nil || d < 0 || (positive && d == 0) {
			r.errorf(it.at, "%s: %q: want a duration such as 25s", what, it.s)
			continue
		}
		out = append(out, d)
	}
	return out
}
