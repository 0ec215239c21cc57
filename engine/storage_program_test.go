package engine

import (
	"errors"
	"testing"
)

// goStorage is a written storage in Go, for the engine's own tests: it
// fences by the highest token it has seen (strict: only a higher one
// passes), refuses everything (none), or decides nothing (mute).
type goStorage struct {
	highest int64
	strict  bool
	none    bool
	mute    bool
}

type goStorageLogic goStorage

func (l goStorageLogic) Start() Program { g := goStorage(l); return &g }

func (g *goStorage) Handle(m Moment) ([]Action, error) {
	switch {
	case m.Kind != MomentWrite:
		return nil, errors.New("a storage is told of writes only")
	case g.mute:
		return nil, nil
	case g.none || m.Token < g.highest || g.strict && m.Token == g.highest:
		return []Action{{Kind: ActReject, Reason: ReasonStaleToken, Line: 7}}, nil
	}
	g.highest = m.Token
	return []Action{{Kind: ActAccept, Line: 9}}, nil
}

func (g *goStorage) Fork() Program { c := *g; return &c }
func (g *goStorage) Hash() uint64  { return uint64(g.highest) }

// storageWorld is the W1/W2 story with the storage written: W1 freezes
// before its write, W2 writes with the newer token, then W1 writes late.
func storageWorld(t *testing.T, l Logic) *World {
	t.Helper()
	sc := Scenario{Seed: 3, TTL: 15 * Second, FirstToken: 7, Delay: 50 * Millisecond}
	for _, line := range []string{"W1: acquire; work 5s; write file; work 1s; write file", "W2 start=1s: acquire; work 5s; write file; work 1s; write file"} {
		ws, err := ParseWorker(line)
		if err != nil {
			t.Fatal(err)
		}
		sc.Workers = append(sc.Workers, ws)
	}
	sc.Sides.Storage = l
	w, err := New(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"until 4s", "freeze W1 for=25s", "until 40s"} {
		if err := w.Do(c); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func violations(w *World) map[Reason]int {
	out := map[Reason]int{}
	for _, e := range w.Events() {
		if e.Kind == KindViolation {
			out[e.Reason()]++
		}
	}
	return out
}

// A written storage decides each write: fenced by the highest token, the
// late write is refused and nothing is lost; refusing the holder's own
// writes is a violation of its own, and so is a strict check that
// refuses the holder's second write with the same token.
func TestWrittenStorageDecides(t *testing.T) {
	w := storageWorld(t, goStorageLogic{})
	v := violations(w)
	if v[ViolationLostUpdate] != 0 || v[ViolationRefusedHolder] != 0 {
		t.Fatalf("fenced by the highest token: %v", v)
	}
	rejected := 0
	for i, e := range w.Events() {
		if e.Kind == KindReject {
			rejected++
			if l, _ := w.ProgramLine(i); l != 7 {
				t.Errorf("the reject points at line %d, want 7", l)
			}
		}
	}
	if rejected != 1 {
		t.Fatalf("%d writes rejected, want W1's late one (it loses the lease then)", rejected)
	}
	if v := violations(storageWorld(t, goStorageLogic{none: true})); v[ViolationRefusedHolder] == 0 {
		t.Fatalf("refusing everything: %v", v)
	}
	if v := violations(storageWorld(t, goStorageLogic{strict: true})); v[ViolationRefusedHolder] == 0 || v[ViolationLostUpdate] != 0 {
		t.Fatalf("strictly higher only: %v", v)
	}
	w = storageWorld(t, nil)
	if v := violations(w); v[ViolationLostUpdate] == 0 {
		t.Fatalf("a storage that checks nothing: %v", v)
	}
}

// A storage program that decides nothing fails at the first write: the
// storage stops, answers nothing more, and the fault is recorded.
func TestWrittenStorageFault(t *testing.T) {
	w := storageWorld(t, goStorageLogic{mute: true})
	f := w.ProgramFaults()
	if len(f) != 1 || f[0].Worker != Storage || f[0].Moment != MomentWrite {
		t.Fatalf("faults %+v", f)
	}
	var ae *ActionError
	if !errors.As(f[0].Err, &ae) || ae.Code != "decide" {
		t.Fatalf("fault %v", f[0].Err)
	}
	for _, e := range w.Events() {
		if e.Kind == KindAccept || e.Kind == KindReject {
			t.Fatalf("a stopped storage decided %v", e)
		}
	}
}

// The storage's program forks with the world and is in StateHash.
func TestWrittenStorageForks(t *testing.T) {
	w := storageWorld(t, goStorageLogic{})
	f := w.forkInto(nil)
	if f.StateHash() != w.StateHash() {
		t.Fatal("a fork hashes unlike its world")
	}
	f.sides.store.p.(*goStorage).highest++
	if f.StateHash() == w.StateHash() {
		t.Fatal("the storage's program is not in StateHash")
	}
	if w.sides.store.p.(*goStorage).highest == f.sides.store.p.(*goStorage).highest {
		t.Fatal("changing the fork's storage changed the world's")
	}
}
