package engine

import (
	"fmt"
	"strconv"
	"strings"
)

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

	HasSkew, HasJump, HasRate bool
	Skew, Jump                Time
	Rate                      int64

	Replica int
	Up      bool
}

// CommandHelp lists the command forms, one a line.
const CommandHelp = `advance DURATION          let virtual time pass
step                      run to the next event
until TIME                run until the given virtual time
freeze W [for=D] [on=K]   freeze worker W (GC pause); on=check|work|acquired waits for that moment
thaw W                    resume a frozen worker
crash W                   worker W loses its memory
restart W                 start a crashed worker's program again
fencing on|off            storage checks fencing tokens, or accepts anything
storage MODE              none, fencing, equality, cas or idempotent
partition A [B]           cut the link A—B, or cut A off from everyone
heal [A [B]]              heal one link, all of A's links, or everything
link A->B|A B [delay=D] [loss=P]  set a link's delay and loss (one way with ->)
lease DURATION            leases granted or renewed from now on last DURATION
clock W [skew=D] [jump=D] [rate=R]  set W's clock offset, jump it, or change its rate
replica N down|up         take a coordinator replica down or bring it back
reset                     start the world again (the storage mode is kept)`

// ParseCommand reads one command in the form CommandHelp lists.
func ParseCommand(s string) (Command, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return Command{}, refuse("empty", "empty command")
	}
	args := f[1:]
	need := func(n int, form string) error {
		if len(args) != n {
			return refuse("form", fmt.Sprintf("%s: expected %q", f[0], form), f[0], form)
		}
		return nil
	}
	var c Command
	switch f[0] {
	case "advance":
		if err := need(1, "advance DURATION"); err != nil {
			return c, err
		}
		d, err := ParseTime(args[0])
		if err != nil {
			return c, err
		}
		if d <= 0 {
			return c, fmt.Errorf("advance: duration must be positive")
		}
		return Command{Kind: CmdAdvance, Dur: d}, nil
	case "step":
		if err := need(0, "step"); err != nil {
			return c, err
		}
		return Command{Kind: CmdStep}, nil
	case "until":
		if err := need(1, "until TIME"); err != nil {
			return c, err
		}
		t, err := ParseTime(args[0])
		if err != nil {
			return c, err
		}
		if t < 0 {
			return c, fmt.Errorf("until: time cannot be negative")
		}
		return Command{Kind: CmdUntil, At: t}, nil
	case "freeze":
		if len(args) < 1 {
			return c, fmt.Errorf("freeze: expected %q", "freeze W [for=D] [on=check|work|acquired]")
		}
		c = Command{Kind: CmdFreeze, A: args[0]}
		for _, kv := range args[1:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "for":
				d, err := ParseTime(v)
				if err != nil {
					return c, fmt.Errorf("freeze for: %w", err)
				}
				if d <= 0 {
					return c, fmt.Errorf("freeze for: duration must be positive")
				}
				c.Dur = d
			case "on":
				switch v {
				case "check":
					c.On = KindCheck
				case "work":
					c.On = KindWork
				case "acquired":
					c.On = KindAcquired
				default:
					return c, fmt.Errorf("freeze on: want check, work or acquired, not %q", v)
				}
			default:
				return c, fmt.Errorf("freeze: unknown option %q (want for= or on=)", kv)
			}
		}
		return c, nil
	case "thaw", "crash", "restart":
		if err := need(1, f[0]+" W"); err != nil {
			return c, err
		}
		k := map[string]CommandKind{"thaw": CmdThaw, "crash": CmdCrash, "restart": CmdRestart}[f[0]]
		return Command{Kind: k, A: args[0]}, nil
	case "fencing":
		if err := need(1, "fencing on|off"); err != nil {
			return c, err
		}
		on, err := parseBool(args[0])
		if err != nil {
			return c, fmt.Errorf("fencing: %w", err)
		}
		c = Command{Kind: CmdStorage, Mode: StorageNone}
		if on {
			c.Mode = StorageFencing
		}
		return c, nil
	case "storage":
		if err := need(1, "storage MODE"); err != nil {
			return c, err
		}
		m, err := ParseStorageMode(args[0])
		if err != nil {
			return c, err
		}
		return Command{Kind: CmdStorage, Mode: m}, nil
	case "partition":
		if len(args) < 1 || len(args) > 2 {
			return c, fmt.Errorf("partition: expected %q", "partition A [B]")
		}
		c = Command{Kind: CmdPartition, A: args[0]}
		if len(args) == 2 {
			c.B = args[1]
		}
		return c, nil
	case "heal":
		if len(args) > 2 {
			return c, fmt.Errorf("heal: expected %q", "heal [A [B]]")
		}
		c = Command{Kind: CmdHeal}
		if len(args) > 0 {
			c.A = args[0]
		}
		if len(args) > 1 {
			c.B = args[1]
		}
		return c, nil
	case "link":
		if len(args) < 1 {
			return c, fmt.Errorf("link: expected %q", "link A->B|A B [delay=D] [loss=P]")
		}
		c = Command{Kind: CmdLink}
		if a, b, ok := strings.Cut(args[0], "->"); ok {
			c.A, c.B, c.OneWay = a, b, true
			args = args[1:]
		} else {
			if len(args) < 2 {
				return c, fmt.Errorf("link: name both ends, as A B or A->B")
			}
			c.A, c.B = args[0], args[1]
			args = args[2:]
		}
		if len(args) == 0 {
			return c, fmt.Errorf("link: say delay=D and/or loss=P")
		}
		for _, kv := range args {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "delay":
				d, err := ParseTime(v)
				if err != nil {
					return c, fmt.Errorf("link delay: %w", err)
				}
				if d < 0 || d > Hour {
					return c, fmt.Errorf("link delay must be between 0 and 1h")
				}
				c.HasDelay, c.Dur = true, d
			case "loss":
				p, err := parseProbability(v)
				if err != nil {
					return c, fmt.Errorf("link loss: %w", err)
				}
				c.HasLoss, c.LossPPM = true, p
			default:
				return c, fmt.Errorf("link: unknown option %q (want delay= or loss=)", kv)
			}
		}
		return c, nil
	case "clock":
		if len(args) < 2 {
			return c, fmt.Errorf("clock: expected %q", "clock W [skew=D] [jump=D] [rate=R]")
		}
		c = Command{Kind: CmdClock, A: args[0]}
		for _, kv := range args[1:] {
			k, v, _ := strings.Cut(kv, "=")
			var err error
			switch k {
			case "skew":
				c.HasSkew = true
				c.Skew, err = ParseTime(v)
			case "jump":
				c.HasJump = true
				c.Jump, err = ParseTime(v)
			case "rate", "drift":
				c.HasRate = true
				c.Rate, err = parseRate(v)
			default:
				return c, fmt.Errorf("clock: unknown option %q (want skew=, jump= or rate=)", kv)
			}
			if err != nil {
				return c, fmt.Errorf("clock %s: %w", k, err)
			}
			if (k == "skew" && (c.Skew > Hour || c.Skew < -Hour)) || (k == "jump" && (c.Jump > Hour || c.Jump < -Hour)) {
				return c, fmt.Errorf("clock %s: at most an hour either way", k)
			}
		}
		return c, nil
	case "replica":
		if err := need(2, "replica N down|up"); err != nil {
			return c, err
		}
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return c, fmt.Errorf("replica: %q is not a replica number", args[0])
		}
		c = Command{Kind: CmdReplica, Replica: n}
		switch args[1] {
		case "up":
			c.Up = true
		case "down":
		default:
			return c, fmt.Errorf("replica: want down or up, not %q", args[1])
		}
		return c, nil
	case "reset":
		if err := need(0, "reset"); err != nil {
			return c, err
		}
		return Command{Kind: CmdReset}, nil
	case "lease":
		if err := need(1, "lease DURATION"); err != nil {
			return c, err
		}
		d, err := ParseTime(args[0])
		if err != nil {
			return c, fmt.Errorf("lease: %w", err)
		}
		return Command{Kind: CmdLease, Dur: d}, nil
	}
	return c, refuse("unknown-name", fmt.Sprintf("unknown command %q", f[0]), f[0])
}

// String writes the command back in the form ParseCommand reads.
func (c Command) String() string { return string(c.AppendTo(nil)) }

// AppendTo appends the command as String writes it: a live frame writes a
// session's commands into its buffer without a string for each.
func (c Command) AppendTo(b []byte) []byte {
	word := func(s string) { b = append(b, s...) }
	switch c.Kind {
	case CmdAdvance:
		word("advance ")
		return c.Dur.AppendTo(b)
	case CmdStep:
		word("step")
	case CmdUntil:
		word("until ")
		return c.At.AppendTo(b)
	case CmdFreeze:
		word("freeze ")
		word(c.A)
		if c.Dur > 0 {
			word(" for=")
			b = c.Dur.AppendTo(b)
		}
		if c.On != KindNone {
			word(" on=")
			word(c.On.String())
		}
	case CmdThaw:
		word("thaw ")
		word(c.A)
	case CmdCrash:
		word("crash ")
		word(c.A)
	case CmdRestart:
		word("restart ")
		word(c.A)
	case CmdStorage:
		switch c.Mode {
		case StorageFencing:
			word("fencing on")
		case StorageNone:
			word("fencing off")
		default:
			word("storage ")
			word(c.Mode.String())
		}
	case CmdPartition:
		word("partition ")
		word(c.A)
		if c.B != "" {
			word(" ")
			word(c.B)
		}
	case CmdHeal:
		word(strings.TrimSpace("heal " + c.A + " " + c.B))
	case CmdLink:
		word("link ")
		word(c.A)
		if c.OneWay {
			word("->")
		} else {
			word(" ")
		}
		word(c.B)
		if c.HasDelay {
			word(" delay=")
			b = c.Dur.AppendTo(b)
		}
		if c.HasLoss {
			word(" loss=")
			b = strconv.AppendFloat(b, float64(c.LossPPM)/1e6, 'f', -1, 64)
		}
	case CmdClock:
		word("clock ")
		word(c.A)
		if c.HasSkew {
			word(" skew=")
			word(signed(c.Skew))
		}
		if c.HasJump {
			word(" jump=")
			word(signed(c.Jump))
		}
		if c.HasRate {
			word(" rate=")
			word(formatRate(c.Rate))
		}
	case CmdReplica:
		word("replica ")
		b = strconv.AppendInt(b, int64(c.Replica), 10)
		if c.Up {
			word(" up")
		} else {
			word(" down")
		}
	case CmdReset:
		word("reset")
	case CmdLease:
		word("lease ")
		return c.Dur.AppendTo(b)
	default:
		word("?")
	}
	return b
}

func signed(t Time) string {
	if t >= 0 {
		return "+" + t.String()
	}
	return t.String()
}
