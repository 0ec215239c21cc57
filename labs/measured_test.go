package labs

import (
	"errors"
	"strings"
	"testing"

	"leaselab/catalog"
	"leaselab/engine"
)

func p99Lab(t *testing.T) *Measured {
	t.Helper()
	lab := SharedCourse(t).Lab("p99-margin")
	if lab == nil || lab.Measured() == nil {
		t.Fatal("no p99-margin lab with measured:")
	}
	return lab.Measured()
}

// The margin the starting figures imply holds at those figures: in every
// run the engine plays (pause then lost attempt at every placement, both
// ways of drift, outages), the holder neither loses its lease to the
// faults nor acts without it. Past each figure's p99 some run breaks,
// and that run, replayed, shows the deciding event: a loss of the lease
// or a violation of the holder, at the grown figure.
func TestMeasuredStartingFiguresHold(t *testing.T) {
	m := p99Lab(t)
	v, err := m.Judge(nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Fail != nil {
		t.Fatalf("the starting figures' margin fails at p99: %+v at %s, outage %v: %v", v.Fail.Figures, v.Fail.At, v.Fail.Outage, v.Fail.Why)
	}
	if v.Runs < 100 {
		t.Errorf("only %d runs at p99", v.Runs)
	}
	if len(v.Past) != len(GrownFigures) {
		t.Fatalf("past: %d figures, want %d", len(v.Past), len(GrownFigures))
	}
	for _, p := range v.Past {
		if p.Run == nil {
			t.Errorf("%s: nothing breaks up to %d", p.Name, p.Holds)
			continue
		}
		if !(p.P99 <= p.Holds && p.Holds < p.Breaks) {
			t.Errorf("%s: p99 %d, holds %d, breaks %d", p.Name, p.P99, p.Holds, p.Breaks)
		}
		if got := p.Run.Figures.Get(p.Name); got != p.Breaks {
			t.Errorf("%s: the breaking run plays %d, not %d", p.Name, got, p.Breaks)
		}
		w := p.Run.World
		if w == nil || p.Run.Event < 0 || p.Run.Event >= len(w.Events()) {
			t.Errorf("%s: the breaking run was not replayed", p.Name)
			continue
		}
		if e := w.Events()[p.Run.Event]; e != p.Run.Why || (e.Kind != engine.KindLost && e.Kind != engine.KindViolation) {
			t.Errorf("%s: the replayed deciding event is %v, the verdict's %v", p.Name, e, p.Run.Why)
		}
	}
}

// The test has teeth: the same figures with a margin 50 ms thinner than
// the budget's, or an attempt timeout 20 ms shorter, fail at p99 (the
// engine finds the placement that breaks them); the budget's own passes.
func TestMeasuredThinnerMarginFails(t *testing.T) {
	m := p99Lab(t)
	b, err := m.Start.Budget()
	if err != nil {
		t.Fatal(err)
	}
	var played int
	if run, _, err := m.test(b, m.Start, &played); err != nil || run != nil {
		t.Fatalf("the budget's own margin: %v, failing run %+v", err, run)
	}
	for _, thin := range []func(*Budget){
		func(b *Budget) { b.Margin -= 50 * engine.Millisecond },
		func(b *Budget) { b.Attempt -= 20 * engine.Millisecond },
	} {
		tb := b
		thin(&tb)
		run, _, err := m.test(tb, m.Start, &played)
		if err != nil {
			t.Fatal(err)
		}
		if run == nil {
			t.Errorf("a thinner budget (margin %s, attempt %s) passes at p99", tb.Margin, tb.Attempt)
		}
	}
}

// Figures read as a student writes them, in either language's way.
func TestParseFiguresForms(t *testing.T) {
	start := Figures{Lease: 10 * engine.Second}
	for in, want := range map[[2]string]int64{
		{"pause", "0,8 dtk"}:   800,
		{"pause", "800 ms"}:    800,
		{"pause", "1.5s"}:      1500,
		{"pause", "1,5 detik"}: 1500,
		{"pause", "0"}:         0,
		{"lease", "1 menit"}:   60_000,
		{"delay", "0.25s"}:     250,
		{"drift", "0,1%"}:      1000,
		{"drift", "±0.1 %"}:    1000,
		{"drift", "1000 ppm"}:  1000,
		{"drift", "-50ppm"}:    50,
	} {
		f, err := ParseFigures(map[string]string{in[0]: in[1]}, start)
		if err != nil {
			t.Errorf("%s=%q: %v", in[0], in[1], err)
			continue
		}
		if got := f.Get(in[0]); got != want {
			t.Errorf("%s=%q: %d, want %d", in[0], in[1], got, want)
		}
	}
}

// Bad figures never crash and never half-apply: each is a FigureError
// whose text the catalog has in both languages, naming the figure.
func TestMeasuredRefusesBadFigures(t *testing.T) {
	m := p99Lab(t)
	for _, values := range []map[string]string{
		{"pause": "abc"},
		{"pause": "800"},
		{"pause": "-5ms"},
		{"pause": "1e3s"},
		{"pause": "NaN s"},
		{"pause": ".s"},
		{"pause": "1h"},
		{"delay": strings.Repeat("9", 40) + "ms"},
		{"drift": "5"},
		{"drift": "20%"},
		{"drift": "0.1%%"},
		{"size": "1s"},
		{"lease": "500ms"},
		{"lease": "2s", "pause": "1s"},  // the margin does not fit
		{"lease": "1s", "delay": "10s"}, // nor here
	} {
		v, err := m.Judge(values)
		var fe *FigureError
		if !errors.As(err, &fe) {
			t.Errorf("%v: verdict %v, error %v: want a FigureError", values, v, err)
			continue
		}
		for _, lang := range []string{"id", "en"} {
			said := catalog.Error(lang, err)
			if said == catalog.T(lang, "err.generic") || strings.Contains(said, "%!") {
				t.Errorf("%v in %s: %q", values, lang, said)
			}
		}
	}
}

// Without drift the engine plays one true clock, and the budget keeps
// the lease whole as the holder's own deadline.
func TestMeasuredWithoutDrift(t *testing.T) {
	m := p99Lab(t)
	v, err := m.Judge(map[string]string{"drift": "0", "pause": "300ms"})
	if err != nil {
		t.Fatal(err)
	}
	if v.Budget.GiveUp != v.Budget.Lease || v.Fail != nil {
		t.Errorf("budget %+v, fail %+v", v.Budget, v.Fail)
	}
}

func FuzzParseFigures(f *testing.F) {
	for _, s := range []string{"800ms", "0,1%", "1,5 dtk", "abc", "1e9s", "-0", "±%", "9999999999999 menit"} {
		f.Add("pause", s)
		f.Add("drift", s)
	}
	f.Fuzz(func(t *testing.T, name, s string) {
		start := Figures{Lease: 10 * engine.Second}
		got, err := ParseFigures(map[string]string{name: s}, start)
		if err != nil && got != start {
			t.Fatalf("%s=%q: half applied: %+v", name, s, got)
		}
		if err == nil {
			if _, err := got.Budget(); err != nil {
				var fe *FigureError
				if !errors.As(err, &fe) {
					t.Fatalf("%s=%q: budget error %v", name, s, err)
				}
			}
		}
	})
}
