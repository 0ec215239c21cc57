package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Time is virtual time in milliseconds since the world started. It is also
// used for durations. Nothing in the engine reads a real clock.
type Time int64

// Common durations.
const (
	Millisecond Time = 1
	Second      Time = 1000
	Minute      Time = 60 * Second
	Hour        Time = 60 * Minute

	// Never is a time later than any run reaches.
	Never Time = 1<<62 - 1
)

// String formats t compactly: "0s", "1.5s", "30.01s", "250ms", "2m30s".
func (t Time) String() string { return string(t.AppendTo(nil)) }

// AppendTo appends t as String formats it: a live frame writes times
// into its buffer without a string for each.
func (t Time) AppendTo(b []byte) []byte {
	if t == Never {
		return append(b, "never"...)
	}
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	switch {
	case t == 0:
		return append(b, "0s"...)
	case t < Second:
		return append(strconv.AppendInt(b, int64(t), 10), "ms"...)
	case t%Hour == 0:
		return append(strconv.AppendInt(b, int64(t/Hour), 10), 'h')
	case t%Minute == 0 && t >= 10*Minute:
		return append(strconv.AppendInt(b, int64(t/Minute), 10), 'm')
	case t%Second == 0:
		return append(strconv.AppendInt(b, int64(t/Second), 10), 's')
	}
	b = append(strconv.AppendInt(b, int64(t/Second), 10), '.')
	// The milliseconds, three digits without the zeros that end them.
	ms := int(t % Second)
	digits := [3]byte{byte('0' + ms/100), byte('0' + ms/10%10), byte('0' + ms%10)}
	n := 3
	for digits[n-1] == '0' {
		n--
	}
	return append(append(b, digits[:n]...), 's')
}

// ParseTime reads a duration or instant such as "30s", "1.5s", "500ms",
// "2m", "1h", "+3s" or "-250ms". A bare number is milliseconds only when it
// is 0; any other bare number is an error, so "30" never silently means 30 ms.
func ParseTime(s string) (Time, error) {
	orig := s
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	sign := Time(1)
	switch s[0] {
	case '+':
		s = s[1:]
	case '-':
		sign = -1
		s = s[1:]
	}
	if s == "0" {
		return 0, nil
	}
	if s == "never" && sign == 1 {
		return Never, nil
	}
	var unit Time
	var num string
	switch {
	case strings.HasSuffix(s, "ms"):
		unit, num = Millisecond, s[:len(s)-2]
	case strings.HasSuffix(s, "s"):
		unit, num = Second, s[:len(s)-1]
	case strings.HasSuffix(s, "m"):
		unit, num = Minute, s[:len(s)-1]
	case strings.HasSuffix(s, "h"):
		unit, num = Hour, s[:len(s)-1]
	default:
		return 0, fmt.Errorf("duration %q needs a unit (ms, s, m or h)", orig)
	}
	whole, frac, hasFrac := strings.Cut(num, ".")
	if whole == "" && !hasFrac {
		return 0, fmt.Errorf("duration %q has no number", orig)
	}
	if whole == "" {
		whole = "0"
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w < 0 {
		return 0, fmt.Errorf("duration %q is not a number", orig)
	}
	if w > int64(Never/unit)/2 {
		return 0, fmt.Errorf("duration %q is too large", orig)
	}
	v := Time(w) * unit
	if hasFrac {
		if frac == "" || len(frac) > 9 {
			return 0, fmt.Errorf("duration %q is not a number", orig)
		}
		f, err := strconv.ParseInt(frac, 10, 64)
		if err != nil || f < 0 {
			return 0, fmt.Errorf("duration %q is not a number", orig)
		}
		scale := int64(1)
		for range len(frac) {
			scale *= 10
		}
		part := f * int64(unit) / scale
		if f*int64(unit)%scale != 0 {
			return 0, fmt.Errorf("duration %q is finer than a millisecond", orig)
		}
		v += Time(part)
	}
	return sign * v, nil
}
