package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// awaitExit returns once child pid has exited (it is then a zombie, not
// reaped yet), waiting in the netpoller on a pidfd, so that no thread is
// held for a child that runs for hours: a supervisor has one such child,
// a dashboard one per session it started. Where pidfds are not available
// it returns at once, and the caller's Wait holds a thread, as any
// os/exec wait does.
func awaitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd") // non-blocking: the netpoller watches it
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	// Readable once the child has exited; each wake-up checks, leaving
	// the child to be reaped (WNOWAIT) by the caller's Wait.
	rc.Read(func(fd uintptr) bool {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		return err != nil || info.Signo != 0
	})
}
