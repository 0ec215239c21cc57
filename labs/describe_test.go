package labs

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"leaselab/catalog"
	"leaselab/engine"
)

// The sentences as fmt.Sprintf made them before AppendEvent, kept here as
// the reference AppendEvent is held to: the same words, byte for byte.

// copyFmt is the copy an accept or a reject names, as fmt made it.
func copyFmt(e engine.Event, lang string) string {
	if e.At != 1 && e.At != 2 {
		return ""
	}
	return fmt.Sprintf(catalog.T(lang, "event.copy"), e.At)
}

func describeEventFmt(e engine.Event, names engine.Names, lang string) string {
	pick := func(key string) string { return catalog.T(lang, key) }
	n, p := NodeName(names, e.Node, lang), NodeName(names, e.Peer(), lang)
	tok := strconv.FormatInt(e.Token, 10)
	reason := reasonTextFmt(e.Reason(), lang)
	tm := func(t engine.Time) string { return string(catalog.AppendTime(nil, lang, t)) }
	mo := func(t engine.Time) string { return catalog.MomentText(lang, t) } // a moment: "detik ke-4"
	key := func(k engine.KeyID) string { return ObjectName(names, k, lang) }
	// What a write acts on: the key, its temporary name, a part of either.
	what := func() string {
		s := key(e.Key)
		if e.Temp() || e.Rename() {
			s = fmt.Sprintf("%s.%d.tmp", s, e.Token)
		}
		switch {
		case e.Part() > 0 && e.Kind == engine.KindWrite:
			return fmt.Sprintf(pick("event.part.of"), e.Part(), e.At, s)
		case e.Part() > 0:
			return fmt.Sprintf(pick("event.part"), e.Part(), s)
		}
		return s
	}
	switch e.Kind {
	case engine.KindSend:
		return fmt.Sprintf(pick("event.send"), n, msgNameFmt(e.Msg(), lang), p)
	case engine.KindRecv:
		return fmt.Sprintf(pick("event.recv"), n, msgNameFmt(e.Msg(), lang), p)
	case engine.KindDrop:
		return fmt.Sprintf(pick("event.drop"), msgNameFmt(e.Msg(), lang), n, p, reason)
	case engine.KindGrant:
		g := fmt.Sprintf(pick("event.grant.2"), p, tok, mo(e.At))
		if e.At == engine.Never {
			g = fmt.Sprintf(pick("event.grant"), p, tok)
		}
		if e.Reason() == engine.ReasonLeaseID {
			return g + fmt.Sprintf(pick("event.lease-id"), e.Value)
		}
		return g + logIndexFmt(e.Value, lang)
	case engine.KindQueue:
		return fmt.Sprintf(pick("event.queue"), p)
	case engine.KindDeny:
		return fmt.Sprintf(pick("event.deny"), p, reason)
	case engine.KindExtend:
		if r := e.Reason(); r == engine.ReasonRefresh || r == engine.ReasonResume {
			return fmt.Sprintf(pick("event.extend."+r.String()), p, tok, mo(e.At))
		}
		return fmt.Sprintf(pick("event.extend"), p, tok, mo(e.At))
	case engine.KindRenewReject:
		if e.Reason() == engine.ReasonUnauthorized {
			return fmt.Sprintf(pick("event.renew-reject.unauthorized"), p, tok)
		}
		return fmt.Sprintf(pick("event.renew-reject"), p, tok)
	case engine.KindUnavailable:
		return fmt.Sprintf(pick("event.unavailable"), p, reason)
	case engine.KindExpire:
		if r := e.Reason(); r == engine.ReasonTakeover || r == engine.ReasonForgotten || r == engine.ReasonRevoked {
			return fmt.Sprintf(pick("event.expire."+r.String()), p, tok) + logIndexFmt(e.Value, lang)
		}
		return fmt.Sprintf(pick("event.expire"), p, tok) + logIndexFmt(e.Value, lang)
	case engine.KindRelease:
		return fmt.Sprintf(pick("event.release"), p, tok) + logIndexFmt(e.Value, lang)
	case engine.KindElection:
		return fmt.Sprintf(pick("event.election"), mo(e.At))
	case engine.KindLeader:
		return fmt.Sprintf(pick("event.leader"), e.Value) + logIndexFmt(e.Token, lang)
	case engine.KindReplica:
		if e.Reason() == engine.ReasonUp {
			return fmt.Sprintf(pick("event.replica"), e.Value)
		}
		return fmt.Sprintf(pick("event.replica.2"), e.Value)
	case engine.KindStart:
		return fmt.Sprintf(pick("event.start"), n)
	case engine.KindAcquired:
		return fmt.Sprintf(pick("event.acquired"), n, tok, mo(e.At))
	case engine.KindRenewed:
		return fmt.Sprintf(pick("event.renewed"), n, tok, mo(e.At))
	case engine.KindLost:
		return fmt.Sprintf(pick("event.lost"), n, tok, reason)
	case engine.KindWork:
		return fmt.Sprintf(pick("event.work"), n, tm(engine.Time(e.Value)))
	case engine.KindCheck:
		if e.Reason() == engine.ReasonOK {
			return fmt.Sprintf(pick("event.check"), n, mo(e.At))
		}
		return fmt.Sprintf(pick("event.check.2"), n, mo(e.At))
	case engine.KindWrite:
		if e.Rename() {
			return fmt.Sprintf(pick("event.write.rename"), n, what(), key(e.Key), tok)
		}
		verb := pick("event.write")
		if e.Effect() {
			verb = pick("event.write.2")
		}
		if e.Token == 0 {
			return fmt.Sprintf(pick("event.write.3"), n, verb, what())
		}
		return fmt.Sprintf(pick("event.write.4"), n, verb, what(), tok)
	case engine.KindTimeout:
		return fmt.Sprintf(pick("event.timeout"), msgNameFmt(e.Msg(), lang), n)
	case engine.KindDone:
		return fmt.Sprintf(pick("event.done"), n)
	case engine.KindAccept:
		switch {
		case e.Temp():
			return fmt.Sprintf(pick("event.accept.temp"), what(), p, tok) + copyFmt(e, lang)
		case e.Rename():
			return fmt.Sprintf(pick("event.accept.rename"), what(), key(e.Key), p, tok, e.Value) + copyFmt(e, lang)
		case e.Reason() == engine.ReasonSameValue:
			return fmt.Sprintf(pick("event.accept"), what(), p, tok) + copyFmt(e, lang)
		case e.Token == 0 && e.Value == 0:
			return fmt.Sprintf(pick("event.accept.3"), what(), p) + copyFmt(e, lang)
		}
		return fmt.Sprintf(pick("event.accept.2"), what(), p, tok, e.Value) + copyFmt(e, lang)
	case engine.KindReject:
		why := reason
		switch e.Reason() {
		case engine.ReasonStaleToken:
			why = fmt.Sprintf(pick("event.reject"), tok, e.Value)
		case engine.ReasonNotCurrent:
			why = fmt.Sprintf(pick("event.reject.2"), e.Value)
		case engine.ReasonVersion:
			why = fmt.Sprintf(pick("event.reject.3"), e.Value)
		}
		if e.Rename() {
			return fmt.Sprintf(pick("event.reject.rename"), what(), key(e.Key), p, tok, why) + copyFmt(e, lang)
		}
		return fmt.Sprintf(pick("event.reject.4"), what(), p, tok, why) + copyFmt(e, lang)
	case engine.KindRead:
		return fmt.Sprintf(pick("event.read"), p, e.Value)
	case engine.KindReplicate:
		k := "event.replicate"
		switch e.Reason() {
		case engine.ReasonPartition:
			k = "event.replicate.held"
		case engine.ViolationDiverged:
			k = "event.replicate.refused"
		}
		return fmt.Sprintf(pick(k), key(e.Key), p, tok, e.Value)
	case engine.KindFreeze:
		if e.At != 0 {
			return fmt.Sprintf(pick("event.freeze"), n, mo(e.At))
		}
		return fmt.Sprintf(pick("event.freeze.2"), n)
	case engine.KindThaw:
		return fmt.Sprintf(pick("event.thaw"), n)
	case engine.KindCrash:
		return fmt.Sprintf(pick("event.crash"), n)
	case engine.KindRestart:
		return fmt.Sprintf(pick("event.restart"), n)
	case engine.KindFencing:
		return fmt.Sprintf(pick("event.fencing"), pick("mode."+engine.StorageMode(e.Value).String()))
	case engine.KindPartition:
		if e.Peer() == engine.NoNode {
			return fmt.Sprintf(pick("event.partition"), n)
		}
		if e.Node == engine.Storage && e.Peer() == engine.Storage {
			return pick("event.partition.copies")
		}
		return fmt.Sprintf(pick("event.partition.2"), n, p)
	case engine.KindHeal:
		if e.Peer() == engine.NoNode {
			return pick("event.heal")
		}
		if e.Node == engine.Storage && e.Peer() == engine.Storage {
			return pick("event.heal.copies")
		}
		return fmt.Sprintf(pick("event.heal.2"), n, p)
	case engine.KindLink:
		return fmt.Sprintf(pick("event.link"), n, p, tm(e.At), string(catalog.AppendNumber(nil, lang, []byte(strconv.FormatFloat(float64(e.Value)/1e6, 'f', -1, 64)))))
	case engine.KindClock:
		if e.Node == engine.Coord && e.Token > 0 {
			return fmt.Sprintf(pick("event.clock"), fmt.Sprintf(pick("node.replica"), e.Token), mo(e.At))
		}
		return fmt.Sprintf(pick("event.clock"), n, mo(e.At))
	case engine.KindReset:
		return pick("event.reset")
	case engine.KindViolation:
		return violationTextFmt(e, p, tok, lang)
	}
	switch e.Kind {
	case engine.KindRenewError:
		if e.Value == 1 {
			return fmt.Sprintf(pick("event.renew-error"), n, reason)
		}
		return fmt.Sprintf(pick("event.renew-error.2"), n, reason)
	case engine.KindUncertain:
		if r := e.Reason(); r == engine.ReasonJeopardy || r == engine.ReasonSuspended {
			return fmt.Sprintf(pick("event.uncertain."+r.String()), n, mo(e.At))
		}
		return fmt.Sprintf(pick("event.uncertain"), n, tm(engine.Time(e.Value)), mo(e.At))
	case engine.KindGiveUp:
		return fmt.Sprintf(pick("event.give-up"), n, reason, mo(e.At))
	case engine.KindStaleReply:
		return fmt.Sprintf(pick("event.stale-reply"), n, e.Value)
	case engine.KindPublish:
		return fmt.Sprintf(pick("event.publish"), n, tok)
	case engine.KindRefuse:
		return fmt.Sprintf(pick("event.refuse"), n, tm(engine.Time(e.Value)), tm(e.At))
	}
	return names.Describe(e)
}

// logIndexFmt is the log entry an event records, as fmt made it.
func logIndexFmt(i int64, lang string) string {
	if i <= 0 {
		return ""
	}
	return fmt.Sprintf(catalog.T(lang, "event.log-index"), i)
}

func violationTextFmt(e engine.Event, p, tok, lang string) string {
	if c := e.Cause(); c != engine.ReasonNone {
		if f, ok := catalog.Lookup(lang, "violation."+e.Reason().String()+"."+c.String()); ok {
			return fmt.Sprintf(f, p, tok)
		}
	}
	if f, ok := catalog.Lookup(lang, "violation."+e.Reason().String()); ok {
		return fmt.Sprintf(f, p, tok)
	}
	return fmt.Sprintf(catalog.T(lang, "violation.other"), e.Reason())
}

func msgNameFmt(m engine.MsgKind, lang string) string {
	if t, ok := catalog.Lookup(lang, "msg."+m.String()); ok {
		return t
	}
	return m.String()
}

func reasonTextFmt(r engine.Reason, lang string) string {
	if t, ok := catalog.Lookup(lang, "reason."+r.String()); ok {
		return t
	}
	return r.String()
}

// sameSentence fails t when AppendEvent, or DescribeEvent, writes other
// words for e than the reference.
func sameSentence(t testing.TB, e engine.Event, names engine.Names, lang string) {
	t.Helper()
	want := describeEventFmt(e, names, lang)
	if got := string(AppendEvent([]byte("x"), e, names, lang)); got != "x"+want {
		t.Fatalf("%s %+v: AppendEvent wrote %q, fmt: %q", lang, e, got[1:], want)
	}
	if got := DescribeEvent(e, names, lang); got != want {
		t.Fatalf("%s %+v: DescribeEvent is %q, fmt: %q", lang, e, got, want)
	}
}

// describeLangs are the languages sentences are checked in: the course's,
// and one without a catalog, which falls back to the default.
var describeLangs = append(append([]string(nil), Langs...), "xx")

// TestAppendEventIsTheSentence: for every event of every lab's runs (each
// question's run, each goal's proof, the lab's world played past its
// horizon on a few seeds) and for every kind with every reason, in every
// language, AppendEvent writes what fmt wrote.
func TestAppendEventIsTheSentence(t *testing.T) {
	t.Parallel()
	c := SharedCourse(t)
	events := 0
	check := func(w *engine.World) {
		for _, e := range w.Events() {
			for _, lang := range describeLangs {
				sameSentence(t, e, w.Names(), lang)
			}
			events++
		}
	}
	for _, l := range c.Labs {
		for _, q := range l.Questions {
			w, _, _, err := q.RunQuestion()
			if err != nil {
				t.Fatalf("%s %s: %v", l.ID, q.ID, err)
			}
			check(w)
		}
		for seed := uint64(1); seed <= 3; seed++ {
			w, err := l.NewWorld(seed)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Advance(max(l.Horizon(), 4*engine.Minute)); err != nil {
				t.Fatal(err)
			}
			check(w)
		}
		for _, g := range l.Goals {
			w, err := l.NewWorld(1)
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range g.Proof() {
				cmd, err := engine.ParseCommand(src)
				if err != nil {
					t.Fatalf("%s %s: %q: %v", l.ID, g.ID, src, err)
				}
				if err := l.Apply(w, cmd); err != nil {
					t.Fatalf("%s %s: %q: %v", l.ID, g.ID, src, err)
				}
			}
			check(w)
		}
	}
	t.Logf("%d events of the labs' runs", events)
	if events < 10000 {
		t.Errorf("only %d events checked", events)
	}
	// Every kind with every reason, and the fields that pick a sentence's
	// form, beyond what the labs' runs make: names the world lacks, keys
	// it does not have, no peer, no expiry, odd values.
	names := engine.Names{Nodes: []string{"W1", "W<2>"}, Keys: []string{"", "file", "k&v"}}
	for k := engine.Kind(0); k < 60; k++ {
		for r := engine.Reason(0); r < 45; r++ {
			for v := range 6 {
				e := engine.EventFields{Kind: k, Reason: r, Node: engine.Node(v%3 - 1), Peer: []engine.Node{engine.NoNode, engine.Coord, engine.Storage, 1, 5, 0}[v],
					Msg: engine.MsgKind(v*3 + int(r)%3), Effect: v%2 == 1, Key: engine.KeyID(v % 4), Token: int64([]int{0, 7, -1, 1 << 40, 8, 12}[v]),
					At: []engine.Time{0, engine.Never, 1500, -250, 61 * engine.Second, 2 * engine.Hour}[v], Value: []int64{0, 1, 2, -3, 1_500_000, 250_000}[v],
					Temp: v == 2 || v == 5, Rename: v == 3, Part: uint8(v % 3), Ref: -1, Ref2: -1}.Event()
				for _, lang := range describeLangs {
					sameSentence(t, e, names, lang)
				}
			}
		}
	}
}

// describeDifferenceFmt is DescribeDifferenceAs as fmt.Sprintf made it
// before AppendDifference: the reference.
func describeDifferenceFmt(p *engine.Pair, d engine.Difference, found bool, lang, nameA, nameB string) string {
	if !found {
		return catalog.T(lang, "diff.same")
	}
	side := func(w *engine.World, i int) string {
		if i < 0 {
			return catalog.T(lang, "diff.ended")
		}
		return describeEventFmt(w.Events()[i], w.Names(), lang)
	}
	var at engine.Time
	switch {
	case d.A >= 0 && d.B >= 0:
		at = min(p.A.Events()[d.A].T, p.B.Events()[d.B].T)
	case d.A >= 0:
		at = p.A.Events()[d.A].T
	default:
		at = p.B.Events()[d.B].T
	}
	sa, sb := side(p.A, d.A), side(p.B, d.B)
	if d.A >= 0 && d.B >= 0 && p.A.Events()[d.A].T != p.B.Events()[d.B].T {
		sa = fmt.Sprintf(catalog.T(lang, "diff.when"), catalog.AppendMoment(nil, lang, p.A.Events()[d.A].T), sa)
		sb = fmt.Sprintf(catalog.T(lang, "diff.when"), catalog.AppendMoment(nil, lang, p.B.Events()[d.B].T), sb)
	}
	return fmt.Sprintf(catalog.T(lang, "diff.part"), catalog.AppendMoment(nil, lang, at), nameA, sa, nameB, sb)
}

// TestAppendDifferenceIsTheSentence: for what-ifs of every lab (changes
// the lab allows, landing at a few moments, watched as the pair runs on),
// in every language, AppendDifference writes what fmt wrote; so do the
// sides that ended and the runs that have not parted.
func TestAppendDifferenceIsTheSentence(t *testing.T) {
	c := SharedCourse(t)
	changes := []string{"fencing on", "fencing off", "freeze W1 for=10s", "freeze W1", "crash W1", "crash W2", "restart W1",
		"partition W1 coord", "partition W1", "lease 30s", "storage versioned", "clock W1 skew=2s", "link W1 coord delay=1s"}
	sentences, parted := 0, 0
	for _, l := range c.Labs {
		for _, src := range changes {
			change, err := engine.ParseCommand(src)
			if err != nil || !l.Allows(change) {
				continue
			}
			for _, at := range []engine.Time{0, 3 * engine.Second, 12 * engine.Second} {
				p, err := l.NewPair(1, engine.Fork{At: at, Change: change})
				if err != nil {
					continue
				}
				for step := 0; step < 12; step++ {
					if err := p.Apply(engine.Command{Kind: engine.CmdAdvance, Dur: 5 * engine.Second}); err != nil {
						break
					}
					d, found := engine.FirstDifference(p.A.Events(), p.B.Events())
					cases := []struct {
						d     engine.Difference
						found bool
					}{{d, found}, {engine.Difference{A: d.A, B: -1}, true}, {engine.Difference{A: -1, B: d.B}, true}}
					for _, k := range cases {
						if k.found && k.d.A < 0 && k.d.B < 0 {
							continue
						}
						for _, lang := range describeLangs {
							want := describeDifferenceFmt(p, k.d, k.found, lang, "A<1>", "B")
							if got := string(AppendDifference([]byte("x"), p, k.d, k.found, lang, "A<1>", "B")); got != "x"+want {
								t.Fatalf("%s %s at %s: AppendDifference wrote %q, fmt: %q", l.ID, src, at, got[1:], want)
							}
							if got := DescribeDifferenceAs(p, k.d, k.found, lang, "A<1>", "B"); got != want {
								t.Fatalf("%s %s at %s: DescribeDifferenceAs is %q, fmt: %q", l.ID, src, at, got, want)
							}
							sentences++
						}
					}
					if found {
						parted++
					}
				}
			}
		}
	}
	t.Logf("%d sentences, %d of the pairs' moments parted", sentences, parted)
	if parted < 100 {
		t.Errorf("only %d moments where the runs parted", parted)
	}
}

// FuzzAppendEvent holds AppendEvent to the reference on any event.
func FuzzAppendEvent(f *testing.F) {
	f.Add(uint8(engine.KindReject), uint8(engine.ReasonStaleToken), int8(0), int8(-2), uint8(1), false, uint16(1), int64(7), int64(1500), int64(8))
	f.Add(uint8(engine.KindLink), uint8(0), int8(0), int8(1), uint8(0), true, uint16(0), int64(0), int64(250), int64(125_000))
	f.Add(uint8(engine.KindViolation), uint8(engine.ViolationSplitBrain), int8(1), int8(0), uint8(0), false, uint16(0), int64(9), int64(0), int64(0))
	names := engine.Names{Nodes: []string{"W1", "W2"}, Keys: []string{"", "file"}}
	f.Fuzz(func(t *testing.T, kind, reason uint8, node, peer int8, msg uint8, effect bool, key uint16, token, at, value int64) {
		e := engine.EventFields{Kind: engine.Kind(kind), Reason: engine.Reason(reason), Node: engine.Node(node), Peer: engine.Node(peer), Msg: engine.MsgKind(msg),
			Effect: effect, Key: engine.KeyID(key), Token: token, At: engine.Time(at), Value: value}.Event()
		for _, lang := range describeLangs {
			sameSentence(t, e, names, lang)
		}
	})
}

// A stale write or a late act after a lease that ended otherwise than by
// its expiry says how it ended: in the revoked-session lab, that W1's
// session was revoked, not that its lease expired.
func TestViolationSaysHowTheLeaseEnded(t *testing.T) {
	c := SharedCourse(t)
	l := c.Lab("revoked-session")
	if l == nil {
		t.Fatal("no lab revoked-session")
	}
	w, err := l.NewWorld(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"until 4.5s", "revoke W1", "until 20s"} {
		cmd, err := engine.ParseCommand(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Apply(w, cmd); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][2]string{"id": {"dicabut", "kedaluwarsa"}, "en": {"revoked", "expired"}}
	seen := map[engine.Reason]bool{}
	for _, e := range w.Events() {
		r := e.Reason()
		if e.Kind != engine.KindViolation || r != engine.ViolationStaleWrite && r != engine.ViolationActedAfterExpiry {
			continue
		}
		seen[r] = true
		if e.Cause() != engine.ReasonRevoked {
			t.Errorf("%s: cause %s, want revoked", w.Names().Describe(e), e.Cause())
		}
		for lang, words := range want {
			s := DescribeEvent(e, w.Names(), lang)
			if !strings.Contains(s, words[0]) || strings.Contains(s, words[1]) {
				t.Errorf("%s: %q should say %q, not %q", lang, s, words[0], words[1])
			}
		}
	}
	if !seen[engine.ViolationStaleWrite] || !seen[engine.ViolationActedAfterExpiry] {
		t.Errorf("the run shows %v, want a stale write and a late act", seen)
	}
}
