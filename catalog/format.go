package catalog

import (
	"fmt"
	"strconv"
	"strings"

	"leaselab/engine"
)

// Appendf is fmt.Appendf for the catalog's texts, which take strings,
// integers and times: its arguments are typed (Arg), not interfaces, so
// that a frame writing an event's sentence, a bar's title or a command's
// words boxes nothing and allocates nothing. It knows %s, %d, %v, %% and
// explicit indexes (%[2]s); anything else, or an argument of another kind
// than its verb takes, goes to fmt, so the words are always fmt's
// (TestAppendfIsFmt, FuzzAppendf).
func Appendf(b []byte, format string, args ...Arg) []byte {
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
		case a.k == argString && (verb == 's' || verb == 'v'):
			b = append(b, a.s...)
		case a.k == argBytes && (verb == 's' || verb == 'v'):
			b = append(b, a.b...)
		case a.k == argDecimal && (verb == 's' || verb == 'v'):
			b = strconv.AppendInt(b, a.n, 10)
		case a.k == argTime && (verb == 's' || verb == 'v'):
			b = engine.Time(a.n).AppendTo(b)
		case a.k == argInt && (verb == 'd' || verb == 'v'):
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

// Append appends key's text in lang (T), filled with args (Appendf).
func Append(b []byte, lang, key string, args ...Arg) []byte {
	return Appendf(b, T(lang, key), args...)
}

// fmtAppendf is Appendf through fmt, for what Appendf does not know.
func fmtAppendf(b []byte, format string, args []Arg) []byte {
	vs := make([]any, len(args))
	for i, a := range args {
		vs[i] = a.Value()
	}
	return fmt.Appendf(b, format, vs...)
}

// Arg is one argument of Appendf.
type Arg struct {
	s string
	b []byte
	n int64
	k argKind
}

type argKind uint8

const (
	argString argKind = iota
	argBytes
	argDecimal
	argInt
	argTime
)

// Str is a string argument.
func Str(s string) Arg { return Arg{s: s} }

// Bytes is a string argument held in bytes: words just written into a
// scratch buffer, which Appendf copies.
func Bytes(b []byte) Arg { return Arg{b: b, k: argBytes} }

// Decimal is n written in decimal, as a string: what a text that takes
// strconv.FormatInt(n, 10) for a %s gets, without the string.
func Decimal(n int64) Arg { return Arg{n: n, k: argDecimal} }

// Int is an integer argument, for %d.
func Int(n int64) Arg { return Arg{n: n, k: argInt} }

// Time is a time argument, for %s: its String.
func Time(t engine.Time) Arg { return Arg{n: int64(t), k: argTime} }

// Value is a as fmt takes it.
func (a Arg) Value() any {
	switch a.k {
	case argBytes:
		return string(a.b)
	case argDecimal:
		return strconv.FormatInt(a.n, 10)
	case argInt:
		return a.n
	case argTime:
		return engine.Time(a.n)
	}
	return a.s
}
