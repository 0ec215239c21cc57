package engine

import "testing"

// A fault read back from what String writes is the same fault, for every
// kind a search plays; what String never writes is refused.
func TestSearchFaultReadsBack(t *testing.T) {
	for _, k := range SearchKindNames {
		f := SearchFault{At: 14 * Second, Kind: k, Size: 6 * Second}
		switch k {
		case FaultDrift:
			f.Size, f.Rate = 0, 1_000_050
		case FaultJump:
			f.Size = -2 * Second
		}
		back, ok := ParseSearchFault(f.String())
		if !ok || back != f {
			t.Errorf("%q read back as %+v (%v), want %+v", f.String(), back, ok, f)
		}
	}
	for _, bad := range []string{"", "pause 6s at", "pause 6s by 14s", "nap 6s at 14s", "drift 50 at 3s", "pause six at 14s"} {
		if f, ok := ParseSearchFault(bad); ok {
			t.Errorf("%q read as %+v, want an error", bad, f)
		}
	}
}
