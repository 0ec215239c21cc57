package main

import (
	"fmt"
	"io"
)

// checkCmd validates course content. Owned by the labs work.
func checkCmd(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "leaselab check: not built yet")
	return 1
}
