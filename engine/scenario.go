package engine

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// StorageMode is how the protected storage judges a write.
type StorageMode uint8

const (
	// StorageNone accepts every write, like a third-party service that
	// cannot see tokens.
	StorageNone StorageMode = iota
	// StorageFencing rejects a token lower than the highest it has seen and
	// remembers the highest.
	StorageFencing
	// StorageEquality accepts only the token of the lease that is current at
	// the coordinator when the write arrives.
	StorageEquality
	// StorageCAS accepts a write only if it names the version the writer
	// read (compare-and-set), then bumps the version.
	StorageCAS
	// StorageIdempotent accepts each key once and reports later writes with
	// the same key as duplicates, so an effect cannot happen twice.
	StorageIdempotent
	// StorageRename is a plain file store with one conditional operation:
	// it accepts every write as it comes, unchecked, and checks only the
	// rename that commits a write made under a temporary name (write KEY
	// commit=rename): the rename succeeds when the token in the temporary
	// name is not lower than the token of the file in place.
	StorageRename
)

var storageModeNames = [...]string{"none", "fencing", "equality", "cas", "idempotent", "rename"}

func (m StorageMode) String() string {
	if int(m) < len(storageModeNames) {
		return storageModeNames[m]
	}
	return "storage(" + strconv.Itoa(int(m)) + ")"
}

// ParseStorageMode reads one of none, fencing, equality, cas, idempotent,
// rename.
func ParseStorageMode(s string) (StorageMode, error) {
	for i, n := range storageModeNames {
		if s == n {
			return StorageMode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown storage mode %q (want one of %s)", s, strings.Join(storageModeNames[:], ", "))
}

// Scenario is everything a world is built from. With the same Scenario and
// the same commands, a world produces the same events.
type Scenario struct {
	Seed uint64

	// Coordinator.
	Replicas      int  // replicas behind the quorum; default 3
	TTL           Time // lease duration; 0 is a lock that never expires
	FirstToken    int64
	LockDelay     Time // after an expiry, nobody may acquire for this long
	ElectionDelay Time // a new coordinator leader needs this long after failover
	// Tick is ZooKeeper's tickTime: the TTL (the session timeout) is
	// negotiated to within 2 and 20 ticks, and leases expire in tick
	// buckets, at the first tick boundary after their time.
	Tick            Time
	ServiceTime     Time // each request occupies the coordinator this long
	NewTokenOnRenew bool // a renewal hands out a new, higher token
	// CandidateExpiry makes the lease a record in a store, as Kubernetes'
	// leader election keeps it: the coordinator never expires it; a
	// candidate that sees the record unchanged for a TTL by its own clock
	// overwrites it (compare-and-set on the record's version).
	CandidateExpiry bool
	// Tokens is where a grant's fencing token comes from: a counter of
	// grants (the default), the index of the grant's entry in the
	// coordinator's log, or an etcd-style lease ID, which the serving
	// member makes from its own ID and its own count.
	Tokens TokenSource
	// IndependentMasters makes the replicas Redlock's masters: each grants
	// on its own, with no leader and no shared log; a client holds the
	// lease while a majority of them hold its key, and a master that goes
	// down forgets its keys (no persistence).
	IndependentMasters bool

	// Storage.
	Storage StorageMode
	// Copies is how many copies of the storage there are: 1, or 2 (two
	// sites, each a primary for the workers of its site, replicating every
	// write it accepts to the other; see storage.go).
	Copies int

	// Network: every message takes Delay plus up to Jitter, and is lost with
	// probability LossPPM per million.
	Delay   Time
	Jitter  Time
	LossPPM int64

	Workers []WorkerSpec
	Limits  Limits
	// Sides are programs that decide for the storage instead of its mode
	// (storage_program.go): a student's.
	Sides Sides
}

// TokenSource is where a grant's fencing token comes from (scenario
// option tokens).
type TokenSource uint8

const (
	// TokensCounter: a counter that rises by one with every grant; it
	// stands for the consensus log's index without showing the log.
	TokensCounter TokenSource = iota
	// TokensLog: the coordinator keeps its consensus log, and a grant's
	// token is the index of the grant's entry (etcd: the lock key's
	// create revision; ZooKeeper: the lock node's zxid). Every change of
	// the coordinator's state is an entry: a grant, a release, an expiry,
	// a new token on renewal, and a new leader's first entry (raft's
	// empty entry at the start of a term, ZooKeeper's new epoch). A
	// renewal without a new token is not: etcd's keepalive and
	// ZooKeeper's ping do not write the log.
	TokensLog
	// TokensLeaseID: the token is the lease's ID as etcd makes it: the
	// member that serves the grant (here the leader) puts its own member
	// ID in front of a count of its own (idutil.Generator). IDs from
	// different members are in no order, so a leader change can hand out
	// a lower one: a lease ID is not a fencing token.
	TokensLeaseID
)

var tokenSourceNames = [...]string{"counter", "log", "lease-id"}

func (t TokenSource) String() string {
	if int(t) < len(tokenSourceNames) {
		return tokenSourceNames[t]
	}
	return "tokens(" + strconv.Itoa(int(t)) + ")"
}

// memberIDs are the member IDs of replicas 1 to 9, as a lease ID's prefix
// shows them: a member's ID is random in etcd, so they are in no order.
var memberIDs = [9]int64{7, 3, 9, 2, 8, 4, 6, 1, 5}

// Limits bound one Apply so that no command, however silly, runs forever.
type Limits struct {
	MaxEventsPerApply int  // default 1,000,000
	MaxTime           Time // default 24h of virtual time
}

// BeliefFrom says from which moment a worker counts its lease.
type BeliefFrom uint8

const (
	// FromSend counts from when the request was sent: the lease the
	// coordinator grants always ends at or after the belief. Safe.
	FromSend BeliefFrom = iota
	// FromReceive counts from when the answer arrived, as many real clients
	// do; a slow answer makes the worker believe past the real expiry.
	FromReceive
	// FromStamp takes the expiry the coordinator states by its own clock
	// (its clock when it answered, plus the lease) and compares it with
	// the worker's clock: wall-clock timestamps compared across hosts, so
	// any skew between the two clocks moves the belief.
	FromStamp
)

// RenewPolicy says when a holder renews and how it retries.
type RenewPolicy struct {
	Every  Time // renew this long after each grant or success (etcd: TTL/3)
	Margin Time // or: renew when this much of the believed lease is left

	Retry    Time  // first retry delay after a failed attempt; default Every
	Backoff  int64 // retry delay multiplier in thousandths (2000 doubles it); 0 keeps it
	RetryMax Time  // cap on the retry delay
	Attempt  Time  // one attempt's timeout; default the request timeout, else Every or Margin
	Jitter   int64 // thousandths: planned renewals move earlier, retries later, by up to this share
	Tries    int   // attempts per renewal; 0: as many as fit before the deadline
	GiveUp   Time  // the holder's own deadline this long after its last success, if shorter than the TTL

	PastDeadline bool // unsafe: retries ignore the deadline and the holder keeps acting meanwhile
	Loops        int  // 2 runs a duplicate renewal loop, as after a pause or restart
	AnyGen       bool // unsafe: accept answers meant for an older generation of the lease state
	SplitPublish Time // unsafe: a new token is published this long after its new expiry
}

// WorkerSpec describes one worker: its program and its flaws.
type WorkerSpec struct {
	Name    string
	Program []Op
	Start   Time // true time at which the program starts

	Skew  Time  // the local clock reads this much ahead of true time
	Drift int64 // clock rate in parts per million of true rate; 0 means 1,000,000

	Preset       string // a real client's renewal policy, resolved when the world is built
	Lease        string // which lease the worker competes for; default "lock"
	Belief       BeliefFrom
	NoToken      bool // writes carry no fencing token
	StopAtExpiry bool // drop the lease and stop work when the local belief runs out
	Renew        RenewPolicy
	Timeout      Time // request timeout; 0 waits forever

	// AcquireJitter, in thousandths, lengthens each acquire retry by up to
	// this share of its period (client-go: 1.2, so 2 s becomes 2–4.4 s).
	AcquireJitter int64
	// Grace is how long a holder whose own deadline has passed keeps trying
	// to renew before it gives the lease up (Chubby's jeopardy, 45 s).
	// Meanwhile it does not believe it holds the lease.
	Grace Time
	// LoseOnError: the holder gives the lease up at its first failed
	// renewal (Consul's lock monitor, MonitorRetries 0).
	LoseOnError bool
	// AuthTransient: the holder takes a renewal refused as not authorised
	// (its session or credentials revoked) for a transient error, as a
	// generic retry policy does, and retries it until its deadline; the
	// default takes it for definitive and lets go at once.
	AuthTransient bool
	// Reconnect: when the worker's link to the coordinator heals, a holder
	// renews at once, as a client whose connection comes back sends what
	// it was retrying (GitHub 2018: writes went to the new primaries as
	// soon as connectivity returned).
	Reconnect bool
	// What the coordinator does for this worker's lease, as the real
	// system's server does it:
	ServerGrace  Time       // it expires the lease this much after the TTL it tells the holder (Consul: one TTL more)
	LockDelay    Time       // after this lease expires, nobody may acquire it for this long (per session, as Consul and Chubby)
	LeaderChange LeaderRule // what a new coordinator leader does with the lease, and whether it expires while there is none
	// Copy is the storage copy the worker writes to (the primary of its
	// site), 1 or 2; 0 is copy 1.
	Copy int

	// Logic, when set, writes the worker's decisions instead of Program
	// and Renew (program.go): a student's program.
	Logic Logic

	// set is every option given by name (Set), in order, so that an option
	// written on the worker wins over its preset.
	set []string
}

// OpKind is one step of a worker program.
type OpKind uint8

const (
	OpAcquire OpKind = iota // ask for the lease; wait in line, or poll every Arg
	OpWork                  // spend Arg of local time
	OpSleep                 // like work, but not on behalf of the lease
	OpCheck                 // look at the local belief: still valid?
	OpWrite                 // put Key to storage (a later write overwrites)
	OpSend                  // perform effect Key (doing it twice is a double effect)
	OpRead                  // read the storage version, for compare-and-set
	OpRelease               // give the lease back
	OpRepeat                // start the program again
)

var opNames = [...]string{"acquire", "work", "sleep", "check", "write", "send", "read", "release", "repeat"}

func (k OpKind) String() string {
	if int(k) < len(opNames) {
		return opNames[k]
	}
	return "op(" + strconv.Itoa(int(k)) + ")"
}

// Op is one program step.
type Op struct {
	Kind OpKind
	Arg  Time   // work/sleep duration, acquire poll period (0: wait in line)
	Need Time   // work: refuse to start with less of the lease left than this
	Key  string // write/send key
	// Value is what a write puts: "" for the holder's own result (every
	// holder's differs, so an older one over a newer one is harm), or a
	// fixed result that is the same whoever makes it (a thumbnail).
	Value string
	// Parts is how many parts a write puts one after another (a file
	// written in chunks), 2 to MaxParts; 0 is a write in one piece. Each
	// is the work each part takes before it goes out.
	Parts uint8
	Each  Time
	// Rename commits the write by rename: the worker writes its result
	// (every part of it) to a temporary name that carries its token, then
	// asks the storage to rename that name onto the key.
	Rename bool
}

// MaxParts bounds the parts of one write.
const MaxParts = 7

func (o Op) String() string {
	switch o.Kind {
	case OpWork, OpSleep:
		if o.Need > 0 {
			return o.Kind.String() + " " + o.Arg.String() + " need=" + o.Need.String()
		}
		return o.Kind.String() + " " + o.Arg.String()
	case OpAcquire:
		if o.Arg > 0 {
			return "acquire retry=" + o.Arg.String()
		}
		return "acquire"
	case OpWrite, OpSend:
		s := o.Kind.String() + " " + o.Key
		if o.Value != "" {
			s += " value=" + o.Value
		}
		if o.Parts > 0 {
			s += " parts=" + strconv.Itoa(int(o.Parts))
		}
		if o.Each > 0 {
			s += " each=" + o.Each.String()
		}
		if o.Rename {
			s += " commit=rename"
		}
		return s
	}
	return o.Kind.String()
}

// ParseProgram reads a program such as
// "acquire; work 25s; check; send report; release; repeat".
func ParseProgram(s string) ([]Op, error) {
	var ops []Op
	for i, part := range strings.Split(s, ";") {
		f := strings.Fields(part)
		if len(f) == 0 {
			if strings.TrimSpace(s) == "" {
				return nil, fmt.Errorf("empty program")
			}
			continue
		}
		op, err := parseOp(f)
		if err != nil {
			return nil, &StepError{fmt.Errorf("step %d %q: %w", i+1, strings.TrimSpace(part), err)}
		}
		ops = append(ops, op)
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("empty program")
	}
	for i, op := range ops {
		if op.Kind == OpRepeat && i != len(ops)-1 {
			return nil, &StepError{fmt.Errorf("repeat must be the last step")}
		}
	}
	if len(ops) == 1 && ops[0].Kind == OpRepeat {
		return nil, fmt.Errorf("a program of only repeat does nothing")
	}
	return ops, nil
}

func parseOp(f []string) (Op, error) {
	var k OpKind = 255
	for i, n := range opNames {
		if f[0] == n {
			k = OpKind(i)
		}
	}
	args := f[1:]
	switch k {
	case OpAcquire:
		op := Op{Kind: k}
		for _, a := range args {
			v, ok := strings.CutPrefix(a, "retry=")
			if !ok {
				return Op{}, fmt.Errorf("acquire takes only retry=DURATION, not %q", a)
			}
			d, err := ParseTime(v)
			if err != nil {
				return Op{}, err
			}
			if d <= 0 {
				return Op{}, fmt.Errorf("retry must be positive")
			}
			op.Arg = d
		}
		return op, nil
	case OpWork, OpSleep:
		if len(args) < 1 || len(args) > 2 || (len(args) == 2 && k == OpSleep) {
			return Op{}, fmt.Errorf("%s takes one duration", f[0])
		}
		d, err := ParseTime(args[0])
		if err != nil {
			return Op{}, err
		}
		if d < 0 {
			return Op{}, fmt.Errorf("%s cannot be negative", f[0])
		}
		op := Op{Kind: k, Arg: d}
		if len(args) == 2 {
			v, ok := strings.CutPrefix(args[1], "need=")
			if !ok {
				return Op{}, fmt.Errorf("work takes only need=DURATION after its duration, not %q", args[1])
			}
			if op.Need, err = parseNonNeg(v); err != nil {
				return Op{}, err
			}
		}
		return op, nil
	case OpWrite:
		return parseWrite(args)
	case OpSend:
		if len(args) != 1 {
			return Op{}, fmt.Errorf("%s takes one key, such as %s report", f[0], f[0])
		}
		return Op{Kind: k, Key: args[0]}, nil
	case OpCheck, OpRead, OpRelease, OpRepeat:
		if len(args) != 0 {
			return Op{}, fmt.Errorf("%s takes no arguments", f[0])
		}
		return Op{Kind: k}, nil
	}
	return Op{}, fmt.Errorf("unknown step %q (want one of %s)", f[0], strings.Join(opNames[:], ", "))
}

// parseWrite reads a write's key and options: write KEY [value=V]
// [parts=N] [each=D] [commit=rename].
func parseWrite(args []string) (Op, error) {
	if len(args) < 1 || strings.Contains(args[0], "=") {
		return Op{}, fmt.Errorf("write takes one key and optionally value=V, parts=N, each=D and commit=rename, such as write thumb value=v1")
	}
	op := Op{Kind: OpWrite, Key: args[0]}
	for _, a := range args[1:] {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "value":
			if v == "" || len(v) > 32 {
				return Op{}, fmt.Errorf("write value=V takes a word of at most 32 characters, not %q", a)
			}
			op.Value = v
		case "parts":
			n, err := strconv.Atoi(v)
			if err != nil || n < 2 || n > MaxParts {
				return Op{}, fmt.Errorf("write parts=N takes 2 to %d parts, not %q", MaxParts, v)
			}
			op.Parts = uint8(n)
		case "each":
			d, err := ParseTime(v)
			if err != nil || d <= 0 {
				return Op{}, fmt.Errorf("write each=D takes a duration above 0, such as each=2s, not %q", v)
			}
			op.Each = d
		case "commit":
			if v != "rename" {
				return Op{}, fmt.Errorf("write commit= takes rename (write to a temporary name, then rename it onto the key), not %q", v)
			}
			op.Rename = true
		default:
			return Op{}, fmt.Errorf("write takes value=V, parts=N, each=D and commit=rename after its key, not %q", a)
		}
	}
	return op, nil
}

func parseTokenSource(s string) (TokenSource, error) {
	for i, n := range tokenSourceNames {
		if n == s {
			return TokenSource(i), nil
		}
	}
	return 0, fmt.Errorf("want counter, log or lease-id")
}

// parseEither reads one of two words: false for the first, true for the
// second.
func parseEither(val, first, second string) (bool, error) {
	switch val {
	case first:
		return false, nil
	case second:
		return true, nil
	}
	return false, fmt.Errorf("want %s or %s", first, second)
}

// Set assigns one scenario option by name, as written in scenario files:
// ttl, first-token, replicas, lock-delay, election, tick, service, renew-token,
// tokens, masters, expiry, storage, copies, delay, jitter, loss, seed, max-events, max-time.
// scenarioOptions are the keys Scenario.Set takes, in its order.
var scenarioOptions = []string{"seed", "replicas", "ttl", "first-token", "lock-delay", "election", "tick", "service", "renew-token", "tokens", "masters", "expiry", "storage", "copies", "fencing", "delay", "jitter", "loss", "max-events", "max-time"}

// OptionNames lists the options of a "scenario" or a "worker", for a
// message that names what an author may have meant.
func OptionNames(of string) []string {
	if of == "scenario" {
		return slices.Clone(scenarioOptions)
	}
	var out []string
	for k := range workerOptions {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (sc *Scenario) Set(key, val string) error {
	var err error
	switch key {
	case "seed":
		sc.Seed, err = strconv.ParseUint(val, 10, 64)
	case "replicas":
		var n int
		n, err = strconv.Atoi(val)
		if err == nil && (n < 1 || n > 9) {
			err = fmt.Errorf("must be 1 to 9")
		}
		sc.Replicas = n
	case "ttl":
		sc.TTL, err = parseNonNeg(val)
	case "first-token":
		var n int64
		n, err = strconv.ParseInt(val, 10, 64)
		if err == nil && (n < 1 || n > 1<<50) {
			err = fmt.Errorf("must be between 1 and 2^50")
		}
		sc.FirstToken = n
	case "lock-delay":
		sc.LockDelay, err = parseNonNeg(val)
	case "election":
		sc.ElectionDelay, err = parseNonNeg(val)
	case "tick":
		sc.Tick, err = parseNonNeg(val)
	case "service":
		sc.ServiceTime, err = parseNonNeg(val)
	case "renew-token":
		sc.NewTokenOnRenew, err = parseBool(val)
	case "tokens":
		sc.Tokens, err = parseTokenSource(val)
	case "masters":
		sc.IndependentMasters, err = parseEither(val, "quorum", "independent")
	case "expiry":
		sc.CandidateExpiry, err = parseEither(val, "coordinator", "candidate")
	case "storage":
		sc.Storage, err = ParseStorageMode(val)
	case "copies":
		sc.Copies, err = strconv.Atoi(val)
		if err == nil && (sc.Copies < 1 || sc.Copies > 2) {
			err = fmt.Errorf("want 1 or 2")
		}
	case "fencing":
		var on bool
		on, err = parseBool(val)
		sc.Storage = StorageNone
		if on {
			sc.Storage = StorageFencing
		}
	case "delay":
		sc.Delay, err = parseNonNeg(val)
	case "jitter":
		sc.Jitter, err = parseNonNeg(val)
	case "loss":
		sc.LossPPM, err = parseProbability(val)
	case "max-events":
		sc.Limits.MaxEventsPerApply, err = strconv.Atoi(val)
		if err == nil && sc.Limits.MaxEventsPerApply < 1 {
			err = fmt.Errorf("must be positive")
		}
	case "max-time":
		sc.Limits.MaxTime, err = parseNonNeg(val)
	default:
		return &UnknownOptionError{Of: "scenario", Key: key}
	}
	if err != nil {
		return fmt.Errorf("%s=%s: %w", key, val, err)
	}
	return nil
}

// Set assigns one worker option by name: start, skew, drift, belief,
// token, stop-at-expiry, renew, renew-retry, timeout, acquire-jitter,
// grace, server-grace, session-lock-delay, leader-change, preset, ...
// The options the worker's line names win over its preset.
func (ws *WorkerSpec) Set(key, val string) error {
	if err := ws.set1(key, val); err != nil {
		return err
	}
	if key != "preset" {
		ws.set = append(slices.Clip(ws.set), key+"="+val)
	}
	return nil
}

// Explicit lists the options given by name on the worker, in order, as
// key=value. They win over the worker's preset.
func (ws *WorkerSpec) Explicit() []string { return slices.Clip(ws.set) }

func (ws *WorkerSpec) set1(key, val string) error {
	set := workerOptions[key]
	if set == nil {
		return &UnknownOptionError{Of: "worker", Key: key}
	}
	if err := set(ws, val); err != nil {
		return fmt.Errorf("%s=%s: %w", key, val, err)
	}
	return nil
}

// workerOption sets one option of a worker from its text. Like the
// options it sets, it writes the field even when the text is refused: the
// caller drops the worker then.
type workerOption func(ws *WorkerSpec, val string) error

// workerOptions are the options a worker line takes (key=value).
var workerOptions = map[string]workerOption{
	"start":               durationOption(parseNonNeg, func(ws *WorkerSpec) *Time { return &ws.Start }),
	"skew":                durationOption(ParseTime, func(ws *WorkerSpec) *Time { return &ws.Skew }),
	"drift":               func(ws *WorkerSpec, v string) (err error) { ws.Drift, err = parseRate(v); return err },
	"belief":              setBelief,
	"token":               func(ws *WorkerSpec, v string) error { on, err := parseBool(v); ws.NoToken = !on; return err },
	"stop-at-expiry":      boolOption(func(ws *WorkerSpec) *bool { return &ws.StopAtExpiry }),
	"renew":               durationOption(parseNonNeg, func(ws *WorkerSpec) *Time { return &ws.Renew.Every }),
	"renew-margin":        durationOption(parseNonNeg, func(ws *WorkerSpec) *Time { return &ws.Renew.Margin }),
	"renew-retry":         durationOption(parseNonNeg, func(ws *WorkerSpec) *Time { return &ws.Renew.Retry }),
	"renew-backoff":       factorOption(0, "", func(ws *WorkerSpec) *int64 { return &ws.Renew.Backoff }),
	"renew-retry-max":     durationOption(parseNonNeg, func(ws *WorkerSpec) *Time { return &ws.Renew.RetryMax }),
	"renew-attempt":       durationOption(parseNonNeg, func(ws *WorkerSpec) *Time { return &ws.Renew.Attempt }),
	"renew-jitter":        factorOption(1000, "jitter is a share between 0 and 1", func(ws *WorkerSpec) *int64 { return &ws.Renew.Jitter }),
	"renew-tries":         countOption(0, 1000, "must be 0 to 1000", func(ws *WorkerSpec) *int { return &ws.Renew.Tries }),
	"renew-give-up":       durationOption(parseNonNeg, func(ws *WorkerSpec) *Time { return &ws.Renew.GiveUp }),
	"retry-past-deadline": boolOption(func(ws *WorkerSpec) *bool { return &ws.Renew.PastDeadline }),
	"renew-loops":         countOption(1, 2, "1 or 2 loops", func(ws *WorkerSpec) *int { return &ws.Renew.Loops }),
	"renew-generation":    setGeneration,
	"renew-publish-gap":   durationOption(parseNonNeg, func(ws *WorkerSpec) *Time { return &ws.Renew.SplitPublish }),
	"preset":              func(ws *WorkerSpec, v string) error { ws.Preset = v; return checkPreset(v) },
	"copy":                countOption(1, 2, "copy 1 or 2", func(ws *WorkerSpec) *int { return &ws.Copy }),
	"timeout":             durationOption(parseNonNeg, func(ws *WorkerSpec) *Time { return &ws.Timeout }),
	"acquire-jitter":      factorOption(10_000, "at most 10", func(ws *WorkerSpec) *int64 { return &ws.AcquireJitter }),
	"grace":               durationOption(parseNonNeg, func(ws *WorkerSpec) *Time { return &ws.Grace }),
	"server-grace":        durationOption(parseNonNeg, func(ws *WorkerSpec) *Time { return &ws.ServerGrace }),
	"session-lock-delay":  durationOption(parseNonNeg, func(ws *WorkerSpec) *Time { return &ws.LockDelay }),
	"leader-change":       func(ws *WorkerSpec, v string) (err error) { ws.LeaderChange, err = parseLeaderRule(v); return err },
	"lose-on-error":       boolOption(func(ws *WorkerSpec) *bool { return &ws.LoseOnError }),
	"auth-error":          setAuthError,
	"reconnect":           boolOption(func(ws *WorkerSpec) *bool { return &ws.Reconnect }),
	"lease":               setLeaseName,
}

func durationOption(parse func(string) (Time, error), field func(*WorkerSpec) *Time) workerOption {
	return func(ws *WorkerSpec, v string) (err error) {
		*field(ws), err = parse(v)
		return err
	}
}

func boolOption(field func(*WorkerSpec) *bool) workerOption {
	return func(ws *WorkerSpec, v string) (err error) {
		*field(ws), err = parseBool(v)
		return err
	}
}

// factorOption reads a decimal in thousandths, at most most (0: no more
// than parseFactor's own bound), saying tooMuch beyond it.
func factorOption(most int64, tooMuch string, field func(*WorkerSpec) *int64) workerOption {
	return func(ws *WorkerSpec, v string) (err error) {
		f := field(ws)
		*f, err = parseFactor(v)
		if err == nil && most > 0 && *f > most {
			err = errors.New(tooMuch)
		}
		return err
	}
}

// countOption reads a whole number from lo to hi, saying outside otherwise.
func countOption(lo, hi int, outside string, field func(*WorkerSpec) *int) workerOption {
	return func(ws *WorkerSpec, v string) (err error) {
		n := field(ws)
		*n, err = strconv.Atoi(v)
		if err == nil && (*n < lo || *n > hi) {
			err = errors.New(outside)
		}
		return err
	}
}

func setBelief(ws *WorkerSpec, v string) error {
	switch v {
	case "send":
		ws.Belief = FromSend
	case "receive":
		ws.Belief = FromReceive
	case "stamp":
		ws.Belief = FromStamp
	default:
		return fmt.Errorf("want send, receive or stamp")
	}
	return nil
}

func setAuthError(ws *WorkerSpec, v string) (err error) {
	ws.AuthTransient, err = parseEither(v, "definitive", "transient")
	return err
}

func setGeneration(ws *WorkerSpec, v string) error {
	switch v {
	case "check":
		ws.Renew.AnyGen = false
	case "ignore":
		ws.Renew.AnyGen = true
	default:
		return fmt.Errorf("want check or ignore")
	}
	return nil
}

func setLeaseName(ws *WorkerSpec, v string) error {
	ws.Lease = v
	if validName(v) != nil {
		return fmt.Errorf("a lease name uses letters, digits, - and _")
	}
	return nil
}

// Validate reports the first thing wrong with the scenario.
func (sc *Scenario) Validate() error {
	if len(sc.Workers) == 0 {
		return fmt.Errorf("a scenario needs at least one worker")
	}
	if len(sc.Workers) > MaxWorkers {
		return fmt.Errorf("at most %d workers", MaxWorkers)
	}
	if sc.FirstToken < 0 || sc.FirstToken > 1<<50 {
		return fmt.Errorf("first token must be between 1 and 2^50")
	}
	if sc.TTL < 0 || sc.LockDelay < 0 || sc.ElectionDelay < 0 || sc.Tick < 0 || sc.ServiceTime < 0 || sc.Delay < 0 || sc.Jitter < 0 {
		return fmt.Errorf("durations cannot be negative")
	}
	if sc.LossPPM < 0 || sc.LossPPM > 1_000_000 {
		return fmt.Errorf("loss is a probability between 0 and 1")
	}
	if sc.Replicas < 0 || sc.Replicas > 9 {
		return fmt.Errorf("replicas must be 1 to 9")
	}
	if sc.Copies < 0 || sc.Copies > 2 {
		return fmt.Errorf("copies must be 1 or 2")
	}
	if sc.Tokens > TokensLeaseID {
		return fmt.Errorf("tokens: want counter, log or lease-id")
	}
	if sc.Tokens != TokensCounter && sc.IndependentMasters {
		return fmt.Errorf("tokens: Redlock's independent masters keep no shared log and no leader: only tokens=counter")
	}
	if err := sc.validateSides(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i := range sc.Workers {
		ws := &sc.Workers[i]
		if err := validName(ws.Name); err != nil {
			return fmt.Errorf("worker %d: %w", i+1, err)
		}
		if seen[ws.Name] {
			return fmt.Errorf("two workers are called %s", ws.Name)
		}
		seen[ws.Name] = true
		if len(ws.Program) == 0 {
			return fmt.Errorf("worker %s has no program", ws.Name)
		}
		if ws.Copy > max(sc.Copies, 1) || ws.Copy < 0 {
			return fmt.Errorf("worker %s writes to copy %d, but the storage has %d (scenario option copies)", ws.Name, ws.Copy, max(sc.Copies, 1))
		}
		if ws.Drift < 0 || ws.Drift > 100_000_000 {
			return fmt.Errorf("worker %s: drift out of range", ws.Name)
		}
		if ws.Drift != 0 && ws.Drift < 1000 {
			return fmt.Errorf("worker %s: a clock rate below 0.001 is not a clock", ws.Name)
		}
		if ws.Renew.Every < 0 || ws.Renew.Retry < 0 || ws.Timeout < 0 || ws.Start < 0 || ws.Grace < 0 || ws.ServerGrace < 0 || ws.LockDelay < 0 || ws.AcquireJitter < 0 {
			return fmt.Errorf("worker %s: durations cannot be negative", ws.Name)
		}
		if p := ws.Program; p[len(p)-1].Kind == OpRepeat && !waits(p) {
			return fmt.Errorf("worker %s: a program that repeats needs a work or sleep step longer than 0, or it would spin forever", ws.Name)
		}
		if ws.Renew.Every != 0 && ws.Renew.Margin != 0 {
			return fmt.Errorf("worker %s: renew every a period or at a margin, not both", ws.Name)
		}
		if ws.Renew.Margin != 0 && sc.TTL != 0 && ws.Renew.Margin >= sc.TTL {
			return fmt.Errorf("worker %s: a renewal margin of %s leaves no time in a %s lease", ws.Name, ws.Renew.Margin, sc.TTL)
		}
		if ws.Renew.Every != 0 && ws.Renew.Every < Millisecond*10 {
			return fmt.Errorf("worker %s: renew every %s is too often (at least 10ms)", ws.Name, ws.Renew.Every)
		}
	}
	return nil
}

func waits(p []Op) bool {
	for _, op := range p {
		if (op.Kind == OpWork || op.Kind == OpSleep) && op.Arg > 0 || op.Kind == OpWrite && op.Each > 0 {
			return true
		}
	}
	return false
}

// DefaultLease is the name of the lease workers compete for unless their
// spec names another.
const DefaultLease = "lock"

// MaxWorkers bounds a scenario's workers.
const MaxWorkers = 16

func validName(n string) error {
	if n == "" {
		return fmt.Errorf("a worker needs a name")
	}
	if len(n) > 16 {
		return fmt.Errorf("worker name %q is longer than 16 characters", n)
	}
	for i, r := range n {
		ok := r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			return fmt.Errorf("worker name %q: use letters, digits, - and _, starting with a letter", n)
		}
	}
	switch n {
	case "coord", "storage", "all":
		return fmt.Errorf("worker name %q is reserved", n)
	}
	return nil
}

func parseNonNeg(s string) (Time, error) {
	d, err := ParseTime(s)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, fmt.Errorf("cannot be negative")
	}
	return d, nil
}

func parseBool(s string) (bool, error) {
	switch s {
	case "on", "yes", "true":
		return true, nil
	case "off", "no", "false":
		return false, nil
	}
	return false, fmt.Errorf("want on or off")
}

// parseFactor reads a decimal such as "2" or "0.2" in thousandths.
func parseFactor(s string) (int64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1000 {
		return 0, fmt.Errorf("want a number such as 2 or 0.2")
	}
	return int64(f*1000 + 0.5), nil
}

// parseProbability reads "0.25" or "25%" as parts per million.
func parseProbability(s string) (int64, error) {
	pct := strings.HasSuffix(s, "%")
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("not a number")
	}
	if pct {
		f /= 100
	}
	if f < 0 || f > 1 {
		return 0, fmt.Errorf("a probability is between 0 and 1")
	}
	return int64(f*1_000_000 + 0.5), nil
}

// parseRate reads a clock rate: "1.6" (runs 1.6× fast), "0.5", or "+200ppm".
func parseRate(s string) (int64, error) {
	if v, ok := strings.CutSuffix(s, "ppm"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= -1_000_000 || n > 10_000_000 {
			return 0, fmt.Errorf("ppm out of range")
		}
		return 1_000_000 + n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("want a rate such as 1.2 or +200ppm")
	}
	if f < 0.001 || f > 100 {
		return 0, fmt.Errorf("rate must be between 0.001 and 100")
	}
	return int64(f*1_000_000 + 0.5), nil
}

func formatRate(ppm int64) string {
	return strconv.FormatFloat(float64(ppm)/1_000_000, 'f', -1, 64)
}

// ParseWorker reads a worker line as scenario files write it:
// "W1 start=1s renew=5s: acquire; work 25s; send report".
func ParseWorker(line string) (WorkerSpec, error) {
	head, prog, ok := strings.Cut(line, ":")
	if !ok {
		return WorkerSpec{}, fmt.Errorf("a worker line is NAME [option=value ...]: program")
	}
	f := strings.Fields(head)
	if len(f) == 0 {
		return WorkerSpec{}, fmt.Errorf("a worker line starts with the worker's name")
	}
	ws := WorkerSpec{Name: f[0]}
	if err := validName(ws.Name); err != nil {
		return WorkerSpec{}, err
	}
	for _, kv := range f[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return WorkerSpec{}, fmt.Errorf("worker option %q is not key=value", kv)
		}
		if err := ws.Set(k, v); err != nil {
			return WorkerSpec{}, err
		}
	}
	ops, err := ParseProgram(prog)
	if err != nil {
		return WorkerSpec{}, err
	}
	ws.Program = ops
	return ws, nil
}
