// Command heimdall-tui is the one binary: with no arguments the dashboard;
// with a subcommand, one of the backend's tools (run, ls, status, kill,
// attach, clean), compatible with the Heimdall supervisor's hm command.
// Invoked through a link named like a bash protocol tool (heimdall-resolve,
// heimdall-ledger, ...), it is that tool (multicall.go).
package main

import (
	"os"
)

func main() {
	// An agent's hook runs before each of its tool calls: it skips the
	// command tree (see hook.go).
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		os.Exit(runHook(os.Args[2:], os.Stdin))
	}
	os.Exit(execute(multicallArgs(os.Args), os.Stdin, os.Stdout, os.Stderr))
}
