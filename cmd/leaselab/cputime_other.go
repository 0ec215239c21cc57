//go:build !unix

package main

import "time"

// cpuTime is unknown here: a server charges the search's wall time.
func cpuTime() time.Duration { return 0 }
