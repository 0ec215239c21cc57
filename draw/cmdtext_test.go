package draw

import (
	"fmt"
	"strings"
	"testing"

	"leaselab/catalog"
	"leaselab/engine"
)

// appendCommandText writes what commandText wrote with fmt before it
// (referenceCommandText, below, is that code).
func TestAppendCommandTextIsTheWordsBefore(t *testing.T) {
	for _, src := range []string{"advance 1.5s", "advance 90s", "step", "until 4s", "freeze W1", "freeze W1 for=25s",
		"freeze W2 on=acquired", "freeze W2 for=5s on=check", "thaw W1", "crash W2", "restart W2", "fencing on", "fencing off",
		"storage cas", "storage equality", "partition L1", "partition L1 coord", "partition coord storage", "heal", "heal L1",
		"heal L1 coord", "heal coord storage", "link W1 coord delay=250ms", "link W1->storage loss=0.125", "link W1 coord delay=1s loss=0.5",
		"clock W1 skew=-1.5s", "clock W1 skew=+2s jump=-1s rate=1.05", "replica 2 up", "replica 0 down", "reset", "lease 30s"} {
		c, err := engine.ParseCommand(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		for _, lang := range []string{"en", "id"} {
			want := referenceCommandText(lang, src)
			if got := CommandText(lang, src); got != want {
				t.Errorf("%s %s: %q, want %q", lang, src, got, want)
			}
			if got := string(appendCommandText([]byte("x"), lang, c)); got != "x"+want {
				t.Errorf("%s %s: appended %q, want %q", lang, src, got, "x"+want)
			}
		}
	}
}

func referenceCommandText(lang, src string) string {
	c, err := engine.ParseCommand(src)
	if err != nil {
		return src
	}
	f := func(key string, args ...any) string {
		for i, a := range args {
			if t, ok := a.(engine.Time); ok {
				args[i] = catalog.TimeText(lang, t)
			}
		}
		return fmt.Sprintf(catalog.T(lang, key), args...)
	}
	node := func(n string) string {
		switch n {
		case "coord", "storage":
			return catalog.T(lang, "node."+n)
		}
		return n
	}
	switch c.Kind {
	case engine.CmdAdvance:
		return f("cmd.advance", c.Dur)
	case engine.CmdStep:
		return catalog.T(lang, "cmd.step")
	case engine.CmdUntil:
		return f("cmd.until", catalog.MomentText(lang, c.At)) // a moment
	case engine.CmdFreeze:
		s := f("cmd.freeze", c.A)
		if c.Dur > 0 {
			s = f("cmd.freeze.for", c.A, c.Dur)
		}
		if c.On != engine.KindNone {
			s += " (" + f("cmd.freeze.on", c.A, catalog.T(lang, "cmd.on."+c.On.String())) + ")"
		}
		return s
	case engine.CmdThaw:
		return f("cmd.thaw", c.A)
	case engine.CmdCrash:
		return f("cmd.crash", c.A)
	case engine.CmdRestart:
		return f("cmd.restart", c.A)
	case engine.CmdStorage:
		switch c.Mode {
		case engine.StorageFencing:
			return catalog.T(lang, "cmd.fencing.on")
		case engine.StorageNone:
			return catalog.T(lang, "cmd.fencing.off")
		}
		return f("cmd.storage", catalog.T(lang, "mode."+c.Mode.String()))
	case engine.CmdPartition:
		if c.B == "" {
			return f("cmd.partition", node(c.A))
		}
		return f("cmd.partition2", node(c.A), node(c.B))
	case engine.CmdHeal:
		switch {
		case c.A == "":
			return catalog.T(lang, "cmd.heal")
		case c.B == "":
			return f("cmd.heal1", node(c.A))
		}
		return f("cmd.heal2", node(c.A), node(c.B))
	case engine.CmdLink:
		var parts []string
		if c.HasDelay {
			parts = append(parts, f("cmd.delay", c.Dur))
		}
		if c.HasLoss {
			parts = append(parts, f("cmd.loss", catalog.Number(lang, float64(c.LossPPM)/1e4)+"%"))
		}
		sep := "—"
		if c.OneWay {
			sep = "→"
		}
		return f("cmd.link", node(c.A)+sep+node(c.B), strings.Join(parts, ", "))
	case engine.CmdClock:
		var parts []string
		if c.HasSkew {
			parts = append(parts, f("cmd.skew", signedTime(lang, c.Skew)))
		}
		if c.HasJump {
			parts = append(parts, f("cmd.jump", signedTime(lang, c.Jump)))
		}
		if c.HasRate {
			parts = append(parts, f("cmd.rate", catalog.Number(lang, float64(c.Rate)/1e6)+"×"))
		}
		return f("cmd.clock", c.A, strings.Join(parts, ", "))
	case engine.CmdReplica:
		if c.Up {
			return f("cmd.replica.up", c.Replica)
		}
		return f("cmd.replica.down", c.Replica)
	case engine.CmdReset:
		return catalog.T(lang, "cmd.reset")
	case engine.CmdLease:
		return f("cmd.lease", c.Dur)
	}
	return src
}
