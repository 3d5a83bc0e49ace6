package unixsock

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// Socket hygiene for a private socket: its directory is created with mode
// 0700 and must be ours; the socket is 0600; a stale socket (or a plain
// file of ours in its place) is replaced; a live socket, a directory, a
// symlink or anything of another user is refused and never touched (what
// tailscale's safesocket does).

// ErrInUse is returned by Listen when something accepts on the path.
var ErrInUse = errors.New("socket in use")

// EnsureDir creates dir (and its parents) with mode 0700 if it is missing
// and refuses it unless it is a directory owned by the current user.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("socket dir: %w", err)
	}
	return CheckDir(dir)
}

// CheckDir refuses dir unless it is a directory (not a symlink to one)
// owned by the current user that no one else may write: another user who
// could would put a socket of theirs in a session's place.
func CheckDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket dir: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("socket dir %s is not a directory", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("socket dir %s is owned by uid %d, not by you (uid %d); refusing to use it", dir, st.Uid, os.Geteuid())
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("socket dir %s may be written by others (mode %04o): run `chmod 700 %s`; refusing to use it", dir, perm, dir)
	}
	return nil
}

// State is what Inspect finds at a socket's path.
type State int

const (
	Absent State = iota // nothing there
	Live                // a socket something accepts on
	Dead                // a socket of ours nobody accepts on (a crashed owner's)
	File                // a regular file of ours in its place (a crash, a script)
)

func (s State) String() string {
	switch s {
	case Absent:
		return "absent"
	case Live:
		return "live"
	case Dead:
		return "dead"
	case File:
		return "file"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// dialTimeout bounds the dial that tells a live socket from a dead one.
const dialTimeout = time.Second

// Inspect tells what is at path, dialing a socket to see whether something
// accepts on it. Dead and File are stale: safe to remove. A non-nil error
// means something is there that must not be touched: a directory, symlink
// or other non-regular file, a file or dead socket owned by another user,
// or a socket that could not be checked.
func Inspect(path string) (State, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return Absent, nil
	}
	if err != nil {
		return Absent, err
	}
	mode := fi.Mode()
	if mode&os.ModeSocket != 0 {
		c, err := net.DialTimeout("unix", path, dialTimeout)
		if err == nil {
			c.Close()
			return Live, nil
		}
		if errors.Is(err, syscall.ENOENT) {
			return Absent, nil // removed meanwhile
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return Absent, fmt.Errorf("check socket %s: %w", path, err)
		}
	} else if !mode.IsRegular() {
		return Absent, fmt.Errorf("%s exists and is not a socket (%s); refusing to replace it", path, fileKind(mode))
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return Absent, fmt.Errorf("%s is owned by uid %d, not by you (uid %d); refusing to replace it", path, st.Uid, os.Geteuid())
	}
	if mode&os.ModeSocket != 0 {
		return Dead, nil
	}
	return File, nil
}

// fileKind names a non-regular, non-socket file type for error messages.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// Stale reports whether path is stale: a socket of ours nobody accepts on,
// or a regular file of ours in its place.
func Stale(path string) bool {
	st, err := Inspect(path)
	return err == nil && (st == Dead || st == File)
}

// Listen claims path and listens on it with mode 0600: a live socket there
// is ErrInUse (wrapped), a stale one is removed first, anything else
// Inspect refuses is an error and left alone. Two processes may both find
// a stale socket and race: callers that need one owner hold a lock around
// Listen (backend/supervisor flocks a pid file). The listener unlinks the
// socket when closed. Its directory is not checked: see EnsureDir.
func Listen(path string) (*net.UnixListener, error) {
	switch st, err := Inspect(path); {
	case err != nil:
		return nil, err
	case st == Live:
		return nil, fmt.Errorf("%w: %s answers", ErrInUse, path)
	case st == Dead, st == File:
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("remove stale %s: %w", path, err)
		}
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close() // unlinks the socket
		return nil, fmt.Errorf("chmod %s: %w", path, err)
	}
	return l, nil
}
