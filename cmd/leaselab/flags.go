package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"leaselab/catalog"
)

// cmdFlags is one command's flag set with the habits every command
// shares: --help explains the command on stdout and exits 0; a mistake
// names itself on stderr and exits 2; flags may come before or after the
// positional arguments; and, where a command asks for it, every flag can
// be set from an environment variable instead (the command line wins).
type cmdFlags struct {
	*flag.FlagSet
	name     string
	synopsis string // "leaselab check [DIR] [flags]"
	about    string // what the command does, a paragraph
	env      bool   // LEASELAB_<FLAG> sets each flag
	after    string // printed after the flags, e.g. a command list
	groups   []flagGroup
	// lang is the language its mistakes are said in: --lang's, when the
	// command has the flag and it is given, else the locale's (Indonesian
	// when LC_ALL, LC_MESSAGES or LANG is, else English). parse sets it
	// before it reads a flag, so that a bad flag is said in it too.
	lang string
}

// flagGroup is a heading of --help and the flags under it.
type flagGroup struct {
	title string
	names []string
}

// group puts the named flags under a heading in --help, in that order;
// flags in no group are listed last.
func (f *cmdFlags) group(title string, names ...string) {
	f.groups = append(f.groups, flagGroup{title, names})
}

func newFlags(name, synopsis, about string) *cmdFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors and usage are printed by parse
	return &cmdFlags{FlagSet: fs, name: name, synopsis: synopsis, about: about}
}

// envName is the environment variable that sets a flag: --max-sessions is
// LEASELAB_MAX_SESSIONS.
func envName(flagName string) string {
	return "LEASELAB_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// usage writes the command's explanation and flags, each as README writes
// it (--max-sessions N), with its default and, where the command reads the
// environment, its variable.
func (f *cmdFlags) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", f.synopsis, strings.TrimSpace(f.about))
	listed := map[string]bool{}
	for _, g := range f.groups {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, name := range g.names {
			if fl := f.Lookup(name); fl != nil {
				f.writeFlag(w, fl)
				listed[name] = true
			}
		}
	}
	var rest []*flag.Flag
	f.VisitAll(func(fl *flag.Flag) {
		if !listed[fl.Name] {
			rest = append(rest, fl)
		}
	})
	if len(rest) > 0 {
		title := "flags"
		if len(f.groups) > 0 {
			title = "Other flags"
		}
		fmt.Fprintf(w, "\n%s:\n", title)
		for _, fl := range rest {
			f.writeFlag(w, fl)
		}
	}
	if f.env {
		fmt.Fprintln(w, "\nA flag on the command line wins over its variable.")
	}
	if f.after != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(f.after))
	}
}

// writeFlag writes one flag of --help: its name and value on one line, what
// it does, its default and its variable below.
func (f *cmdFlags) writeFlag(w io.Writer, fl *flag.Flag) {
	arg, text := flag.UnquoteUsage(fl)
	line := "  --" + fl.Name
	if o, ok := fl.Value.(*oneOf); ok {
		arg = strings.Join(o.from, "|")
	}
	if arg != "" && !isBool(fl) {
		line += " " + arg
	}
	var notes []string
	if def := shortDefault(fl); def != "" {
		notes = append(notes, "default "+def)
	}
	if f.env {
		notes = append(notes, "variable "+envName(fl.Name))
	}
	fmt.Fprintf(w, "%s\n      %s\n", line, text)
	if len(notes) > 0 {
		fmt.Fprintf(w, "      (%s)\n", strings.Join(notes, "; "))
	}
}

// shortDefault is a flag's default as a person writes it (15m, not
// 15m0s), or "" when it is the zero value.
func shortDefault(fl *flag.Flag) string {
	def := fl.DefValue
	if g, ok := fl.Value.(flag.Getter); ok {
		if _, ok := g.Get().(time.Duration); ok {
			if strings.HasSuffix(def, "m0s") {
				def = strings.TrimSuffix(def, "0s")
			}
			if strings.HasSuffix(def, "h0m") {
				def = strings.TrimSuffix(def, "0m")
			}
		}
	}
	if def == "0" || def == "false" || def == "0s" {
		return ""
	}
	return def
}

// isBool reports whether a flag takes no value.
func isBool(fl *flag.Flag) bool {
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// wantValue says what form a flag's value takes, for a message about a
// value it refused; err is the flag's own complaint.
func wantValue(fl *flag.Flag, err error) string {
	g, ok := fl.Value.(flag.Getter)
	if !ok {
		return err.Error()
	}
	switch g.Get().(type) {
	case time.Duration:
		return "want a duration such as 15m or 90s"
	case int, int64, uint, uint64:
		if fl.DefValue == "0" {
			return "want a whole number such as 7"
		}
		return "want a whole number such as " + fl.DefValue
	case float64:
		return "want a number such as " + fl.DefValue
	case bool:
		return "want true or false"
	}
	return err.Error()
}

// flagMessage rewrites the flag package's complaints in the words --help
// uses: "--idle-timeout="15": want a duration such as 15m or 90s", not
// "invalid value "15" for flag -idle-timeout: parse error"; as a format
// and its arguments, which usageErrorIn says in the reader's language.
func (f *cmdFlags) flagMessage(err error) (string, []any) {
	msg := err.Error()
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		if fl := f.Lookup(m[2]); fl != nil {
			return "--%s=%s: %s", []any{m[2], m[1], wantValue(fl, errors.New(m[3]))}
		}
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag --%s", []any{name}
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "--%s needs a value", []any{name}
	}
	return "%s", []any{msg}
}

// langOf is the language a command's mistakes are said in, from its
// arguments before they are parsed (cmdFlags.lang): the value of --lang
// where the command has that flag and it is one of the catalog's
// languages, else the locale's.
func (f *cmdFlags) langOf(args []string) string {
	if f.Lookup("lang") != nil {
		for i, a := range args {
			if a == "--" {
				break
			}
			name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !strings.HasPrefix(a, "-") || name != "lang" {
				continue
			}
			if !hasVal && i+1 < len(args) {
				val = args[i+1]
			}
			if slices.Contains(catalog.Langs(), val) {
				return val
			}
		}
	}
	return localeLang()
}

// fail reports a mistake in how the command was called, in its reader's
// language: exit code 2.
func (f *cmdFlags) fail(stderr io.Writer, format string, args ...any) int {
	return usageErrorIn(stderr, f.lang, f.name, format, args...)
}

// invalidValue is the flag package's message for a value a flag refused.
var invalidValue = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for (?:flag )?-([^:]+): (.*)$`)

// parse reads flags and positional arguments in any order. It returns the
// positional arguments, or ok false with the exit code: 0 after --help,
// 2 after a mistake (reported on stderr).
func (f *cmdFlags) parse(args []string, stdout, stderr io.Writer) (pos []string, code int, ok bool) {
	f.lang = f.langOf(args)
	for {
		err := f.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			f.usage(stdout)
			return nil, 0, false
		}
		if err != nil {
			format, fargs := f.flagMessage(err)
			return nil, f.fail(stderr, format, fargs...), false
		}
		rest := f.Args()
		if len(rest) == 0 {
			break
		}
		// flag stops at "--" (everything after is positional) or at the
		// first argument that is not a flag (more flags may follow it).
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if f.env {
		if code, ok := f.fromEnv(stderr); !ok {
			return nil, code, false
		}
	}
	return pos, 0, true
}

// fromEnv sets every flag not given on the command line from its
// environment variable, when that is set.
func (f *cmdFlags) fromEnv(stderr io.Writer) (int, bool) {
	given := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	var bad error
	f.VisitAll(func(fl *flag.Flag) {
		if given[fl.Name] || bad != nil {
			return
		}
		v, set := os.LookupEnv(envName(fl.Name))
		if !set || v == "" {
			return
		}
		if err := f.Set(fl.Name, v); err != nil {
			bad = fmt.Errorf("%s=%q: %s", envName(fl.Name), v, wantValue(fl, err))
		}
	})
	if bad != nil {
		return f.fail(stderr, "%v", bad), false
	}
	return 0, true
}

// given reports whether a flag was set, on the command line or from the
// environment.
func (f *cmdFlags) given(name string) bool {
	set := false
	f.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// oneOf is a string flag restricted to a list of values.
type oneOf struct {
	val  string
	from []string
}

func newOneOf(def string, from ...string) *oneOf { return &oneOf{val: def, from: from} }

func (o *oneOf) String() string {
	if o == nil {
		return ""
	}
	return o.val
}

func (o *oneOf) Set(v string) error {
	for _, x := range o.from {
		if v == x {
			o.val = v
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(o.from, ", "))
}
