package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// FuzzCommands drives worlds with command sequences decoded from fuzz bytes
// and feeds raw fuzz text to the parsers. After every command it checks:
//
//   - nothing panics;
//   - a refused command changes nothing: events, time and the command list
//     stay as they were, and a command refused over its event budget leaves
//     a world that carries on exactly as one rebuilt from its commands;
//   - time never runs backwards, events are in time order and no later than
//     now, and every proof reference points at an earlier event;
//   - the coordinator's token counter never goes down: within one log (the
//     log starts again at each reset) every grant's token is above every
//     token granted or extended before it, and an extension carries its
//     lease's token or a new one from the counter;
//   - while the storage has checked fencing tokens since the log began,
//     it never accepts, for a key, a token lower than one it accepted
//     before for that key, and an accepted token is the highest it has seen.
//
// Run it with
//
//	go test ./engine -run '^$' -fuzz FuzzCommands -fuzztime 60s
func FuzzCommands(f *testing.F) {
	f.Add([]byte{0, 0}, "advance 30s")
	f.Add([]byte{1, 3, 0, 0, 0, 1, 0, 4, 9, 2, 8, 1, 0, 3, 0, 20}, "freeze W1 for=40s\nuntil 2m")
	f.Add([]byte{2, 9, 17, 1, 1, 2, 1, 0, 5, 18, 2, 3, 19, 2, 0, 4, 6, 0, 0, 1}, "link coord W2 delay=1s loss=0.5")
	f.Add([]byte{3, 1, 19, 1, 0, 0, 0, 19, 2, 0, 0, 1, 3, 2, 20, 0, 4}, "replica 2 down\nadvance 10s\nreplica 2 up")
	f.Add([]byte{4, 7, 13, 1, 15, 0, 2, 0, 0, 3, 11, 0, 0, 0, 4, 12, 0, 0, 1}, "W1 renew=3s: acquire; work 20s; write data; release; repeat")
	f.Add([]byte{5, 2, 18, 1, 0, 2, 0, 4, 0, 7, 0, 0, 1, 23, 0, 1, 200, 200, 200, 200}, "clock W1 jump=-59m\nstep\nstep")
	f.Add([]byte{1, 0, 22, 0, 1, 255, 255, 255, 255, 255, 255, 255, 127, 0, 3}, "advance 9999999h")
	f.Add([]byte{2, 5, 8, 0, 2, 1, 0, 4, 20, 0, 3, 10, 0, 0}, "1.5s\n-250ms\nnever\nacquire; check; send x; repeat")
	// Once indexed out of range: a merged advance right after a reset.
	f.Add([]byte{0, 0}, "reset\nadvance 20s\nadvance 100ms")
	// Small budgets: commands refused half way must leave nothing behind.
	f.Add([]byte{0, 0, 1}, "advance 30s\nlink coord W1 delay=1s\nuntil 2m\nstep")
	f.Add([]byte{1, 3, 2, 0, 0, 1, 0, 4, 9, 2, 8, 1, 0, 3, 0, 20}, "until 1m\nheal\nadvance 10s")
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		if len(data) > 4096 || len(text) > 4096 {
			return
		}
		src := &byteSource{b: data}
		ts := testScenarios[src.pick(len(testScenarios))]
		sc := ts.build(t, uint64(src.pick(256)))
		// Smaller limits than the defaults keep each input quick, and make
		// the event budget something the fuzzer reaches often.
		sc.Limits = Limits{MaxEventsPerApply: []int{20_000, 40, 300}[src.pick(3)], MaxTime: 2 * Hour}
		w, err := New(sc)
		if err != nil {
			t.Fatalf("New(%s): %v", ts.name, err)
		}
		chk := newInvariants(sc)
		g := cmdGen{pick: src.pick}
		for n := 0; n < 64 && !src.done(); n++ {
			if src.pick(8) == 0 {
				c := rawCommand(src, w)
				chk.apply(t, w, c.String(), func() error { return w.Apply(c) })
				continue
			}
			c := g.next(w)
			chk.apply(t, w, c, func() error { return w.Do(c) })
		}
		for _, line := range strings.Split(text, "\n") {
			checkParsers(t, line)
			chk.apply(t, w, line, func() error { return w.Do(line) })
		}
	})
}

// byteSource hands out choices from fuzz bytes; once they run out every
// choice is 0.
type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) done() bool { return s.i >= len(s.b) }

func (s *byteSource) byte() byte {
	if s.i >= len(s.b) {
		s.i++
		return 0
	}
	s.i++
	return s.b[s.i-1]
}

func (s *byteSource) pick(n int) int {
	if n <= 1 {
		return 0
	}
	v := int(s.byte())
	if n > 256 {
		v = v<<8 | int(s.byte())
	}
	return v % n
}

func (s *byteSource) int64() int64 {
	var b [8]byte
	for i := range b {
		b[i] = s.byte()
	}
	return int64(binary.LittleEndian.Uint64(b[:]))
}

// rawCommand builds a Command value directly, as a caller of Apply (the web
// layer, say) might, with numbers no parser would let through.
func rawCommand(s *byteSource, w *World) Command {
	name := ""
	if ns := w.Names().Nodes; len(ns) > 0 {
		name = ns[s.pick(len(ns))]
	}
	num := func() int64 {
		switch s.pick(6) {
		case 0:
			return s.int64()
		case 1:
			return int64(Never)
		case 2:
			return -int64(s.pick(100_000))
		case 3:
			return 1<<63 - 1 - int64(s.pick(1000))
		}
		return int64(s.pick(1 << 16))
	}
	switch s.pick(8) {
	case 0:
		return Command{Kind: CmdAdvance, Dur: Time(num())}
	case 1:
		return Command{Kind: CmdUntil, At: Time(num())}
	case 2:
		return Command{Kind: CmdFreeze, A: name, Dur: Time(num()), On: Kind(s.pick(int(kindCount) + 2))}
	case 3:
		return Command{Kind: CmdLink, A: name, B: "coord", HasDelay: true, Dur: Time(num()), HasLoss: s.pick(2) == 0, LossPPM: num()}
	case 4:
		return Command{Kind: CmdClock, A: name, HasSkew: s.pick(2) == 0, Skew: Time(num()), HasJump: s.pick(2) == 0, Jump: Time(num()), HasRate: s.pick(2) == 0, Rate: num()}
	case 5:
		return Command{Kind: CmdStorage, Mode: StorageMode(s.pick(8))}
	case 6:
		return Command{Kind: CommandKind(s.pick(20)), A: name, Replica: int(num())}
	}
	return Command{Kind: CmdReplica, Replica: int(num()), Up: s.pick(2) == 0}
}

// checkParsers feeds raw text to every parser: none may panic, and what
// parses must write back to text that parses to the same thing.
func checkParsers(t *testing.T, s string) {
	if c, err := ParseCommand(s); err == nil {
		back, err := ParseCommand(c.String())
		if err != nil {
			t.Fatalf("ParseCommand(%q) = %+v, whose String %q does not parse: %v", s, c, c.String(), err)
		}
		if back != c {
			t.Fatalf("ParseCommand(%q) = %+v; String %q parses back as %+v", s, c, c.String(), back)
		}
	}
	if d, err := ParseTime(s); err == nil && d != Never {
		back, err := ParseTime(d.String())
		if err != nil || back != d {
			t.Fatalf("ParseTime(%q) = %d; its String %q parses back as %d, %v", s, int64(d), d.String(), int64(back), err)
		}
	}
	if ops, err := ParseProgram(s); err == nil {
		var parts []string
		for _, op := range ops {
			parts = append(parts, op.String())
		}
		back, err := ParseProgram(strings.Join(parts, "; "))
		if err != nil || len(back) != len(ops) {
			t.Fatalf("ParseProgram(%q) writes back as %q, which parses as %v, %v", s, strings.Join(parts, "; "), back, err)
		}
		for i := range ops {
			if back[i] != ops[i] {
				t.Fatalf("ParseProgram(%q): step %d %+v comes back as %+v", s, i, ops[i], back[i])
			}
		}
	}
	if ws, err := ParseWorker(s); err == nil {
		if err := validName(ws.Name); err != nil {
			t.Fatalf("ParseWorker(%q) accepted a bad name: %v", s, err)
		}
		sc := Scenario{Workers: []WorkerSpec{ws}}
		if err := sc.Validate(); err == nil {
			if _, err := New(sc); err != nil {
				t.Fatalf("ParseWorker(%q): a valid scenario fails New: %v", s, err)
			}
		}
	}
}

// invariants follows a world's log across commands.
type invariants struct {
	first     int64
	mode      StorageMode     // storage mode, as the fencing events say
	seen      int             // events of the current log already checked
	maxTok    int64           // highest token granted or extended in this log
	leaseTok  map[KeyID]int64 // each lease's current token (Key names the lease)
	fencedLog bool            // the storage has checked fencing since this log began
	maxAccept map[KeyID]int64 // per storage key, highest token accepted while fenced
	history   []string        // the commands so far, for failure messages
}

func newInvariants(sc Scenario) *invariants {
	first := sc.FirstToken
	if first == 0 {
		first = 1
	}
	return &invariants{first: first, mode: sc.Storage, fencedLog: sc.Storage == StorageFencing,
		leaseTok: map[KeyID]int64{}, maxAccept: map[KeyID]int64{}}
}

func (v *invariants) apply(t *testing.T, w *World, label string, do func() error) {
	t.Helper()
	v.history = append(v.history, label)
	nEv, now, nCmd := len(w.Events()), w.Now(), len(w.Commands())
	err := do()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("after %q: "+format+"\ncommands:\n  %s", append([]any{label}, append(args, strings.Join(v.history, "\n  "))...)...)
	}
	if msg := messagesHeld(w); msg != "" {
		fail("%s", msg)
	}
	if err != nil {
		if len(w.Events()) != nEv || w.Now() != now || len(w.Commands()) != nCmd {
			fail("refused (%v) but changed the world: events %d→%d, now %s→%s, commands %d→%d",
				err, nEv, len(w.Events()), now, w.Now(), nCmd, len(w.Commands()))
		}
		if errors.Is(err, ErrBudget) {
			v.history = append(v.history, "step (compared with a rebuilt world)")
			if msg := sameAsRebuilt(w); msg != "" {
				fail("refused (%v), but the world differs from one rebuilt from its commands: %s", err, msg)
			}
		}
		return
	}
	merged := nCmd > 0 && len(w.Commands()) == nCmd && w.Commands()[nCmd-1].Kind == CmdAdvance
	if len(w.Commands()) != nCmd+1 && !merged {
		fail("accepted but the command list went from %d to %d (consecutive advances merge; nothing else does)", nCmd, len(w.Commands()))
	}
	evs := w.Events()
	// A merged advance adds no command, so the last command is the one just
	// applied either way.
	reset := len(evs) > 0 && evs[0].Kind == KindReset && w.Commands()[len(w.Commands())-1].Kind == CmdReset
	if reset {
		v.seen, v.maxTok = 0, 0
		clear(v.leaseTok)
		clear(v.maxAccept)
		v.fencedLog = v.mode == StorageFencing
		if w.Now() != 0 {
			fail("reset left the clock at %s", w.Now())
		}
	} else if w.Now() < now {
		fail("time went back from %s to %s", now, w.Now())
	}
	if len(evs) < v.seen {
		fail("the log shrank from %d to %d events without a reset", v.seen, len(evs))
	}
	if w.Now() < 0 || w.Now() > w.Scenario().Limits.MaxTime {
		fail("now is %s, outside 0..%s", w.Now(), w.Scenario().Limits.MaxTime)
	}
	names := w.Names()
	for i := v.seen; i < len(evs); i++ {
		e := evs[i]
		at := func(format string, args ...any) {
			t.Helper()
			fail("event #%d %q: "+format, append([]any{i, names.Format(e)}, args...)...)
		}
		if e.T > w.Now() || e.T < 0 {
			at("recorded at %s, now is %s", e.T, w.Now())
		}
		if i > 0 && e.T < evs[i-1].T {
			at("earlier than the event before it (%s)", evs[i-1].T)
		}
		if e.Ref() >= int32(i) || e.Ref2() >= int32(i) || e.Ref() < -1 || e.Ref2() < -1 {
			at("refers to #%d,#%d, not an earlier event", e.Ref(), e.Ref2())
		}
		switch e.Kind {
		case KindGrant:
			if e.Reason() == ReasonAgain {
				// The holder is told again what it holds: same token.
				if e.Token != v.leaseTok[e.Key] {
					at("repeats token %d, but the lease's token is %d", e.Token, v.leaseTok[e.Key])
				}
				break
			}
			if e.Token <= v.maxTok || e.Token < v.first {
				at("token %d is not above %d (first token %d): the counter went back", e.Token, v.maxTok, v.first)
			}
			v.maxTok = e.Token
			v.leaseTok[e.Key] = e.Token
		case KindExtend:
			// An extension keeps its lease's token, or (renew-token=on)
			// takes a new one from the shared counter.
			cur, ok := v.leaseTok[e.Key]
			if !ok {
				at("extends lease %q, which was never granted in this log", names.Key(e.Key))
			}
			if e.Token != cur && e.Token <= v.maxTok {
				at("extends with token %d: neither lease %q's token %d nor above the counter's %d", e.Token, names.Key(e.Key), cur, v.maxTok)
			}
			v.maxTok = max(v.maxTok, e.Token)
			v.leaseTok[e.Key] = e.Token
		case KindFencing:
			v.mode = StorageMode(e.Value)
			if v.mode != StorageFencing {
				v.fencedLog = false
			}
		case KindAccept:
			// A write to a temporary name is taken unchecked: nothing
			// reads it, and the rename that follows is what is checked.
			if v.fencedLog && !e.Temp() {
				// The storage fences each key on its own.
				if prev := v.maxAccept[e.Key]; e.Token < prev {
					at("fencing storage accepted token %d for %q after accepting %d", e.Token, names.Key(e.Key), prev)
				}
				if e.Token != e.Value {
					at("fencing storage accepted token %d while its highest is %d", e.Token, e.Value)
				}
				v.maxAccept[e.Key] = max(v.maxAccept[e.Key], e.Token)
			}
		}
	}
	v.seen = len(evs)
}

// messagesHeld checks the messages kept aside (World.msgs): each place
// not free is held by exactly one item, queued or deferred by a frozen
// worker, that delivers or serves it, and no such item holds a free place.
// It says what is wrong, or "".
func messagesHeld(w *World) string {
	holders := make([]int, len(w.msgs))
	hold := func(it item) {
		if it.kind == itDeliver || it.kind == itCoordProcess {
			if int(it.id) >= len(holders) {
				holders = append(holders, make([]int, int(it.id)+1-len(holders))...)
			}
			holders[it.id]++
		}
	}
	for _, it := range w.q {
		hold(it)
	}
	for i := range w.workers {
		for _, it := range w.workers[i].deferred {
			hold(it)
		}
	}
	free := make([]bool, len(w.msgs))
	for _, i := range w.freeMsgs {
		if int(i) >= len(free) || free[i] {
			return fmt.Sprintf("free place %d is out of range (%d) or listed twice", i, len(w.msgs))
		}
		free[i] = true
	}
	for i, n := range holders {
		switch {
		case i >= len(w.msgs):
			if n > 0 {
				return fmt.Sprintf("%d items hold message place %d, past the %d kept", n, i, len(w.msgs))
			}
		case free[i] && n > 0:
			return fmt.Sprintf("%d items hold message place %d, which is free", n, i)
		case !free[i] && n != 1:
			return fmt.Sprintf("message place %d is held by %d items, want 1", i, n)
		}
	}
	return ""
}

// sameAsRebuilt compares w with a world rebuilt from w's commands: the
// same log now, and the same log after both run on a while. It says how
// they differ, or "" when they do not. A world restored after a refused
// command that forgot any part of its state (the queue, the random
// numbers, a worker) shows here.
func sameAsRebuilt(w *World) string {
	// Commands recorded one by one within their budgets may have merged
	// (advances do) into one that needs more: the twin has no budget.
	sc := w.Scenario()
	sc.Limits.MaxEventsPerApply = math.MaxInt32
	twin, err := New(sc)
	if err != nil {
		return "New: " + err.Error()
	}
	for _, c := range w.Commands() {
		if err := twin.Apply(c); err != nil {
			return fmt.Sprintf("rebuilding: %s: %v", c, err)
		}
	}
	for round := 0; ; round++ {
		a, b := w.Events(), twin.Events()
		if len(a) != len(b) || w.Now() != twin.Now() {
			return fmt.Sprintf("round %d: %d events at %s, rebuilt %d at %s", round, len(a), w.Now(), len(b), twin.Now())
		}
		for i := range a {
			if a[i] != b[i] {
				return fmt.Sprintf("round %d: event #%d %q, rebuilt %q", round, i, w.Names().Format(a[i]), twin.Names().Format(b[i]))
			}
		}
		// Spans, beliefs and freezes are not in the log: a restore that
		// lost or kept one shows in the picture's snapshot.
		if sa, sb := w.Snapshot(), twin.Snapshot(); !reflect.DeepEqual(sa, sb) {
			return fmt.Sprintf("round %d: snapshot %+v, rebuilt %+v", round, sa, sb)
		}
		if round == 1 {
			return ""
		}
		// Both go on by one step: a difference in what is still to come
		// (the queue, the random numbers) shows in the events it records.
		ea := w.Step()
		eb := twin.Step()
		if (ea == nil) != (eb == nil) {
			return fmt.Sprintf("a step after: %v, rebuilt %v", ea, eb)
		}
	}
}

// TestApplyRangeChecks: found by FuzzCommands. ParseCommand bounds
// durations, but World.Apply trusts the numbers of a Command built in code
// (as any caller of Apply may build one): a huge advance or freeze duration
// wraps now+d to a negative time, and a huge clock skew wraps the worker's
// local clock. Each case must either be refused with nothing changed, or
// keep time and clocks sane.
func TestApplyRangeChecks(t *testing.T) {
	world := func(t *testing.T) *World {
		w, err := New(Scenario{TTL: 10 * Second, Workers: []WorkerSpec{{Name: "W1", Program: []Op{{Kind: OpAcquire}, {Kind: OpWork, Arg: 5 * Second}, {Kind: OpRelease}}}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Do("advance 1s"); err != nil {
			t.Fatal(err)
		}
		return w
	}
	const huge = Time(math.MaxInt64 - 5)
	var bugs []string
	check := func(name string, c Command, sane func(w *World) string) {
		t.Run(name, func(t *testing.T) {
			w := world(t)
			n := len(w.Events())
			err := w.Apply(c)
			if err != nil {
				if len(w.Events()) != n || w.Now() != Second {
					t.Errorf("refused (%v) but changed the world", err)
				}
				return
			}
			if err := w.Do("advance 1s"); err != nil {
				t.Fatalf("advance after %s: %v", c, err)
			}
			if msg := sane(w); msg != "" {
				bugs = append(bugs, fmt.Sprintf("Apply(%+v) at 1s, then advance 1s: %s", c, msg))
			}
		})
	}
	timeSane := func(w *World) string {
		for _, e := range w.Events() {
			if e.T < 0 || e.T > w.Now() {
				return fmt.Sprintf("event %q recorded at %d ms; now=%s", w.Names().Format(e), int64(e.T), w.Now())
			}
		}
		if w.Now() != 2*Second {
			return fmt.Sprintf("now=%d ms", int64(w.Now()))
		}
		return ""
	}
	check("advance", Command{Kind: CmdAdvance, Dur: huge}, timeSane)
	check("freeze", Command{Kind: CmdFreeze, A: "W1", Dur: huge}, timeSane)
	check("clock-skew", Command{Kind: CmdClock, A: "W1", HasSkew: true, Skew: huge}, func(w *World) string {
		if l := w.Snapshot().Workers[0].LocalNow; l < 0 {
			return fmt.Sprintf("W1's local clock reads %d ms", int64(l))
		}
		return ""
	})
	if len(bugs) > 0 {
		t.Error("engine bug is back: World.Apply does not range-check Command values that ParseCommand would refuse:\n" + strings.Join(bugs, "\n"))
	}
}

// TestGrantBeliefFromItsOwnRequest: found while writing the invariants. A
// worker that counts its lease from the send time of its request (the safe
// belief) must never believe past the lease the coordinator granted. But
// when a request times out and the worker asks again, a late grant that
// answers the first request is taken as the answer to the latest one and
// counted from the latest send time: W1 believes until 14s a lease that
// expires at 10s, and a worker that stops at expiry is in split brain with
// W2. (The coordinator also queues W1 behind its own lease.)
func TestGrantBeliefFromItsOwnRequest(t *testing.T) {
	w := worldOf(t, []string{"ttl=10s"},
		"W1 timeout=2s stop-at-expiry=on: acquire; work 20s; write data; release",
		"W2 start=1s: acquire; work 1s; write data; release")
	for _, c := range []string{"link coord->W1 delay=5s", "until 12s"} {
		if err := w.Do(c); err != nil {
			t.Fatal(err)
		}
	}
	// Every grant's expiry, by token, against what its holder believed.
	expires := map[int64]Time{}
	var bad []string
	for _, e := range w.Events() {
		switch e.Kind {
		case KindGrant:
			expires[e.Token] = e.At
		case KindAcquired:
			// No skew or drift here: local time is true time.
			if until, ok := expires[e.Token]; ok && e.At > until {
				bad = append(bad, fmt.Sprintf("%s, but the coordinator grants token %d until %s", w.Names().Format(e), e.Token, until))
			}
		case KindViolation:
			if e.Reason() == ViolationSplitBrain {
				bad = append(bad, w.Names().Format(e))
			}
		}
	}
	if len(bad) > 0 {
		t.Error("engine bug is back: a late grant is counted from the send time of a later request (belief=send is not safe):\n" + strings.Join(bad, "\n"))
	}
	if _, ok := expires[1]; !ok {
		t.Fatalf("W1 was never granted the lease; the scenario no longer sets up the race")
	}
}

// TestBudgetRefusalChangesNothing: a command that would record more events
// than its budget is refused, and the world carries on as if it had never
// been sent. The budget counts recorded events, not queue items.
func TestBudgetRefusalChangesNothing(t *testing.T) {
	ts := testScenarios[1] // renewers: they repeat, so events keep coming
	sc := ts.build(t, 7)
	sc.Limits.MaxEventsPerApply = 500
	w, err := New(sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Do("advance 1s"); err != nil {
		t.Fatal(err)
	}
	before, now, cmds := len(w.Events()), w.Now(), len(w.Commands())
	err = w.Do("advance 1h")
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("advance 1h with a budget of 500 events: err = %v, want ErrBudget", err)
	}
	if len(w.Events()) != before || w.Now() != now || len(w.Commands()) != cmds {
		t.Fatalf("refused, but events %d→%d, now %s→%s, commands %d→%d", before, len(w.Events()), now, w.Now(), cmds, len(w.Commands()))
	}
	if msg := sameAsRebuilt(w); msg != "" {
		t.Fatal(msg)
	}
	// The budget is events recorded, not queue items: a command that
	// records n events passes on a budget of n and fails on n-1.
	twin := func() *World {
		tw, err := New(sc)
		if err != nil {
			t.Fatal(err)
		}
		return tw
	}
	probe := twin()
	if err := probe.ApplyWithin(Command{Kind: CmdAdvance, Dur: 20 * Second}, 1_000_000); err != nil {
		t.Fatal(err)
	}
	n := len(probe.Events())
	if err := twin().ApplyWithin(Command{Kind: CmdAdvance, Dur: 20 * Second}, n); err != nil {
		t.Fatalf("advance 20s records %d events but fails on a budget of %d: %v", n, n, err)
	}
	if err := twin().ApplyWithin(Command{Kind: CmdAdvance, Dur: 20 * Second}, n-1); !errors.Is(err, ErrBudget) {
		t.Fatalf("advance 20s records %d events but passes on a budget of %d: %v", n, n-1, err)
	}
	// Commands that do not move time count too.
	if err := w.ApplyWithin(Command{Kind: CmdHeal}, 0); !errors.Is(err, ErrBudget) {
		t.Fatalf("heal with no budget left: %v", err)
	}
	if msg := sameAsRebuilt(w); msg != "" {
		t.Fatal(msg)
	}
}

// TestReplayKnowsEveryField: a command refused half way is undone by
// building the world again from its scenario and its commands (replay,
// world.go). init puts the actors (coordinator, leases, storage, workers)
// in their starting state with struct literals, which set every field
// they do not name to zero; the world's own fields it sets one by one. A
// field added to World that a command changes and that init does not set
// would survive the undo; this list makes whoever adds one look at init.
func TestReplayKnowsEveryField(t *testing.T) {
	known := []string{"p", "seed", "mode", "now", "seq", "q", "msgs", "freeMsgs", "rnd", "log", "cmds", "budget", "coord", "store", "workers", "jitter", "links", "beliefs", "freezes", "splitSeen", "faults", "lines", "sides"}
	typ := reflect.TypeOf(World{})
	var got []string
	for i := range typ.NumField() {
		got = append(got, typ.Field(i).Name)
	}
	if !slices.Equal(got, known) {
		t.Errorf("World's fields are now %v (were %v): make replay (world.go) rebuild what a command may change, then update this list", got, known)
	}
}
