package main

import (
	"fmt"
	"io"
)

// runCmd runs a lab headless. Owned by the labs work.
func runCmd(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "leaselab run: not built yet")
	return 1
}
