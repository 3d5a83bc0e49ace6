package fleet

import (
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
)

// OpenTestFleet opens a fleet on dir with cfg whose sessions' supervisors
// are the binary TestMain built (see testOptions), for the package's
// outside tests.
func OpenTestFleet(t testing.TB, dir string, cfg config.Config) *Fleet {
	return openFleet(t, testOptions(t, dir, cfg))
}

// HeimdallBin is the heimdall-tui binary TestMain built (heddle-headless
// is one of its subcommands).
func HeimdallBin() string { return supervisorBin }
