// Command heimdall is the small executable: what runs often, linking only
// what that needs, so that it starts in about the time any Go program
// does. It is each session's supervisor (`run`, which the dashboard and
// heimdall-tui's own `run` start), the hook an agent runs before every
// tool call (`hook`), and the protocol tools agents call in a loop
// (`resolve`, `ledger log`); on another host, what a dashboard there runs
// over ssh (`mux`, `attach`). Any other command is heimdall-tui's: heimdall
// hands it over to the heimdall-tui beside it, so either name takes every
// command. Invoked through a link named like a bash protocol tool
// (heimdall-resolve, heimdall-ledger, ...), it is that tool.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/hook"
	"github.com/heimdall-tui/heimdall-tui/backend/host"
	"github.com/heimdall-tui/heimdall-tui/backend/planning/plancli"
	"github.com/heimdall-tui/heimdall-tui/backend/planning/toollinks"
	"github.com/heimdall-tui/heimdall-tui/backend/remote"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

const name = "heimdall"

func main() { os.Exit(run(os.Args)) }

func run(argv []string) int {
	args, tool := toollinks.Args(argv)
	prog := name
	if tool != "" {
		prog = tool
	}
	pio := plancli.IO{Prog: prog, Tool: tool != "", Stdout: os.Stdout, Stderr: os.Stderr}
	switch {
	case len(args) >= 1 && args[0] == "hook" && tool == "" && !helpAsked(args[1:]):
		hook.Run(args[1:], os.Stdin, hook.Budget)
		return 0
	case len(args) >= 1 && args[0] == "resolve":
		return plancli.Resolve(pio, args[1:])
	case len(args) >= 2 && args[0] == "ledger" && args[1] == "log" && !plancli.Counts(args[2:]):
		return plancli.LedgerLog(pio, args[2:], nil) // counting tokens takes heimdall-tui's tokenizer
	}
	if tool == "" {
		global := pflag.NewFlagSet(name, pflag.ContinueOnError)
		global.SetInterspersed(false)
		global.SetOutput(os.Stderr)
		configPath := global.String("config", "", "config file")
		socketDir := global.String("socket-dir", "", "directory of session sockets")
		if err := global.Parse(args); err == nil && global.NArg() > 0 && global.Arg(0) == "run" {
			if code, ok := supervise(*configPath, *socketDir, global.Args()[1:]); ok {
				return code
			}
		} else if err == nil && global.NArg() == 1 && global.Arg(0) == "mux" {
			return serveMux(*configPath, *socketDir)
		} else if err == nil && global.NArg() > 0 && global.Arg(0) == "attach" && !helpAsked(global.Args()[1:]) {
			return attachTerminal(*configPath, *socketDir, global.Args()[1:])
		}
	}
	return handOver(argv)
}

// helpAsked reports whether args ask for a command's help.
func helpAsked(args []string) bool {
	for _, a := range args {
		if a == "--help" || a == "-h" {
			return true
		}
	}
	return false
}

// supervise is `run` when this process is to be the supervisor (--dashboard,
// --spawned, --foreground); ok is false for any other run (one that
// attaches a terminal or returns at once is heimdall-tui's) and for help.
func supervise(configPath, socketDir string, args []string) (code int, ok bool) {
	fs := pflag.NewFlagSet(name+" run", pflag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	o := host.Flags(fs)
	// The global flags may follow the subcommand, as heimdall-tui's
	// (cobra's persistent flags) and hm's may.
	fs.StringVar(&configPath, "config", configPath, "config file")
	fs.StringVar(&socketDir, "socket-dir", socketDir, "directory of session sockets")
	if helpAsked(args) {
		return 0, false
	}
	if err := fs.Parse(args); err != nil {
		return fail(err), true
	}
	if !o.Supervises() {
		return 0, false
	}
	cfg, warnings, err := config.LoadFile(configPath)
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, name+": warning:", w)
	}
	if err != nil {
		return fail(err), true
	}
	if err := o.Check(cfg, fs.Args(), fs.ArgsLenAtDash()); err != nil {
		return fail(err), true
	}
	code, err = host.Run(cfg, cfg.SocketDirFor(socketDir), *o, name, os.Stderr)
	if err != nil {
		var ee host.ExitError
		if errors.As(err, &ee) {
			return int(ee), true
		}
		return fail(err), true
	}
	return code, true
}

// serveMux is `heimdall mux`: the sessions of the socket dir served over
// stdin and stdout, for a dashboard on another machine that runs it as
// its `ssh HOST` command (backend/remote).
func serveMux(configPath, socketDir string) int {
	cfg, _, err := config.LoadFile(configPath)
	if err != nil {
		return fail(err)
	}
	dir := cfg.SocketDirFor(socketDir)
	if err := remote.Serve(remote.Stdio{}, dir, cfg, remote.Global(dir, cfg)); err != nil {
		return fail(err)
	}
	return 0
}

// attachTerminal is `heimdall attach [--detach-key KEY] ID`: this terminal
// attached to a session of the socket dir, as heimdall-tui's attach; what
// a dashboard on another machine runs over `ssh -t` (backend/remote), so
// that the small executable is all a remote needs.
func attachTerminal(configPath, socketDir string, args []string) int {
	flags := pflag.NewFlagSet(name+" attach", pflag.ContinueOnError)
	flags.SetOutput(os.Stderr)
	key := flags.String("detach-key", "ctrl-\\", "the key that detaches")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() != 1 {
		fmt.Fprintf(os.Stderr, "usage: %s attach [--detach-key KEY] ID\n", name)
		return 2
	}
	detach, err := attach.ParseDetachKey(*key)
	if err != nil {
		return fail(err)
	}
	cfg, _, err := config.LoadFile(configPath)
	if err != nil {
		return fail(err)
	}
	id := flags.Arg(0)
	c, err := supervisor.DialSession(cfg.SocketDirFor(socketDir), id, 5*time.Second)
	if errors.Is(err, supervisor.ErrNoSession) {
		fmt.Fprintf(os.Stderr, "No session found: %s\n", id)
		return 1
	}
	if err != nil {
		return fail(err)
	}
	ep, err := attach.NewSocket(c)
	if err != nil {
		return fail(err)
	}
	res, err := attach.Run(ep, attach.Options{DetachKey: detach})
	if err != nil {
		return fail(fmt.Errorf("attach %q: %w", id, err))
	}
	line, code := res.Said()
	fmt.Fprintln(os.Stderr, line)
	return code
}

func fail(err error) int {
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	return 1
}

// handOver runs argv as heimdall-tui, the executable beside this one, in
// this process (same pid, descriptors and environment).
func handOver(argv []string) int {
	exe, err := os.Executable()
	if err == nil {
		tui := filepath.Join(filepath.Dir(exe), toollinks.Binary)
		argv0 := toollinks.Binary
		if _, tool := toollinks.Args(argv); tool != "" {
			argv0 = argv[0] // heimdall-tui is that tool too
		}
		err = syscall.Exec(tui, append([]string{argv0}, argv[1:]...), os.Environ())
	}
	fmt.Fprintf(os.Stderr, "%s: this command is heimdall-tui's, which is not beside %s (install both: go install ./cmd/...): %v\n", name, exe, err)
	return 2
}
