package engine

import "testing"

// goClient is a written Redlock client in Go: it locks every master with
// one value, and once three said yes writes every second for 4 s (well
// within its validity), then unlocks. wrongUnlock unlocks with another
// value, which no master honours.
type goClient struct {
	value, start, until Time
	oks, answers        int
	wrongUnlock         bool
}

type goClientLogic struct{ wrongUnlock bool }

func (l goClientLogic) Start() Program { return &goClient{wrongUnlock: l.wrongUnlock} }

func (g *goClient) Handle(m Moment) ([]Action, error) {
	switch m.Kind {
	case MomentStart:
		g.value, g.start = Time(m.Token+1), m.Now
		var acts []Action
		for i := 1; i <= 5; i++ {
			acts = append(acts, Action{Kind: ActLock, Master: i, Token: int64(g.value), TTL: 10 * Second, Line: 1})
		}
		return acts, nil
	case MomentLocked:
		g.answers++
		if m.OK && m.Token == int64(g.value) {
			g.oks++
		}
		if g.answers == 5 && g.oks >= 3 {
			g.until = min(g.start+10*Second-102, g.start+4*Second)
			return g.work(m.Now), nil
		}
	case MomentTimer:
		return g.work(m.Now), nil
	}
	return nil, nil
}

func (g *goClient) work(now Time) []Action {
	if now+Second/2 < g.until {
		return []Action{{Kind: ActWrite, Key: "data", Token: int64(g.value), Line: 2}, {Kind: ActSetTimer, Timer: "w", At: now + Second, Line: 3}}
	}
	v := g.value
	if g.wrongUnlock {
		v++
	}
	var acts []Action
	for i := 1; i <= 5; i++ {
		acts = append(acts, Action{Kind: ActUnlock, Master: i, Token: int64(v), Line: 4})
	}
	return acts
}

func (g *goClient) Fork() Program { c := *g; return &c }
func (g *goClient) Hash() uint64  { return uint64(g.value)<<32 ^ uint64(g.until)<<8 ^ uint64(g.oks) }

func redlockWorld(t *testing.T, l Logic, cmds ...string) *World {
	t.Helper()
	sc := Scenario{Seed: 4, TTL: 10 * Second, Delay: 100 * Millisecond, Replicas: 5, IndependentMasters: true}
	for _, line := range []string{"W1: acquire; write data", "W2 preset=redlock start=1s: acquire retry=1s; write data; work 1s; release; sleep 3s; repeat"} {
		ws, err := ParseWorker(line)
		if err != nil {
			t.Fatal(err)
		}
		sc.Workers = append(sc.Workers, ws)
	}
	sc.Workers[0].Logic = l
	w, err := New(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		if err := w.Do(c); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
	return w
}

// A written client that locks a majority of the masters holds the lease
// (a grant with the engine's token), writes within its validity with no
// violation, and its unlock frees the masters for W2. An unlock with
// another value frees nothing: W2 waits for the keys to expire.
func TestWrittenRedlockClient(t *testing.T) {
	w := redlockWorld(t, goClientLogic{}, "until 20s")
	if v := violations(w); len(v) != 0 {
		t.Fatalf("a careful client: %v", v)
	}
	grantW2 := func(w *World) Time {
		for _, e := range w.Events() {
			if e.Kind == KindGrant && w.Names().Of(e.Peer()) == "W2" {
				return e.T
			}
		}
		return -1
	}
	if l, _ := w.ProgramLine(int(firstOf(w, KindWrite))); l != 2 {
		t.Fatalf("W1's write points at line %d", l)
	}
	freed, kept := grantW2(w), grantW2(redlockWorld(t, goClientLogic{wrongUnlock: true}, "until 20s"))
	if freed < 0 || kept < 0 || kept <= freed {
		t.Fatalf("W2 granted at %s after W1's unlock, at %s after a wrong unlock: want it later", freed, kept)
	}
}

// A pause armed for W1's next check falls between its decision to write
// and the write: the write waits for the thaw, lands after W2 took the
// lock, and is flagged.
func TestWrittenWorkerPauseAtCheck(t *testing.T) {
	w := redlockWorld(t, goClientLogic{}, "until 2s", "freeze W1 on=check for=12s", "until 25s")
	v := violations(w)
	if v[ViolationActedAfterExpiry] == 0 || v[ViolationStaleWrite] == 0 {
		t.Fatalf("the write after the pause: %v", v)
	}
	freeze, write := firstOf(w, KindFreeze), int32(-1)
	for i, e := range w.Events() {
		if e.Kind == KindWrite && e.Node == 0 && int32(i) > freeze {
			write = int32(i)
			break
		}
	}
	if freeze < 0 || write < 0 || w.Events()[write].T < w.Events()[freeze].T+12*Second {
		t.Fatalf("freeze at #%d, the held write at #%d", freeze, write)
	}
}

func firstOf(w *World, k Kind) int32 {
	for i, e := range w.Events() {
		if e.Kind == k {
			return int32(i)
		}
	}
	return -1
}
