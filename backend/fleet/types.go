// Package fleet is the dashboard's view of every session in one socket
// directory: the sessions this process starts and owns (supervisor sessions
// served on DIR/ID.sock, exactly as `heimdall-tui run` serves them) and the
// sessions other processes serve there (discovered by watching the directory,
// followed over their sockets with a local emulator). It is plain Go: the tui
// reaches it through an interface of its own.
//
// Events reach the UI through a pubsub.Broker: Dirty and Changed are lossy and
// coalesced per session (only the latest matters); Added, Removed, Exited and
// Failed are must-deliver, in order.
package fleet

import (
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// Info is a session as the dashboard shows it. It is a value: a copy taken
// under the fleet's lock.
type Info struct {
	ID    string
	Agent string // preset name ("claude", "shell", ...); for external sessions argv[0]'s base name, or ""
	// Classifier is the classifier's name for owned sessions; "" for
	// external ones, whose state comes from their own supervisor.
	Classifier string
	Argv       []string // program and arguments (external: from /proc/PID/cmdline when readable)
	Dir        string   // working directory (external: /proc/PID/cwd when readable)
	Owned      bool     // started by this process; stopped when the dashboard quits
	PID        int
	State      frame.State
	NeedsInput bool      // the classifier sees the agent waiting for the user
	StateSince time.Time // when State (or NeedsInput) last changed
	// LastOutput is when output last reached the fleet's view of the
	// screen (owned: the emulator applied it; external: it arrived over
	// the socket); zero if none yet.
	LastOutput time.Time
	Started    time.Time
	Alive      bool
	ExitCode   int // the child's exit code once !Alive (128+signal if killed by one)
	Cols, Rows int // pty size
	Title      string
}

// EventKind says what an Event reports.
type EventKind uint8

const (
	// Added: a session appeared (spawned here or found in the dir). Must-deliver.
	Added EventKind = iota
	// Removed: a session left the list (Remove, or an external socket vanished
	// before an EXIT was seen). Must-deliver.
	Removed
	// Exited: the child exited; Info has ExitCode. Must-deliver.
	Exited
	// Failed: an error the user should see (Err; ID may be ""). Must-deliver.
	Failed
	// Changed: Info fields other than the screen changed (state, needs input,
	// title, size). Lossy, coalesced per ID.
	Changed
	// Dirty: the session's screen changed; Seq is its latest emulator Seq.
	// Lossy, coalesced per ID.
	Dirty
)

func (k EventKind) String() string {
	switch k {
	case Added:
		return "Added"
	case Removed:
		return "Removed"
	case Exited:
		return "Exited"
	case Failed:
		return "Failed"
	case Changed:
		return "Changed"
	case Dirty:
		return "Dirty"
	}
	return "EventKind(?)"
}

// Event is one backend → UI notification. Anything about one session carries
// its ID; the UI drops IDs it does not know.
type Event struct {
	Kind EventKind
	ID   string
	Seq  uint64 // Dirty only
	Err  error  // Failed only
}

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
	// Found reports whether Argv[0] resolves on PATH (or is an existing
	// path); the spawn dialog offers only found presets.
	Found bool
}
