package planfile

import (
	"path"
	"strconv"
	"syscall"
)

// LockPath is the lock file of a state file: a hidden file next to it. JSON
// state is replaced by rename, so its own inode cannot carry the lock.
func LockPath(file string) string {
	return path.Join(path.Dir(file), "."+path.Base(file)+".lock")
}

// WithLock runs fn holding an exclusive flock on file's lock file, creating
// the directory if needed. The lock is released when fn returns, and by the
// kernel if the process dies.
func WithLock(file string, fn func() error) error {
	if err := mkdirAll(path.Dir(file)); err != nil {
		return wrap("create "+path.Dir(file), err)
	}
	lp := LockPath(file)
	fd, err := open(lp, syscall.O_CREAT|syscall.O_RDWR)
	if err != nil {
		return wrap("open lock", err)
	}
	defer syscall.Close(fd)
	for {
		err = syscall.Flock(fd, syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return wrap("lock "+lp, err)
	}
	defer syscall.Flock(fd, syscall.LOCK_UN)
	return fn()
}

// AppendLine appends one whole line (it must end in "\n" and contain no
// other newline) to file under its lock, with a single write, so concurrent
// appenders never interleave. Every one of our writers appends under the
// lock, so once it is held, bytes after the file's last newline are not
// one of our writes in progress: they are the torn record of a writer that
// crashed mid-line (a kill, a full disk), cut off first (the file is
// truncated to just after its last newline) so the fragment is never
// completed into a line that poisons the file; every complete line is
// kept. A tail that grows meanwhile belongs to a writer outside the lock
// (a shell's >>) and is ended with a newline instead (see dropTornTail).
func AppendLine(file string, line []byte) error {
	return WithLock(file, func() error {
		fd, err := open(file, syscall.O_CREAT|syscall.O_RDWR|syscall.O_APPEND)
		if err != nil {
			return wrap("append "+file, err)
		}
		var cut bool
		cut, err = dropTornTail(fd, file)
		if err == nil && !cut {
			// The tail grew while it was looked at: a writer outside our
			// lock is still writing it. End it rather than cut it.
			line = append([]byte{'\n'}, line...)
		}
		if err == nil {
			err = writeAll(fd, file, line)
		}
		if cerr := syscall.Close(fd); err == nil && cerr != nil {
			err = opError("close", file, cerr)
		}
		if err != nil {
			return wrap("append "+file, err)
		}
		return nil
	})
}

// dropTornTail truncates the file fd (named file) to just after its last
// newline (to empty if it has none), removing an unterminated last line.
// It reports whether the file now ends a line (or is empty). The caller
// holds its lock, so none of our writers is mid-line; if it grows while
// the tail is looked at, a writer that does not take the lock is, and
// nothing is cut (false). The common case, a file ending in a newline,
// costs a stat and a one-byte read.
func dropTornTail(fd int, file string) (bool, error) {
	size, err := fileSize(fd, file)
	if err != nil {
		return false, err
	}
	if size == 0 {
		return true, nil
	}
	last := make([]byte, 1)
	if err := readAt(fd, file, last, size-1); err != nil {
		return false, wrap("read last byte", err)
	}
	if last[0] == '\n' {
		return true, nil
	}
	keep, err := lineEnd(fd, file, size-1)
	if err != nil {
		return false, err
	}
	if now, err := fileSize(fd, file); err != nil || now != size {
		return false, err
	}
	if err := syscall.Ftruncate(fd, keep); err != nil {
		return false, wrap("cut torn tail ("+strconv.FormatInt(size-keep, 10)+" bytes)", opError("truncate", file, err))
	}
	return true, nil
}

// lineEnd is the offset just after the last newline in the first end
// bytes of the file fd (named file), or 0 if there is none. It scans
// backwards a chunk at a time: a torn line may be long.
//
// Its buffer is sized by the file (at most 64 KiB), so it is on the heap:
// a constant-size make this large is put in its function's stack frame,
// and dropTornTail's made every `ledger log` grow its goroutine's stack to
// 128 KiB, even when the file ended a line (copying the stack, allocating
// the new one: ~28k instructions and a dozen page faults in a process that
// runs ~2 ms).
func lineEnd(fd int, file string, end int64) (int64, error) {
	buf := make([]byte, min(end, 64<<10))
	for end > 0 {
		start := max(end-int64(len(buf)), 0)
		b := buf[:end-start]
		if err := readAt(fd, file, b, start); err != nil {
			return 0, wrap("read torn tail", err)
		}
		if i := lastNewline(b); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// lastNewline is the index of b's last '\n', or -1 (bytes.LastIndexByte,
// whose package would build unicode's tables before earlyplan's init).
func lastNewline(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return i
		}
	}
	return -1
}
