package attach

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// served starts argv under a supervisor Server on a short socket path and
// returns the session and the socket; both end with the test.
func served(t *testing.T, argv ...string) (*supervisor.Session, string) {
	t.Helper()
	return servedWith(t, &supervisor.Server{}, argv...)
}

// servedWith is served by srv (its Session is set here).
func servedWith(t *testing.T, srv *supervisor.Server, argv ...string) (*supervisor.Session, string) {
	t.Helper()
	dir := proctest.ShortDir(t)
	claim, err := supervisor.ClaimID(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := supervisor.Start(supervisor.Config{ID: "a", Argv: argv, KillGrace: -1})
	if err != nil {
		claim.Release()
		t.Fatal(err)
	}
	srv.Session = sess
	go srv.Serve(claim.Listener)
	t.Cleanup(func() {
		select { // once reaped, its pid may be another test's session's
		case <-sess.Done():
		default:
			syscall.Kill(-sess.PID(), syscall.SIGKILL)
		}
		select {
		case <-sess.Done():
		case <-time.After(10 * time.Second):
			t.Errorf("session did not exit after SIGKILL")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		srv.Close()
		claim.Release()
	})
	return sess, supervisor.SocketPath(dir, "a")
}

// terminal is a pty whose slave is the attached terminal; what Run writes
// to it is collected from the master.
type terminal struct {
	master, slave *os.File

	mu  sync.Mutex
	out bytes.Buffer
}

func newTerminal(t *testing.T) *terminal {
	t.Helper()
	tm := newUnreadTerminal(t)
	tm.read(t)
	return tm
}

// newUnreadTerminal is a terminal whose output nobody reads until read:
// a terminal that falls behind.
func newUnreadTerminal(t *testing.T) *terminal {
	t.Helper()
	pm, s, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	// pty.Open leaves the master blocking; a non-blocking one of our own
	// lets Close end a Read that waits (when a test fails while the
	// terminal is still open elsewhere).
	fd, err := unix.Dup(int(pm.Fd()))
	pm.Close()
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	unix.SetNonblock(fd, true)
	m := os.NewFile(uintptr(fd), "ptmx")
	t.Cleanup(func() {
		s.Close()
		m.Close()
	})
	return &terminal{master: m, slave: s}
}

// read collects the terminal's output from now on, until the test ends.
func (tm *terminal) read(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := tm.master.Read(buf)
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		tm.slave.Close()
		tm.master.Close()
		<-done
	})
}

func (tm *terminal) shows(s string) bool {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return strings.Contains(tm.out.String(), s)
}

type runResult struct {
	res Result
	err error
}

func runAsync(ep Endpoint, opts Options) <-chan runResult {
	ch := make(chan runResult, 1)
	go func() {
		res, err := Run(ep, opts)
		ch <- runResult{res, err}
	}()
	return ch
}

func wait(t *testing.T, ch <-chan runResult) runResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
		return runResult{}
	}
}

func dialSocket(t *testing.T, sock string) *Socket {
	t.Helper()
	s, err := Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	if s.r == nil {
		t.Fatal("the socket endpoint does not read with raw system calls")
	}
	return s
}

// Over a socket, from a terminal: keys reach the program, its output
// reaches the terminal, the bytes before the detach key are sent, and the
// detach key ends Run with the session still running and the terminal's
// own file (shared with the shell) still blocking.
func TestSocketKeysOutputDetach(t *testing.T) {
	sess, sock := served(t, "bash", "-c", `stty raw -echo; printf READY; while IFS= read -r -n 1 c; do printf '<%s>' "$c"; done`)
	tm := newTerminal(t)
	ch := runAsync(dialSocket(t, sock), Options{In: tm.slave, Out: tm.slave})
	proctest.WaitFor(t, "the replay", 10*time.Second, func() bool { return tm.shows("READY") })

	tm.master.Write([]byte("ab"))
	proctest.WaitFor(t, "the echo of ab", 10*time.Second, func() bool { return tm.shows("<a><b>") })
	tm.master.Write([]byte("c\x1cd"))
	r := wait(t, ch)
	if r.err != nil || !r.res.Detached {
		t.Fatalf("Run = %+v, %v; want detached", r.res, r.err)
	}
	// The echo of c comes after the detach: read it from the scrollback.
	scrollback := func() string {
		replay, remove := sess.Listen(func([]byte) {})
		remove()
		return string(replay)
	}
	proctest.WaitFor(t, "the key before the detach key", 10*time.Second, func() bool { return strings.Contains(scrollback(), "<c>") })
	select {
	case <-sess.Done():
		t.Fatal("the session ended on detach")
	default:
	}
	if strings.Contains(scrollback(), "<d>") {
		t.Error("a key after the detach key was sent")
	}
	fl, err := unix.FcntlInt(tm.slave.Fd(), unix.F_GETFL, 0)
	if err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Errorf("the terminal's own file is non-blocking after Run (flags %#x, %v)", fl, err)
	}
}

// Input that ends (a pipe closed by its writer, /dev/null) stops the keys
// but not the output, which flows until the session's EXIT.
func TestSocketOutputAfterEndOfInput(t *testing.T) {
	for _, name := range []string{"pipe", "devnull"} {
		t.Run(name, func(t *testing.T) {
			var in *os.File
			if name == "pipe" {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				w.Write([]byte("go\n"))
				w.Close()
				in = r
			} else {
				f, err := os.Open(os.DevNull)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				in = f
			}
			_, sock := served(t, "sh", "-c", `sleep 0.2; echo the-end; exit 3`)
			tm := newTerminal(t)
			r := wait(t, runAsync(dialSocket(t, sock), Options{In: in, Out: tm.slave}))
			if r.err != nil || !r.res.Exited || r.res.Code != 3 {
				t.Fatalf("Run = %+v, %v; want exited with 3", r.res, r.err)
			}
			proctest.WaitFor(t, "the output", 10*time.Second, func() bool { return tm.shows("the-end") })
		})
	}
}

// The in-process endpoint reads keys the same way.
func TestLocalKeysDetach(t *testing.T) {
	sess, _ := served(t, "bash", "-c", `stty raw -echo; printf READY; while IFS= read -r -n 1 c; do printf '<%s>' "$c"; done`)
	tm := newTerminal(t)
	ch := runAsync(NewLocal(sess), Options{In: tm.slave, Out: tm.slave})
	proctest.WaitFor(t, "the replay", 10*time.Second, func() bool { return tm.shows("READY") })
	tm.master.Write([]byte("z"))
	proctest.WaitFor(t, "the echo", 10*time.Second, func() bool { return tm.shows("<z>") })
	tm.master.Write([]byte{DefaultDetachKey})
	if r := wait(t, ch); r.err != nil || !r.res.Detached {
		t.Fatalf("Run = %+v, %v; want detached", r.res, r.err)
	}
}
