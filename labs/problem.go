package labs

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"leaselab/catalog"
)

// Problem is one thing wrong with the content, at a place in a file.
// Line and Col are 1-based; 0 means the whole file.
type Problem struct {
	File      string
	Line, Col int
	Msg       string
	Warning   bool // a missing translation: the content still works

	// A knock-on problem follows from another (its cause, at causeAt):
	// it is listed right after the cause, wherever it is itself; why says
	// how, in English ("see the unknown heading at").
	knockOn bool
	causeAt pos
	why     string

	// The message as the check made it: Msg is format filled with args,
	// in English; In says it in another language (catalog.Message).
	format string
	args   []any
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, max(p.Col, 1))
	}
	b.WriteString(": ")
	if p.Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// In is the problem as String says it, in lang: the place as it is, the
// message in lang's words where the catalog has them (catalog.Message),
// the author's own text (ids, values, quoted commands) as they wrote it.
// English, and a message the catalog lacks, are String's.
func (p Problem) In(lang string) string {
	if lang == "en" {
		return p.String()
	}
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, max(p.Col, 1))
	}
	b.WriteString(": ")
	if p.Warning {
		b.WriteString(catalog.MessageText(lang, "warning") + ": ")
	}
	if p.format != "" {
		b.WriteString(catalog.Message(lang, p.format, p.args...))
		if p.knockOn {
			b.WriteString(catalog.Message(lang, " (%s %s:%d)", p.why, p.causeAt.file, p.causeAt.line))
		}
	} else {
		b.WriteString(catalog.MessageText(lang, p.Msg))
	}
	return b.String()
}

// Problems is every problem found in the content. As an error it stands
// for the errors among them; warnings alone are not an error (see Err).
type Problems []Problem

func (ps Problems) Error() string {
	var lines []string
	for _, p := range ps {
		lines = append(lines, p.String())
	}
	return strings.Join(lines, "\n")
}

// Errors counts the problems that are not warnings.
func (ps Problems) Errors() int {
	n := 0
	for _, p := range ps {
		if !p.Warning {
			n++
		}
	}
	return n
}

// Err is ps as an error when it holds at least one error, else nil.
func (ps Problems) Err() error {
	if ps.Errors() == 0 {
		return nil
	}
	return ps
}

func (ps Problems) sorted() Problems {
	out := slices.Clone(ps)
	key := func(p Problem) (string, int, int, int) {
		if p.knockOn {
			return p.causeAt.file, p.causeAt.line, p.causeAt.col, 1
		}
		return p.File, p.Line, p.Col, 0
	}
	slices.SortStableFunc(out, func(a, b Problem) int {
		af, al, ac, ak := key(a)
		bf, bl, bc, bk := key(b)
		return cmp.Or(cmp.Compare(af, bf), cmp.Compare(al, bl), cmp.Compare(ac, bc), cmp.Compare(ak, bk))
	})
	return out
}

// pos is a place in a file.
type pos struct {
	file      string
	line, col int
}

// report collects problems while loading.
type report struct {
	ps Problems
}

func (r *report) errorf(at pos, format string, args ...any) {
	r.ps = append(r.ps, Problem{File: at.file, Line: at.line, Col: at.col, Msg: fmt.Sprintf(format, args...), format: format, args: args})
}

// causedBy marks the problems reported since the n-th as knock-on
// effects of a problem at cause, so that they are listed after it.
func (r *report) causedBy(n int, cause pos, why string) {
	for i := n; i < len(r.ps); i++ {
		r.ps[i].knockOn, r.ps[i].causeAt, r.ps[i].why = true, cause, why
		r.ps[i].Msg += fmt.Sprintf(" (%s %s:%d)", why, cause.file, cause.line)
	}
}

func (r *report) warnf(at pos, format string, args ...any) {
	r.ps = append(r.ps, Problem{File: at.file, Line: at.line, Col: at.col, Msg: fmt.Sprintf(format, args...), Warning: true, format: format, args: args})
}
