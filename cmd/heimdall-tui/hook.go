package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/hook"
)

// newHookCmd is `hook`: the command in the hooks of the settings file a
// Claude session is started with, and codex's notify program (package
// hook). Sessions started from a heimdall-tui with heimdall beside it run
// heimdall's, which starts faster; this one is the same code.
func newHookCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "hook [--codex JSON]",
		Short: "Report an agent's hook event to its session (run by the agent; prints nothing, exits 0)",
		Long: "hook is the command in the hooks heimdall-tui gives a Claude Code session (--settings) and\n" +
			"codex's notify program. It sends the event (Claude's payload on stdin, codex's JSON argument\n" +
			"after --codex) to the session named by $" + hook.SocketEnv + " and exits 0 within " +
			hook.Budget.String() + ", printing\nnothing, whatever happens.",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if helpAsked(args) {
				return cmd.Help()
			}
			hook.Run(args, os.Stdin, hook.Budget)
			return nil
		},
	}
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
