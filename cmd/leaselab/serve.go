package main

import (
	"fmt"
	"io"
)

// serveCmd serves the course. Owned by the web work.
func serveCmd(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stdout, "leaselab: the web server is not built yet; the engine is (see go doc ./engine)")
	return 0
}
