// Package headlesstest helps tests of headless sessions: it builds the fake
// claude (fakeclaude/) once per test binary.
package headlesstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/proc"
)

var build struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// FakeClaude returns the path of the fake claude, building it on first use
// into a directory removed by Cleanup (call it from TestMain after m.Run).
func FakeClaude(tb testing.TB) string {
	tb.Helper()
	build.once.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		build.dir, build.err = os.MkdirTemp("", "fakeclaude")
		if build.err != nil {
			return
		}
		build.path = filepath.Join(build.dir, "claude")
		cmd := exec.Command("go", "build", "-o", build.path, ".")
		cmd.Dir = filepath.Join(filepath.Dir(file), "fakeclaude")
		build.out, build.err = cmd.CombinedOutput()
	})
	if build.err != nil {
		tb.Fatalf("build fake claude: %v\n%s", build.err, build.out)
	}
	return build.path
}

// Main runs a test binary's tests as a process that starts claude
// children: it is their subreaper (what they orphan is reaped), and the
// fake is removed at the end. Call os.Exit(headlesstest.Main(m)) from
// TestMain.
func Main(m *testing.M) int {
	proc.EnableSubreaper(nil)
	defer Cleanup()
	return m.Run()
}

// Cleanup removes the built fake.
func Cleanup() {
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
}
