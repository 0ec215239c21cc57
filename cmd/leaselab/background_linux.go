package main

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// background puts every thread of this process at the lowest CPU
// priority Linux has for a process that still runs (SCHED_IDLE, and nice
// 19 where that is refused): it runs only on what nothing else of normal
// priority wants, so a server's search never slows the students the server
// answers. Linux keeps a priority per thread and a new thread inherits its
// creator's, so the threads that already run are lowered one by one
// (twice over, for any thread started meanwhile).
func background() error {
	if os.Getenv(backgroundEnv) == "off" {
		return nil
	}
	var last error
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}
			if err := unix.SchedSetAttr(tid, &attr, 0); err != nil {
				last = err
			}
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, 19); err != nil {
				last = err
			}
		}
	}
	return last
}
