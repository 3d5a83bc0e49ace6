// Package earlyplan answers the planning tools' commonest calls, `resolve
// ID` and `ledger log --role R --kind K --tokens N [--msg-id M]`, from its
// init, before the binary's heavy packages are initialised.
//
// Agents run these many times a turn (they replace bash+jq tools), and a
// Go program initialises every package it links before main: for this
// binary, about 2 ms a run. The Go spec's order (see earlyhook) initialises
// a package as soon as its imports are and no package that sorts before it
// is ready. This package imports only syscall, strconv, planfile and
// toollinks (planfile in turn only syscall and packages initialised before
// it), so it is initialised right after syscall, as earlyhook is: before
// time, os and what waits for them — among those
// github.com/BurntSushi/toml/internal, which loads the local time zone
// in its init (~64k instructions, a third of what ran before this
// package's init when it imported os and time) — and before reflect and
// the packages that wait for it (fmt, encoding/json, the crypto, MCP and
// Bubble Tea packages, ...). So it reads its command line from
// /proc/self/cmdline (os.Args is set by os's init), the clock and its files
// with system calls, and exits with syscall.Exit. A new import must keep
// it so: cmd/heimdall-tui's TestPlanToolsRunBeforeInit fails otherwise.
//
// It takes only the plain case and leaves every other one to the command
// tree, which words the errors: arguments it does not read exactly as
// cobra would, a value that JSON would escape, a symbol table that
// planfile.FastLookup does not take, a missing file, an unknown symbol, a
// command line it cannot read (no /proc), an answer it cannot write at
// once (a non-blocking stdout that is full). `resolve` only reads, so
// declining costs a second read; `ledger log` declines before it writes
// anything, and reports a failed write itself, as the command does (the
// appends are planfile's, errors and all).
package earlyplan

import (
	"strconv"
	"syscall"

	"github.com/heimdall-tui/heimdall-tui/backend/planning/planfile"
	"github.com/heimdall-tui/heimdall-tui/cmd/heimdall-tui/internal/toollinks"
)

// init runs the call and exits when it is one this package takes.
func init() {
	b, err := planfile.ReadFile("/proc/self/cmdline")
	if err != nil {
		return
	}
	args, tool := toollinks.Args(toollinks.SplitCmdline(b))
	switch {
	case len(args) >= 1 && args[0] == "resolve":
		if v, ok := resolve(root(), args[1:]); ok && writeOut(v+"\n") {
			syscall.Exit(0)
		}
	case len(args) >= 2 && args[0] == "ledger" && args[1] == "log":
		if e, ok := parseLog(args[2:]); ok {
			if err := e.write(root(), unixNow); err != nil {
				if tool == "" {
					tool = toollinks.Binary
				}
				syscall.Write(2, []byte(tool+": "+err.Error()+"\n"))
				syscall.Exit(2) // an I/O error, as the command's planErr maps it
			}
			syscall.Exit(0)
		}
	}
}

// writeOut writes s to stdout and reports whether it did. It declines
// (false, nothing written) a non-blocking stdout, which may take only part
// of it (the command tree's writer waits for the rest), and a stdout that
// fails the first write (a closed pipe: the command tree's writer dies of
// SIGPIPE, as any Go program's does). A blocking write is partial only
// when a signal interrupts it, and goes on.
func writeOut(s string) bool {
	if fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 1, syscall.F_GETFL, 0); errno != 0 || fl&syscall.O_NONBLOCK != 0 {
		return false
	}
	b := []byte(s)
	for written := false; len(b) > 0; {
		n, err := syscall.Write(1, b)
		switch {
		case err == syscall.EINTR:
		case err != nil || n <= 0:
			return written // after a part, as os's writer does: the rest is lost
		default:
			b, written = b[n:], true
		}
	}
	return true
}

// root is planfile.DefaultRoot, read from /proc/self/environ: the
// environment the process started with, which is its environment until
// something sets a variable, and nothing has before os is initialised.
// (syscall.Getenv would first copy the whole environment into a map:
// ~38k instructions with 30 variables, more in an agent's environment.)
func root() string {
	b, err := planfile.ReadFile("/proc/self/environ")
	if err != nil {
		return planfile.DefaultRoot()
	}
	return planfile.Root(toollinks.LookupEnv(b, planfile.RootEnv))
}

// unixNow is the time of day in seconds since 1970.
func unixNow() int64 {
	var tv syscall.Timeval
	syscall.Gettimeofday(&tv)
	return tv.Sec
}

// resolve is `resolve ID` (args: [ID]) in root: the symbol's value, or
// false for anything else.
func resolve(root string, args []string) (string, bool) {
	if len(args) != 1 || args[0] == "set" || args[0] == "list" || args[0] == "" || args[0][0] == '-' {
		return "", false
	}
	b, err := planfile.ReadFile(planfile.SymbolsPath(root))
	if err != nil {
		return "", false
	}
	version, v, found, ok := planfile.FastLookup(b, "symbols", args[0])
	return v, ok && found && planfile.CheckVersion(version)
}

// logEntry is a `ledger log` call whose values JSON writes as they are.
type logEntry struct {
	role, kind, tokens, msgID string
}

// parseLog reads `ledger log`'s arguments as the command's flags do
// (--name VALUE or --name=VALUE), taking only --role, --kind, --tokens
// (decimal digits) and --msg-id, each at most once, with plain values.
func parseLog(args []string) (logEntry, bool) {
	var e logEntry
	seen := map[string]bool{}
	for len(args) > 0 {
		a := args[0]
		args = args[1:]
		if len(a) < 3 || a[:2] != "--" {
			return e, false
		}
		name, value, inline := a[2:], "", false
		for i := 0; i < len(name); i++ {
			if name[i] == '=' {
				name, value, inline = name[:i], name[i+1:], true
				break
			}
		}
		if !inline {
			if len(args) == 0 {
				return e, false
			}
			value, args = args[0], args[1:]
		}
		if seen[name] || !plain(value) {
			return e, false
		}
		seen[name] = true
		switch name {
		case "role":
			e.role = value
		case "kind":
			e.kind = value
		case "msg-id":
			e.msgID = value
		case "tokens":
			if !decimal(value) {
				return e, false
			}
			e.tokens = value
		default:
			return e, false
		}
	}
	return e, e.role != "" && e.kind != "" && e.tokens != ""
}

// plain reports whether s is non-empty printable ASCII without '"' and
// '\\' (so JSON writes it as it is and protocol.log as it is), and does
// not start with '-' (a flag's value that cobra might read otherwise).
func plain(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// decimal reports whether s is a non-negative int64 in decimal without a
// leading zero (the flag parser reads "010" as octal).
func decimal(s string) bool {
	if s[0] == '0' && len(s) > 1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// line is the entry's ledger.jsonl line, as planning.Ledger.Log writes
// it (encoding/json, fields in LedgerEntry's order).
func (e logEntry) line(ts string) []byte {
	s := `{"ts":"` + ts + `","role":"` + e.role + `","kind":"` + e.kind + `","tokens":` + e.tokens
	if e.msgID != "" {
		s += `,"msg_id":"` + e.msgID + `"`
	}
	return []byte(s + "}\n")
}

// write does what planning.Ledger.Log does: the entry's line appended to
// the ledger, then `ledger log role/kind=tokens` to protocol.log.
func (e logEntry) write(root string, now func() int64) error {
	if err := planfile.AppendLine(planfile.LedgerPath(root), e.line(planfile.Timestamp(now()))); err != nil {
		return err
	}
	return planfile.AppendLine(planfile.LogPath(root), planfile.LogLine(planfile.Timestamp(now()), "ledger", "log", e.role+"/"+e.kind+"="+e.tokens))
}
