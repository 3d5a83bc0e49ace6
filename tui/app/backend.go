package app

import (
	"context"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/coord"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// *fleet.Fleet is the dashboard's Backend and LivePlanning its Planning
// (checked here, where the interfaces are defined).
var (
	_ Backend  = (*fleet.Fleet)(nil)
	_ Planning = LivePlanning{}
)

// LivePlanning is the dashboard's Planning: the watched .planning/ store
// and the coordination ledger (claims) kept in it.
type LivePlanning struct {
	*planning.Live
	Ledger *coord.Ledger
}

// Claims are the ledger's active claims.
func (p LivePlanning) Claims() ([]coord.Claim, error) { return p.Ledger.Claims() }

// Decisions are the ledger's last n decisions.
func (p LivePlanning) Decisions(n int) ([]coord.Decision, error) { return p.Ledger.Decisions(n) }

// Backend is everything the dashboard needs from the sessions. It is defined
// here, by its user; *fleet.Fleet implements it and tests use a stub.
//
// Update calls only Sessions and Screen, which read memory (ScreenInto
// is called from the Cmd that waits for events). Every other
// method may block — Next waits for events, Presets looks programs up on
// PATH, Spawn forks, Kill, Send and Resize may write to the socket of a
// session another supervisor serves, Endpoint dials it, Transcript may
// read a file — and is called only from a tea.Cmd, its result coming back
// to Update as a message.
type Backend interface {
	// Sessions returns every known session, in a stable order.
	Sessions() []session.Info
	// Screen returns a copy of the session's screen (session.CapScreen),
	// or nil if the ID is unknown.
	Screen(id string) *vt.Snapshot
	// ScreenInto is Screen written into dst's memory when it can
	// (vt.Emulator.SnapshotInto): dst, an earlier copy of any screen or
	// nil, is overwritten or dropped, and must not be read any more.
	ScreenInto(id string, dst *vt.Snapshot) *vt.Snapshot
	// Transcript returns the entries after seq `after` of a session that
	// keeps a transcript (session.CapTranscript), oldest first.
	Transcript(id string, after uint64) []session.Entry
	// Next blocks until at least one event is pending (or ctx ends) and
	// returns every pending event: must-deliver ones first, in order, then
	// the latest lossy event per session.
	Next(ctx context.Context) ([]session.Event, error)

	// Presets returns the spawn presets, each marked Found when its program
	// is on PATH (file system I/O: call it from a tea.Cmd).
	Presets() []fleet.Preset
	Spawn(spec fleet.Spec) (id string, err error)
	// Send gives the session the user's input (typed into a terminal, or
	// one message for a session that takes messages).
	Send(id string, in session.Input) error
	// Resize sets the size of the session's screen (session.CapScreen).
	Resize(id string, cols, rows uint16) error
	// Kill stops the session: SIGTERM to its process group and SIGKILL after
	// the grace, or SIGKILL at once with force.
	Kill(id string, force bool) error
	// Remove forgets a dead session.
	Remove(id string) error
	// View tells the session that the user looks at it here (on) or no
	// longer, so that no client alerts for it meanwhile.
	View(id string, on bool) error
	// Answer gives c to the dialog the session shows (a permission, a
	// question): what its supervisor chose, or why it wrote nothing.
	// question, if not "", is the question the user saw.
	Answer(id string, c answer.Choice, question string) (answer.Given, error)
	// Interrupt stops the session's current turn without ending it
	// (session.CapInterrupt).
	Interrupt(id string) error
	// Restart starts a session again with the same spec and ID (killing it
	// first if it is alive; session.CapRestart).
	Restart(id string) error
	// Resume starts a session again in the conversation its agent reported
	// (claude --resume ID); RestartFresh starts it again without one.
	Resume(id string) error
	RestartFresh(id string) error
	// Seen tells a session a user has seen it (it is no longer Done).
	Seen(id string) error
	// Endpoint opens an interactive attachment to the session
	// (session.CapAttach).
	Endpoint(id string) (attach.Endpoint, error)
	// Diff is what a pty session changed in its git working tree since
	// it started (or since base: a branch or commit, or @ID, another
	// session's baseline), as git diff prints it (it runs git: call it
	// from a tea.Cmd).
	Diff(id, base string) (string, error)
	// Notes are the review notes kept for session id; SetNotes keeps
	// them (file I/O: from a tea.Cmd).
	Notes(id string) ([]review.Note, error)
	SetNotes(id string, notes []review.Note) error
	// Say types text into the session's agent as one prompt once it
	// waits at its prompt; an error wrapping fleet.ErrBusy: not now.
	Say(id, text string) error
	// WorktreeChanges is how many files of the worktree made for
	// session id have uncommitted changes; RemoveWorktree removes it
	// (refusing one with changes, an error wrapping review.ErrDirty,
	// unless force). Both run git: from a tea.Cmd.
	// Ship commits session id's working tree and pushes it and opens a
	// pull request as s says (git and gh: from a tea.Cmd).
	Ship(id string, s review.Ship) (review.Shipped, error)
	WorktreeChanges(id string) (int, error)
	RemoveWorktree(id string, force bool) error
	// Park says whether heimdall may send session id anything on its
	// own; Continue schedules text to be typed into it at at (never
	// before its usage limit resets), "" cancels. Its supervisor keeps
	// both (a socket round trip: from a tea.Cmd).
	Park(id string, on bool) error
	Continue(id string, at time.Time, text string) error
	// Hosts is the state of each other machine followed (config
	// [[hosts]]); a change of one comes as a Changed event.
	Hosts() []fleet.HostInfo
}

// HeadlessOpener opens sessions of event-driven kinds (headless Claude,
// heddle workers), listed in the Backend's fleet: fleet.Openers — over
// the blemeesd the dashboard follows (*fleet.Blemees) and its heddle
// config (*fleet.Heddle) — implements it. Open blocks while the session's program starts: it is
// called only from a tea.Cmd.
type HeadlessOpener interface {
	// Open starts the session of spec.Kind and returns its fleet ID.
	Open(spec fleet.HeadlessSpec) (id string, err error)
	// Kinds lists the kinds it opens, as the spawn form offers them.
	Kinds() []session.Kind
}

var _ HeadlessOpener = fleet.Openers{}
