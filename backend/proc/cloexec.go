package proc

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeRangeCloexec is CLOSE_RANGE_CLOEXEC (linux/close_range.h), which
// x/sys does not name.
const closeRangeCloexec = 1 << 2

// inheritNothing makes every descriptor above 2 close-on-exec. Go opens
// its own so; those this process inherited (the caller's pipes, files and
// locks beyond stdio) are not, and every child would hold them open.
// close_range does it in one call (Linux 5.11); /proc/self/fd otherwise.
func inheritNothing() error {
	if unix.CloseRange(3, ^uint(0), closeRangeCloexec) == nil {
		return nil
	}
	return cloexecListed()
}

// cloexecListed is inheritNothing by /proc/self/fd.
func cloexecListed() error {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("descriptors: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return fmt.Errorf("descriptors: %w", err)
	}
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			unix.CloseOnExec(fd) // the directory's own descriptor too: it is closed anyway
		}
	}
	return nil
}
