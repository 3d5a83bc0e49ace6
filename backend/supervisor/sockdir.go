package supervisor

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// Socket directory layout, shared with the Heimdall supervisor's tools:
//
//	DIR/ID.sock   the session's socket (mode 0600)
//	DIR/ID.pid    the supervising process's pid; also its lock (flock)
//	DIR/ID.log    the supervisor's log for that session (slog JSON)
//
// DIR is created with mode 0700 and refused if another user owns it.

// ErrAlreadyRunning is returned by Claim when a live owner holds the ID.
var ErrAlreadyRunning = errors.New("already running")

// maxSockPath is the longest usable Unix socket path (sun_path is 108 bytes
// including the terminating NUL).
const maxSockPath = 107

// DefaultDir returns $XDG_RUNTIME_DIR/heimdall, else /tmp/heimdall-$UID.
func DefaultDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "heimdall")
	}
	return filepath.Join(os.TempDir(), "heimdall-"+strconv.Itoa(os.Getuid()))
}

// Paths of a session's files in dir.
func SocketPath(dir, id string) string { return filepath.Join(dir, id+".sock") }
func PidPath(dir, id string) string    { return filepath.Join(dir, id+".pid") }
func LogPath(dir, id string) string    { return filepath.Join(dir, id+".log") }

// HooksPath is the settings file holding session id's agent hooks (a
// Claude Code session's --settings), in dir's .hooks/: a dot-name is never
// a session's.
func HooksPath(dir, id string) string { return filepath.Join(dir, ".hooks", id+".json") }

// ValidateID checks that id can name a session's files in dir.
func ValidateID(dir, id string) error {
	switch {
	case id == "":
		return errors.New("session id is empty")
	case id == "." || id == ".." || strings.ContainsAny(id, "/\x00") || strings.HasPrefix(id, "."):
		return fmt.Errorf("invalid session id %q (no '/', NUL or leading '.')", id)
	case len(SocketPath(dir, id)) > maxSockPath:
		return fmt.Errorf("socket path %s is longer than %d bytes; use a shorter id or --socket-dir", SocketPath(dir, id), maxSockPath)
	}
	return nil
}

// EnsureDir creates dir with mode 0700 if it is missing and refuses a dir
// that is not a directory or is owned by another user (unixsock.EnsureDir).
func EnsureDir(dir string) error { return unixsock.EnsureDir(dir) }

// CheckDir refuses dir unless it is a directory owned by the current user
// (unixsock.CheckDir).
func CheckDir(dir string) error { return unixsock.CheckDir(dir) }

// Claim is the exclusive right to serve one session ID in a directory: a
// lock on DIR/ID.pid (held until Release) plus the listening socket.
type Claim struct {
	Dir, ID  string
	Listener *net.UnixListener
	lock     *os.File
	sock     os.FileInfo // the socket file as listened on (nil: not known)
}

// ClaimID locks DIR/ID.pid, checks DIR/ID.sock (a live owner means
// ErrAlreadyRunning; a dead socket, or a plain file of ours left there by a
// crash or a script, is removed; anything else — a directory, another kind
// of file, a file owned by another user — is refused and left alone),
// listens on the socket with mode 0600 and writes the current pid into the
// pid file. Of two concurrent claims of one ID exactly one succeeds. A
// failed claim leaves no pid file behind unless a live process other than
// this one is named in it (see dropLock).
func ClaimID(dir, id string) (*Claim, error) {
	if err := ValidateID(dir, id); err != nil {
		return nil, err
	}
	if err := EnsureDir(dir); err != nil {
		return nil, err
	}
	pidPath := PidPath(dir, id)
	lock, err := lockFile(pidPath)
	// The lock is held by a live session (its socket answers), by a claim
	// about to listen, or for a moment by RemoveStale (ls, clean): wait
	// the last two out before saying the id is taken.
	for wait := 0; errors.Is(err, ErrAlreadyRunning) && wait < 25; wait++ {
		if st, _ := unixsock.Inspect(SocketPath(dir, id)); st == unixsock.Live {
			break
		}
		time.Sleep(20 * time.Millisecond)
		lock, err = lockFile(pidPath)
	}
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Claim, error) {
		dropLock(lock, pidPath)
		return nil, err
	}
	// We hold the lock, so no heimdall-tui owner is alive: a stale socket
	// (a crashed owner's, or a file in its place) is replaced.
	sock := SocketPath(dir, id)
	l, err := unixsock.Listen(sock)
	switch {
	case errors.Is(err, unixsock.ErrInUse):
		return fail(fmt.Errorf("session %q: %w (socket %s answers)", id, ErrAlreadyRunning, sock))
	case err != nil:
		return fail(fmt.Errorf("session %q: %w", id, err))
	}
	// Release removes the socket itself, and only while it is this
	// claim's: net's unlink on Close would remove whatever is at the path.
	l.SetUnlinkOnClose(false)
	err = lock.Truncate(0)
	if err == nil {
		_, err = lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil { // a full disk: no session with an empty pid file
		l.Close()
		os.Remove(sock)
		return fail(fmt.Errorf("session %q: pid file: %w", id, err))
	}
	fi, _ := os.Stat(sock)
	return &Claim{Dir: dir, ID: id, Listener: l, lock: lock, sock: fi}, nil
}

// Owned reports whether DIR/ID.pid is still the file this claim locked.
// It is not once the socket dir was removed (by hand, or a tmp cleaner)
// or the file replaced: another session of the same ID may own the
// names by then, and its files must be left alone.
func (c *Claim) Owned() bool {
	mine, err := c.lock.Stat()
	if err != nil {
		return false
	}
	there, err := os.Stat(PidPath(c.Dir, c.ID))
	return err == nil && os.SameFile(mine, there)
}

// dropLock ends a failed claim: it removes the locked pid file at path —
// holding its flock we know no heimdall-tui owner is alive, so it is one we
// just created or a dead owner's — and closes it. A pid file that names a
// live process other than this one is kept: a supervisor that does not
// flock (hm) may own it. Removing while locked is safe against concurrent
// claims: lockFile re-checks that the file it locked is still at path.
func dropLock(lock *os.File, path string) {
	if pid := pidIn(lock); pid <= 0 || pid == os.Getpid() || !processAlive(pid) {
		os.Remove(path)
	}
	lock.Close()
}

// pidIn returns the pid written in a pid file, or 0.
func pidIn(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// Release removes the socket and pid file, each only while it is still
// the one this claim made (see Owned), and drops the lock. The listener
// must already be closed (Server.Close/Shutdown does it).
func (c *Claim) Release() {
	c.Listener.Close()
	sock := SocketPath(c.Dir, c.ID)
	if fi, err := os.Stat(sock); err == nil && c.sock != nil && os.SameFile(fi, c.sock) {
		os.Remove(sock)
	}
	if c.Owned() {
		os.Remove(PidPath(c.Dir, c.ID))
	}
	c.lock.Close()
}

// StaleOptions tune RemoveStale.
type StaleOptions struct {
	// Log also removes the session's log and its record (DIR/ID.json:
	// a session that ended) once neither socket nor pid file is left.
	Log bool
	// May, if not nil, must allow each removal (clean --older-than).
	May func(path string) bool
	// DryRun judges but removes nothing (clean without --force).
	DryRun bool
}

// RemoveStale removes id's files in dir that no live session owns, judging
// and removing them while it holds the pid file's lock, so a `run` claiming
// the id meanwhile (ClaimID takes that lock first) is never undone:
//   - the socket, when it is stale (a socket nobody accepts on, or a plain
//     file of ours in its place) and the pid file names no live process (hm's
//     supervisor does not flock its pid file);
//   - the pid file, when its lock was free and it names no live process,
//     unless the socket is live;
//   - with o.Log, the log, the record and the hooks file, once neither
//     socket nor pid file is left.
//
// Nothing is removed while another process holds the lock. It returns what
// it removed (with o.DryRun, what it would remove) and why any other
// removal failed.
func RemoveStale(dir, id string, o StaleOptions) ([]string, error) {
	if err := ValidateID(dir, id); err != nil {
		return nil, err
	}
	may := o.May
	if may == nil {
		may = func(string) bool { return true }
	}
	sock, pidPath, logPath := SocketPath(dir, id), PidPath(dir, id), LogPath(dir, id)
	_, statErr := os.Lstat(pidPath)
	pidExisted := statErr == nil
	lock, err := lockFile(pidPath) // creates it if missing: removed below
	if errors.Is(err, ErrAlreadyRunning) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if !pidExisted {
		defer os.Remove(pidPath) // ours, made only to hold the lock
	}
	if pid := pidIn(lock); pid > 0 && pid != os.Getpid() && processAlive(pid) {
		return nil, nil
	}
	var removed []string
	var errs []error
	remove := func(p string) bool {
		if !may(p) {
			return false
		}
		if !o.DryRun {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
				return false
			}
		}
		removed = append(removed, p)
		return true
	}
	st, err := unixsock.Inspect(sock)
	if err != nil {
		st = unixsock.Live // not ours to judge: keep everything
	}
	sockLeft := st != unixsock.Absent && !((st == unixsock.Dead || st == unixsock.File) && remove(sock))
	pidLeft := pidExisted && (st == unixsock.Live || !remove(pidPath))
	if o.Log && !sockLeft && !pidLeft {
		for _, p := range []string{logPath, RecordPath(dir, id), HooksPath(dir, id)} {
			if _, err := os.Lstat(p); err == nil {
				remove(p)
			}
		}
	}
	return removed, errors.Join(errs...)
}

// lockFile opens and flocks path, making sure the locked file is still the
// one at path (a concurrent Release may have unlinked it in between).
func lockFile(path string) (*os.File, error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("pid file: %w", err)
		}
		if err := flock(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, fmt.Errorf("session %q: %w (pid file %s is locked)", strings.TrimSuffix(filepath.Base(path), ".pid"), ErrAlreadyRunning, path)
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if sameFile(f, path) {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("lock %s: file keeps being replaced", path)
}

func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = unix.Flock(int(fd), how) }); err != nil {
		return err
	}
	return ferr
}

func sameFile(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// SocketStale reports whether sock is stale: a socket file nobody accepts
// on, or a regular file of ours in its place (left by a crash or a script).
// Neither is a live session; ClaimID replaces them, RemoveStale removes
// them (unixsock.Stale).
func SocketStale(sock string) bool { return unixsock.Stale(sock) }

// ErrNoSession is DialSession's error when no session of that ID runs in
// the socket dir: no socket, or a stale one.
var ErrNoSession = errors.New("no session")

// DialSession connects to session id of socket dir dir and reads its mode
// byte within timeout (frame.Dial): ErrNoSession when none runs there.
func DialSession(dir, id string, timeout time.Duration) (*frame.Client, error) {
	if err := ValidateID(dir, id); err != nil {
		return nil, err
	}
	sock := SocketPath(dir, id)
	c, err := frame.Dial(sock, timeout)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || SocketStale(sock) {
			return nil, ErrNoSession
		}
		return nil, fmt.Errorf("connect to %q: %w", id, err)
	}
	return c, nil
}
