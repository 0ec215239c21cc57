package labs

import (
	"fmt"

	"leaselab/engine"
)

// Apply applies one command to a world of this lab: after a reset the new
// world gets the lab's setup commands, as NewWorld's do.
func (l *Lab) Apply(w *engine.World, c engine.Command) error {
	if err := w.Apply(c); err != nil {
		return err
	}
	if c.Kind != engine.CmdReset {
		return nil
	}
	for _, s := range l.setup {
		if err := w.Apply(s.cmd); err != nil {
			return fmt.Errorf("lab %s setup %q after reset: %w", l.ID, s.src, err)
		}
	}
	return nil
}

// NewPair starts a what-if of this lab: two new worlds with the same seed,
// run B taking change f at its moment. Replay the session's commands on it.
func (l *Lab) NewPair(seed uint64, f engine.Fork) (*engine.Pair, error) {
	a, err := l.NewWorld(seed)
	if err != nil {
		return nil, err
	}
	b, err := l.NewWorld(seed)
	if err != nil {
		return nil, err
	}
	return engine.NewPair(a, b, f, l.Apply)
}

// DescribeDifference is one sentence, in lang, for where a pair's runs
// first part: "At 29s: in A, the storage accepts …; in B, the storage
// rejects …".
func DescribeDifference(p *engine.Pair, d engine.Difference, found bool, lang string) string {
	en := lang == "en"
	if !found {
		if en {
			return "So far the two runs are the same: the change has made no difference yet."
		}
		return "Sejauh ini kedua jalannya simulasi sama persis: perubahan itu belum membuat perbedaan."
	}
	side := func(w *engine.World, i int) string {
		if i < 0 {
			if en {
				return "nothing more happens"
			}
			return "tidak terjadi apa-apa lagi"
		}
		e := w.Events()[i]
		return DescribeEvent(e, w.Names(), lang)
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
		// The runs part in time: say when each side happens.
		sa = fmt.Sprintf("%s %s", timeWord(p.A.Events()[d.A].T, en), sa)
		sb = fmt.Sprintf("%s %s", timeWord(p.B.Events()[d.B].T, en), sb)
	}
	if en {
		return fmt.Sprintf("At %s the runs part: in A, %s; in B, %s.", at, sa, sb)
	}
	return fmt.Sprintf("Pada %s kedua jalannya simulasi berpisah: di A, %s; di B, %s.", at, sa, sb)
}

func timeWord(t engine.Time, en bool) string {
	if en {
		return "at " + t.String() + ","
	}
	return "pada " + t.String() + ","
}
