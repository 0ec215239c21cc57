package web

import (
	"fmt"
	"testing"

	"leaselab/catalog"
	"leaselab/engine"
)

// sameAsFmt fails t when appendf writes other words than fmt.
func sameAsFmt(t testing.TB, format string, args ...farg) {
	t.Helper()
	vs := make([]any, len(args))
	for i, a := range args {
		vs[i] = a.value()
	}
	want := "x" + fmt.Sprintf(format, vs...)
	if got := string(appendf([]byte("x"), format, args...)); got != want {
		t.Fatalf("appendf(%q, %v) = %q, fmt: %q", format, vs, got, want)
	}
}

func TestAppendfIsFmt(t *testing.T) {
	s, n, tm := fstr("W1"), fint(-42), ftime(1500)
	for _, c := range []struct {
		format string
		args   []farg
	}{
		{"", nil},
		{"plain", nil},
		{"100%% sure", nil},
		{"%s frozen %s..%s", []farg{s, tm, ftime(engine.Never)}},
		{"real lease %s token %d: %s..%s (x)", []farg{s, fint(3), ftime(0), ftime(61 * engine.Second)}},
		{"%v %v %v", []farg{s, n, tm}},
		{"token %s went to %s, not %s: %[3]s was frozen", []farg{s, fstr("W2"), fstr("W3")}},
		{"%[2]s %s %[1]d", []farg{n, s, tm}},
		// What appendf leaves to fmt: verbs it does not take, missing and
		// extra arguments, bad indexes, a verb of another kind.
		{"%q and %5s", []farg{s, s}},
		{"%d", []farg{s}},
		{"%s", []farg{n}},
		{"%d", []farg{tm}},
		{"%s %s", []farg{s}},
		{"%s", []farg{s, s}},
		{"%[3]s", []farg{s}},
		{"%[0]s", []farg{s}},
		{"%[+1]s", []farg{s}},
		{"%[1", []farg{s}},
		{"%[1]", []farg{s}},
		{"end %", nil},
		{"%.2f%%", []farg{n}},
	} {
		sameAsFmt(t, c.format, c.args...)
	}
	// Every sentence of the catalogs, with arguments of the kinds its
	// verbs take.
	for _, lang := range []string{"en", "id"} {
		for _, key := range catalog.Keys(lang) {
			format := catalog.T(lang, key)
			var args []farg
			for i := 0; i+1 < len(format); i++ {
				if format[i] == '%' {
					switch format[i+1] {
					case 'd':
						args = append(args, fint(int64(7+i)))
					case 's', 'v':
						args = append(args, ftime(engine.Time(1000+i*250)))
					}
					i++
				}
			}
			sameAsFmt(t, format, args...)
		}
	}
}

// FuzzAppendf holds appendf to fmt on any format.
func FuzzAppendf(f *testing.F) {
	f.Add("%s frozen %s..%s %d", "W1", int64(7))
	f.Add("%[2]d %[1]s %v%%", "x", int64(-1))
	f.Add("%q %x %[9]s %", "\xff", int64(1<<40))
	f.Fuzz(func(t *testing.T, format, s string, n int64) {
		sameAsFmt(t, format, fstr(s), fint(n), ftime(engine.Time(n)))
		sameAsFmt(t, format, ftime(engine.Time(n)), fstr(s))
	})
}
