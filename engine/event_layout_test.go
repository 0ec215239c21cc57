package engine

import (
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
	if s := unsafe.Sizeof(Event{}); s > 64 {
		t.Errorf("an event takes %d bytes, want at most one cache line (64)", s)
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
	var sc Scenario
	for _, line := range []string{"W1 lease=a: acquire; write x; send y; release", "W2: acquire; write x value=v; release"} {
		ws, err := ParseWorker(line)
		if err != nil {
			t.Fatal(err)
		}
		sc.Workers = append(sc.Workers, ws)
	}
	w, err := New(sc)
	if err != nil {
		t.Fatal(err)
	}
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
