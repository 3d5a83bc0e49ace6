// Command heimdall-tui is the one binary: with no arguments the dashboard;
// with a subcommand, one of the backend's tools (run, ls, status, kill,
// attach, clean), compatible with the Heimdall supervisor's hm command.
// Invoked through a link named like a bash protocol tool (heimdall-resolve,
// heimdall-ledger, ...), it is that tool (multicall.go).
package main

import (
	"os"

	"github.com/heimdall-tui/heimdall-tui/cmd/heimdall-tui/internal/earlyhook"
	// Its init answers `resolve ID` and `ledger log` before the packages
	// they do not need are initialised.
	_ "github.com/heimdall-tui/heimdall-tui/cmd/heimdall-tui/internal/earlyplan"
)

func main() {
	// An agent's hook runs before each of its tool calls: it is done in
	// earlyhook's init, before most packages are initialised, and when
	// that could not be (no /proc, no socket named) here, before the
	// command tree is built.
	if earlyhook.Invoked(os.Args) {
		earlyhook.Run(os.Args[2:])
		os.Exit(0)
	}
	os.Exit(execute(multicallArgs(os.Args), os.Stdin, os.Stdout, os.Stderr))
}
