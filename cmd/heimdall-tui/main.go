// Command heimdall-tui is the one binary: with no arguments the dashboard;
// with a subcommand, one of the backend's tools (run, ls, status, kill,
// attach, clean), compatible with the Heimdall supervisor's hm command.
package main

import (
	"os"
)

func main() {
	os.Exit(execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
