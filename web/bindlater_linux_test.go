package web

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// bindLater lets a dialer that names its local address leave the port to
// connect: bind then need not find a port free for every destination,
// which with thousands of sockets from one address costs the kernel
// seconds (TestIdleConnectionsCannotStarveStudents).
func bindLater(_, _ string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_BIND_ADDRESS_NO_PORT, 1)
	})
	if err != nil {
		return err
	}
	return serr
}
