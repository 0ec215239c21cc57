//go:build !linux

package web

// lowestPriority does nothing here: the judgement runs at normal priority.
func lowestPriority() {}
