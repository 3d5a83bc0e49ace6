// Package proctest holds what the tests of packages that run real
// processes in ptys share: short temp dirs for Unix sockets, bounded waits,
// a gate a child's script waits on, and the heimdall-tui binary for tests
// that start sessions' supervisors.
// Only tests import it.
package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// BuildHeimdall builds both executables into dir, as `go install
// ./cmd/...` installs them, and returns heimdall's path: what tests of
// packages that start sessions' supervisors (`run`) give their fleets as
// the supervisor command, built once per test binary (heimdall hands the
// commands it does not serve, heddle-headless say, to the heimdall-tui
// beside it). Call it from TestMain.
func BuildHeimdall(dir string) (string, error) {
	cmd := exec.Command("go", "build", "-o", dir+"/", "github.com/heimdall-tui/heimdall-tui/cmd/heimdall", "github.com/heimdall-tui/heimdall-tui/cmd/heimdall-tui")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/...: %v\n%s", err, out)
	}
	return filepath.Join(dir, "heimdall"), nil
}

// PrivateState points this test binary's state dir (XDG_STATE_HOME: the
// sessions' records, logs, tokens), and that of every process it starts,
// at dir, so that no test writes into the user's. Call it from TestMain.
func PrivateState(dir string) {
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
}
