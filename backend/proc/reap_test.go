package proc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
)

// The reaper never takes the exit status of a child started in this
// process's own session (os/exec, a helper), only of what sessions orphan.
// Enabling it is process-wide, so the check runs in a child test process.
func TestReaperSparesOwnSession(t *testing.T) {
	if os.Getenv("HEIMDALL_REAPER_TEST") == "" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestReaperSparesOwnSession$", "-test.v")
		cmd.Env = append(os.Environ(), "HEIMDALL_REAPER_TEST=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS")) {
			t.Fatalf("reaper test process: %v\n%s", err, out)
		}
		return
	}
	if err := EnableSubreaper(nil); err != nil {
		t.Skip("no subreaper here:", err)
	}
	cmd := exec.Command("sh", "-c", "exit 3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	proctest.WaitFor(t, "the helper to exit", 10*time.Second, func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err == nil && bytes.Contains(b[bytes.LastIndexByte(b, ')'):], []byte(") Z"))
	})
	reapInherited() // as on its SIGCHLD
	if err := cmd.Wait(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("the helper's own Wait: %v (state %v), want exit status 3", err, cmd.ProcessState)
	}
}
