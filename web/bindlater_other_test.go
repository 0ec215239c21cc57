//go:build !linux

package web

import "syscall"

// bindLater is Linux's IP_BIND_ADDRESS_NO_PORT (bindlater_linux_test.go);
// elsewhere the dialer binds as usual.
func bindLater(_, _ string, _ syscall.RawConn) error { return nil }
