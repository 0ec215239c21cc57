package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
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

// usage writes the command's explanation and flags.
func (f *cmdFlags) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", f.synopsis, strings.TrimSpace(f.about))
	n := 0
	f.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nflags:")
		f.SetOutput(w)
		f.PrintDefaults()
		f.SetOutput(io.Discard)
	}
	if f.env {
		fmt.Fprintln(w, "\nEvery flag can be set in the environment instead: --max-sessions as LEASELAB_MAX_SESSIONS, and so on.\nA flag on the command line wins over its variable.")
	}
	if f.after != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(f.after))
	}
}

// parse reads flags and positional arguments in any order. It returns the
// positional arguments, or ok false with the exit code: 0 after --help,
// 2 after a mistake (reported on stderr).
func (f *cmdFlags) parse(args []string, stdout, stderr io.Writer) (pos []string, code int, ok bool) {
	for {
		err := f.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			f.usage(stdout)
			return nil, 0, false
		}
		if err != nil {
			return nil, usageError(stderr, f.name, "%v", err), false
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
			bad = fmt.Errorf("%s=%q: %v", envName(fl.Name), v, err)
		}
	})
	if bad != nil {
		return usageError(stderr, f.name, "%v", bad), false
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
