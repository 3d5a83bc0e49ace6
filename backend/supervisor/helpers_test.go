package supervisor

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// served is a session served on a socket in a short temp dir. Cleanup kills
// the child (SIGKILL to its group) and waits for it, so no process outlives
// the test.
type served struct {
	sess *Session
	srv  *Server
	sock string
	dir  string
}

// startServed starts cfg under a Server on DIR/ID.sock. opts adjust the
// Server before it starts serving (e.g. its QueueBytes).
func startServed(t testing.TB, cfg Config, opts ...func(*Server)) *served {
	t.Helper()
	dir := shortDir(t)
	if cfg.ID == "" {
		cfg.ID = "t"
	}
	claim, err := ClaimID(dir, cfg.ID)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := Start(cfg)
	if err != nil {
		claim.Release()
		t.Fatal(err)
	}
	srv := &Server{Session: sess}
	for _, o := range opts {
		o(srv)
	}
	go srv.Serve(claim.Listener)
	t.Cleanup(func() {
		// Straight to the group, not through Signal: that takes the
		// session's lock, which a broken session may never release.
		// Only while it runs: once reaped, its pid (and group id) may be
		// another test's session by now.
		select {
		case <-sess.Done():
		default:
			syscall.Kill(-sess.PID(), syscall.SIGKILL)
		}
		select {
		case <-sess.Done():
		case <-time.After(10 * time.Second):
			t.Errorf("session %s did not exit after SIGKILL", cfg.ID)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		claim.Release()
	})
	return &served{sess: sess, srv: srv, sock: SocketPath(dir, cfg.ID), dir: dir}
}

func dial(t testing.TB, sock string) *frame.Client {
	t.Helper()
	c, err := frame.Dial(sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readUntilExit reads frames until EXIT (or timeout) and returns the OUTPUT
// bytes and the exit code (-1000 if no EXIT came).
func readUntilExit(t testing.TB, c *frame.Client, timeout time.Duration) ([]byte, int) {
	t.Helper()
	c.Conn().SetReadDeadline(time.Now().Add(timeout))
	var out bytes.Buffer
	for {
		f, err := c.Next()
		if err != nil {
			t.Errorf("read: %v (output so far %q)", err, tail(out.Bytes()))
			return out.Bytes(), -1000
		}
		switch f.Type {
		case frame.Output:
			out.Write(f.Payload)
		case frame.Exit:
			code, err := frame.ParseExit(f.Payload)
			if err != nil {
				t.Error(err)
			}
			return out.Bytes(), int(code)
		}
	}
}

// readUntil reads OUTPUT until the accumulated output contains want.
func readUntil(t testing.TB, c *frame.Client, want string, timeout time.Duration) []byte {
	t.Helper()
	c.Conn().SetReadDeadline(time.Now().Add(timeout))
	defer c.Conn().SetReadDeadline(time.Time{})
	var out bytes.Buffer
	for !strings.Contains(out.String(), want) {
		f, err := c.Next()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("timed out waiting for %q; got %q", want, tail(out.Bytes()))
			}
			t.Fatalf("read waiting for %q: %v; got %q", want, err, tail(out.Bytes()))
		}
		if f.Type == frame.Output {
			out.Write(f.Payload)
		}
	}
	return out.Bytes()
}

func tail(b []byte) []byte {
	if len(b) > 300 {
		return b[len(b)-300:]
	}
	return b
}

// writeScript writes an executable sh script into a temp dir and returns its path.
func writeScript(t testing.TB, body string) string {
	t.Helper()
	p := filepath.Join(shortDir(t), "s.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// withQueueBytes sets the Server's subscriber queue bound (for startServed).
func withQueueBytes(n int) func(*Server) { return func(srv *Server) { srv.QueueBytes = n } }

// serveAgain serves sess with a second Server (own socket, own QueueBytes) in
// a fresh short dir, closed when the test ends.
func serveAgain(t testing.TB, sess *Session, queueBytes int) string {
	t.Helper()
	dir := shortDir(t)
	claim, err := ClaimID(dir, "b")
	if err != nil {
		t.Fatal(err)
	}
	srv := &Server{Session: sess, QueueBytes: queueBytes}
	go srv.Serve(claim.Listener)
	t.Cleanup(func() {
		srv.Close()
		claim.Release()
	})
	return SocketPath(dir, "b")
}

// subscribeSync sends SUBSCRIBE then STATUS on c and reads until the
// STATUS_RESP: frames on one connection are handled in order, so once it
// returns the subscription is registered and every later pty byte reaches c.
// It returns the OUTPUT (replay) read meanwhile.
func subscribeSync(t testing.TB, c *frame.Client) []byte { return subscribedSync(t, c, c.Subscribe) }

// subscribedSync is subscribeSync with subscribe sending the frames that
// subscribe (SUBSCRIBE_SCREEN, or several).
func subscribedSync(t testing.TB, c *frame.Client, subscribe func() error) []byte {
	t.Helper()
	if err := subscribe(); err != nil {
		t.Fatal(err)
	}
	if err := c.Send(frame.Status, nil); err != nil {
		t.Fatal(err)
	}
	c.Conn().SetReadDeadline(time.Now().Add(10 * time.Second))
	defer c.Conn().SetReadDeadline(time.Time{})
	var out bytes.Buffer
	for {
		f, err := c.Next()
		if err != nil {
			t.Fatalf("subscribe: waiting for STATUS_RESP: %v", err)
		}
		switch f.Type {
		case frame.Output:
			out.Write(f.Payload)
		case frame.StatusResp:
			return out.Bytes()
		case frame.Exit:
			t.Fatalf("subscribe: EXIT before STATUS_RESP")
		}
	}
}

// statusOf asks for STATUS on a fresh connection.
func statusOf(t testing.TB, sock string) frame.StatusInfo {
	t.Helper()
	c, err := frame.Dial(sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Conn().SetDeadline(time.Now().Add(5 * time.Second))
	st, err := c.Status()
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	return st
}

// crlf is s as a pty with the default ONLCR output flag sends it.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// waitGone waits up to timeout for pid to be gone.
func waitGone(t testing.TB, pid int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive after %v", pid, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readPidFile waits for a child to write its pid into path.
func readPidFile(t testing.TB, path string, timeout time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		b, err := os.ReadFile(path)
		if err == nil && bytes.HasSuffix(b, []byte("\n")) {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil || pid <= 0 {
				t.Fatalf("pid file %s: %q", path, b)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s after %v", path, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitDone waits for the session to finish.
func waitDone(t testing.TB, s *Session, timeout time.Duration) int {
	t.Helper()
	select {
	case <-s.Done():
		return s.ExitCode()
	case <-time.After(timeout):
		t.Fatalf("session %s not done after %v", s.ID(), timeout)
		return 0
	}
}

// startSession starts cfg without a server; cleanup SIGKILLs the group and
// waits, so no child outlives the test.
func startSession(t testing.TB, cfg Config) *Session {
	t.Helper()
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select { // see startServed
		case <-s.Done():
		default:
			syscall.Kill(-s.PID(), syscall.SIGKILL)
		}
		select {
		case <-s.Done():
		case <-time.After(10 * time.Second):
			t.Errorf("session %s did not exit after SIGKILL", s.ID())
		}
	})
	return s
}

// collector is a thread-safe buffer for listeners.
type collector struct {
	mu  sync.Mutex
	buf bytes.Buffer
	n   int // calls
}

func (c *collector) add(p []byte) {
	c.mu.Lock()
	c.buf.Write(p)
	c.n++
	c.mu.Unlock()
}

func (c *collector) calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *collector) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.buf.Bytes()...)
}

// scrollback returns the session's current scrollback (through the public
// Subscribe, closing the subscription at once).
func scrollback(s *Session) []byte {
	b, sub := s.Subscribe(1)
	sub.Close()
	return b
}

// Shared with the other process-running tests (backend/internal/proctest).
type gate = proctest.Gate

var (
	shortDir    = proctest.ShortDir
	waitFor     = proctest.WaitFor
	processGone = proc.Gone
	newGate     = proctest.NewGate
)

// holdSlots takes n emulation slots (no Feeder can use them) until the
// returned release is called, or the test ends.
func holdSlots(t testing.TB, n int) (release func()) {
	for range n {
		emuSlots <- struct{}{}
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			for range n {
				<-emuSlots
			}
		})
	}
	t.Cleanup(release)
	return release
}
