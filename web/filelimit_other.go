//go:build !unix

package web

// fileLimit is unknown here; DefaultConnLimits keeps its defaults.
func fileLimit() int { return 0 }
