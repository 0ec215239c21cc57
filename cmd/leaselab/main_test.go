package main

import (
	"os"
	"testing"
)

// TestMain keeps the class database of every server the tests start in a
// temporary folder (serve reads LEASELAB_DATA), not beside the sources.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "leaselab-data-")
	if err != nil {
		panic(err)
	}
	os.Setenv("LEASELAB_DATA", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
