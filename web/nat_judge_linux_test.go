package web

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// lowestPriority puts this process's threads at the lowest CPU priority,
// as leaselab judge --background does (cmd/leaselab/background_linux.go).
func lowestPriority() {
	for range 2 {
		tasks, _ := os.ReadDir("/proc/self/task")
		for _, t := range tasks {
			if tid, err := strconv.Atoi(t.Name()); err == nil {
				attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}
				unix.SchedSetAttr(tid, &attr, 0)
				syscall.Setpriority(syscall.PRIO_PROCESS, tid, 19)
			}
		}
	}
}
