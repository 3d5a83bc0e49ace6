package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/themes"
)

// exitCode is an error that carries a process exit status. Its message, if
// any, has already been printed.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// app is what every subcommand shares: the streams, the global flags and the
// loaded configuration.
type app struct {
	stdin          *os.File
	stdout, stderr io.Writer
	configPath     string
	socketDir      string
	cfg            config.Config

	// then is what a subcommand leaves to do once the command tree has
	// been parsed and dropped: a supervisor's session (run), which lives
	// for hours, does not keep every subcommand's flags and help texts
	// (~110 KB of heap) alive.
	then func() error
}

// dir returns the socket directory: --socket-dir, else $HEIMDALL_SOCKET_DIR,
// else the config's socket_dir, else the default.
func (a *app) dir() string { return a.cfg.SocketDirFor(a.socketDir) }

// errorf prints a message on stderr, prefixed with the name the binary
// was invoked as (heimdall-resolve etc. through a link).
func (a *app) errorf(format string, args ...any) {
	fmt.Fprintf(a.stderr, "%s: %s\n", progName, fmt.Sprintf(format, args...))
}

func newRoot(a *app) *cobra.Command {
	var dash dashboardOptions
	root := &cobra.Command{
		Use:   "heimdall-tui",
		Short: "Supervise AI coding agents and shells in ptys",
		Long: "heimdall-tui supervises programs (Claude Code, aider, codex, shells) in its own ptys,\n" +
			"serves each on a Unix socket with the Heimdall frame protocol and tells what each is doing.\n\n" +
			"With no arguments it opens the dashboard: every session in the socket dir, live screens,\n" +
			"states, attach (enter), spawn (n), kill (x), send a line (i); ? lists the keys.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return a.dashboard(dash)
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			cfg, warnings, err := config.LoadFile(a.configPath)
			for _, w := range warnings {
				fmt.Fprintln(a.stderr, "heimdall-tui: warning:", w)
			}
			if err != nil {
				return err
			}
			a.cfg = cfg
			return nil
		},
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	pf := root.PersistentFlags()
	pf.StringVar(&a.configPath, "config", "", "config file (TOML; default ~/.config/heimdall/config.toml if present)")
	root.Flags().StringVar(&dash.theme, "theme", "", "dashboard theme: "+strings.Join(themes.Names(), ", ")+" (default from config, else dark)")
	root.Flags().BoolVar(&dash.blemeesd, "blemeesd", false, "show the headless Claude sessions of the blemeesd on its socket, starting it if none answers (as config [blemeesd] enabled)")
	root.Flags().StringVar(&dash.web, "web", "", "serve the sessions to browsers on this address (host:port; as config [web] addr; see heimdall-tui web --help)")
	root.Flags().StringVar(&dash.logPath, "log", "", "dashboard log file (slog JSON; default $XDG_STATE_HOME/heimdall/dashboard.log)")
	pf.StringVar(&a.socketDir, "socket-dir", "", "directory of session sockets (default $XDG_RUNTIME_DIR/heimdall or /tmp/heimdall-$UID)")
	root.AddCommand(newRunCmd(a), newLsCmd(a), newStatusCmd(a), newKillCmd(a), newSendCmd(a), newAttachCmd(a), newCleanCmd(a), newResumeCmd(a), newScreenCmd(a), newInboxCmd(a), newWaitCmd(a), newAnswerCmd(a), newMuxCmd(a), newHostsCmd(a), newDiffCmd(a),
		newValidateCmd(a), newResolveCmd(a), newCapsuleCmd(a), newBriefCmd(a), newBlackboardCmd(a), newLedgerCmd(a), newGateCmd(a), newProtocolCmd(a), newInstallLinksCmd(a),
		newHaidCmd(a), newClaimCmd(a), newLedgerMCPCmd(a),
		newBlemeesdCmd(a), newWebCmd(a), newHeddleHeadlessCmd(a), newHeddleCmd(a))
	root.AddCommand(newHookCmd(a), newVersionCmd(a))
	a.completions(root)
	root.Version = version()
	root.SetVersionTemplate("{{.Version}}\n")
	return root
}

// completions has the shell complete a session's id for the verbs that
// take one (from the socket dir, as ls lists them) and the values of
// --classifier and --theme.
func (a *app) completions(root *cobra.Command) {
	ids := func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, _ := sessionIDs(a.dir())
		return list, cobra.ShellCompDirectiveNoFileComp
	}
	fixed := func(values []string) func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return values, cobra.ShellCompDirectiveNoFileComp
		}
	}
	for _, c := range root.Commands() {
		switch c.Name() {
		case "attach", "kill", "status", "screen", "send":
			c.ValidArgsFunction = ids
		case "run":
			c.RegisterFlagCompletionFunc("classifier", fixed(classify.Names()))
		}
	}
	root.RegisterFlagCompletionFunc("theme", fixed(themes.Names()))
}

// parseAndRun builds the command tree and runs the subcommand args name.
// The tree is garbage once it returns.
func parseAndRun(a *app, args []string) error {
	root := newRoot(a)
	root.SetArgs(args)
	return root.Execute()
}

// execute runs the CLI and returns the process exit status.
func execute(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	err := parseAndRun(a, args)
	if err == nil && a.then != nil {
		err = a.then()
	}
	var code exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	default:
		a.errorf("%v", err)
		return 1
	}
}
