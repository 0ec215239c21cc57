package engine

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// An option written on a worker's line wins over the worker's preset,
// whatever order the line gives them in.
func TestExplicitOptionBeatsPreset(t *testing.T) {
	cases := []struct {
		line  string
		check func(ws WorkerSpec) bool
		what  string
	}{
		{"W1 preset=etcd belief=send: acquire", func(ws WorkerSpec) bool { return ws.Belief == FromSend }, "belief=send"},
		{"W1 belief=send preset=etcd: acquire", func(ws WorkerSpec) bool { return ws.Belief == FromSend }, "belief=send before the preset"},
		{"W1 preset=kubernetes acquire-jitter=0: acquire retry=2s", func(ws WorkerSpec) bool { return ws.AcquireJitter == 0 }, "acquire-jitter=0"},
		{"W1 preset=kubernetes renew-give-up=10s: acquire", func(ws WorkerSpec) bool { return ws.Renew.GiveUp == 10*Second }, "renew-give-up=10s"},
		{"W1 preset=consul session-lock-delay=0s server-grace=0s: acquire", func(ws WorkerSpec) bool { return ws.LockDelay == 0 && ws.ServerGrace == 0 }, "no lock-delay, no server grace"},
		{"W1 preset=zookeeper stop-at-expiry=on: acquire", func(ws WorkerSpec) bool { return ws.StopAtExpiry }, "stop-at-expiry=on"},
		{"W1 preset=chubby renew=3s: acquire", func(ws WorkerSpec) bool { return ws.Renew.Every == 3*Second && ws.Renew.Margin == 0 }, "a period instead of the preset's margin"},
		{"W1 preset=etcd renew-margin=2s: acquire", func(ws WorkerSpec) bool { return ws.Renew.Margin == 2*Second && ws.Renew.Every == 0 }, "a margin instead of the preset's period"},
		{"W1 preset=redlock token=on: acquire", func(ws WorkerSpec) bool { return !ws.NoToken }, "token=on"},
		{"W1 preset=chubby grace=0s: acquire", func(ws WorkerSpec) bool { return ws.Grace == 0 }, "grace=0s"},
	}
	for _, c := range cases {
		ws, err := ParseWorker(c.line)
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		w, err := New(Scenario{TTL: 15 * Second, Workers: []WorkerSpec{ws}})
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		got := w.Scenario().Workers[0]
		if !c.check(got) {
			t.Errorf("%s: the preset overrode %s: %+v", c.line, c.what, got)
		}
	}
}

// Without an option on the line the preset decides, and the preset is what
// the engine runs (not the zero values).
func TestPresetSetsItsValues(t *testing.T) {
	ws, err := ParseWorker("W1 preset=consul: acquire")
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(Scenario{TTL: 15 * Second, Workers: []WorkerSpec{ws}})
	if err != nil {
		t.Fatal(err)
	}
	got := w.Scenario().Workers[0]
	if got.ServerGrace != 15*Second || got.LockDelay != 15*Second || got.Renew.Every != 7500*Millisecond {
		t.Errorf("consul preset at TTL 15 s: server grace %s, lock-delay %s, renew every %s", got.ServerGrace, got.LockDelay, got.Renew.Every)
	}
	// Building a world leaves the caller's scenario as it was.
	if ws.ServerGrace != 0 {
		t.Errorf("New changed the caller's worker spec")
	}
}

// A bad explicit option is an error from New, naming the worker.
func TestExplicitOptionAfterPresetValidated(t *testing.T) {
	ws := WorkerSpec{Name: "W1", Program: []Op{{Kind: OpAcquire}}}
	if err := ws.Set("preset", "etcd"); err != nil {
		t.Fatal(err)
	}
	if err := ws.Set("renew-margin", "20s"); err != nil {
		t.Fatal(err)
	}
	_, err := New(Scenario{TTL: 15 * Second, Workers: []WorkerSpec{ws}})
	if err == nil || !strings.Contains(err.Error(), "W1") {
		t.Fatalf("a margin longer than the lease: want an error naming W1, got %v", err)
	}
}

// docs/authoring.md says exactly what each preset sets: applying the
// options its table lists gives the worker the preset gives it.
func TestPresetsAsDocumented(t *testing.T) {
	data, err := os.ReadFile("../docs/authoring.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([a-z]+)` \\| `([^`]+)`")
	const ttl = 15 * Second
	ttlExpr := strings.NewReplacer("TTL−TTL/100−2ms", (ttl - ttl/100 - 2*Millisecond).String(), "2TTL/3", (ttl * 2 / 3).String(), "TTL/30", (ttl / 30).String(), "TTL/12", (ttl / 12).String(),
		"TTL/6", (ttl / 6).String(), "TTL/4", (ttl / 4).String(), "TTL/3", (ttl / 3).String(), "TTL/2", (ttl / 2).String(), "TTL", ttl.String())
	documented := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil || checkPreset(m[1]) != nil {
			continue
		}
		name := m[1]
		documented[name] = true
		doc := WorkerSpec{Name: "W1", Preset: name}
		for _, kv := range strings.Fields(m[2]) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("%s: %q is not key=value", name, kv)
			}
			if err := doc.set1(k, ttlExpr.Replace(v)); err != nil {
				t.Fatalf("%s: %s: %v", name, kv, err)
			}
		}
		got := WorkerSpec{Name: "W1", Preset: name}
		if err := got.resolvePreset(ttl); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(doc, got) {
			t.Errorf("preset %s: the documentation says\n%+v\nthe engine sets\n%+v", name, doc, got)
		}
	}
	for _, name := range Presets() {
		if !documented[name] {
			t.Errorf("docs/authoring.md does not say what preset %s sets", name)
		}
	}
}
