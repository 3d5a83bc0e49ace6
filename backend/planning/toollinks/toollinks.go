// Package toollinks names the links through which the executables are
// the bash implementation's tools (heimdall-resolve, heimdall-ledger, ...),
// and turns a command line into the CLI's arguments.
package toollinks

// Binary is heimdall-tui's name, which its messages start with when it is
// not invoked as one of the tools.
const Binary = "heimdall-tui"

// Links are the names of the bash implementation's tools and the
// subcommands that replace them. Invoked through a link with one of these
// names, the binary behaves as that tool, so scripts and .mcp.json files
// that call heimdall-resolve etc. need no change.
var Links = [...]struct{ Name, Subcommand string }{
	{"heimdall-validate", "validate"},
	{"heimdall-resolve", "resolve"},
	{"heimdall-capsule", "capsule"},
	{"heimdall-brief", "brief"},
	{"heimdall-blackboard", "blackboard"},
	{"heimdall-ledger", "ledger"},
	{"heimdall-gate", "gate"},
	{"heimdall-protocol", "protocol"},
	{"heimdall-haid", "haid"},
	{"heimdall-claim", "claim"},
	{"heimdall-ledger-mcp", "ledger-mcp"},
}

// Args turns argv into the CLI's arguments: argv[1:], preceded by the
// subcommand when argv[0]'s base name is one of Links, which is then tool.
func Args(argv []string) (args []string, tool string) {
	if len(argv) == 0 {
		return nil, ""
	}
	base := argv[0]
	for i := len(base) - 1; i >= 0; i-- {
		if base[i] == '/' {
			base = base[i+1:]
			break
		}
	}
	for _, l := range Links {
		if l.Name == base {
			return append([]string{l.Subcommand}, argv[1:]...), base
		}
	}
	return argv[1:], ""
}
