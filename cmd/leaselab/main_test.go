package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// serveChildEnv makes the test binary a leaselab server: a test starts it
// again as a second process (TestTwoReplicasOnePostgres).
const serveChildEnv = "LEASELAB_TEST_SERVE_CHILD"

// TestMain keeps the class database of every server the tests start in a
// temporary folder (serve reads LEASELAB_DATA), not beside the sources.
func TestMain(m *testing.M) {
	if os.Getenv(searchProcessEnv) == "1" || os.Getenv(loadChildEnv) == "1" { // a search a server started, a load's classes
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	if os.Getenv(serveChildEnv) == "1" {
		os.Exit(serveCmd(os.Args[1:], os.Stdout, os.Stderr))
	}
	// serve tunes the collector of the process it runs in (GOGC 20 and a
	// memory limit, serve.go) unless the environment sets them. The tests
	// run serve inside this process: without these, every test after the
	// first serve (the course's checks among them) spent two fifths of its
	// CPU collecting garbage. Most of the rest is searches and judgements,
	// whose heap is a few MB of short-lived worlds: the collector runs a
	// quarter as often as at the default (as check's own searches do,
	// check.go), which takes a tenth off their CPU.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	for k, v := range map[string]string{"GOGC": "400", "GOMEMLIMIT": "off"} {
		if os.Getenv(k) == "" {
			os.Setenv(k, v)
		}
	}
	dir, err := os.MkdirTemp("", "leaselab-data-")
	if err != nil {
		panic(err)
	}
	os.Setenv("LEASELAB_DATA", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
