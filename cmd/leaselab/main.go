// Command leaselab serves the leaselab course and runs its tools.
//
// It only parses arguments and wires parts together; the work is done by
// the web, labs and engine packages.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// command is one subcommand: its name, one line for the command list, and
// the function that runs it with the arguments after its name.
type command struct {
	name, args, summary string
	run                 func(args []string, stdout, stderr io.Writer) int
}

// commands is the subcommand list, in the order "leaselab --help" shows it.
// It is filled in init because help refers back to it.
var commands []command

func init() {
	commands = []command{
		{"serve", "[flags]", "serve the course in the browser (the default command)", serveCmd},
		{"check", "[DIR] [flags]", "validate course content and run every question in the engine", checkCmd},
		{"run", "LAB|FILE [flags]", "run a lab's scenario headless and print its trace", runCmd},
		{"search", "LAB|FILE [flags]", "try every fault schedule within a lab's bounds: prove it or break it", searchCmd},
		{"judge", "LAB [flags] < PROGRAM", "judge a written worker as Submit does, printing one JSON line (what a server runs)", judgeCmd},
		{"new", "lab|lesson ID [DIR]", "write the skeleton of a new lab or lesson into a course folder", newCmd},
		{"export", "DIR", "write the embedded course into DIR, a folder to start your own from", exportCmd},
		{"schema", "[course|lab]", "print the JSON Schema of course.yaml or lab.yaml, for editor completion", schemaCmd},
		{"class", "new [flags]", "open a class (class mode): print its join code, join link and instructor link", classCmd},
		{"load", "[flags]", "play many live sessions against a local server and measure it", loadCmd},
		{"version", "", "print the version and build of this binary", versionCmd},
		{"help", "[COMMAND]", "list the commands, or explain one", helpCmd},
	}
}

// run dispatches a subcommand and returns the exit code: 0 done, 1 failed,
// 2 a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return serveCmd(nil, stdout, stderr)
	}
	switch args[0] {
	case "-h", "-help", "--help":
		return helpCmd(args[1:], stdout, stderr)
	case "-version", "--version", "-v":
		return versionCmd(args[1:], stdout, stderr)
	}
	if strings.HasPrefix(args[0], "-") {
		// Flags without a command are serve's: leaselab --addr :9000.
		return serveCmd(args, stdout, stderr)
	}
	if c := findCommand(args[0]); c != nil {
		return c.run(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "leaselab: unknown command %q\n\n", args[0])
	writeUsage(stderr)
	return 2
}

func findCommand(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// writeUsage lists every command with one line each.
func writeUsage(w io.Writer) {
	fmt.Fprint(w, "leaselab — learn leases, fencing tokens and safe renewal\n\nusage: leaselab [COMMAND] [ARGS] [FLAGS]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %-20s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprint(w, "\nWithout a command, leaselab serves. \"leaselab COMMAND --help\" explains a command and its flags;\nflags may come before or after the arguments.\n")
}

// helpCmd lists the commands, or explains the one named.
func helpCmd(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		writeUsage(stdout)
		return 0
	case len(args) > 1:
		return usageError(stderr, "help", "takes at most one command")
	}
	c := findCommand(args[0])
	if c == nil || c.name == "help" {
		if c != nil {
			writeUsage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "leaselab help: unknown command %q\n\n", args[0])
		writeUsage(stderr)
		return 2
	}
	return c.run([]string{"--help"}, stdout, stderr)
}

// usageError reports a mistake in how a command was called, in the
// locale's language: exit code 2. A command whose flags are parsed says
// it in its reader's language (cmdFlags.fail).
func usageError(stderr io.Writer, cmd, format string, args ...any) int {
	return usageErrorIn(stderr, localeLang(), cmd, format, args...)
}

// usageErrorIn is usageError in lang: the mistake in lang's words where
// the catalog has them (sayMsg), and where to read how the command is
// used.
func usageErrorIn(stderr io.Writer, lang, cmd, format string, args ...any) int {
	more := fmt.Sprintf("Run \"leaselab %s --help\" for usage.", cmd)
	if lang != "" && lang != "en" {
		more = sayMsg(lang, "Run \"leaselab %s --help\" for usage.", cmd)
	}
	fmt.Fprintf(stderr, "leaselab %s: %s\n%s\n", cmd, sayMsg(lang, format, args...), more)
	return 2
}
