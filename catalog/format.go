package catalog

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

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
	return appendf(b, "", format, args)
}

// appendf is Appendf writing times as lang writes them (AppendTime); lang
// "" writes them as the engine's trace does.
func appendf(b []byte, lang, format string, args []Arg) []byte {
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
				return fmtAppendf(b[:start], lang, format, args)
			}
			digits := format[i+1 : i+end]
			n, err := strconv.Atoi(digits)
			if err != nil || strings.Trim(digits, "0123456789") != "" || n < 1 || n > len(args) {
				return fmtAppendf(b[:start], lang, format, args)
			}
			next, reordered = n-1, true
			i += end + 1
		}
		if i >= len(format) || next >= len(args) {
			return fmtAppendf(b[:start], lang, format, args)
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
			b = AppendTime(b, lang, engine.Time(a.n))
		case a.k == argMoment && (verb == 's' || verb == 'v'):
			b = AppendMoment(b, lang, engine.Time(a.n))
		case a.k == argInt && (verb == 'd' || verb == 'v'):
			b = strconv.AppendInt(b, a.n, 10)
		case a.k == argCount && (verb == 'd' || verb == 'v'):
			b = appendCount(b, T(lang, "num.group"), a.n)
		default:
			return fmtAppendf(b[:start], lang, format, args)
		}
		next++
		i++
	}
	if !reordered && next < len(args) {
		return fmtAppendf(b[:start], lang, format, args) // fmt notes the extra
	}
	return b
}

// Append appends key's text in lang (T), filled with args (Appendf), its
// times written as lang writes them (AppendTime).
func Append(b []byte, lang, key string, args ...Arg) []byte {
	return appendf(b, lang, T(lang, key), args)
}

// fmtAppendf is appendf through fmt, for what appendf does not know.
func fmtAppendf(b []byte, lang, format string, args []Arg) []byte {
	vs := make([]any, len(args))
	for i, a := range args {
		vs[i] = a.Value()
		if a.k == argTime && lang != "" {
			vs[i] = string(AppendTime(nil, lang, engine.Time(a.n)))
		}
		if a.k == argMoment && lang != "" {
			vs[i] = string(AppendMoment(nil, lang, engine.Time(a.n)))
		}
	}
	return fmt.Appendf(b, format, vs...)
}

// AppendTime appends t as a student reading lang reads a time or a
// duration: the number as the engine's trace writes it ("1.5s", "250ms",
// "10m", "1h"), its decimal mark (AppendNumber) and unit in lang's words (time.ms, time.s, time.m, time.h: "1,5 dtk", "1 jam"), and a time that
// never comes as time.never ("tanpa batas waktu"). Lang "" is the trace's
// own form. A language writes one unit for seconds everywhere this way:
// events, commands, controls, the status bar and the diagram's ticks.
func AppendTime(b []byte, lang string, t engine.Time) []byte {
	if lang == "" {
		return t.AppendTo(b)
	}
	w := numberWordsOf(lang)
	if w.plain {
		return t.AppendTo(b)
	}
	if t == engine.Never {
		return append(b, w.never...)
	}
	return appendTimeWords(b, w, t)
}

// AppendMoment appends t as a moment of the run ("at 4s"), where
// AppendTime writes a duration: in a language with a word for it
// (time.at: "detik ke-%s"), the number of seconds in it, "detik ke-4",
// "detik ke-12,5"; otherwise as AppendTime. A student then tells "4 dtk"
// (how long) from "detik ke-4" (when) at a glance.
func AppendMoment(b []byte, lang string, t engine.Time) []byte {
	if lang == "" {
		return t.AppendTo(b)
	}
	w := numberWordsOf(lang)
	if w.at[0] == "" && w.at[1] == "" || t == engine.Never || t < 0 {
		return AppendTime(b, lang, t)
	}
	b = append(b, w.at[0]...)
	ms := int64(t / engine.Millisecond)
	b = strconv.AppendInt(b, ms/1000, 10)
	if frac := ms % 1000; frac != 0 {
		b = append(b, w.point...)
		digits := strconv.AppendInt(nil, 1000+frac, 10)[1:]
		for len(digits) > 0 && digits[len(digits)-1] == '0' {
			digits = digits[:len(digits)-1]
		}
		b = append(b, digits...)
	}
	return append(b, w.at[1]...)
}

// MomentText is t as AppendMoment writes it, as a string.
func MomentText(lang string, t engine.Time) string { return string(AppendMoment(nil, lang, t)) }

// appendTimeWords is AppendTime in w's words, for a time that comes.
func appendTimeWords(b []byte, w *numberWords, t engine.Time) []byte {
	var scratch [32]byte
	trace := t.AppendTo(scratch[:0])
	end := len(trace) // the number ends where the unit's letters begin
	for end > 0 && trace[end-1] >= 'a' && trace[end-1] <= 'z' {
		end--
	}
	unit := unitS
	switch string(trace[end:]) { // compared without a string: Go elides it
	case "ms":
		unit = unitMS
	case "m":
		unit = unitM
	case "h":
		unit = unitH
	}
	u := w.units[unit]
	b = append(b, u[0]...)
	for _, c := range trace[:end] {
		if c == '.' {
			b = append(b, w.point...)
		} else {
			b = append(b, c)
		}
	}
	return append(b, u[1]...)
}

// numberWords are what a language writes around numbers and times, looked
// up once: a picture writes hundreds of times, and a catalog lookup each
// was a fifth of drawing one.
type numberWords struct {
	lang  string
	plain bool // the language writes times as the engine's trace does (English)
	never string
	point string
	units [4][2]string // by unitMS...unitH: the words before and after the number
	at    [2]string    // a moment's words before and after its seconds (time.at), none when the language has no such key
}

// The units of a time, in the order of their keys.
const (
	unitMS = iota
	unitS
	unitM
	unitH
)

var unitKeys = [4]string{"time.ms", "time.s", "time.m", "time.h"}

var allNumberWords = sync.OnceValue(func() []numberWords {
	var all []numberWords
	for _, lang := range Langs() {
		w := numberWords{lang: lang, point: T(lang, "number.point"), never: T(lang, "time.never")}
		if at, ok := texts[lang]["time.at"]; ok {
			before, after, _ := strings.Cut(at, "%s")
			w.at = [2]string{before, after}
		}
		for i, k := range unitKeys {
			before, after, _ := strings.Cut(T(lang, k), "%s")
			w.units[i] = [2]string{before, after}
		}
		w.plain = true
		for _, t := range []engine.Time{0, 250 * engine.Millisecond, 1500 * engine.Millisecond, 10 * engine.Minute, engine.Hour, engine.Never} {
			var own []byte
			if t == engine.Never {
				own = []byte(w.never)
			} else {
				own = appendTimeWords(nil, &w, t)
			}
			w.plain = w.plain && string(own) == string(t.AppendTo(nil))
		}
		all = append(all, w)
	}
	return all
})

// numberWordsOf is lang's numberWords, else the default language's. A
// scan of two or three short names is cheaper than a map's hash.
func numberWordsOf(lang string) *numberWords {
	all := allNumberWords()
	for i := range all {
		if all[i].lang == lang {
			return &all[i]
		}
	}
	for i := range all {
		if all[i].lang == Default {
			return &all[i]
		}
	}
	return &all[0]
}

// TimeText is t as AppendTime writes it, as a string.
func TimeText(lang string, t engine.Time) string { return string(AppendTime(nil, lang, t)) }

// AppendNumber appends number, written with a decimal point as Go writes
// it, with lang's decimal mark instead (number.point: "0,125" in
// Indonesian); lang "" keeps the point.
func AppendNumber(b []byte, lang string, number []byte) []byte {
	point := "."
	if lang != "" {
		point = numberWordsOf(lang).point
	}
	for _, c := range number {
		if c == '.' {
			b = append(b, point...)
			continue
		}
		b = append(b, c)
	}
	return b
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
	argCount
	argMoment
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

// Count is a count for %d written with lang's thousands separator
// (num.group): "1,149,332" in English, "1.149.332" in Indonesian.
func Count(n int64) Arg { return Arg{n: n, k: argCount} }

// appendCount appends n in decimal, its digits grouped by threes with sep.
func appendCount(b []byte, sep string, n int64) []byte {
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	var scratch [24]byte
	digits := strconv.AppendInt(scratch[:0], n, 10)
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b = append(b, sep...)
		}
		b = append(b, d)
	}
	return b
}

// Time is a time argument, for %s: its String.
func Time(t engine.Time) Arg { return Arg{n: int64(t), k: argTime} }

// Moment is a time argument for %s that says a moment of the run, not a
// duration (AppendMoment): "detik ke-4" in Indonesian.
func Moment(t engine.Time) Arg { return Arg{n: int64(t), k: argMoment} }

// Value is a as fmt takes it.
func (a Arg) Value() any {
	switch a.k {
	case argBytes:
		return string(a.b)
	case argDecimal:
		return strconv.FormatInt(a.n, 10)
	case argInt, argCount:
		return a.n
	case argTime, argMoment:
		return engine.Time(a.n)
	}
	return a.s
}
