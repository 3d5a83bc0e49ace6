package unixsock

import (
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// Cred is a connected peer's credentials as the kernel recorded them when
// it connected (SO_PEERCRED).
type Cred struct {
	PID      int32
	UID, GID uint32
}

// PeerCred returns the credentials of c's peer. c must be a Unix socket
// connection (anything with a syscall.Conn of one).
func PeerCred(c net.Conn) (Cred, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return Cred{}, fmt.Errorf("peer credentials: %T is not a socket", c)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return Cred{}, fmt.Errorf("peer credentials: %w", err)
	}
	var u *unix.Ucred
	var uerr error
	if err := rc.Control(func(fd uintptr) {
		u, uerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return Cred{}, fmt.Errorf("peer credentials: %w", err)
	}
	if uerr != nil {
		return Cred{}, fmt.Errorf("peer credentials: %w", uerr)
	}
	return Cred{PID: u.Pid, UID: u.Uid, GID: u.Gid}, nil
}
