package program

import (
	"strings"
	"testing"

	"leaselab/engine"
)

// The storage's program: one handler, on_write(s, ev), that sees the
// write and decides with s.accept() or s.reject(reason); a worker's
// handlers and actions are not the storage's, and the reverse.
func TestStorageSide(t *testing.T) {
	src := "def on_write(s, ev):\n    if ev.token < s.state.get(\"h\", 0) or ev.key != \"data\" or ev.effect or ev.version < 0 or ev.value != \"\":\n        s.reject(\"stale-token\")\n        return\n    s.state[\"h\"] = ev.token\n    s.accept()\n"
	c, err := CompileSide(src, engine.SideStorage, nil, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Start()
	acts, err := r.Handle(engine.Moment{Kind: engine.MomentWrite, Token: 8, Key: "data"})
	if err != nil || len(acts) != 1 || acts[0].Kind != engine.ActAccept || acts[0].Line != 6 {
		t.Fatalf("token 8: %+v %v", acts, err)
	}
	acts, err = r.Handle(engine.Moment{Kind: engine.MomentWrite, Token: 7, Key: "data"})
	if err != nil || len(acts) != 1 || acts[0].Kind != engine.ActReject || acts[0].Reason != engine.ReasonStaleToken || acts[0].Line != 3 {
		t.Fatalf("token 7: %+v %v", acts, err)
	}
	// A reason a storage cannot give is the engine's to refuse: it is
	// passed on as no reason.
	c = mustSide(t, "def on_write(s, ev):\n    s.reject(\"because\")\n")
	if acts, err := c.Start().Handle(engine.Moment{Kind: engine.MomentWrite}); err != nil || acts[0].Reason != engine.ReasonNone {
		t.Fatalf("an unknown reason: %+v %v", acts, err)
	}
	for _, tc := range []struct{ src, code string }{
		{"def on_start(w, ev):\n    pass\n", "handler-missing"},
		{"def on_write(s):\n    pass\n", "handler-shape"},
	} {
		_, err := CompileSide(tc.src, engine.SideStorage, nil, DefaultLimits)
		e := wantCode(t, err, tc.code, 0)
		if d := Describe(e, "en"); !strings.Contains(d, "on_write(s, ev)") {
			t.Errorf("%s: %q", tc.code, d)
		}
	}
	for _, src := range []string{"def on_write(s, ev):\n    s.acquire()\n", "def on_write(s, ev):\n    s.accept(ev.tag)\n"} {
		_, err := mustSide(t, src).Start().Handle(engine.Moment{Kind: engine.MomentWrite})
		e := wantCode(t, err, "attr", 2)
		if e.Arg != "s.acquire" && e.Arg != "ev.tag" {
			t.Errorf("%q: %+v", src, e)
		}
	}
	if _, err := CompileSide(src, engine.SideStorage, []string{"acquire"}, DefaultLimits); err == nil {
		t.Error("a storage allowed a worker's action")
	}
	if _, err := Compile("def on_start(w, ev):\n    w.accept()\n", []string{"accept"}, DefaultLimits); err == nil {
		t.Error("a worker allowed a storage's action")
	}
}

func mustSide(t *testing.T, src string) *Compiled {
	t.Helper()
	c, err := CompileSide(src, engine.SideStorage, nil, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
