package earlyhook

import (
	"syscall"
	"unsafe"
)

// The raw system calls of the hook (Linux's, as the rest of the binary):
// package syscall has no poll, and os and net, which would offer
// deadlines, are not initialised yet.

const (
	pollIn  = 0x1 // POLLIN
	pollOut = 0x4 // POLLOUT
)

// now is CLOCK_MONOTONIC in nanoseconds.
func now() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0) // 1: CLOCK_MONOTONIC
	return ts.Nano()
}

// deadlineIn is the deadline ms milliseconds from now.
func deadlineIn(ms int64) int64 { return now() + ms*1e6 }

// pollFd is struct pollfd.
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

// wait waits until fd is ready for events (or hung up, or in error: the
// next read or write says which), and reports false when deadline passes
// first or the poll fails.
func wait(fd int, events int16, deadline int64) bool {
	for {
		left := deadline - now()
		if left <= 0 {
			return false
		}
		ts := syscall.NsecToTimespec(left)
		p := pollFd{fd: int32(fd), events: events}
		n, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&p)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		switch {
		case errno == syscall.EINTR:
		case errno != 0:
			return false
		case n > 0:
			return true
		}
	}
}

// readAll appends what fd holds up to EOF to buf, waiting for it at most
// until deadline, and returns it; false when reading fails, deadline
// passes first, or buf would grow beyond limit bytes. fd may be blocking
// (a hook's stdin is the agent's pipe: its flags are not ours to change),
// so each read follows a poll that found data or EOF there.
func readAll(fd int, buf []byte, limit int, deadline int64) ([]byte, bool) {
	for {
		if !wait(fd, pollIn, deadline) {
			return nil, false
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):min(cap(buf), limit+1)])
		switch {
		case err == syscall.EINTR || err == syscall.EAGAIN:
		case err != nil:
			return nil, false
		case n == 0:
			return buf, true
		default:
			buf = buf[:len(buf)+n]
			if len(buf) > limit {
				return nil, false
			}
		}
	}
}

// dial connects a non-blocking Unix stream socket to path before deadline.
func dial(path string, deadline int64) (int, bool) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, false
	}
	switch err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err {
	case nil:
		if ownPeer(fd) {
			return fd, true
		}
	case syscall.EINPROGRESS, syscall.EALREADY, syscall.EINTR:
		// In progress (a Unix socket whose listener's backlog is full
		// fails with EAGAIN instead, as net.Dial does).
		if wait(fd, pollOut, deadline) {
			if e, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ERROR); err == nil && e == 0 && ownPeer(fd) {
				return fd, true
			}
		}
	}
	syscall.Close(fd)
	return -1, false
}

// ownPeer reports whether the server of the connected socket fd runs as
// this user (SO_PEERCRED): a socket another user put in the session's
// place is told nothing of what the agent does.
func ownPeer(fd int) bool {
	u, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	return err == nil && int(u.Uid) == syscall.Geteuid()
}

// writeAll writes b to the non-blocking socket fd before deadline
// (MSG_NOSIGNAL: a peer gone is an error, not SIGPIPE).
func writeAll(fd int, b []byte, deadline int64) bool {
	for len(b) > 0 {
		n, err := syscall.SendmsgN(fd, b, nil, nil, syscall.MSG_NOSIGNAL)
		switch {
		case err == syscall.EAGAIN:
			if !wait(fd, pollOut, deadline) {
				return false
			}
		case err == syscall.EINTR:
		case err != nil:
			return false
		default:
			b = b[n:]
		}
	}
	return true
}
