package engine

import (
	"math"
	"reflect"
	"testing"
	"unsafe"
)

// The log is one slice of events. Without pointers in an event the
// garbage collector never scans it, and a world that grows a fresh log
// costs no more than one that reuses its array.
func TestEventHoldsNoPointers(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeOf(Event{}), reflect.TypeOf(item{})} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if hasPointers(f.Type) {
				t.Errorf("%s.%s (%s) holds a pointer", typ.Name(), f.Name, f.Type)
			}
		}
	}
	if s := unsafe.Sizeof(Event{}); s != 48 {
		t.Errorf("an event takes %d bytes, want 48: the log is most of a live session's memory", s)
	}
}

// An event keeps, in 48 bytes, every field its kind says (EventFields):
// spelled out again, it is what it was built from, whatever the values.
func TestEventKeepsWhatItsKindSays(t *testing.T) {
	r := rng{s: 5}
	any64 := func() int64 {
		switch r.upTo(5) {
		case 0:
			return math.MinInt64
		case 1:
			return math.MaxInt64
		case 2:
			return int64(Never)
		case 3:
			return -int64(r.upTo(1 << 40))
		}
		return int64(r.next())
	}
	node := func() Node { return Node(int(r.upTo(MaxWorkers+2)) - 3) }
	for k := Kind(1); k < kindCount; k++ {
		for range 200 {
			f := EventFields{T: Time(r.upTo(1 << 50)), Kind: k, Node: node(), Key: KeyID(r.next()),
				Token: any64(), At: Time(any64()), Value: any64(), Ref: -1, Ref2: -1}
			switch {
			case k == KindRenewed:
				f.Peer, f.Prev, f.Gen = NoNode, Time(any64()), uint32(r.next())
			case k.saysGeneration():
				f.Peer, f.Msg, f.Reason, f.Effect, f.Gen = node(), MsgKind(r.upTo(int64(msgCount-1))), Reason(r.upTo(int64(reasonCount-1))), r.upTo(1) == 1, uint32(r.next())
			default:
				f.Peer, f.Msg, f.Reason, f.Effect = node(), MsgKind(r.upTo(int64(msgCount-1))), Reason(r.upTo(int64(reasonCount-1))), r.upTo(1) == 1
				f.Ref, f.Ref2 = int32(r.upTo(1<<31-1))-1, int32(r.upTo(1<<31-1))-1
				if f.Ref == 0 && f.Ref2 == 0 {
					f.Ref2 = 1 // 0 and 0 are no proofs: see below
				}
			}
			if got := f.Event().Fields(); got != f {
				t.Fatalf("%s: built from\n%+v\nspelled out\n%+v", k, f, got)
			}
		}
	}
	// The engine leaves proofs it has none of at 0 and 0: they read -1.
	if e := (EventFields{Kind: KindRelease, Peer: 1}).Event(); e.Ref() != -1 || e.Ref2() != -1 {
		t.Errorf("a release's proofs read %d, %d, want -1, -1", e.Ref(), e.Ref2())
	}
	// What a kind does not say reads as nothing.
	e := EventFields{Kind: KindRenewed, Prev: -1, Gen: math.MaxUint32, Token: 3}.Event()
	if e.Peer() != NoNode || e.Msg() != MsgNone || e.Reason() != ReasonNone || e.Effect() || e.Ref() != -1 || e.Ref2() != -1 {
		t.Errorf("a renewal reads peer %d, msg %s, reason %s, effect %v, proofs %d %d", e.Peer(), e.Msg(), e.Reason(), e.Effect(), e.Ref(), e.Ref2())
	}
	if e := (EventFields{Kind: KindSend, Peer: Coord, Msg: MsgRenew, Token: 3}).Event(); e.Gen() != 0 || e.Prev() != 0 {
		t.Errorf("a send reads generation %d, previous end %s", e.Gen(), e.Prev())
	}
}

// A queue item holds no message, only its place in World.msgs: the queue
// of a busy world holds a hundred items or more, many of them timers and
// expiries that are no longer due, and the heap moves items on every push
// and pop.
func TestItemIsSmall(t *testing.T) {
	if s := unsafe.Sizeof(item{}); s != 24 {
		t.Errorf("a queue item takes %d bytes, want 24", s)
	}
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return true
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	}
	return false
}

// Keys in the log are ids that the world's names resolve, in the order
// the scenario names them: leases first, then the keys programs write.
func TestKeysResolveThroughNames(t *testing.T) {
	w := worldOf(t, nil, "W1 lease=a: acquire; write x; send y; release", "W2: acquire; write x value=v; release")
	if err := w.Do("until 10s"); err != nil {
		t.Fatal(err)
	}
	ns := w.Names()
	seen := map[string]bool{}
	for _, e := range w.Events() {
		switch e.Kind {
		case KindWrite, KindAccept, KindReject, KindGrant, KindRelease:
			k := ns.Key(e.Key)
			if k == "" {
				t.Errorf("%s has no key", ns.Format(e))
			}
			seen[e.Kind.String()+" "+k] = true
		}
	}
	for _, want := range []string{"grant a", "grant " + DefaultLease, "write x", "write y", "accept x", "accept y"} {
		if !seen[want] {
			t.Errorf("no %q in the log; saw %v", want, seen)
		}
	}
	if id, ok := ns.KeyID("x"); !ok || ns.Key(id) != "x" {
		t.Errorf("KeyID(x) = %d, %v", id, ok)
	}
	if _, ok := ns.KeyID("nope"); ok {
		t.Error("KeyID found a key no program names")
	}
}
