//go:build unix

package web

import "syscall"

// fileLimit is the process's limit of open files (RLIMIT_NOFILE, the soft
// one: Go raises it to the hard one at start), or 0 when unknown.
func fileLimit() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur > 1<<30 {
		return 0
	}
	return int(r.Cur)
}
