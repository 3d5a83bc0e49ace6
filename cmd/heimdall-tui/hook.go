package main

import (
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/cmd/heimdall-tui/internal/earlyhook"
)

// `heimdall-tui hook` is the command in the hooks of the settings file a
// Claude session is started with (agenthooks.go), and codex's notify
// program (`hook --codex JSON`). It reports the event to the session's
// supervisor — the socket in HookSocketEnv — as one HOOK frame on a
// connection of its own, and exits 0, printing nothing, within
// earlyhook.BudgetMillis. It runs before every tool call, so it is done
// during package initialisation, before the packages it does not need are
// initialised: see internal/earlyhook. main and this command run the same
// code when that did not happen.

// HookSocketEnv names the session's socket in the environment of the
// program run starts, so its hooks find their supervisor.
const HookSocketEnv = earlyhook.SocketEnv

// newHookCmd lists `hook` in the help; the hook runs before the command
// tree is built, so this RunE runs only for an invocation neither
// earlyhook nor main caught (`heimdall-tui --socket-dir D hook`, say).
func newHookCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "hook [--codex JSON]",
		Short: "Report an agent's hook event to its session (run by the agent; prints nothing, exits 0)",
		Long: "hook is the command in the hooks heimdall-tui gives a Claude Code session (--settings) and\n" +
			"codex's notify program. It sends the event (Claude's payload on stdin, codex's JSON argument\n" +
			"after --codex) to the session named by $" + HookSocketEnv + " and exits 0 within " +
			strconv.Itoa(earlyhook.BudgetMillis) + " ms, printing\nnothing, whatever happens.",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if slices.ContainsFunc(args, func(s string) bool { return s == "--help" || s == "-h" }) {
				return cmd.Help()
			}
			earlyhook.Run(args)
			return nil
		},
	}
}
