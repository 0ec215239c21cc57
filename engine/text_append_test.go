package engine

import (
	"strconv"
	"strings"
	"testing"
)

// String and AppendTo are one formatter since frames append times and
// commands into a buffer; these hold it to the strings it wrote before
// (referenceTime and referenceCommand are the earlier String methods).

func TestTimeAppendToIsTheFormatBefore(t *testing.T) {
	var ts []Time
	for v := Time(-2100); v <= 2100; v++ {
		ts = append(ts, v)
	}
	for _, v := range []Time{Never, -Never, 59 * Second, Minute, 9 * Minute, 10 * Minute, 90 * Second, Hour, 25 * Hour, 10*Minute + 1,
		61*Minute + 500, 1<<40 + 7, -(3*Hour + 20)} {
		ts = append(ts, v, v+Second, v-Second, v+10)
	}
	for step := Time(997); step < 100*Hour; step = step*3 + 1 {
		ts = append(ts, step, -step)
	}
	for _, v := range ts {
		want := referenceTime(v)
		if got := v.String(); got != want {
			t.Fatalf("%d: String %q, want %q", int64(v), got, want)
		}
		if got := string(v.AppendTo([]byte("x"))); got != "x"+want {
			t.Fatalf("%d: AppendTo %q, want %q", int64(v), got, "x"+want)
		}
	}
}

func TestCommandAppendToIsTheFormatBefore(t *testing.T) {
	cmds := []Command{
		{Kind: CmdAdvance, Dur: 1500}, {Kind: CmdStep}, {Kind: CmdUntil, At: 4 * Second},
		{Kind: CmdFreeze, A: "W1"}, {Kind: CmdFreeze, A: "W1", Dur: 25 * Second}, {Kind: CmdFreeze, A: "W2", On: KindGrant},
		{Kind: CmdFreeze, A: "W2", Dur: 5, On: KindRenewed},
		{Kind: CmdThaw, A: "W1"}, {Kind: CmdCrash, A: "W2"}, {Kind: CmdRestart, A: "W2"},
		{Kind: CmdStorage, Mode: StorageFencing}, {Kind: CmdStorage, Mode: StorageNone}, {Kind: CmdStorage, Mode: StorageMode(2)},
		{Kind: CmdStorage, Mode: StorageMode(99)},
		{Kind: CmdPartition, A: "L1"}, {Kind: CmdPartition, A: "L1", B: "coord"},
		{Kind: CmdHeal}, {Kind: CmdHeal, A: "L1"}, {Kind: CmdHeal, A: "L1", B: "coord"}, {Kind: CmdHeal, B: "coord"},
		{Kind: CmdLink, A: "W1", B: "coord"}, {Kind: CmdLink, A: "W1", B: "coord", OneWay: true, HasDelay: true, Dur: 250},
		{Kind: CmdLink, A: "W1", B: "storage", HasLoss: true, LossPPM: 125000}, {Kind: CmdLink, A: "a", B: "b", HasDelay: true, HasLoss: true, LossPPM: 1},
		{Kind: CmdClock, A: "W1"}, {Kind: CmdClock, A: "W1", HasSkew: true, Skew: -1500, HasJump: true, Jump: 2 * Second, HasRate: true, Rate: 1_050_000},
		{Kind: CmdReplica, Replica: 2, Up: true}, {Kind: CmdReplica, Replica: 0},
		{Kind: CmdReset}, {Kind: CmdLease, Dur: 30 * Second}, {Kind: CommandKind(250)},
	}
	for _, c := range cmds {
		want := referenceCommand(c)
		if got := c.String(); got != want {
			t.Errorf("%+v: String %q, want %q", c, got, want)
		}
		if got := string(c.AppendTo([]byte("x "))); got != "x "+want {
			t.Errorf("%+v: AppendTo %q, want %q", c, got, "x "+want)
		}
	}
}

func referenceTime(t Time) string {
	if t == Never {
		return "never"
	}
	neg := t < 0
	if neg {
		t = -t
	}
	var s string
	switch {
	case t == 0:
		s = "0s"
	case t < Second:
		s = strconv.FormatInt(int64(t), 10) + "ms"
	case t%Hour == 0:
		s = strconv.FormatInt(int64(t/Hour), 10) + "h"
	case t%Minute == 0 && t >= 10*Minute:
		s = strconv.FormatInt(int64(t/Minute), 10) + "m"
	case t%Second == 0:
		s = strconv.FormatInt(int64(t/Second), 10) + "s"
	default:
		frac := strings.TrimRight(fmtMillis(int64(t%Second)), "0")
		s = strconv.FormatInt(int64(t/Second), 10) + "." + frac + "s"
	}
	if neg {
		return "-" + s
	}
	return s
}

func referenceCommand(c Command) string {
	switch c.Kind {
	case CmdAdvance:
		return "advance " + referenceTime(c.Dur)
	case CmdStep:
		return "step"
	case CmdUntil:
		return "until " + referenceTime(c.At)
	case CmdFreeze:
		s := "freeze " + c.A
		if c.Dur > 0 {
			s += " for=" + referenceTime(c.Dur)
		}
		if c.On != KindNone {
			s += " on=" + c.On.String()
		}
		return s
	case CmdThaw:
		return "thaw " + c.A
	case CmdCrash:
		return "crash " + c.A
	case CmdRestart:
		return "restart " + c.A
	case CmdStorage:
		switch c.Mode {
		case StorageFencing:
			return "fencing on"
		case StorageNone:
			return "fencing off"
		}
		return "storage " + c.Mode.String()
	case CmdPartition:
		if c.B == "" {
			return "partition " + c.A
		}
		return "partition " + c.A + " " + c.B
	case CmdHeal:
		return strings.TrimSpace("heal " + c.A + " " + c.B)
	case CmdLink:
		s := "link " + c.A + " " + c.B
		if c.OneWay {
			s = "link " + c.A + "->" + c.B
		}
		if c.HasDelay {
			s += " delay=" + referenceTime(c.Dur)
		}
		if c.HasLoss {
			s += " loss=" + strconv.FormatFloat(float64(c.LossPPM)/1e6, 'f', -1, 64)
		}
		return s
	case CmdClock:
		s := "clock " + c.A
		if c.HasSkew {
			s += " skew=" + signed(c.Skew)
		}
		if c.HasJump {
			s += " jump=" + signed(c.Jump)
		}
		if c.HasRate {
			s += " rate=" + formatRate(c.Rate)
		}
		return s
	case CmdReplica:
		if c.Up {
			return "replica " + strconv.Itoa(c.Replica) + " up"
		}
		return "replica " + strconv.Itoa(c.Replica) + " down"
	case CmdReset:
		return "reset"
	case CmdLease:
		return "lease " + referenceTime(c.Dur)
	}
	return "?"
}

func fmtMillis(ms int64) string { return strconv.FormatInt(1000+ms, 10)[1:] }
