// Package hook is how an agent reports its steps to its session's
// supervisor, besides its screen (agent-signals §1): Prepare gives a
// Claude Code or codex session hooks that run `EXE hook` (its own
// settings file, never the user's), and Run is that command: it sends the
// event to the supervisor named in its environment as one HOOK frame, on
// a connection of its own.
//
// Run's contract is Claude Code's: it prints nothing (the stdout of
// SessionStart and UserPromptSubmit hooks becomes model context), its
// caller exits 0 whatever happens (any other code shows the user a hook
// error, 2 blocks the tool call), and it returns within Budget even when
// the supervisor is gone, never accepts, or accepts and never reads.
package hook

import (
	"io"
	"net"
	"os"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// SocketEnv names the session's socket in the environment of the program
// `run` starts, so its hooks find their supervisor.
const SocketEnv = "HEIMDALL_HOOK_SOCKET"

// Budget bounds a hook's run: reading the payload, connecting and
// writing. It is seconds, under the timeout Claude is given for the hook
// (hookTimeout): on a busy machine a hook that gave up after a fifth of a
// second lost events, and a lost Stop, StopFailure or PermissionRequest
// costs more than a slower hook — which takes milliseconds when the
// supervisor answers.
const Budget = 3 * time.Second

// Run is the hook command with args, the arguments after `hook`
// (`--codex JSON` for codex; none for Claude, whose payload is stdin),
// reporting to the socket in $HEIMDALL_HOOK_SOCKET. It returns within
// budget, having sent the event or not (a payload longer than a frame
// takes, one that cannot be read, a supervisor that does not take it in
// time: nothing is sent). What it left running (a read of a stdin that
// never ends) ends with the process.
func Run(args []string, stdin io.Reader, budget time.Duration) {
	sock := os.Getenv(SocketEnv)
	if sock == "" {
		return
	}
	deadline := time.Now().Add(budget)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { recover() }() // nothing may reach the agent
		send(sock, args, stdin, deadline)
	}()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// send reads the payload and writes the frame before deadline.
func send(sock string, args []string, stdin io.Reader, deadline time.Time) {
	source, payload := frame.HookClaude, []byte(nil)
	if len(args) >= 2 && args[0] == "--codex" {
		source, payload = frame.HookCodex, []byte(args[len(args)-1])
	} else {
		b, err := io.ReadAll(io.LimitReader(stdin, frame.MaxPayload))
		if err != nil {
			return
		}
		payload = b
	}
	if 1+len(payload) > frame.MaxPayload {
		return // cut, it would not be JSON
	}
	c, err := net.DialTimeout("unix", sock, time.Until(deadline))
	if err != nil {
		return
	}
	defer c.Close()
	c.SetDeadline(deadline)
	// The mode byte the server sends first is not waited for: a
	// supervisor that accepted and hangs must not hold the hook.
	frame.Write(c, frame.Hook, append([]byte{source}, payload...))
}
