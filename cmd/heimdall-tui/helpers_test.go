package main

// Helpers for the end-to-end tests: they run the real heimdall-tui binary
// (built by TestMain), talk to sessions over their sockets with a small
// independent implementation of the wire protocol, and drive tmux.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	hmproc "github.com/heimdall-tui/heimdall-tui/backend/proc"
)

const (
	// waitTimeout bounds every wait for a session or a screen to reach a
	// state. It is generous: nothing waited for takes more than a fraction
	// of it on an idle machine.
	waitTimeout = 20 * time.Second
	// cmdTimeout bounds one short CLI invocation (ls, status, kill, ...).
	cmdTimeout = 30 * time.Second
	// pollEvery is the polling interval of poll.
	pollEvery = 20 * time.Millisecond
)

// poll calls cond until it returns true or d has passed; it reports whether
// cond became true. Assertions wait with poll, never with a bare sleep.
func poll(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
}

// newSockDir returns a fresh, short socket directory (Unix socket paths must
// stay below 108 bytes, so not t.TempDir()). At cleanup any heimdall-tui
// still supervising a session in it is killed, with its session's process
// group, and the directory is removed.
func newSockDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		reapDir(t, dir)
		os.RemoveAll(dir)
	})
	return dir
}

// reapDir SIGKILLs what is left of the sessions in dir (a dashboard's
// sessions outlive it): first each live socket's child process group (its
// supervisor tells which, so this comes before any supervisor is killed: a
// program that ignores the hangup of its pty would outlive it), then each
// pid file's owner, a supervisor, if it runs our heimdall or heimdall-tui.
func reapDir(t testing.TB, dir string) {
	socks, _ := filepath.Glob(filepath.Join(dir, "*.sock"))
	for _, p := range socks {
		if st, err := querySession(p); err == nil && st.pid > 0 {
			t.Logf("cleanup: killing leftover session child %d (%s)", st.pid, filepath.Base(p))
			syscall.Kill(-int(st.pid), syscall.SIGKILL)
			syscall.Kill(int(st.pid), syscall.SIGKILL)
		}
	}
	pidFiles, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	for _, p := range pidFiles {
		b, _ := os.ReadFile(p)
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			continue
		}
		// Only ever kill our own binary, never a recycled pid (a
		// dashboard starts supervisors as /proc/self/exe).
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); exe == binPath || exe == smallPath {
			t.Logf("cleanup: killing leftover heimdall-tui %d (%s)", pid, filepath.Base(p))
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// processGone reports whether pid has exited (no such process, or a zombie
// nobody has reaped yet).
var processGone = hmproc.Gone

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// checkRace fails the test if a race-enabled binary reported a data race.
func checkRace(t *testing.T, stderr string) {
	t.Helper()
	if strings.Contains(stderr, "WARNING: DATA RACE") {
		t.Errorf("the binary reported a data race:\n%s", stderr)
	}
}

// result is a finished CLI invocation.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s--- stderr:\n%s", r.code, r.stdout, r.stderr)
}

// hm runs heimdall-tui with args (stdin /dev/null) and returns its output
// and exit code.
func hm(t *testing.T, args ...string) result {
	t.Helper()
	return runCmd(t, exec.Command(binPath, args...))
}

// runCmd runs cmd (its Dir, Env and Stdin as the caller set them) bounded
// by cmdTimeout, and returns its output and exit code; a race report on its
// stderr fails the test.
func runCmd(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("%q: %v", cmd.Args, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(cmdTimeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%q did not finish within %v\n--- stdout:\n%s--- stderr:\n%s", cmd.Args, cmdTimeout, stdout.String(), stderr.String())
	}
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%q: %v", cmd.Args, err)
	}
	checkRace(t, r.stderr)
	return r
}

// hmIn runs `heimdall-tui SUB --socket-dir DIR ARGS...` (the hm-compatible
// order: the flag after the subcommand).
func hmIn(t *testing.T, dir, sub string, args ...string) result {
	t.Helper()
	return hm(t, append([]string{sub, "--socket-dir", dir}, args...)...)
}

// proc is a long-running process started by a test (a `run`, the seed
// client). It is always reaped: at cleanup a process still running gets
// SIGTERM, then SIGKILL (with its session's process group, for a run).
type proc struct {
	t              *testing.T
	cmd            *exec.Cmd
	sock           string // for a run: its session's socket
	stdout, stderr *syncBuffer
	done           chan struct{}
}

func startProc(t *testing.T, path string, args ...string) *proc {
	t.Helper()
	p := &proc{t: t, stdout: new(syncBuffer), stderr: new(syncBuffer), done: make(chan struct{})}
	p.cmd = exec.Command(path, args...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	p.cmd.WaitDelay = 5 * time.Second
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s %q: %v", path, args, err)
	}
	go func() {
		p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(p.stop)
	return p
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits (bounded) for the process to exit and returns its exit code
// (-1 if a signal killed it).
func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(waitTimeout):
		p.t.Fatalf("%q did not exit within %v\n%s", p.cmd.Args, waitTimeout, p)
	}
	checkRace(p.t, p.stderr.String())
	return p.cmd.ProcessState.ExitCode()
}

func (p *proc) String() string {
	return fmt.Sprintf("--- stdout:\n%s--- stderr:\n%s", p.stdout, p.stderr)
}

func (p *proc) stop() {
	if p.exited() {
		return
	}
	child := 0
	if p.sock != "" {
		if st, err := querySession(p.sock); err == nil {
			child = int(st.pid)
		}
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return
	case <-time.After(3 * time.Second):
	}
	p.t.Logf("cleanup: SIGKILL %q", p.cmd.Args)
	p.cmd.Process.Kill()
	if child > 0 {
		syscall.Kill(-child, syscall.SIGKILL)
	}
	<-p.done
}

// startRun starts `heimdall-tui run --detach --id ID --socket-dir DIR
// [flags...] -- argv...` and returns at once. global flags (e.g. --config)
// go before the subcommand.
func startRun(t *testing.T, dir, id string, global, flags []string, argv ...string) *proc {
	t.Helper()
	args := append([]string(nil), global...)
	args = append(args, "run", "--foreground", "--id", id, "--socket-dir", dir)
	args = append(args, flags...)
	args = append(args, "--")
	args = append(args, argv...)
	p := startProc(t, binPath, args...)
	p.sock = filepath.Join(dir, id+".sock")
	return p
}

// startSession is startRun followed by waitLive.
func startSession(t *testing.T, dir, id string, argv ...string) *proc {
	t.Helper()
	p := startRun(t, dir, id, nil, nil, argv...)
	waitLive(t, p)
	return p
}

// waitLive waits until the run's socket answers STATUS with alive=1 and
// returns that status. It fails if the run exits first.
func waitLive(t *testing.T, p *proc) wireStatus {
	t.Helper()
	var st wireStatus
	var err error
	ok := poll(waitTimeout, func() bool {
		if p.exited() {
			return true
		}
		st, err = querySession(p.sock)
		return err == nil && st.alive
	})
	switch {
	case p.exited():
		t.Fatalf("%q exited with %d before its session was up\n%s", p.cmd.Args, p.cmd.ProcessState.ExitCode(), p)
	case !ok:
		t.Fatalf("session socket %s not live within %v (last: %+v, %v)\n%s", p.sock, waitTimeout, st, err, p)
	}
	return st
}

// Wire protocol, implemented here independently of wire/frame so that the
// tests check the CLI against the protocol description itself.
const (
	tInput      = 0x01
	tSubscribe  = 0x02
	tStatus     = 0x03
	tResize     = 0x04
	tKill       = 0x05
	tOutput     = 0x81
	tStatusResp = 0x82
	tExit       = 0x83
)

type wireConn struct{ net.Conn }

type wireStatus struct {
	pid     uint32
	idleMS  uint32
	alive   bool
	state   byte
	stateMS uint32
}

// dialWire connects to sock and checks the mode byte. Every read and write
// on the connection is bounded by waitTimeout.
func dialWire(sock string) (*wireConn, error) {
	c, err := net.DialTimeout("unix", sock, 2*time.Second)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(waitTimeout))
	mode := make([]byte, 1)
	if _, err := io.ReadFull(c, mode); err != nil {
		c.Close()
		return nil, fmt.Errorf("mode byte: %w", err)
	}
	if mode[0] != 0x00 {
		c.Close()
		return nil, fmt.Errorf("mode byte 0x%02x, want 0x00", mode[0])
	}
	return &wireConn{c}, nil
}

func (w *wireConn) send(typ byte, payload []byte) error {
	b := make([]byte, 5+len(payload))
	b[0] = typ
	binary.BigEndian.PutUint32(b[1:5], uint32(len(payload)))
	copy(b[5:], payload)
	_, err := w.Write(b)
	return err
}

func (w *wireConn) next() (byte, []byte, error) {
	h := make([]byte, 5)
	if _, err := io.ReadFull(w, h); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(h[1:5])
	if n > 16<<20 {
		return 0, nil, fmt.Errorf("frame 0x%02x of %d bytes", h[0], n)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(w, p); err != nil {
		return 0, nil, err
	}
	return h[0], p, nil
}

// killAndWaitExit sends KILL (with payload, which the protocol says is
// empty) on a subscribed connection and reads until EXIT, which must carry
// code.
func (w *wireConn) killAndWaitExit(t *testing.T, payload []byte, code int32) {
	t.Helper()
	if err := w.send(tKill, payload); err != nil {
		t.Fatal(err)
	}
	for {
		typ, p, err := w.next()
		if err != nil {
			t.Fatalf("no EXIT after KILL: %v", err)
		}
		if typ == tExit {
			if got := int32(binary.BigEndian.Uint32(p)); got != code {
				t.Errorf("EXIT code %d, want %d", got, code)
			}
			return
		}
	}
}

func (w *wireConn) status() (wireStatus, error) {
	if err := w.send(tStatus, nil); err != nil {
		return wireStatus{}, err
	}
	for {
		typ, p, err := w.next()
		if err != nil {
			return wireStatus{}, err
		}
		if typ != tStatusResp {
			continue
		}
		if len(p) != 15 {
			return wireStatus{}, fmt.Errorf("STATUS_RESP of %d bytes, want 15", len(p))
		}
		return wireStatus{
			pid:     binary.BigEndian.Uint32(p[0:4]),
			idleMS:  binary.BigEndian.Uint32(p[4:8]),
			alive:   p[8] == 1,
			state:   p[9],
			stateMS: binary.BigEndian.Uint32(p[10:14]),
		}, nil
	}
}

// subscribed is a connection to the session at sock that has sent
// SUBSCRIBE, closed when the test ends; it fails the test otherwise.
func subscribed(t *testing.T, sock string) *wireConn {
	t.Helper()
	w, err := dialWire(sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if err := w.send(tSubscribe, nil); err != nil {
		t.Fatal(err)
	}
	return w
}

// querySession asks the session at sock for its status.
func querySession(sock string) (wireStatus, error) {
	w, err := dialWire(sock)
	if err != nil {
		return wireStatus{}, err
	}
	defer w.Close()
	w.SetDeadline(time.Now().Add(2 * time.Second))
	return w.status()
}

// readOutputUntil reads OUTPUT frames (on a subscribed connection) until the
// collected output contains want; it returns what it collected.
func (w *wireConn) readOutputUntil(want string) (string, error) {
	var out []byte
	seen := 0 // out[:seen] holds no want that ends before it
	for !bytes.Contains(out[max(0, seen-len(want)):], []byte(want)) {
		seen = len(out)
		typ, p, err := w.next()
		if err != nil {
			return string(out), fmt.Errorf("waiting for %q: %w", want, err)
		}
		switch typ {
		case tOutput:
			out = append(out, p...)
		case tExit:
			return string(out), fmt.Errorf("EXIT before %q", want)
		}
	}
	return string(out), nil
}

// tmuxServer is a private tmux server (tmux -L NAME -f /dev/null) with one
// session, "main", whose single pane a test types into as a person would.
type tmuxServer struct {
	t    *testing.T
	name string
}

var tmuxSeq atomic.Int64

// newTmux starts a private tmux server whose pane (120x35) runs shellCmd. The
// test is skipped if tmux is not installed; the server is killed at cleanup.
func newTmux(t *testing.T, shellCmd string) *tmuxServer {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	x := &tmuxServer{t: t, name: fmt.Sprintf("hmtest-%d-%d", os.Getpid(), tmuxSeq.Add(1))}
	x.run("new-session", "-d", "-s", "main", "-x", "120", "-y", "35", shellCmd)
	var socket string
	t.Cleanup(func() {
		if x.t.Failed() {
			if out, err := x.tmux("capture-pane", "-p", "-t", "main"); err == nil {
				x.t.Logf("tmux screen at the end:\n%s", out)
			}
		}
		x.tmux("kill-server")
		if strings.HasSuffix(socket, "/"+x.name) {
			os.Remove(socket) // tmux leaves it behind
		}
	})
	socket = x.display("#{socket_path}")
	return x
}

func (x *tmuxServer) tmux(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-L", x.name, "-f", "/dev/null"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %q: %v: %s", args, err, out)
	}
	return string(out), nil
}

// run runs a tmux command, failing the test on error.
func (x *tmuxServer) run(args ...string) string {
	x.t.Helper()
	out, err := x.tmux(args...)
	if err != nil {
		x.t.Fatal(err)
	}
	return out
}

// sendLine types s literally and presses Enter.
func (x *tmuxServer) sendLine(s string) {
	x.t.Helper()
	x.run("send-keys", "-t", "main", "-l", s)
	x.run("send-keys", "-t", "main", "Enter")
}

// sendKeys sends tmux key names (e.g. `C-\`).
func (x *tmuxServer) sendKeys(keys ...string) {
	x.t.Helper()
	x.run(append([]string{"send-keys", "-t", "main"}, keys...)...)
}

// capture returns the pane's visible screen.
func (x *tmuxServer) capture() string {
	x.t.Helper()
	return x.run("capture-pane", "-p", "-t", "main")
}

// display returns a tmux format evaluated for the pane.
func (x *tmuxServer) display(format string) string {
	x.t.Helper()
	return strings.TrimSpace(x.run("display-message", "-p", "-t", "main", format))
}

// waitScreen polls the screen until cond holds and returns it.
func (x *tmuxServer) waitScreen(what string, cond func(screen string) bool) string {
	x.t.Helper()
	var screen string
	if !poll(waitTimeout, func() bool {
		screen = x.capture()
		return cond(screen)
	}) {
		x.t.Fatalf("timed out after %v waiting for %s; screen:\n%s", waitTimeout, what, screen)
	}
	return screen
}

// waitFor waits until the screen contains s.
func (x *tmuxServer) waitFor(s string) string {
	x.t.Helper()
	return x.waitScreen(fmt.Sprintf("%q on the screen", s), func(screen string) bool {
		return strings.Contains(screen, s)
	})
}

// waitPrompt waits until the last non-empty line of the screen is prompt.
func (x *tmuxServer) waitPrompt(prompt string) string {
	x.t.Helper()
	return x.waitScreen(fmt.Sprintf("the prompt %q on the last line", prompt), func(screen string) bool {
		return lastLine(screen) == strings.TrimSpace(prompt)
	})
}

// waitDisplay waits until a tmux format evaluates to want.
func (x *tmuxServer) waitDisplay(format, want string) {
	x.t.Helper()
	var got string
	if !poll(waitTimeout, func() bool {
		got = x.display(format)
		return got == want
	}) {
		x.t.Fatalf("timed out waiting for %s = %q (last %q); screen:\n%s", format, want, got, x.capture())
	}
}

func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, " \n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
