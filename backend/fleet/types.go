// Package fleet is the dashboard's view of every session: one list of
// members (Member), each a session of some kind. Every pty session is
// served by a supervisor process of its own on DIR/ID.sock — one this
// process launched (Spawn, Restart: `heimdall-tui run --dashboard`) or any
// other found by watching the directory — and followed over its socket
// with a local emulator, so it outlives this process; sessions that ended
// while no fleet followed them are listed from their records. Members of
// other kinds started in this process join with Add. What only some kinds can do (a screen, attach, a transcript,
// interrupt, restart) is found by type assertion and listed in Info.Caps.
// It is plain Go: the tui reaches it through an interface of its own.
//
// Events reach the UI through a pubsub.Broker: Dirty and Changed are lossy and
// coalesced per session (only the latest matters); Added, Removed, Exited and
// Failed are must-deliver, in order.
package fleet

// Spec describes a session to spawn.
type Spec struct {
	// ID names the session (DIR/ID.sock). "" = Agent (or argv[0]'s base name)
	// followed by the lowest free "-N".
	ID         string
	Agent      string   // preset name, for display ("" = custom)
	Argv       []string // required
	Dir        string   // working directory ("" = the dashboard's)
	Classifier string   // "" = the config's default
	Env        []string // extra NAME=value entries after the config's env
	Cols, Rows uint16   // initial size (0 = the supervisor's default)
}

// Preset is a spawnable agent kind: a built-in (claude, codex, aider, gemini,
// shell) or a config [[agent]] table, which overrides a built-in of the same
// name.
type Preset struct {
	Name       string
	Argv       []string
	Classifier string
	Env        []string
	// Yolo is the command that restarts the agent with its permission
	// prompts off ("YOLO mode"), continuing its last conversation, and
	// YoloEnv what it adds to the environment; Resume restarts it in its
	// normal mode, continuing too. nil Yolo: the agent has no such mode.
	// Built-ins only: a config [[agent]] that gives a built-in another
	// command has none (they name the built-in's program).
	Yolo, YoloEnv, Resume []string
	// Found reports whether Argv[0] resolves on PATH (or is an existing
	// path); the spawn dialog offers only found presets.
	Found bool
}
