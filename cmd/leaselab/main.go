// Command leaselab serves the leaselab course and runs its tools.
//
// It only parses arguments and wires parts together; the work is done by
// the web, labs and engine packages.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a subcommand and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	sub := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "serve":
		return serveCmd(args, stdout, stderr)
	case "check":
		return checkCmd(args, stdout, stderr)
	case "run":
		return runCmd(args, stdout, stderr)
	case "load":
		return loadCmd(args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "leaselab", version)
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "leaselab: unknown command %q\n\n%s", sub, usage)
	return 2
}

var version = "dev"

const usage = `leaselab — learn leases, fencing tokens and safe renewal

usage:
  leaselab [serve] [flags]          serve the course (the default)
  leaselab check [DIR]              validate course content and run every question
  leaselab run LAB|FILE [flags]     run a lab's scenario headless and print its trace
  leaselab load [flags]             play many live sessions against a local server and measure it
  leaselab version                  print the version
  leaselab help                     this text

Run "leaselab COMMAND -h" for a command's flags.
`
