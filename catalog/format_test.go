package catalog

import (
	"fmt"
	"testing"

	"leaselab/engine"
)

// sameAsFmt fails t when Appendf writes other words than fmt.
func sameAsFmt(t testing.TB, format string, args ...Arg) {
	t.Helper()
	vs := make([]any, len(args))
	for i, a := range args {
		vs[i] = a.Value()
	}
	want := "x" + fmt.Sprintf(format, vs...)
	if got := string(Appendf([]byte("x"), format, args...)); got != want {
		t.Fatalf("Appendf(%q, %v) = %q, fmt: %q", format, vs, got, want)
	}
}

func TestAppendfIsFmt(t *testing.T) {
	s, n, tm, d, b := Str("W1"), Int(-42), Time(1500), Decimal(-7), Bytes([]byte("stale <token>"))
	for _, c := range []struct {
		format string
		args   []Arg
	}{
		{"", nil},
		{"plain", nil},
		{"100%% sure", nil},
		{"%s frozen %s..%s", []Arg{s, tm, Time(engine.Never)}},
		{"real lease %s token %d: %s..%s (x)", []Arg{s, Int(3), Time(0), Time(61 * engine.Second)}},
		{"%v %v %v %v %v", []Arg{s, n, tm, d, b}},
		{"token %s went to %s, not %s: %[3]s was frozen", []Arg{s, Str("W2"), Str("W3")}},
		{"%[2]s %s %[1]d", []Arg{n, s, tm}},
		{"with token %s (%s)", []Arg{d, b}},
		{"with token %s (%s)", []Arg{Decimal(1 << 62), Bytes(nil)}},
		// What Appendf leaves to fmt: verbs it does not take, missing and
		// extra arguments, bad indexes, a verb of another kind.
		{"%q and %5s", []Arg{s, s}},
		{"%d", []Arg{s}},
		{"%s", []Arg{n}},
		{"%d", []Arg{tm}},
		{"%d", []Arg{d}},
		{"%d", []Arg{b}},
		{"%x", []Arg{b}},
		{"%s %s", []Arg{s}},
		{"%s", []Arg{s, s}},
		{"%[3]s", []Arg{s}},
		{"%[0]s", []Arg{s}},
		{"%[+1]s", []Arg{s}},
		{"%[1", []Arg{s}},
		{"%[1]", []Arg{s}},
		{"end %", nil},
		{"%.2f%%", []Arg{n}},
	} {
		sameAsFmt(t, c.format, c.args...)
	}
	// Every text of the catalogs, with arguments of the kinds its verbs
	// take.
	for _, lang := range Langs() {
		for _, key := range Keys(lang) {
			format := T(lang, key)
			var args []Arg
			for i := 0; i+1 < len(format); i++ {
				if format[i] == '%' {
					switch format[i+1] {
					case 'd':
						args = append(args, Int(int64(7+i)))
					case 's', 'v':
						args = append(args, Time(engine.Time(1000+i*250)))
					}
					i++
				}
			}
			sameAsFmt(t, format, args...)
		}
	}
}

// FuzzAppendf holds Appendf to fmt on any format.
func FuzzAppendf(f *testing.F) {
	f.Add("%s frozen %s..%s %d", "W1", int64(7))
	f.Add("%[2]d %[1]s %v%%", "x", int64(-1))
	f.Add("%q %x %[9]s %", "\xff", int64(1<<40))
	f.Fuzz(func(t *testing.T, format, s string, n int64) {
		sameAsFmt(t, format, Str(s), Int(n), Time(engine.Time(n)))
		sameAsFmt(t, format, Time(engine.Time(n)), Str(s))
		sameAsFmt(t, format, Decimal(n), Bytes([]byte(s)), Int(n))
	})
}

// TestAppendTime holds each language to one way of writing a time: the
// trace's own form for "" and English, Indonesian with a decimal comma and
// one abbreviation per unit.
func TestAppendTime(t *testing.T) {
	for _, c := range []struct {
		lang string
		t    engine.Time
		want string
	}{
		{"", 1500, "1.5s"},
		{"en", 1500, "1.5s"},
		{"en", engine.Never, "never"},
		{"en", engine.Hour, "1h"},
		{"id", 0, "0 dtk"},
		{"id", 1500, "1,5 dtk"},
		{"id", 30010, "30,01 dtk"},
		{"id", 250, "250 ms"},
		{"id", -1500, "-1,5 dtk"},
		{"id", 10 * engine.Minute, "10 mnt"},
		{"id", engine.Hour, "1 jam"},
		{"id", engine.Never, "tanpa batas waktu"},
		{"xx", 1500, "1,5 dtk"}, // falls back to the default language
	} {
		if got := string(AppendTime([]byte("x"), c.lang, c.t)); got != "x"+c.want {
			t.Errorf("AppendTime(%q, %d) = %q, want %q", c.lang, c.t, got, "x"+c.want)
		}
	}
	if got := string(Append(nil, "id", "event.work", Str("W1"), Time(2500))); got != "W1 bekerja selama 2,5 dtk" {
		t.Errorf("an Indonesian event writes %q", got)
	}
}

// A moment of the run is written apart from a duration: "detik ke-4" in
// Indonesian, so that "4 dtk" always says how long; English keeps the
// trace's form.
func TestAppendMoment(t *testing.T) {
	for _, c := range []struct {
		lang string
		t    engine.Time
		want string
	}{
		{"", 1500, "1.5s"},
		{"en", 4000, "4s"},
		{"id", 0, "detik ke-0"},
		{"id", 4000, "detik ke-4"},
		{"id", 12500, "detik ke-12,5"},
		{"id", 250, "detik ke-0,25"},
		{"id", 30010, "detik ke-30,01"},
		{"id", 75 * engine.Second, "detik ke-75"},
		{"id", engine.Never, "tanpa batas waktu"},
		{"xx", 1500, "detik ke-1,5"},
	} {
		if got := string(AppendMoment([]byte("x"), c.lang, c.t)); got != "x"+c.want {
			t.Errorf("AppendMoment(%q, %d) = %q, want %q", c.lang, c.t, got, "x"+c.want)
		}
	}
	if got := string(Append(nil, "id", "search.fault", Str("jeda"), Str("25 dtk"), Moment(engine.Second))); got != "jeda 25 dtk pada detik ke-1" {
		t.Errorf("the search's fault reads %q", got)
	}
}
