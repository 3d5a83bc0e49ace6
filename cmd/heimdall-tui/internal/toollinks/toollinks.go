// Package toollinks names the links through which the binary is one of
// the bash implementation's tools (heimdall-resolve, heimdall-ledger, ...),
// and turns a command line into the CLI's arguments. It imports nothing,
// so the packages that act before the rest of the binary is initialised
// (earlyhook, earlyplan) read command lines as main does.
package toollinks

// Binary is the binary's own name, which its messages start with when it
// is not invoked as one of the tools.
const Binary = "heimdall-tui"

// Links are the names of the bash implementation's tools and the
// subcommands that replace them. Invoked through a link with one of these
// names, the binary behaves as that tool, so scripts and .mcp.json files
// that call heimdall-resolve etc. need no change. (An array, not a map: a
// map literal is built at init, ~0.1 ms of every run's start.)
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

// SplitCmdline splits b, a command line as /proc/PID/cmdline holds it
// (NUL-terminated arguments), into its arguments. The packages that act
// before os is initialised read their command line from there: os.Args is
// set by os's init.
func SplitCmdline(b []byte) []string {
	var out []string
	start := 0
	for i, c := range b {
		if c == 0 {
			out = append(out, string(b[start:i]))
			start = i + 1
		}
	}
	if start < len(b) {
		out = append(out, string(b[start:]))
	}
	return out
}

// LookupEnv is the value of key in environ, an environment as
// /proc/PID/environ holds it (NUL-terminated KEY=VALUE strings), "" when
// it is not there; the first one, as syscall.Getenv takes it. The packages
// that act before os is initialised read their variables so: syscall.Getenv
// would first copy the whole environment into a map (~38k instructions for
// 30 variables).
func LookupEnv(environ []byte, key string) string {
	for len(environ) > 0 {
		end := 0
		for end < len(environ) && environ[end] != 0 {
			end++
		}
		kv := environ[:end]
		if len(kv) > len(key) && kv[len(key)] == '=' && string(kv[:len(key)]) == key {
			return string(kv[len(key)+1:])
		}
		environ = environ[min(end+1, len(environ)):]
	}
	return ""
}
