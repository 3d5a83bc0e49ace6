package main

import (
	"io"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// `heimdall-tui hook` is the command in the hooks of the settings file a
// Claude session is started with (agenthooks.go), and codex's notify
// program (`hook --codex JSON`). It reports the event to the session's
// supervisor — the socket in HookSocketEnv — as one HOOK frame on a
// connection of its own, and exits.
//
// Its contract is Claude Code's: it prints nothing (stdout of SessionStart
// and UserPromptSubmit hooks becomes model context), exits 0 whatever
// happens (any other code shows the user a hook error, 2 blocks the tool
// call), and returns within hookBudget even when the supervisor is gone
// or hung, since PreToolUse runs before every tool call. main runs it
// before anything else is set up.

// HookSocketEnv names the session's socket in the environment of the
// program run starts, so its hooks find their supervisor.
const HookSocketEnv = "HEIMDALL_HOOK_SOCKET"

// hookBudget bounds a hook's run: reading the payload, connecting and
// writing.
const hookBudget = 200 * time.Millisecond

// maxHookPayload bounds the payload read from stdin (a PostToolUse carries
// the tool's response, which can be large; the classifier reads only a
// few fields, so a longer payload is cut to what fits a frame).
const maxHookPayload = frame.MaxPayload - 1

// runHook is `hook [--codex JSON]`; it always returns 0.
func runHook(args []string, stdin io.Reader) (code int) {
	defer func() {
		recover() // nothing may reach the agent but exit 0
		code = 0
	}()
	deadline := time.Now().Add(hookBudget)
	sock := os.Getenv(HookSocketEnv)
	if sock == "" {
		return 0
	}
	var payload []byte
	if len(args) >= 2 && args[0] == "--codex" {
		payload = append([]byte{frame.HookCodex}, args[len(args)-1]...)
	} else {
		body, ok := readBounded(stdin, deadline)
		if !ok {
			return 0
		}
		payload = append([]byte{frame.HookClaude}, body...)
	}
	if len(payload) > frame.MaxPayload {
		return 0 // not JSON once cut: the supervisor could not read it
	}
	d := net.Dialer{Deadline: deadline}
	nc, err := d.Dial("unix", sock)
	if err != nil {
		return 0
	}
	defer nc.Close()
	nc.SetDeadline(deadline)
	// The mode byte is not waited for: a supervisor that accepted and
	// hangs must not hold the hook (a frame fits the socket's buffer).
	frame.Write(nc, frame.Hook, payload)
	return 0
}

// readBounded reads r to EOF, at most maxHookPayload+1 bytes, until
// deadline (Claude closes a hook's stdin after the payload; a reader that
// outlives the deadline is left behind: the process exits).
func readBounded(r io.Reader, deadline time.Time) ([]byte, bool) {
	type result struct {
		b   []byte
		err error
	}
	got := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, maxHookPayload+1))
		got <- result{b, err}
	}()
	select {
	case res := <-got:
		return res.b, res.err == nil
	case <-time.After(time.Until(deadline)):
		return nil, false
	}
}

// newHookCmd lists `hook` in the help; main runs it before the command
// tree is built, so this RunE runs only for an invocation main did not
// catch (through a multicall link, say).
func newHookCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "hook [--codex JSON]",
		Short: "Report an agent's hook event to its session (run by the agent; prints nothing, exits 0)",
		Long: "hook is the command in the hooks heimdall-tui gives a Claude Code session (--settings) and\n" +
			"codex's notify program. It sends the event (Claude's payload on stdin, codex's JSON argument\n" +
			"after --codex) to the session named by $" + HookSocketEnv + " and exits 0 within 200 ms, printing\n" +
			"nothing, whatever happens.",
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			runHook(args, a.stdin)
			return nil
		},
	}
}
