//go:build !linux

package main

// background would lower this process's CPU priority; only Linux's is
// done here (per thread, see background_linux.go), elsewhere the search
// runs at normal priority and a server's search pool alone spares its
// students.
func background() error { return nil }
