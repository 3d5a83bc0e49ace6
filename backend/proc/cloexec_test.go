package proc

import (
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Both ways of inheritNothing leave a descriptor that would have been
// inherited (dup'd without close-on-exec) close-on-exec.
func TestInheritNothing(t *testing.T) {
	for name, f := range map[string]func() error{"close_range": inheritNothing, "/proc/self/fd": cloexecListed} {
		fd, err := syscall.Dup(1)
		if err != nil {
			t.Fatal(err)
		}
		if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC != 0 {
			t.Fatal("dup'd with close-on-exec")
		}
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		syscall.Close(fd)
		if err != nil || flags&unix.FD_CLOEXEC == 0 {
			t.Fatalf("%s: flags %#x %v", name, flags, err)
		}
	}
}
