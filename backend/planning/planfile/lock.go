package planfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// LockPath is the lock file of a state file: a hidden file next to it. JSON
// state is replaced by rename, so its own inode cannot carry the lock.
func LockPath(file string) string {
	return filepath.Join(filepath.Dir(file), "."+filepath.Base(file)+".lock")
}

// WithLock runs fn holding an exclusive flock on file's lock file, creating
// the directory if needed. The lock is released when fn returns, and by the
// kernel if the process dies.
func WithLock(file string, fn func() error) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return wrap("create "+dir, err)
	}
	lp := LockPath(file)
	f, err := os.OpenFile(lp, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return wrap("open lock", err)
	}
	defer f.Close()
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return wrap("lock "+lp, err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
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
		f, err := os.OpenFile(file, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
		if err != nil {
			return wrap("append "+file, err)
		}
		var cut bool
		cut, err = dropTornTail(f)
		if err == nil && !cut {
			// The tail grew while it was looked at: a writer outside our
			// lock is still writing it. End it rather than cut it.
			line = append([]byte{'\n'}, line...)
		}
		if err == nil {
			_, err = f.Write(line)
		}
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return wrap("append "+file, err)
		}
		return nil
	})
}

// dropTornTail truncates f to just after its last newline (to empty if it
// has none), removing an unterminated last line. It reports whether the
// file now ends a line (or is empty). The caller holds its lock, so none
// of our writers is mid-line; if it grows while the tail is looked at, a
// writer that does not take the lock is, and nothing is cut (false). The
// common case, a file ending in a newline, costs a stat and a one-byte
// read.
func dropTornTail(f *os.File) (bool, error) {
	size, err := fileSize(f)
	if err != nil {
		return false, err
	}
	if size == 0 {
		return true, nil
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, size-1); err != nil {
		return false, wrap("read last byte", err)
	}
	if last[0] == '\n' {
		return true, nil
	}
	keep, err := lineEnd(f, size-1)
	if err != nil {
		return false, err
	}
	if now, err := fileSize(f); err != nil || now != size {
		return false, err
	}
	if err := f.Truncate(keep); err != nil {
		return false, wrap(fmt.Sprintf("cut torn tail (%d bytes)", size-keep), err)
	}
	return true, nil
}

func fileSize(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// lineEnd is the offset just after the last newline in the first end
// bytes of f, or 0 if there is none. It scans backwards a chunk at a
// time: a torn line may be long.
func lineEnd(f *os.File, end int64) (int64, error) {
	buf := make([]byte, min(end, 64<<10))
	for end > 0 {
		start := max(end-int64(len(buf)), 0)
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil {
			return 0, wrap("read torn tail", err)
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}
