package engine

import "testing"

// goCoord is a written coordinator in Go, for the engine's own tests. It
// grants a free lease (or one whose promise ran out by its clock) with
// the next token, renews its holder, and keeps its counter and lease in
// memory only (stable false: lost at a crash) or in a part that survives
// a restart.
type goCoord struct {
	stable bool
	mem    coordMemory // lost at a crash
	kept   coordMemory // survives one
}

type coordMemory struct {
	next   int64
	holder string
	token  int64
	until  Time
}

type goCoordLogic struct{ stable bool }

func (l goCoordLogic) Start() Program { return &goCoord{stable: l.stable} }

func (g *goCoord) Restart() Program { return &goCoord{stable: g.stable, kept: g.kept} }

func (g *goCoord) memory() *coordMemory {
	if g.stable {
		return &g.kept
	}
	return &g.mem
}

func (g *goCoord) Handle(m Moment) ([]Action, error) {
	k := g.memory()
	switch m.Kind {
	case MomentAcquire:
		if k.holder != "" && k.holder != m.Worker && m.Now < k.until {
			return []Action{{Kind: ActDeny, Line: 3}}, nil
		}
		k.next++
		k.holder, k.token, k.until = m.Worker, k.next, m.Now+10*Second
		return []Action{{Kind: ActGrant, Token: k.token, TTL: 10 * Second, Line: 5}}, nil
	case MomentRenew:
		if m.Worker != k.holder || m.Token != k.token || m.Now >= k.until {
			return []Action{{Kind: ActRefuse, Line: 7}}, nil
		}
		k.until = m.Now + 10*Second
		return []Action{{Kind: ActExtend, TTL: 10 * Second, Line: 9}}, nil
	case MomentRelease:
		if m.Worker == k.holder {
			k.holder = ""
			return []Action{{Kind: ActExpire, Worker: m.Worker, Line: 11}}, nil
		}
	}
	return nil, nil
}

func (g *goCoord) Fork() Program { c := *g; return &c }
func (g *goCoord) Hash() uint64 {
	return uint64(g.mem.next)<<40 ^ uint64(g.kept.next)<<20 ^ uint64(g.mem.until) ^ uint64(g.kept.until)
}

// coordWorld: W1 and S poll for the lease on a coordinator of one
// replica; commands follow.
func coordWorld(t *testing.T, l Logic, cmds ...string) *World {
	t.Helper()
	sc := Scenario{Seed: 2, Replicas: 1, TTL: 10 * Second, Delay: 100 * Millisecond, Storage: StorageFencing}
	for _, line := range []string{
		"W1 renew-margin=4s renew-attempt=2s stop-at-expiry=on: acquire retry=1s; write data; work 1s; repeat",
		"S start=1s renew-margin=4s renew-attempt=2s stop-at-expiry=on: acquire retry=1s; write data; work 1s; repeat",
	} {
		ws, err := ParseWorker(line)
		if err != nil {
			t.Fatal(err)
		}
		sc.Workers = append(sc.Workers, ws)
	}
	sc.Sides.Coord = l
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

// A written coordinator decides: the grants and renewals in the log are
// its, with its lines, and the lease record follows them. A crash of its
// replica restarts it: one that keeps its counter and lease in memory
// only grants S the lease while W1's promise runs, with token 1 again;
// one that keeps them stable waits for the promise to run out, and
// grants S token 2. (W1, paused meanwhile, is the stale owner the
// fencing storage refuses.)
func TestWrittenCoordinator(t *testing.T) {
	crash := []string{"until 3s", "replica 1 down", "freeze W1 for=8s", "until 6s", "replica 1 up", "until 20s"}
	w := coordWorld(t, goCoordLogic{stable: true}, crash...)
	if v := violations(w); v[ViolationDoubleGrant]+v[ViolationTokenReused]+v[ViolationStaleWrite] != 0 {
		t.Fatalf("a coordinator that keeps what it must: %v", v)
	}
	grants := 0
	for i, e := range w.Events() {
		if e.Kind == KindGrant {
			grants++
			if l, _ := w.ProgramLine(i); l != 5 {
				t.Errorf("a grant points at line %d, want 5", l)
			}
		}
	}
	if c := w.Snapshot().Coordinator; grants != 2 || c.Holder != 1 || c.Token != 2 {
		t.Fatalf("%d grants, holder %d with token %d: want W1's, then S's with token 2", grants, c.Holder, c.Token)
	}
	v := violations(coordWorld(t, goCoordLogic{}, crash...))
	if v[ViolationDoubleGrant] == 0 || v[ViolationTokenReused] == 0 {
		t.Fatalf("a coordinator that forgets at a crash: %v", v)
	}
	// Without a crash both are the same coordinator.
	if v := violations(coordWorld(t, goCoordLogic{}, "until 20s")); len(v) != 0 {
		t.Fatalf("no crash: %v", v)
	}
}

// A coordinator that answers a renewal with a grant's answer decides
// wrongly: it stops, answers nothing more, and the fault is recorded.
func TestWrittenCoordinatorFault(t *testing.T) {
	w := coordWorld(t, wrongCoord{}, "until 5s")
	f := w.ProgramFaults()
	if len(f) != 1 || f[0].Worker != Coord || f[0].Moment != MomentAcquire {
		t.Fatalf("faults %+v", f)
	}
	for _, e := range w.Events() {
		if e.Kind == KindGrant || e.Kind == KindDeny {
			t.Fatalf("a stopped coordinator answered: %v", e)
		}
	}
}

type wrongCoord struct{}

func (wrongCoord) Start() Program { return wrongCoord{} }
func (wrongCoord) Handle(m Moment) ([]Action, error) {
	if m.Kind == MomentAcquire {
		return []Action{{Kind: ActExtend, TTL: Second}}, nil
	}
	return nil, nil
}
func (wrongCoord) Fork() Program { return wrongCoord{} }
func (wrongCoord) Hash() uint64  { return 0 }
