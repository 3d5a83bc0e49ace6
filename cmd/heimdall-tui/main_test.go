package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/headless/headlesstest"
	hmproc "github.com/heimdall-tui/heimdall-tui/backend/proc"
)

// Paths of the binaries built once by TestMain for the end-to-end tests.
var (
	binPath        string // heimdall-tui
	smallPath      string // heimdall, beside it: what supervisors and hooks run as
	seedClientPath string // testdata/seedclient: the wire protocol seed's client
	fakeClaudePath string // testdata/fakeclaude, named claude: Claude Code with hooks
	fakeACPPath    string // testdata/fakeacp: an ACP agent
)

// raceEnabled is set by race_test.go when the tests run with -race; the
// binary under test is then built with -race too, so a data race in the CLI
// or the supervisor fails the tests that hit it.
var raceEnabled bool

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "hmbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
		return 1
	}
	defer os.RemoveAll(tmp)

	// Keep the developer's own configuration and socket directory out of
	// the tests: every test passes --socket-dir, and a config only with
	// --config.
	cfgHome := filepath.Join(tmp, "config")
	if err := os.Mkdir(cfgHome, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
		return 1
	}
	os.Setenv("XDG_CONFIG_HOME", cfgHome)
	// The state dir (logs, the web token) too.
	os.Setenv("XDG_STATE_HOME", filepath.Join(tmp, "state"))
	// A dashboard's supervisors outlive it (tmux killed at a test's end):
	// orphaned, they come to us rather than to an init that may not reap
	// them, and we reap them.
	hmproc.EnableSubreaper(nil)
	os.Unsetenv("HEIMDALL_SOCKET_DIR")
	os.Unsetenv("TMUX")

	binPath = filepath.Join(tmp, "heimdall-tui")
	smallPath = filepath.Join(tmp, "heimdall")
	seedClientPath = filepath.Join(tmp, "seedclient")
	fakeClaudePath = filepath.Join(tmp, "fake", "claude")
	fakeACPPath = filepath.Join(tmp, "fakeacp")
	builds := [][]string{
		{"build", "-o", binPath, "."},
		{"build", "-o", smallPath, "../heimdall"},
		{"build", "-o", seedClientPath, "./testdata/seedclient"},
		{"build", "-o", fakeClaudePath, "./testdata/fakeclaude"},
		{"build", "-o", fakeACPPath, "./testdata/fakeacp"},
	}
	if raceEnabled {
		builds[0] = []string{"build", "-race", "-o", binPath, "."}
		builds[1] = []string{"build", "-race", "-o", smallPath, "../heimdall"}
		// A race-enabled program sleeps 1s at exit (atexit_sleep_ms) so
		// that late reports get out; that would cost a second per CLI
		// call. The binary still reports races (on stderr, checked by
		// the helpers) and exits 66.
		if os.Getenv("GORACE") == "" {
			os.Setenv("GORACE", "atexit_sleep_ms=50")
		}
	}
	for _, args := range builds {
		cmd := exec.Command("go", args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "TestMain: go %v: %v\n%s", args, err, out)
			return 1
		}
	}
	defer headlesstest.Cleanup()
	return m.Run()
}
