package web

import (
	"fmt"
	"strconv"
	"strings"

	"leaselab/engine"
)

// appendf is fmt.Appendf for the catalog's sentences, which take strings,
// integers and times: its arguments are typed (farg), not interfaces, so a
// frame that writes a bar's title or a command's words boxes nothing and
// allocates nothing. It knows %s, %d, %v, %% and explicit indexes (%[2]s);
// anything else, or an argument of another kind than its verb takes, goes
// to fmt, so the words are always fmt's (TestAppendfIsFmt, FuzzAppendf).
func appendf(b []byte, format string, args ...farg) []byte {
	start := len(b)
	next, reordered := 0, false
	for i := 0; i < len(format); {
		if format[i] != '%' {
			j := strings.IndexByte(format[i:], '%')
			if j < 0 {
				j = len(format) - i
			}
			b = append(b, format[i:i+j]...)
			i += j
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			b = append(b, '%')
			i++
			continue
		}
		if i < len(format) && format[i] == '[' {
			end := strings.IndexByte(format[i:], ']')
			if end < 0 {
				return fmtAppendf(b[:start], format, args)
			}
			digits := format[i+1 : i+end]
			n, err := strconv.Atoi(digits)
			if err != nil || strings.Trim(digits, "0123456789") != "" || n < 1 || n > len(args) {
				return fmtAppendf(b[:start], format, args)
			}
			next, reordered = n-1, true
			i += end + 1
		}
		if i >= len(format) || next >= len(args) {
			return fmtAppendf(b[:start], format, args)
		}
		a, verb := args[next], format[i]
		switch {
		case a.k == fargString && (verb == 's' || verb == 'v'):
			b = append(b, a.s...)
		case a.k == fargTime && (verb == 's' || verb == 'v'):
			b = engine.Time(a.n).AppendTo(b)
		case a.k == fargInt && (verb == 'd' || verb == 'v'):
			b = strconv.AppendInt(b, a.n, 10)
		default:
			return fmtAppendf(b[:start], format, args)
		}
		next++
		i++
	}
	if !reordered && next < len(args) {
		return fmtAppendf(b[:start], format, args) // fmt notes the extra
	}
	return b
}

// fmtAppendf is appendf through fmt, for what appendf does not know.
func fmtAppendf(b []byte, format string, args []farg) []byte {
	vs := make([]any, len(args))
	for i, a := range args {
		vs[i] = a.value()
	}
	return fmt.Appendf(b, format, vs...)
}

// farg is one argument of appendf.
type farg struct {
	s string
	n int64
	k fargKind
}

type fargKind uint8

const (
	fargString fargKind = iota
	fargInt
	fargTime
)

func fstr(s string) farg       { return farg{s: s} }
func fint(n int64) farg        { return farg{n: n, k: fargInt} }
func ftime(t engine.Time) farg { return farg{n: int64(t), k: fargTime} }
func (a farg) value() any {
	switch a.k {
	case fargInt:
		return a.n
	case fargTime:
		return engine.Time(a.n)
	}
	return a.s
}
