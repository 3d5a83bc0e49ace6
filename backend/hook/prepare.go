package hook

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/shell"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// How `run` has the agent report its steps to its session's supervisor
// (`EXE hook`, Run), without touching the user's own settings
// (agent-signals §1):
//   - Claude Code gets a settings file of its own, DIR/.hooks/ID.json
//     (0600), holding a command hook for each event the classifier reads,
//     passed with --settings (claude merges it over the user's settings;
//     both sets of hooks run). It is removed when the session ends.
//   - codex gets `-c notify=[EXE,"hook","--codex"]`: its turn completions.
// The program's environment names the session's socket (SocketEnv).

// claudeHookEvents are the Claude Code events the settings file hooks:
// agent-signals §1's table. The tool events take a matcher ("*": every
// tool).
//
// async marks the events Claude may run the hook for in the background
// (its command hooks' "async"): their answer changes nothing and the
// agent goes on at once; a report that comes a little later cannot set
// the state back (a Notification repeats a wait or is an idle backstop, a
// StopFailure is the end of a turn). The others run in the foreground, in
// order: a PostToolUse that came in after the turn's Stop would.
var claudeHookEvents = []struct {
	name    string
	matcher bool
	async   bool
}{
	{"SessionStart", false, false}, {"UserPromptSubmit", false, false},
	{"PreToolUse", true, false}, {"PostToolUse", true, false}, {"PostToolUseFailure", true, false}, {"PermissionRequest", true, false},
	{"Notification", false, true}, {"Stop", false, false}, {"StopFailure", false, true},
	{"SubagentStart", false, false}, {"SubagentStop", false, false}, {"PreCompact", false, false}, {"PostCompact", false, false},
	{"SessionEnd", false, false},
}

// hookTimeout is the timeout (seconds) Claude gets for each hook: the
// command returns within Budget; this only bounds a stuck shell.
const hookTimeout = 5

// Session is what Prepare needs to know of a session.
type Session struct {
	Dir, ID           string   // the socket dir and the session's ID
	Agent, Classifier string   // the preset's name, the classifier's
	Argv              []string // what it runs
}

// agentOf names the agent a session runs for its hooks: "claude",
// "codex", or "" (none: the screen alone tells). A preset of that name
// counts, or the matching classifier with a program of that name.
func agentOf(o Session) string {
	base := filepath.Base(o.Argv[0])
	for _, name := range []string{"claude", "codex"} {
		if o.Agent == name || (o.Classifier == name && base == name) {
			return name
		}
	}
	return ""
}

// Prepare returns the argv and extra environment that make the session's
// agent report to its supervisor through this executable's `hook`, and a
// clean-up to run when the session has ended; argv unchanged if its agent
// has no hooks.
func Prepare(o Session) (argv, env []string, cleanup func(), err error) {
	cleanup = func() {}
	agent := agentOf(o)
	if agent == "" {
		return o.Argv, nil, cleanup, nil
	}
	dir := o.Dir
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("agent hooks: %w", err)
	}
	sock, err := filepath.Abs(supervisor.SocketPath(dir, o.ID))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("agent hooks: %w", err)
	}
	env = []string{SocketEnv + "=" + sock}
	argv = append([]string(nil), o.Argv...)
	switch agent {
	case "codex":
		notify, _ := json.Marshal([]string{exe, "hook", "--codex"})
		argv = append(argv, "-c", "notify="+string(notify))
	case "claude":
		path := supervisor.HooksPath(dir, o.ID)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, nil, nil, fmt.Errorf("agent hooks: %w", err)
		}
		// Made anew, 0600 (WriteFile keeps a leftover file's mode). A
		// session of the same ID already running read its own at start.
		os.Remove(path)
		if err := os.WriteFile(path, claudeSettings(exe), 0o600); err != nil {
			return nil, nil, nil, fmt.Errorf("agent hooks: %w", err)
		}
		cleanup = func() { os.Remove(path) }
		argv = append(argv, "--settings", path)
	}
	return argv, env, cleanup, nil
}

// claudeSettings is the settings file: a command hook running exe's
// `hook` for every event of claudeHookEvents. The command ends in
// `|| true`: a binary replaced or removed while the session runs (a `go
// run` build) must not make every tool call show a hook error.
func claudeSettings(exe string) []byte {
	cmd := shell.Quote(exe) + " hook 2>/dev/null || true"
	type handler struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
		Async   bool   `json:"async,omitempty"`
	}
	type group struct {
		Matcher string    `json:"matcher,omitempty"`
		Hooks   []handler `json:"hooks"`
	}
	hooks := map[string][]group{}
	for _, e := range claudeHookEvents {
		g := group{Hooks: []handler{{Type: "command", Command: cmd, Timeout: hookTimeout, Async: e.async}}}
		if e.matcher {
			g.Matcher = "*"
		}
		hooks[e.name] = []group{g}
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	return append(b, '\n')
}
