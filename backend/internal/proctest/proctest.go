// Package proctest holds what the tests of packages that run real
// processes in ptys share: short temp dirs for Unix sockets, bounded waits,
// a gate a child's script waits on, and a zombie-aware "has it exited".
// Only tests import it.
package proctest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// ShortDir returns a temp dir short enough for Unix socket paths (108
// bytes), removed when the test ends.
func ShortDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "hm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// WaitFor polls cond until it holds, failing the test after timeout.
func WaitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ProcessGone reports whether pid no longer runs. A zombie counts as gone:
// orphans are reparented to pid 1, which on some machines (containers,
// microVMs) never reaps them, so kill(pid, 0) keeps succeeding.
func ProcessGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	// "pid (comm) S ...": the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	st := b[i+2]
	return st == 'Z' || st == 'X'
}

// Gate is a file a child's script waits for (Wait), created by the test
// (Open): it starts the child's output at a moment the test chooses.
type Gate struct{ path string }

// NewGate returns a closed gate in a fresh short dir.
func NewGate(t testing.TB) Gate { return Gate{filepath.Join(ShortDir(t), "g")} }

// Wait is the shell snippet that blocks until Open is called.
func (g Gate) Wait() string {
	return fmt.Sprintf("until [ -e %s ]; do sleep 0.01; done", g.path)
}

// Open lets the waiting script go on.
func (g Gate) Open(t testing.TB) {
	t.Helper()
	if err := os.WriteFile(g.path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Path is the gate's file, for scripts that test it themselves.
func (g Gate) Path() string { return g.path }
