package engine

// CommandKind names what a command does.
type CommandKind uint8

const (
	CmdAdvance   CommandKind = iota + 1 // advance D
	CmdStep                             // step
	CmdUntil                            // until T
	CmdFreeze                           // freeze W [for=D] [on=check|work|acquired]
	CmdThaw                             // thaw W
	CmdCrash                            // crash W
	CmdRestart                          // restart W
	CmdStorage                          // fencing on|off, storage MODE
	CmdPartition                        // partition A [B]
	CmdHeal                             // heal [A [B]]
	CmdLink                             // link A->B|A B [delay=D] [loss=P]
	CmdClock                            // clock W [skew=D] [jump=D] [rate=R]
	CmdReplica                          // replica N down|up
	CmdReset                            // reset
	CmdLease                            // lease D
	CmdJitter                           // jitter SHARE
	CmdPolicy                           // policy W loops=N | generation=check|ignore | publish-gap=D | renew=D | cancel=on|off | auth=definitive|transient
	CmdRevoke                           // revoke W
)

// Command is one input to a world. A session is a scenario plus the list of
// commands applied to it; replaying that list rebuilds the session.
type Command struct {
	Kind CommandKind
	A, B string // worker or node names
	Dur  Time   // advance by, freeze for, link delay
	At   Time   // until
	On   Kind   // freeze trigger
	Mode StorageMode

	OneWay   bool // link: only A→B
	HasDelay bool
	HasLoss  bool
	LossPPM  int64
	// link: the named parts of a delay set (bit i: DelayParts[i]), each
	// added to the link's delay: dns=D connect=D proxy=D
	HasParts uint8
	Parts    [3]Time

	HasSkew, HasJump, HasRate bool
	Skew, Jump                Time
	Rate                      int64

	Replica int
	Up      bool
	// policy: Loops 1 or 2 renewal loops, or Gen GenCheck or GenIgnore,
	// or RenewEvery: renew=Dur; none of them: publish-gap=Dur
	Loops      uint8
	Gen        uint8
	RenewEvery bool
	Cancel     uint8 // policy cancel=on (CancelOn) or off (CancelOff)
	Auth       uint8 // policy auth=definitive (AuthDefinitive) or transient (AuthTransient)

	Jitter int64 // jitter: the share of a renewal's wait, in thousandths
}

// DelayParts are the named parts of a link's delay a link command sets
// (dns=D, connect=D, proxy=D): a name lookup, a connection set up, a wait
// in a proxy's queue. Each adds to the link's delay.
var DelayParts = [3]string{"dns", "connect", "proxy"}

// A policy command's choice about work when the holder's own deadline
// passes: drop the lease and stop (stop-at-expiry), or carry on.
const (
	CancelOn  = 1
	CancelOff = 2
)

// A policy command's choice about a renewal refused as not authorised:
// an error that ends the lease at once, or one to retry like a timeout.
const (
	AuthDefinitive = 1
	AuthTransient  = 2
)

// A policy command's choice about answers' generations.
const (
	GenCheck  = 1 // drop an answer meant for an older generation
	GenIgnore = 2 // take it (unsafe)
)

// CommandHelp lists the command forms, one a line.
var CommandHelp = commandHelp()

func signed(t Time) string {
	if t >= 0 {
		return "+" + t.String()
	}
	return t.String()
}
