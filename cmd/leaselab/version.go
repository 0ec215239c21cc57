package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"leaselab/web"
)

// buildInfo is what this binary knows of its own build, from the module
// version `go install` records or the VCS stamp `go build` in a checkout
// records (runtime/debug). Nothing is set by hand at release time.
func buildInfo() web.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return web.BuildInfo{Version: "unknown"}
	}
	return buildInfoFrom(bi)
}

func buildInfoFrom(bi *debug.BuildInfo) web.BuildInfo {
	b := web.BuildInfo{Version: bi.Main.Version, GoVersion: bi.GoVersion}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	if b.Version == "" {
		b.Version = "(devel)"
	}
	return b
}

// versionLine says which build this is in one line, such as
// "leaselab v1.2.0 (go1.26.8)" or
// "leaselab (devel) 1f2e3d4c5b6a 2026-11-30T10:00:00Z modified (go1.26.8)".
func versionLine(b web.BuildInfo) string {
	parts := []string{"leaselab", b.Version}
	if b.Revision != "" {
		parts = append(parts, b.Revision[:min(12, len(b.Revision))])
	}
	if b.Time != "" {
		parts = append(parts, b.Time)
	}
	if b.Modified {
		parts = append(parts, "modified")
	}
	if b.GoVersion != "" {
		parts = append(parts, "("+b.GoVersion+")")
	}
	return strings.Join(parts, " ")
}

func versionCmd(args []string, stdout, stderr io.Writer) int {
	f := newFlags("version", "leaselab version", "Prints the module version of this binary, or, for a build from a checkout, the\nrevision and commit time it was built from, and the Go version.")
	pos, code, ok := f.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError(stderr, "version", "unexpected argument %q", pos[0])
	}
	fmt.Fprintln(stdout, versionLine(buildInfo()))
	return 0
}
