package fleet

import (
	"fmt"
	"os"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/headless/headlesstest"
	"github.com/heimdall-tui/heimdall-tui/backend/heddle/heddletest"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
)

// supervisorBin is the heimdall-tui binary the tests' fleets start their
// sessions' supervisors with (`run --dashboard`), built once by TestMain.
var supervisorBin string

func TestMain(m *testing.M) {
	heddletest.RunIfWorker() // this binary as a scripted heddle worker (heddle_test.go)
	runSlowSupervisor()      // or as a slow supervisor (slowsup_test.go)
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "fleetbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	defer headlesstest.Cleanup() // the fake claude of headless_test.go
	if supervisorBin, err = proctest.BuildHeimdall(tmp); err != nil {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
		return 1
	}
	// No user config reaches the supervisors; and what they leave behind
	// when a test kills one comes to us, to be reaped, not to init.
	os.Setenv("XDG_CONFIG_HOME", tmp)
	proctest.PrivateState(tmp)
	proc.EnableSubreaper(nil)
	return m.Run()
}
