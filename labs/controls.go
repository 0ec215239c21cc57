package labs

import (
	"slices"
	"strconv"
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
	Cut       []string      // partition W (everyone), partition W coord, partition W storage, partition copy1 copy2; heal
	Fencing   bool          // fencing on and fencing off
	Storage   []engine.StorageMode
	Link      *LinkControl
	Clock     *ClockControl
	Replica   bool          // replica N down|up
	Until     []engine.Time // "run until" buttons (until is always allowed)
	// Lease offers lease D for each D, and back to the scenario's own
	// length: the length of the leases granted and renewed from then on.
	Lease []engine.Time
	// Jitter offers jitter S for each share S (thousandths), and back to
	// the workers' own: the renewal jitter of every worker from then on.
	Jitter []int64
	// Policy offers policy W X for each X (loops=2, generation=ignore,
	// ...): a worker's renewal changed live.
	Policy []string
	// Revoke offers revoke W: an operator revokes a worker's session.
	Revoke bool
}

// LinkControl offers link W TO delay=D or loss=P for the listed values,
// and back to the scenario's own delay and loss; From offers the way back
// only, link FROM->W (the answers to W).
type LinkControl struct {
	To    []string      // coord, storage
	From  []string      // coord, storage: the answers' way only
	Delay []engine.Time // offered delays
	Loss  []int64       // offered losses, per million
	// Parts are the named parts of a delay offered (engine.DelayParts:
	// dns, connect, proxy), each added to the link's delay; 0: not offered.
	Parts [3]engine.Time
	// Workers are the workers whose links are offered; none: every
	// worker's. A lab whose story is one worker's path keeps the other
	// rows free of buttons that change nothing it asks about.
	Workers   []string
	workersAt pos // where workers: was read, for the check against the scenario
}

// ClockControl offers clock W skew=D, jump=D or rate=R for the listed
// values (skew=0s and rate=1 undo).
type ClockControl struct {
	Skew, Jump []engine.Time
	Rate       []int64 // as engine.Command.Rate (parts per million of real time)
	// Replicas are the coordinator replicas (Redlock's masters) whose
	// clocks the page offers too: clock coord replica=N with the same
	// values.
	Replicas []int
}

// CutEveryone, CutCoord and CutStorage are the ways a worker can be cut
// off; CutCopies cuts the link between the two storage copies (scenario
// option copies: 2).
const (
	CutEveryone = "everyone"
	CutCoord    = "coord"
	CutStorage  = "storage"
	CutCopies   = "copies"
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

// defaultOffer is defaultControls, built once: a lab without controls:
// hands it to every frame, which must not allocate.
var defaultOffer = defaultControls()

// Controls is what the lab's live page offers. Read it; it is shared.
func (l *Lab) Controls() *Controls {
	if l.controls == nil {
		return defaultOffer
	}
	return l.controls
}

// Allows reports whether the lab's page offers cmd.
func (l *Lab) Allows(cmd engine.Command) bool { return l.Refusal(cmd) == nil }

// Refusal says why a lab does not offer a command (a *NotOfferedError), or
// nil when it does.
func (l *Lab) Refusal(cmd engine.Command) error {
	what := "that command"
	if offers := offered[cmd.Kind]; offers != nil {
		what = offers(l, l.Controls(), cmd)
	}
	if what == "" {
		return nil
	}
	return &NotOfferedError{Cmd: cmd, what: what}
}

// NotOfferedError is a command a lab's page does not offer. Error says
// what the page lacks, in English, for authors and logs; a page says the
// command itself in the student's words (Key, Args).
type NotOfferedError struct {
	Cmd  engine.Command
	what string
}

func (e *NotOfferedError) Error() string { return "this lab does not offer " + e.what }

// Key is the catalog's text for a command a lab does not offer.
func (e *NotOfferedError) Key() string { return "err.not-offered" }

// Args is the command, said in the reader's words.
func (e *NotOfferedError) Args() []any { return []any{e.Cmd} }

// offers says what of a command a lab's controls lack ("a freeze of 7s"),
// or "" when they offer it.
type offers func(l *Lab, c *Controls, cmd engine.Command) string

// offered is how a lab offers each kind of command of the engine's command
// table (engine.Commands; TestEveryCommandCanBeOffered holds it to that).
var offered = map[engine.CommandKind]offers{
	engine.CmdAdvance: offeredAlways,
	engine.CmdStep:    offeredAlways,
	engine.CmdUntil:   offeredAlways,
	engine.CmdReset:   offeredAlways,
	engine.CmdFreeze:  offersFreeze,
	engine.CmdThaw: func(_ *Lab, c *Controls, _ engine.Command) string {
		return unless(c.HasFreeze, "thawing a worker")
	},
	engine.CmdCrash:     offersCrash,
	engine.CmdRestart:   offersCrash,
	engine.CmdStorage:   offersStorage,
	engine.CmdPartition: offersPartition,
	engine.CmdHeal: func(_ *Lab, c *Controls, _ engine.Command) string {
		return unless(len(c.Cut) > 0, "healing links")
	},
	engine.CmdLink:  offersLink,
	engine.CmdClock: offersClock,
	engine.CmdReplica: func(_ *Lab, c *Controls, _ engine.Command) string {
		return unless(c.Replica, "taking coordinator replicas down")
	},
	engine.CmdLease: offersLease,
	engine.CmdPolicy: func(_ *Lab, c *Controls, cmd engine.Command) string {
		_, what, _ := strings.Cut(cmd.String(), cmd.A+" ")
		return unless(slices.Contains(c.Policy, what), "changing a worker's renewal ("+what+")")
	},
	engine.CmdJitter: func(_ *Lab, c *Controls, cmd engine.Command) string {
		return unless(slices.Contains(c.Jitter, cmd.Jitter), "that renewal jitter")
	},
	engine.CmdRevoke: func(_ *Lab, c *Controls, _ engine.Command) string {
		return unless(c.Revoke, "revoking a worker's session")
	},
}

// unless is "" when ok, and what otherwise.
func unless(ok bool, what string) string {
	if ok {
		return ""
	}
	return what
}

// offeredAlways: time is always offered.
func offeredAlways(*Lab, *Controls, engine.Command) string { return "" }

func offersFreeze(_ *Lab, c *Controls, cmd engine.Command) string {
	switch {
	case !c.HasFreeze:
		return "freezing a worker"
	case cmd.Dur != 0 && !slices.Contains(c.Freeze, cmd.Dur):
		return "a freeze of " + cmd.Dur.String()
	case cmd.On != 0 && !slices.Contains(c.FreezeOn, cmd.On):
		return "a freeze on " + cmd.On.String()
	}
	return ""
}

func offersCrash(_ *Lab, c *Controls, _ engine.Command) string {
	return unless(c.Crash, "crashing and restarting a worker")
}

func offersStorage(_ *Lab, c *Controls, cmd engine.Command) string {
	fencing := cmd.Mode == engine.StorageNone || cmd.Mode == engine.StorageFencing
	return unless(slices.Contains(c.Storage, cmd.Mode) || (c.Fencing && fencing), "the storage mode "+cmd.Mode.String())
}

// farEnd is the end of a link that is not a worker (coord, storage), or
// the second end when both are workers.
func (l *Lab) farEnd(cmd engine.Command) string {
	if !slices.Contains(workerNames(l.scenario), cmd.A) {
		return cmd.A
	}
	return cmd.B
}

func offersPartition(l *Lab, c *Controls, cmd engine.Command) string {
	how := CutEveryone
	switch {
	case strings.HasPrefix(cmd.A, "copy") && !slices.Contains(workerNames(l.scenario), cmd.A):
		how = CutCopies
	case cmd.B != "":
		how = l.farEnd(cmd)
	}
	return unless(slices.Contains(c.Cut, how), "cutting a worker off from "+how)
}

func offersLink(l *Lab, c *Controls, cmd engine.Command) string {
	lc := c.Link
	if lc == nil {
		return "changing a link"
	}
	other := l.farEnd(cmd)
	answers := cmd.OneWay && cmd.A == other
	worker := cmd.A
	if answers {
		worker = cmd.B
	}
	if len(lc.Workers) > 0 && !slices.Contains(lc.Workers, worker) {
		return "changing " + worker + "'s link"
	}
	if !slices.Contains(lc.To, other) && !(answers && slices.Contains(lc.From, other)) {
		return "changing the link to " + other
	}
	if cmd.HasDelay && cmd.Dur != l.scenario.Delay && !slices.Contains(lc.Delay, cmd.Dur) {
		return "a link delay of " + cmd.Dur.String()
	}
	if cmd.HasLoss && cmd.LossPPM != l.scenario.LossPPM && !slices.Contains(lc.Loss, cmd.LossPPM) {
		return "that link loss"
	}
	for i, name := range engine.DelayParts {
		if cmd.HasParts&(1<<i) != 0 && cmd.Parts[i] != 0 && cmd.Parts[i] != lc.Parts[i] {
			return "that " + name + " delay"
		}
	}
	return ""
}

func offersClock(_ *Lab, c *Controls, cmd engine.Command) string {
	cc := c.Clock
	switch {
	case cc == nil:
		return "changing a clock"
	case cmd.A == "coord" && !slices.Contains(cc.Replicas, cmd.Replica):
		return "changing the coordinator's clock"
	case cmd.HasSkew && cmd.Skew != 0 && !slices.Contains(cc.Skew, cmd.Skew):
		return "a clock skew of " + cmd.Skew.String()
	case cmd.HasJump && !slices.Contains(cc.Jump, cmd.Jump):
		return "a clock jump of " + cmd.Jump.String()
	case cmd.HasRate && cmd.Rate != 1_000_000 && !slices.Contains(cc.Rate, cmd.Rate):
		return "that clock rate"
	}
	return ""
}

func offersLease(l *Lab, c *Controls, cmd engine.Command) string {
	switch {
	case len(c.Lease) == 0:
		return "changing the lease length"
	case cmd.Dur != l.scenario.TTL && !slices.Contains(c.Lease, cmd.Dur):
		return "a lease of " + cmd.Dur.String()
	}
	return ""
}

// controlReaders reads each key of a lab's controls: mapping, in the
// order an error lists them.
var controlReaders = []struct {
	key  string
	read func(r *report, c *Controls, e kv)
}{
	{"freeze", readFreezeControl},
	{"crash", func(r *report, c *Controls, e kv) { c.Crash = flag(r, e.val, "controls.crash") }},
	{"cut", readCutControl},
	{"fencing", func(r *report, c *Controls, e kv) { c.Fencing = flag(r, e.val, "controls.fencing") }},
	{"storage", readStorageControl},
	{"link", readLinkControl},
	{"clock", readClockControl},
	{"replica", func(r *report, c *Controls, e kv) { c.Replica = flag(r, e.val, "controls.replica") }},
	{"until", func(r *report, c *Controls, e kv) { c.Until = durations(r, e.val, "controls.until", true) }},
	{"lease", func(r *report, c *Controls, e kv) { c.Lease = durations(r, e.val, "controls.lease", false) }},
	{"jitter", readJitterControl},
	{"policy", readPolicyControl},
	{"revoke", func(r *report, c *Controls, e kv) { c.Revoke = flag(r, e.val, "controls.revoke") }},
}

// parseControls reads a lab's controls: mapping.
func parseControls(r *report, y ynode) *Controls {
	kvs, ok := y.mapping(r, "controls")
	if !ok {
		return nil
	}
	keys := make([]string, len(controlReaders))
	for i, cr := range controlReaders {
		keys[i] = cr.key
	}
	knownKeys(r, kvs, "controls", keys...)
	c := &Controls{}
	for _, e := range kvs {
		for _, cr := range controlReaders {
			if cr.key == e.key {
				cr.read(r, c, e)
			}
		}
	}
	return c
}

// readFreezeControl reads freeze: DURATIONS, or freeze: {for:, on:}.
func readFreezeControl(r *report, c *Controls, e kv) {
	c.HasFreeze = true
	if !isMapping(e.val) {
		c.Freeze = durations(r, e.val, "controls.freeze", true)
		return
	}
	f, _ := e.val.mapping(r, "controls.freeze")
	knownKeys(r, f, "controls.freeze", "for", "on")
	for _, fe := range f {
		switch fe.key {
		case "for":
			c.Freeze = durations(r, fe.val, "controls.freeze.for", true)
		case "on":
			commandWords(r, fe.val, "controls.freeze.on", "freeze W on=", "check, work or acquired", func(cmd engine.Command, _ string) {
				c.FreezeOn = append(c.FreezeOn, cmd.On)
			})
		}
	}
}

// commandWords reads each word of y as the end of a command that starts
// with prefix, and keeps those the engine reads; the others are errors
// that say what is wanted.
func commandWords(r *report, y ynode, what, prefix, want string, keep func(cmd engine.Command, word string)) {
	for _, it := range words(r, y, what) {
		cmd, err := engine.ParseCommand(prefix + it.s)
		if err != nil {
			r.errorf(it.at, "%s: want %s, not %q", what, want, it.s)
			continue
		}
		keep(cmd, it.s)
	}
}

func readPolicyControl(r *report, c *Controls, e kv) {
	commandWords(r, e.val, "controls.policy", "policy W ", "loops=1, loops=2, generation=check, generation=ignore, publish-gap=D, renew=D, cancel=on|off or auth=definitive|transient", func(_ engine.Command, word string) {
		c.Policy = append(c.Policy, word)
	})
}

func readJitterControl(r *report, c *Controls, e kv) {
	commandWords(r, e.val, "controls.jitter", "jitter ", "a share between 0 and 1 such as 0.5", func(cmd engine.Command, _ string) {
		c.Jitter = append(c.Jitter, cmd.Jitter)
	})
}

func readCutControl(r *report, c *Controls, e kv) {
	for _, it := range words(r, e.val, "controls.cut") {
		switch it.s {
		case CutEveryone, CutCoord, CutStorage, CutCopies:
			c.Cut = append(c.Cut, it.s)
		default:
			r.errorf(it.at, "controls.cut: want everyone, coord, storage or copies, not %q", it.s)
		}
	}
}

func readStorageControl(r *report, c *Controls, e kv) {
	for _, it := range words(r, e.val, "controls.storage") {
		m, err := engine.ParseStorageMode(it.s)
		if err != nil {
			r.errorf(it.at, "controls.storage: %v", err)
			continue
		}
		c.Storage = append(c.Storage, m)
	}
}

func readLinkControl(r *report, c *Controls, e kv) {
	c.Link = &LinkControl{}
	f, _ := e.val.mapping(r, "controls.link")
	knownKeys(r, f, "controls.link", "to", "from", "delay", "loss", "parts", "workers")
	for _, fe := range f {
		switch fe.key {
		case "to", "from":
			ends := &c.Link.To
			if fe.key == "from" {
				ends = &c.Link.From
			}
			for _, it := range words(r, fe.val, "controls.link."+fe.key) {
				if it.s != CutCoord && it.s != CutStorage {
					r.errorf(it.at, "controls.link.%s: want coord or storage, not %q", fe.key, it.s)
					continue
				}
				*ends = append(*ends, it.s)
			}
		case "delay":
			c.Link.Delay = durations(r, fe.val, "controls.link.delay", false)
		case "parts":
			readDelayParts(r, c.Link, fe.val)
		case "workers":
			c.Link.workersAt = fe.val.pos()
			for _, it := range words(r, fe.val, "controls.link.workers") {
				c.Link.Workers = append(c.Link.Workers, it.s)
			}
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
	if len(c.Link.To) == 0 && len(c.Link.From) == 0 {
		r.errorf(e.keyAt.pos(), "controls.link needs to: or from: the links a student may change (coord, storage)")
	}
}

// readDelayParts reads controls.link.parts: a duration for each named
// part of a delay offered (dns, connect, proxy).
func readDelayParts(r *report, lc *LinkControl, y ynode) {
	kvs, _ := y.mapping(r, "controls.link.parts")
	knownKeys(r, kvs, "controls.link.parts", engine.DelayParts[:]...)
	for _, e := range kvs {
		i := slices.Index(engine.DelayParts[:], e.key)
		if i < 0 {
			continue
		}
		s, _ := e.val.str(r, "controls.link.parts."+e.key)
		d, err := engine.ParseTime(s)
		if err != nil || d <= 0 || d > engine.Hour {
			r.errorf(e.val.pos(), "controls.link.parts.%s: want a duration from 1ms to 1h, not %q", e.key, s)
			continue
		}
		lc.Parts[i] = d
	}
}

func readClockControl(r *report, c *Controls, e kv) {
	c.Clock = &ClockControl{}
	f, _ := e.val.mapping(r, "controls.clock")
	knownKeys(r, f, "controls.clock", "skew", "jump", "rate", "replicas")
	for _, fe := range f {
		for _, it := range words(r, fe.val, "controls.clock."+fe.key) {
			if fe.key == "replicas" {
				n, err := strconv.Atoi(it.s)
				if err != nil || n < 1 || n > 9 {
					r.errorf(it.at, "controls.clock.replicas: want replica numbers 1 to 9, not %q", it.s)
					continue
				}
				c.Clock.Replicas = append(c.Clock.Replicas, n)
				continue
			}
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
