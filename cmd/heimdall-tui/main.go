// Command heimdall-tui is the dashboard (with no arguments), the servers
// (web, blemeesd, heddle, ledger-mcp), the planning tools, and the
// hm-compatible command line (run, ls, status, kill, attach, clean,
// screen). The small executable beside it, heimdall, runs what starts
// often (each session's supervisor, the agents' hook, resolve and ledger
// log); heimdall-tui runs the same code itself where heimdall is not
// installed. Invoked through a link named like a bash protocol tool
// (heimdall-resolve, heimdall-ledger, ...), it is that tool
// (multicall.go).
package main

import "os"

func main() {
	os.Exit(execute(multicallArgs(os.Args), os.Stdin, os.Stdout, os.Stderr))
}
