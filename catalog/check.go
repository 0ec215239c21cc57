package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"sync"

	"leaselab/engine"
)

// The words of an author's tools: every problem `leaselab check` reports,
// and the errors of the engine and the course such a problem quotes (an
// option that does not read, a predicate, a duration). Unlike the rest of
// the catalog they are found by their English format, exactly as the Go
// source writes it (the message's id, as gettext has it): the checks
// write English, and a language that has the format says it in its own
// words (check_id.go). A test (labs/check_words_test.go) fails when a
// format in the source has no Indonesian, so the two cannot drift apart.

// messages are each language's formats, by their English format.
var messages = map[string]map[string]string{}

// registerMessages adds m's formats to lang's; like register, it returns
// true to be called from a package-level declaration.
func registerMessages(lang string, m map[string]string) bool {
	if messages[lang] == nil {
		messages[lang] = map[string]string{}
	}
	for k, v := range m {
		messages[lang][k] = v
	}
	return true
}

// MessageFormat is lang's format for the English format en.
func MessageFormat(lang, en string) (string, bool) {
	s, ok := messages[lang][en]
	return s, ok
}

// MessageFormats lists the English formats lang says, sorted.
func MessageFormats(lang string) []string {
	out := make([]string, 0, len(messages[lang]))
	for k := range messages[lang] {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Message says in lang what fmt.Sprintf(format, args...) says in English:
// lang's format filled with the arguments, each said in lang in turn (a
// value with an In(lang) method by it, an error by MessageError, a text by
// MessageText: a fragment such as "a lab file", or a message made of a
// known format). Without lang's format, or in English, it is the English.
func Message(lang, format string, args ...any) string {
	f, ok := MessageFormat(lang, format)
	if !ok {
		return fmt.Sprintf(format, args...)
	}
	said := make([]any, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case interface{ In(lang string) string }:
			said[i] = a.In(lang) // a value that says itself in each language
		case error:
			said[i] = MessageError(lang, a)
		case engine.Time:
			said[i] = TimeText(lang, a) // a duration, "10 dtk"; a moment says itself (In)
		case string:
			said[i] = MessageText(lang, a)
		default:
			said[i] = a
		}
	}
	// A %q of the English quotes what the author wrote: it stays quoted
	// as it was, whatever the language says around it.
	return fmt.Sprintf(f, quotedArgs(format, args, said)...)
}

// quotedArgs is said, with each argument the English format quotes (%q)
// given back as it was: a quoted value is the author's, not a sentence.
func quotedArgs(format string, args, said []any) []any {
	for _, v := range verbsOf(format) {
		if v.arg < len(args) && v.verb == 'q' {
			said[v.arg] = args[v.arg]
		}
	}
	return said
}

// MessageError says err in lang: a Readable error by its catalog key
// (Error), an error that wraps another as its own words followed by the
// other's, any other by MessageText of what it says.
func MessageError(lang string, err error) string {
	if err == nil {
		return ""
	}
	if r, ok := err.(interface{ Key() string }); ok {
		if _, known := Lookup(lang, r.Key()); known {
			return Error(lang, err)
		}
	}
	if pe, ok := err.(*fs.PathError); ok && lang != "en" {
		// A file the reader named that cannot be read: the system's words
		// are English, its reason is one of a few.
		switch {
		case errors.Is(pe.Err, fs.ErrNotExist):
			return Message(lang, "%s: no such file or folder", pe.Path)
		case errors.Is(pe.Err, fs.ErrPermission):
			return Message(lang, "%s: permission denied", pe.Path)
		}
	}
	text := err.Error()
	if inner := errors.Unwrap(err); inner != nil {
		if in := inner.Error(); in != text && strings.HasSuffix(text, in) {
			if prefix, ok := sayPrefix(lang, text[:len(text)-len(in)]); ok {
				return prefix + MessageError(lang, inner)
			}
		}
		if inner.Error() == text {
			return MessageError(lang, inner)
		}
	}
	return MessageText(lang, text)
}

// MessageText says in lang an English text made by one of the formats,
// or one of the fragments (a format without verbs, such as "a lab file"):
// the first format, most specific first, that makes the whole text; its
// %s, %v and %w parts said in turn. A text no format makes, an id or a
// value, stays as it is.
func MessageText(lang, text string) string {
	if text == "" || lang == "en" {
		return text
	}
	if s, ok := messages[lang][text]; ok && !strings.Contains(text, "%") {
		return s
	}
	for _, p := range patternsOf(lang) {
		if m := p.full.FindStringSubmatch(text); m != nil {
			return p.fill(lang, p.parts(p.full, m), false)
		}
	}
	return text
}

// sayPrefix says in lang the words an error that wraps another puts
// before it ("worker W1: "): the format ending in %w that makes them.
func sayPrefix(lang, prefix string) (string, bool) {
	for _, p := range patternsOf(lang) {
		if !p.wrap {
			continue
		}
		if m := p.prefix.FindStringSubmatch(prefix); m != nil {
			return p.fill(lang, p.parts(p.prefix, m), true), true
		}
	}
	return "", false
}

// pattern is one English format as an expression that matches what it
// makes, with lang's format to say it.
type pattern struct {
	en, lang string
	full     *regexp.Regexp // what the format makes
	prefix   *regexp.Regexp // a format ending in %w: the words before it
	verbs    []verb         // the English format's
	wrap     bool           // the format ends in %w
	literal  int            // characters of the format outside its verbs
}

// got is what a predicate's error puts for GOT: the word it found,
// quoted, or "the end".
const got = `(?P<got>"(?:[^"\\]|\\.)*"|the end)`

// parts are the verbs' parts of m, a match of re; the part GOT matched,
// said in lang, comes last (fill puts it where lang's format says GOT).
func (p pattern) parts(re *regexp.Regexp, m []string) []string {
	var out []string
	gotAt := -1
	for i, name := range re.SubexpNames()[1:] {
		if name == "got" {
			gotAt = i + 1
			continue
		}
		out = append(out, m[i+1])
	}
	if gotAt > 0 {
		out = append(out, m[gotAt])
	}
	return out
}

// fill is lang's format with the parts the English format's verbs
// matched, in the English order: a quoted or a number part as it was, a
// time as lang writes a duration, any other said in lang. With prefix, the parts are those before the final
// %w, and so is what fill says.
func (p pattern) fill(lang string, parts []string, prefix bool) string {
	said := make([]string, len(parts))
	for i, s := range parts {
		if i >= len(p.verbs) || (p.verbs[i].verb != 'q' && p.verbs[i].verb != 'd') {
			if t, err := engine.ParseTime(s); err == nil && t.String() == s {
				s = TimeText(lang, t) // a time the engine wrote, "30s": "30 dtk"
			} else {
				s = MessageText(lang, s) // a verb's text, or GOT's "the end"
			}
		}
		said[i] = s
	}
	gotSaid := ""
	if len(said) > len(p.verbs) {
		gotSaid = said[len(said)-1]
	}
	format := p.lang
	if prefix {
		format = strings.TrimSuffix(format, "%w")
	}
	var b strings.Builder
	next := 0
	for _, v := range verbsOf(format) {
		b.WriteString(strings.ReplaceAll(format[next:v.start], "%%", "%"))
		if v.arg < len(said) {
			b.WriteString(said[v.arg])
		}
		next = v.end
	}
	b.WriteString(strings.ReplaceAll(format[next:], "%%", "%"))
	return strings.ReplaceAll(b.String(), "GOT", gotSaid)
}

// verb is one verb of a format: where it is, which argument it takes
// (0-based) and its letter.
type verb struct {
	start, end, arg int
	verb            byte
}

var verbRE = regexp.MustCompile(`%(?:\[(\d+)\])?[-+# 0]*\d*(?:\.\d+)?([a-zA-Z%])`)

// verbsOf lists format's verbs ("%%" is none).
func verbsOf(format string) []verb {
	var out []verb
	arg := 0
	for _, m := range verbRE.FindAllStringSubmatchIndex(format, -1) {
		letter := format[m[4]]
		if letter == '%' {
			continue
		}
		if m[2] >= 0 {
			fmt.Sscan(format[m[2]:m[3]], &arg)
			arg--
		}
		out = append(out, verb{m[0], m[1], arg, letter})
		arg++
	}
	return out
}

var (
	patternsMu sync.Mutex
	patterns   = map[string][]pattern{}
)

// patternsOf is lang's formats as patterns, the most specific (the most
// literal text) first.
func patternsOf(lang string) []pattern {
	patternsMu.Lock()
	defer patternsMu.Unlock()
	if ps, ok := patterns[lang]; ok {
		return ps
	}
	var ps []pattern
	for en, said := range messages[lang] {
		vs := verbsOf(en)
		if len(vs) == 0 && !strings.Contains(en, "GOT") && !strings.Contains(en, "%") {
			continue // a fragment: MessageText finds it whole
		}
		p := pattern{en: en, lang: said, verbs: vs}
		p.wrap = len(vs) > 0 && vs[len(vs)-1].verb == 'w' && vs[len(vs)-1].end == len(en)
		var b strings.Builder
		next := 0
		quote := func(lit string) string {
			// A predicate's error says what it found where its format
			// says GOT.
			parts := strings.Split(lit, "GOT")
			for i := range parts {
				parts[i] = regexp.QuoteMeta(parts[i])
			}
			return strings.Join(parts, got)
		}
		for i, v := range vs {
			lit := strings.ReplaceAll(en[next:v.start], "%%", "%")
			b.WriteString(quote(lit))
			p.literal += len(lit)
			if p.wrap && i == len(vs)-1 {
				p.prefix = regexp.MustCompile("(?s)^" + b.String() + "$")
			}
			switch v.verb {
			case 'q':
				b.WriteString(`("(?:[^"\\]|\\.)*"|` + "`[^`]*`" + `)`)
			case 'd':
				b.WriteString(`(-?\d+)`)
			default:
				b.WriteString(`(.*?)`)
			}
			next = v.end
		}
		lit := strings.ReplaceAll(en[next:], "%%", "%")
		p.literal += len(lit)
		if p.literal == 0 {
			continue // "%s" would make every text
		}
		b.WriteString(quote(lit))
		p.full = regexp.MustCompile("(?s)^" + b.String() + "$")
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].literal != ps[j].literal {
			return ps[i].literal > ps[j].literal
		}
		return ps[i].en < ps[j].en
	})
	patterns[lang] = ps
	return ps
}
