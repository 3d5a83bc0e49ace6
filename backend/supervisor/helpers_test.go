package supervisor

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// shortDir returns a temp dir short enough for Unix socket paths (108 bytes),
// removed when the test ends.
func shortDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "hm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// served is a session served on a socket in a short temp dir. Cleanup kills
// the child (SIGKILL to its group) and waits for it, so no process outlives
// the test.
type served struct {
	sess *Session
	srv  *Server
	sock string
	dir  string
}

func startServed(t testing.TB, cfg Config) *served {
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
	go srv.Serve(claim.Listener)
	t.Cleanup(func() {
		sess.Signal(9)
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
