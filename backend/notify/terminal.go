package notify

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// TerminalFile is the name, in the socket directory, of the file recording
// the dashboard's terminal. The leading dot keeps it out of every scan for
// sessions: no session ID starts with a dot.
const TerminalFile = ".dashboard-terminal.json"

// maxTerminalFile bounds what LoadTerminal reads.
const maxTerminalFile = 64 << 10

// ttyWriteTimeout bounds a notification's write to a tty whose output is
// stuck (a terminal stopped with ^S, a reader that went away).
const ttyWriteTimeout = time.Second

// Terminal is where the dashboard runs, recorded so that notifications
// sent while it is gone reach the same terminal.
type Terminal struct {
	TTY         string `json:"tty"`                    // e.g. /dev/pts/3
	TMUX        string `json:"tmux,omitempty"`         // $TMUX: set when the terminal is a tmux pane
	Term        string `json:"term,omitempty"`         // $TERM
	TermProgram string `json:"term_program,omitempty"` // $TERM_PROGRAM (iTerm.app, WezTerm, ghostty, …)
}

// InTmux reports whether the terminal is a tmux pane, whose notifications
// need tmux's passthrough.
func (t Terminal) InTmux() bool { return t.TMUX != "" }

// CurrentTerminal returns the terminal this process runs in: the tty of
// its standard output, else of its standard input, else of its standard
// error, with $TMUX, $TERM and $TERM_PROGRAM. It reports false when none
// of them is a terminal that has a name here (a pipe, /dev/tty itself, a
// pty of another mount namespace).
func CurrentTerminal() (Terminal, bool) {
	for _, fd := range []int{1, 0, 2} {
		if name, ok := ttyName(fd); ok {
			return Terminal{
				TTY:         name,
				TMUX:        os.Getenv("TMUX"),
				Term:        os.Getenv("TERM"),
				TermProgram: os.Getenv("TERM_PROGRAM"),
			}, true
		}
	}
	return Terminal{}, false
}

// ttyName returns the path of the terminal open on fd, as ttyname(3) does:
// the link /proc/self/fd/FD, accepted only when the node there is the same
// device as fd.
func ttyName(fd int) (string, bool) {
	if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
		return "", false
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return "", false
	}
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || !validTTYPath(name) {
		return "", false
	}
	var at unix.Stat_t
	if err := unix.Stat(name, &at); err != nil || at.Mode&unix.S_IFMT != unix.S_IFCHR || at.Rdev != st.Rdev {
		return "", false
	}
	return name, true
}

// validTTYPath reports whether p may name a recorded terminal: a clean
// absolute path under /dev/, and not /dev/tty, which names the controlling
// terminal of whoever opens it — not the dashboard's.
func validTTYPath(p string) bool {
	return strings.HasPrefix(p, "/dev/") && filepath.Clean(p) == p && p != "/dev/tty"
}

// SaveTerminal records t as dir/TerminalFile: JSON, mode 0600, written to a
// temporary file in dir and renamed over the old one, so a reader sees the
// old record or the new one, never part of one. The last dashboard to save
// wins. dir must exist (the socket directory, made 0700 by its owner).
func SaveTerminal(dir string, t Terminal) error {
	if !validTTYPath(t.TTY) {
		return fmt.Errorf("save terminal: %q is not a terminal device path", t.TTY)
	}
	data, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("save terminal: %w", err)
	}
	f, err := os.CreateTemp(dir, TerminalFile+".*") // mode 0600
	if err != nil {
		return fmt.Errorf("save terminal: %w", err)
	}
	tmp := f.Name()
	_, werr := f.Write(append(data, '\n'))
	// No fsync: the file lives in a runtime directory and outlives no
	// reboot that matters; rename alone makes it whole for readers.
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("save terminal: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, TerminalFile)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("save terminal: %w", err)
	}
	return nil
}

// LoadTerminal reads the terminal SaveTerminal recorded in dir. The error
// wraps fs.ErrNotExist when none was recorded. A file that is not a
// regular file of this process's uid (a symlink included), is not JSON of
// a Terminal, or names no terminal device path is an error.
func LoadTerminal(dir string) (Terminal, error) {
	path := filepath.Join(dir, TerminalFile)
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return Terminal{}, fmt.Errorf("load terminal: %w", err)
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return Terminal{}, fmt.Errorf("load terminal: %w", &fs.PathError{Op: "fstat", Path: path, Err: err})
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return Terminal{}, fmt.Errorf("load terminal: %s: not a regular file", path)
	}
	if int(st.Uid) != os.Getuid() {
		return Terminal{}, fmt.Errorf("load terminal: %s: owned by uid %d, not %d", path, st.Uid, os.Getuid())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTerminalFile+1))
	if err != nil {
		return Terminal{}, fmt.Errorf("load terminal: %w", err)
	}
	if len(data) > maxTerminalFile {
		return Terminal{}, fmt.Errorf("load terminal: %s: larger than %d bytes", path, maxTerminalFile)
	}
	var t Terminal
	if err := json.Unmarshal(data, &t); err != nil {
		return Terminal{}, fmt.Errorf("load terminal: %s: %w", path, err)
	}
	if !validTTYPath(t.TTY) {
		return Terminal{}, fmt.Errorf("load terminal: %s: %q is not a terminal device path", path, t.TTY)
	}
	return t, nil
}

// toTerminal writes ev's notification to the saved terminal.
func (n *Notifier) toTerminal(ev Event) error {
	t, err := LoadTerminal(n.o.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		n.log.Debug("no terminal notification: no dashboard terminal recorded", "id", ev.ID, "dir", n.o.Dir)
		return nil
	}
	if err != nil {
		return fmt.Errorf("notify terminal: %w", err)
	}
	seq, err := Sequence(n.o.Terminal, ev, t.InTmux())
	if err != nil {
		return fmt.Errorf("notify terminal: %w", err)
	}
	switch err := writeTTY(t.TTY, []byte(seq), ttyWriteTimeout); {
	case ttyGone(err):
		n.log.Debug("no terminal notification: the dashboard's terminal is gone", "id", ev.ID, "tty", t.TTY, "err", err)
		return nil
	case err != nil:
		return fmt.Errorf("notify terminal: %w", err)
	}
	n.log.Debug("terminal notification sent", "id", ev.ID, "tty", t.TTY, "format", n.o.Terminal, "tmux", t.InTmux())
	return nil
}

// ttyGone reports whether err says the terminal no longer exists: its node
// is gone (a pty's goes with its master), or it was hung up.
func ttyGone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENXIO) || errors.Is(err, unix.EIO)
}

// writeTTY writes b to the terminal at path, which must be a character
// device owned by our uid (checked before opening, so that opening a
// device with side effects is never tried, and again on the open file)
// and a terminal. The open never makes it our controlling terminal and
// never blocks; the write gives up after timeout, when the terminal's
// output has been stuck for that long.
func writeTTY(path string, b []byte, timeout time.Duration) error {
	if !validTTYPath(path) {
		return fmt.Errorf("%q is not a terminal device path", path)
	}
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	if err := checkTTY(path, &st); err != nil {
		return err
	}
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var fst unix.Stat_t
	if err := unix.Fstat(fd, &fst); err != nil {
		return &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if err := checkTTY(path, &fst); err != nil {
		return err
	}
	if fst.Rdev != st.Rdev {
		return fmt.Errorf("%s: replaced while opening", path)
	}
	if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
		return fmt.Errorf("%s: not a terminal", path)
	}
	deadline := time.Now().Add(timeout)
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if n > 0 {
			b = b[n:]
		}
		switch {
		case err == nil && n == 0:
			return &fs.PathError{Op: "write", Path: path, Err: io.ErrShortWrite}
		case err == nil, errors.Is(err, unix.EINTR):
		case errors.Is(err, unix.EAGAIN):
			left := time.Until(deadline)
			if left <= 0 {
				return fmt.Errorf("write %s: output stuck for %v: %w", path, timeout, os.ErrDeadlineExceeded)
			}
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
			if _, err := unix.Poll(fds, int(left/time.Millisecond)+1); err != nil && !errors.Is(err, unix.EINTR) {
				return &fs.PathError{Op: "poll", Path: path, Err: err}
			}
		default:
			return &fs.PathError{Op: "write", Path: path, Err: err}
		}
	}
	return nil
}

// checkTTY refuses what is not a character device of our uid: a
// notification goes only to a terminal of the user who runs heimdall.
func checkTTY(path string, st *unix.Stat_t) error {
	if st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return fmt.Errorf("%s: not a character device", path)
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s: owned by uid %d, not %d", path, st.Uid, os.Getuid())
	}
	return nil
}
