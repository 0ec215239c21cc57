package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// commandSpec describes one kind of command once: the words that say it,
// its forms as CommandHelp lists them, how its arguments are read, how it
// is written back, and what the world checks before carrying it out.
// ParseCommand, Command.AppendTo, World.validate, CommandHelp and the
// kind's Word and MovesTime all read this table, and the layers above key
// their own tables (the catalog's words, a lab's controls) by its kinds
// (Commands).
type commandSpec struct {
	kind      CommandKind
	words     []string // the words ParseCommand reads; the first names the kind
	help      []string // CommandHelp's lines
	movesTime bool     // it lets virtual time pass and changes nothing else
	parse     func(word string, args []string) (Command, error)
	write     func(b []byte, c Command) []byte
	check     func(w *World, c Command) error
}

// commandTable is every command, in CommandHelp's order.
var commandTable = []commandSpec{
	{kind: CmdAdvance, words: []string{"advance"}, movesTime: true,
		help:  []string{"advance DURATION          let virtual time pass"},
		parse: parseAdvance, write: writeAdvance, check: (*World).checkAdvance},
	{kind: CmdStep, words: []string{"step"}, movesTime: true,
		help:  []string{"step                      run to the next event"},
		parse: parseStep, write: writeWord("step"), check: (*World).checkStep},
	{kind: CmdUntil, words: []string{"until"}, movesTime: true,
		help:  []string{"until TIME                run until the given virtual time"},
		parse: parseUntil, write: writeUntil, check: (*World).checkUntil},
	{kind: CmdFreeze, words: []string{"freeze"},
		help:  []string{"freeze W [for=D] [on=K]   freeze worker W (GC pause); on=check|work|acquired waits for that moment"},
		parse: parseFreeze, write: writeFreeze, check: (*World).checkFreeze},
	{kind: CmdThaw, words: []string{"thaw"},
		help:  []string{"thaw W                    resume a frozen worker"},
		parse: parseWorkerOnly(CmdThaw), write: writeWorkerOnly("thaw "), check: (*World).checkThaw},
	{kind: CmdCrash, words: []string{"crash"},
		help:  []string{"crash W                   worker W loses its memory"},
		parse: parseWorkerOnly(CmdCrash), write: writeWorkerOnly("crash "), check: (*World).checkCrash},
	{kind: CmdRestart, words: []string{"restart"},
		help:  []string{"restart W                 start a crashed worker's program again"},
		parse: parseWorkerOnly(CmdRestart), write: writeWorkerOnly("restart "), check: (*World).checkRestart},
	{kind: CmdStorage, words: []string{"storage", "fencing"},
		help: []string{
			"fencing on|off            storage checks fencing tokens, or accepts anything",
			"storage MODE              none, fencing, equality, cas, idempotent or rename"},
		parse: parseStorage, write: writeStorage, check: (*World).checkStorage},
	{kind: CmdPartition, words: []string{"partition"},
		help:  []string{"partition A [B]           cut the link A—B, or cut A off from everyone"},
		parse: parsePartition, write: writePartition, check: (*World).checkLink},
	{kind: CmdHeal, words: []string{"heal"},
		help:  []string{"heal [A [B]]              heal one link, all of A's links, or everything"},
		parse: parseHeal, write: writeHeal, check: (*World).checkHeal},
	{kind: CmdLink, words: []string{"link"},
		help:  []string{"link A->B|A B [delay=D] [loss=P] [dns=D] [connect=D] [proxy=D]  set a link's delay and loss (one way with ->); dns, connect and proxy are named parts added to the delay"},
		parse: parseLink, write: writeLink, check: (*World).checkLink},
	{kind: CmdLease, words: []string{"lease"},
		help:  []string{"lease DURATION            leases granted or renewed from now on last DURATION (0s: a lock that never expires)"},
		parse: parseLease, write: writeLease, check: (*World).checkLease},
	{kind: CmdJitter, words: []string{"jitter"},
		help:  []string{"jitter SHARE              renewals from now on move by up to SHARE (0 to 1) of their wait, at random; 0 turns jitter off"},
		parse: parseJitter, write: writeJitter, check: func(*World, Command) error { return nil }},
	{kind: CmdPolicy, words: []string{"policy"},
		help:  []string{"policy W loops=1|2 | generation=check|ignore | publish-gap=D | renew=D | cancel=on|off | auth=definitive|transient  run a duplicate renewal loop (as after a restart), check answers' generations, publish a renewed token D after its expiry (0s: atomically), renew every D, cancel work at the holder's own deadline (stop-at-expiry), or take a renewal refused as not authorised as definitive or as transient"},
		parse: parsePolicy, write: writePolicy, check: (*World).checkPolicy},
	{kind: CmdRevoke, words: []string{"revoke"},
		help:  []string{"revoke W                  an operator revokes W's session (its credentials): its lease ends now, and the coordinator refuses W's every later request as not authorised"},
		parse: parseWorkerOnly(CmdRevoke), write: writeWorkerOnly("revoke "), check: (*World).checkRevoke},
	{kind: CmdClock, words: []string{"clock"},
		help:  []string{"clock W [skew=D] [jump=D] [rate=R]  set W's clock offset, jump it, or change its rate; clock coord [replica=N] ... the coordinator's (one replica's or master's)"},
		parse: parseClock, write: writeClock, check: (*World).checkClock},
	{kind: CmdReplica, words: []string{"replica"},
		help:  []string{"replica N down|up         take a coordinator replica down or bring it back"},
		parse: parseReplica, write: writeReplica, check: (*World).checkReplica},
	{kind: CmdReset, words: []string{"reset"},
		help:  []string{"reset                     start the world again (the storage mode is kept)"},
		parse: parseReset, write: writeWord("reset"), check: func(*World, Command) error { return nil }},
}

// specByKind and specByWord index commandTable.
var (
	specByKind [CmdRevoke + 1]*commandSpec
	specByWord = map[string]*commandSpec{}
)

func init() {
	for i := range commandTable {
		s := &commandTable[i]
		specByKind[s.kind] = s
		for _, w := range s.words {
			specByWord[w] = s
		}
	}
}

// CommandWords lists the words a command starts with, in the table's
// order: what an author meant by a word none starts with is among them.
func CommandWords() []string {
	var out []string
	for _, s := range commandTable {
		out = append(out, s.words...)
	}
	return out
}

func (k CommandKind) spec() *commandSpec {
	if int(k) < len(specByKind) {
		return specByKind[k]
	}
	return nil
}

// Commands lists every kind of command, in CommandHelp's order: the layers
// above keep a table of their own keyed by kind (how the catalog says a
// command, how a lab offers it), and their tests hold them to this list.
func Commands() []CommandKind {
	out := make([]CommandKind, len(commandTable))
	for i, s := range commandTable {
		out[i] = s.kind
	}
	return out
}

// Word is the word that names the kind ("freeze"; "storage" for fencing
// and storage), or "nothing" for a kind no command has.
func (k CommandKind) Word() string {
	if s := k.spec(); s != nil {
		return s.words[0]
	}
	return "nothing"
}

// MovesTime reports whether the kind only lets virtual time pass (advance,
// until, step): what a what-if runs in both worlds and a session merges.
func (k CommandKind) MovesTime() bool {
	s := k.spec()
	return s != nil && s.movesTime
}

func commandHelp() string {
	var lines []string
	for _, s := range commandTable {
		lines = append(lines, s.help...)
	}
	return strings.Join(lines, "\n")
}

// ParseCommand reads one command in the form CommandHelp lists.
func ParseCommand(s string) (Command, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return Command{}, refuse(RefuseEmpty, "empty command")
	}
	spec := specByWord[f[0]]
	if spec == nil {
		return Command{}, refuse(RefuseUnknownName, fmt.Sprintf("unknown command %q", f[0]), f[0])
	}
	return spec.parse(f[0], f[1:])
}

// AppendTo appends the command as String writes it: a live frame writes a
// session's commands into its buffer without a string for each.
func (c Command) AppendTo(b []byte) []byte {
	if s := c.Kind.spec(); s != nil {
		return s.write(b, c)
	}
	return append(b, '?')
}

// String writes the command back in the form ParseCommand reads.
func (c Command) String() string { return string(c.AppendTo(nil)) }

// The steps ParseCommand's readers share.

func formError(word, form string) error {
	return refuse(RefuseForm, fmt.Sprintf("%s: expected %q", word, form), word, form)
}

// exactly refuses args that are not n words.
func exactly(n int, word string, args []string, form string) error {
	if len(args) != n {
		return formError(word, form)
	}
	return nil
}

// duration reads a duration of what; the English error starts with prefix.
func duration(what, prefix, s string) (Time, error) {
	d, err := ParseTime(s)
	if err != nil {
		return 0, refuse(RefuseDuration, prefix+err.Error(), what, s)
	}
	return d, nil
}

func unknownOption(word, kv, want, wantWords string) error {
	return refuse(RefuseOption, fmt.Sprintf("%s: unknown option %q (want %s)", word, kv, wantWords), word, kv, want)
}

// Readers, one a command.

func parseAdvance(word string, args []string) (Command, error) {
	if err := exactly(1, word, args, "advance DURATION"); err != nil {
		return Command{}, err
	}
	d, err := duration("advance", "", args[0])
	if err != nil {
		return Command{}, err
	}
	if d <= 0 {
		return Command{}, refuse(RefusePositive, "advance: duration must be positive", "advance")
	}
	return Command{Kind: CmdAdvance, Dur: d}, nil
}

func parseStep(word string, args []string) (Command, error) {
	if err := exactly(0, word, args, "step"); err != nil {
		return Command{}, err
	}
	return Command{Kind: CmdStep}, nil
}

func parseUntil(word string, args []string) (Command, error) {
	if err := exactly(1, word, args, "until TIME"); err != nil {
		return Command{}, err
	}
	t, err := duration("until", "", args[0])
	if err != nil {
		return Command{}, err
	}
	if t < 0 {
		return Command{}, refuse(RefuseUntilNegative, "until: time cannot be negative")
	}
	return Command{Kind: CmdUntil, At: t}, nil
}

func parseFreeze(word string, args []string) (Command, error) {
	if len(args) < 1 {
		return Command{}, formError(word, "freeze W [for=D] [on=check|work|acquired]")
	}
	c := Command{Kind: CmdFreeze, A: args[0]}
	for _, kv := range args[1:] {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "for":
			c.Dur, err = freezeFor(v)
		case "on":
			c.On, err = freezeOn(v)
		default:
			err = unknownOption("freeze", kv, "for=, on=", "for= or on=")
		}
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

func freezeFor(v string) (Time, error) {
	d, err := duration("freeze for=", "freeze for: ", v)
	if err == nil && d <= 0 {
		err = refuse(RefusePositive, "freeze for: duration must be positive", "freeze for=")
	}
	return d, err
}

// freezeMoments are the moments a freeze can wait for (freeze W on=K).
var freezeMoments = []Kind{KindCheck, KindWork, KindAcquired}

func freezeOn(v string) (Kind, error) {
	for _, k := range freezeMoments {
		if v == k.String() {
			return k, nil
		}
	}
	return KindNone, refuse(RefuseFreezeOnWord, fmt.Sprintf("freeze on: want check, work or acquired, not %q", v), v)
}

func parseWorkerOnly(kind CommandKind) func(string, []string) (Command, error) {
	return func(word string, args []string) (Command, error) {
		if err := exactly(1, word, args, word+" W"); err != nil {
			return Command{}, err
		}
		return Command{Kind: kind, A: args[0]}, nil
	}
}

func parseStorage(word string, args []string) (Command, error) {
	if word == "fencing" {
		if err := exactly(1, word, args, "fencing on|off"); err != nil {
			return Command{}, err
		}
		on, err := parseBool(args[0])
		if err != nil {
			return Command{}, refuse(RefuseOnOff, "fencing: "+err.Error(), "fencing", args[0])
		}
		c := Command{Kind: CmdStorage, Mode: StorageNone}
		if on {
			c.Mode = StorageFencing
		}
		return c, nil
	}
	if err := exactly(1, word, args, "storage MODE"); err != nil {
		return Command{}, err
	}
	m, err := ParseStorageMode(args[0])
	if err != nil {
		return Command{}, refuse(RefuseStorageName, err.Error(), args[0], strings.Join(storageModeNames[:], ", "))
	}
	return Command{Kind: CmdStorage, Mode: m}, nil
}

func parsePartition(word string, args []string) (Command, error) {
	if len(args) < 1 || len(args) > 2 {
		return Command{}, formError(word, "partition A [B]")
	}
	c := Command{Kind: CmdPartition, A: args[0]}
	if len(args) == 2 {
		c.B = args[1]
	}
	return c, nil
}

func parseHeal(word string, args []string) (Command, error) {
	if len(args) > 2 {
		return Command{}, formError(word, "heal [A [B]]")
	}
	c := Command{Kind: CmdHeal}
	if len(args) > 0 {
		c.A = args[0]
	}
	if len(args) > 1 {
		c.B = args[1]
	}
	return c, nil
}

func parseLink(word string, args []string) (Command, error) {
	if len(args) < 1 {
		return Command{}, formError(word, "link A->B|A B [delay=D] [loss=P]")
	}
	c := Command{Kind: CmdLink}
	if a, b, ok := strings.Cut(args[0], "->"); ok {
		c.A, c.B, c.OneWay = a, b, true
		args = args[1:]
	} else {
		if len(args) < 2 {
			return c, refuse(RefuseLinkEnds, "link: name both ends, as A B or A->B")
		}
		c.A, c.B = args[0], args[1]
		args = args[2:]
	}
	if len(args) == 0 {
		return c, refuse(RefuseLinkWhat, "link: say delay=D and/or loss=P")
	}
	for _, kv := range args {
		if err := c.linkOption(kv); err != nil {
			return c, err
		}
	}
	return c, nil
}

// linkOption reads one of link's delay=D and loss=P into c.
func (c *Command) linkOption(kv string) error {
	k, v, _ := strings.Cut(kv, "=")
	if i := slices.Index(DelayParts[:], k); i >= 0 {
		d, err := duration("link "+k+"=", "link "+k+": ", v)
		if err != nil {
			return err
		}
		if d < 0 || d > Hour {
			return refuse(RefuseLinkRange, "link "+k+" must be between 0 and 1h")
		}
		c.HasParts |= 1 << i
		c.Parts[i] = d
		return nil
	}
	switch k {
	case "delay":
		d, err := duration("link delay=", "link delay: ", v)
		if err != nil {
			return err
		}
		if d < 0 || d > Hour {
			return refuse(RefuseLinkRange, "link delay must be between 0 and 1h")
		}
		c.HasDelay, c.Dur = true, d
	case "loss":
		p, err := parseProbability(v)
		if err != nil {
			return refuse(RefuseLoss, "link loss: "+err.Error(), v)
		}
		c.HasLoss, c.LossPPM = true, p
	default:
		return unknownOption("link", kv, "delay=, loss=", "delay= or loss=")
	}
	return nil
}

func parseLease(word string, args []string) (Command, error) {
	if err := exactly(1, word, args, "lease DURATION"); err != nil {
		return Command{}, err
	}
	d, err := duration("lease", "lease: ", args[0])
	if err != nil {
		return Command{}, err
	}
	return Command{Kind: CmdLease, Dur: d}, nil
}

func parsePolicy(word string, args []string) (Command, error) {
	if err := exactly(2, word, args, "policy W loops=1|2 | generation=check|ignore | publish-gap=D | renew=D | cancel=on|off | auth=definitive|transient"); err != nil {
		return Command{}, err
	}
	c := Command{Kind: CmdPolicy, A: args[0]}
	switch k, v, _ := strings.Cut(args[1], "="); {
	case k == "loops" && (v == "1" || v == "2"):
		c.Loops = v[0] - '0'
	case k == "generation" && v == "check":
		c.Gen = GenCheck
	case k == "generation" && v == "ignore":
		c.Gen = GenIgnore
	case k == "publish-gap":
		d, err := ParseTime(v)
		if err != nil || d < 0 || d > Hour {
			return c, refuse(RefusePolicy, fmt.Sprintf("policy: %q: publish-gap takes a duration from 0s to 1h", args[1]), args[1])
		}
		c.Dur = d
	case k == "cancel" && v == "on":
		c.Cancel = CancelOn
	case k == "cancel" && v == "off":
		c.Cancel = CancelOff
	case k == "auth" && v == "definitive":
		c.Auth = AuthDefinitive
	case k == "auth" && v == "transient":
		c.Auth = AuthTransient
	case k == "renew":
		d, err := ParseTime(v)
		if err != nil || d < 10*Millisecond || d > Hour {
			return c, refuse(RefusePolicy, fmt.Sprintf("policy: %q: renew takes a duration from 10ms to 1h", args[1]), args[1])
		}
		c.RenewEvery, c.Dur = true, d
	default:
		return c, refuse(RefusePolicy, fmt.Sprintf("policy: %q: want loops=1, loops=2, generation=check, generation=ignore, publish-gap=D, renew=D, cancel=on|off or auth=definitive|transient", args[1]), args[1])
	}
	return c, nil
}

func writePolicy(b []byte, c Command) []byte {
	b = append(append(b, "policy "...), c.A...)
	if c.Loops > 0 {
		return strconv.AppendInt(append(b, " loops="...), int64(c.Loops), 10)
	}
	switch c.Gen {
	case GenIgnore:
		return append(b, " generation=ignore"...)
	case GenCheck:
		return append(b, " generation=check"...)
	}
	switch c.Cancel {
	case CancelOn:
		return append(b, " cancel=on"...)
	case CancelOff:
		return append(b, " cancel=off"...)
	}
	switch c.Auth {
	case AuthDefinitive:
		return append(b, " auth=definitive"...)
	case AuthTransient:
		return append(b, " auth=transient"...)
	}
	if c.RenewEvery {
		return append(append(b, " renew="...), c.Dur.String()...)
	}
	return append(append(b, " publish-gap="...), c.Dur.String()...)
}

func parseJitter(word string, args []string) (Command, error) {
	if err := exactly(1, word, args, "jitter SHARE"); err != nil {
		return Command{}, err
	}
	f, err := parseFactor(args[0])
	if err != nil || f > 1000 {
		return Command{}, refuse(RefuseJitter, fmt.Sprintf("jitter: %q is not a share between 0 and 1", args[0]), args[0])
	}
	return Command{Kind: CmdJitter, Jitter: f}, nil
}

func writeJitter(b []byte, c Command) []byte {
	return strconv.AppendFloat(append(b, "jitter "...), float64(c.Jitter)/1000, 'f', -1, 64)
}

func parseClock(word string, args []string) (Command, error) {
	if len(args) < 2 {
		return Command{}, formError(word, "clock W [skew=D] [jump=D] [rate=R]")
	}
	c := Command{Kind: CmdClock, A: args[0]}
	for _, kv := range args[1:] {
		if err := c.clockOption(kv); err != nil {
			return c, err
		}
	}
	return c, nil
}

// clockOption reads one of clock's skew=D, jump=D and rate=R into c.
func (c *Command) clockOption(kv string) error {
	k, v, _ := strings.Cut(kv, "=")
	var err error
	switch k {
	case "skew":
		c.HasSkew = true
		c.Skew, err = duration("clock skew=", "clock skew: ", v)
	case "jump":
		c.HasJump = true
		c.Jump, err = duration("clock jump=", "clock jump: ", v)
	case "replica":
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 || n > 9 {
			return refuse(RefuseReplicaNumber, "clock replica=: a replica's number, 1 to 9", v)
		}
		c.Replica = n
	case "rate", "drift":
		c.HasRate = true
		if c.Rate, err = parseRate(v); err != nil {
			err = refuse(RefuseRate, "clock "+k+": "+err.Error(), v)
		}
	default:
		return unknownOption("clock", kv, "skew=, jump=, rate=", "skew=, jump= or rate=")
	}
	if err != nil {
		return err
	}
	if (k == "skew" && !withinHour(c.Skew)) || (k == "jump" && !withinHour(c.Jump)) {
		return refuse(RefuseClockRange, fmt.Sprintf("clock %s: at most an hour either way", k))
	}
	return nil
}

func withinHour(t Time) bool { return t >= -Hour && t <= Hour }

func parseReplica(word string, args []string) (Command, error) {
	if err := exactly(2, word, args, "replica N down|up"); err != nil {
		return Command{}, err
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return Command{}, refuse(RefuseReplicaNumber, fmt.Sprintf("replica: %q is not a replica number", args[0]), args[0])
	}
	c := Command{Kind: CmdReplica, Replica: n}
	switch args[1] {
	case "up":
		c.Up = true
	case "down":
	default:
		return c, refuse(RefuseReplicaState, fmt.Sprintf("replica: want down or up, not %q", args[1]), args[1])
	}
	return c, nil
}

func parseReset(word string, args []string) (Command, error) {
	if err := exactly(0, word, args, "reset"); err != nil {
		return Command{}, err
	}
	return Command{Kind: CmdReset}, nil
}

// Writers, one a command: the form ParseCommand reads.

func writeWord(w string) func([]byte, Command) []byte {
	return func(b []byte, _ Command) []byte { return append(b, w...) }
}

func writeWorkerOnly(prefix string) func([]byte, Command) []byte {
	return func(b []byte, c Command) []byte { return append(append(b, prefix...), c.A...) }
}

func writeAdvance(b []byte, c Command) []byte { return c.Dur.AppendTo(append(b, "advance "...)) }

func writeUntil(b []byte, c Command) []byte { return c.At.AppendTo(append(b, "until "...)) }

func writeLease(b []byte, c Command) []byte { return c.Dur.AppendTo(append(b, "lease "...)) }

func writeFreeze(b []byte, c Command) []byte {
	b = append(append(b, "freeze "...), c.A...)
	if c.Dur > 0 {
		b = c.Dur.AppendTo(append(b, " for="...))
	}
	if c.On != KindNone {
		b = append(append(b, " on="...), c.On.String()...)
	}
	return b
}

func writeStorage(b []byte, c Command) []byte {
	switch c.Mode {
	case StorageFencing:
		return append(b, "fencing on"...)
	case StorageNone:
		return append(b, "fencing off"...)
	}
	return append(append(b, "storage "...), c.Mode.String()...)
}

func writePartition(b []byte, c Command) []byte {
	b = append(append(b, "partition "...), c.A...)
	if c.B != "" {
		b = append(append(b, ' '), c.B...)
	}
	return b
}

func writeHeal(b []byte, c Command) []byte {
	return append(b, strings.TrimSpace("heal "+c.A+" "+c.B)...)
}

func writeLink(b []byte, c Command) []byte {
	b = append(append(b, "link "...), c.A...)
	if c.OneWay {
		b = append(b, "->"...)
	} else {
		b = append(b, ' ')
	}
	b = append(b, c.B...)
	if c.HasDelay {
		b = c.Dur.AppendTo(append(b, " delay="...))
	}
	if c.HasLoss {
		b = strconv.AppendFloat(append(b, " loss="...), float64(c.LossPPM)/1e6, 'f', -1, 64)
	}
	for i, name := range DelayParts {
		if c.HasParts&(1<<i) != 0 {
			b = c.Parts[i].AppendTo(append(append(append(b, ' '), name...), '='))
		}
	}
	return b
}

func writeClock(b []byte, c Command) []byte {
	b = append(append(b, "clock "...), c.A...)
	if c.Replica > 0 {
		b = strconv.AppendInt(append(b, " replica="...), int64(c.Replica), 10)
	}
	if c.HasSkew {
		b = append(append(b, " skew="...), signed(c.Skew)...)
	}
	if c.HasJump {
		b = append(append(b, " jump="...), signed(c.Jump)...)
	}
	if c.HasRate {
		b = append(append(b, " rate="...), formatRate(c.Rate)...)
	}
	return b
}

func writeReplica(b []byte, c Command) []byte {
	b = strconv.AppendInt(append(b, "replica "...), int64(c.Replica), 10)
	if c.Up {
		return append(b, " up"...)
	}
	return append(b, " down"...)
}
