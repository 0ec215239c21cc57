// Command leaselab serves the leaselab course and runs its tools.
package main

import (
	"fmt"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Println(usage)
		return 0
	}
	fmt.Println(usage)
	return 0
}

const usage = `leaselab — learn leases, fencing tokens and safe renewal

usage:
  leaselab [serve]     serve the course (coming with the web issue)
  leaselab help        this text`
