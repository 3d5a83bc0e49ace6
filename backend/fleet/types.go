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

import "github.com/heimdall-tui/heimdall-tui/backend/launch"

// Spec describes a session to spawn (launch.Spec).
type Spec = launch.Spec

// Preset is a spawnable agent kind (launch.Preset).
type Preset = launch.Preset
