// Package action is the dashboard's one vocabulary of things the user can
// ask for. Keys (through the key map's action names), dialogs (their
// Update returns one) and ':' commands (dialog.ParseCommand) all produce
// these values, and the root model carries every one of them out in one
// place (app's exec), so a key and the command that names the same thing
// cannot disagree.
//
// An action is a plain value that names its session by ID; whether it can
// act on that session now is Check's to say (a dead session cannot be sent
// to, a session without a terminal cannot be attached to or resized, …),
// and the footer greys out keys whose action Check refuses, so the refusal
// a user sees and the hint are the same rule.
package action

import (
	"fmt"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/review"
)

// Action is something the user asked for. The app closes a dialog that
// returns any non-nil Action and then carries the Action out.
type Action interface{ action() }

// Close closes the dialog and does nothing else.
type Close struct{}

// Error is an error for the app's status line.
type Error struct{ Err error }

// Kill stops a session: SIGTERM to its process group and SIGKILL after the
// grace, or SIGKILL at once with Force. Unless Confirmed (the user said yes
// in a confirm dialog) the app asks first, so a typed `:kill` is confirmed
// like the x key.
type Kill struct {
	ID        string
	Force     bool
	Confirmed bool
}

// Remove forgets a dead session. One given a worktree is asked about
// first: Worktree then says what becomes of it (WorktreeKeep; or
// WorktreeRemove: refused while it has uncommitted changes unless Force;
// WorktreeRemoveChanged asks once more before forcing).
type Remove struct {
	ID       string
	Worktree string
	Force    bool
}

// What a Remove does with the session's worktree.
const (
	WorktreeKeep          = "keep"
	WorktreeRemove        = "remove"
	WorktreeRemoveChanged = "remove-changed"
)

// Restart starts a session again with the same spec. A running session is
// killed first: unless Confirmed, the app asks before that. A session whose
// agent reported a conversation id is started again in it (Resume) or
// without it (Fresh): unless one is set, the app asks which.
type Restart struct {
	ID            string
	Confirmed     bool
	Resume, Fresh bool
}

// Park says whether heimdall may send session ID anything on its own:
// On parks it (a scheduled continue is dropped), !On unparks it.
type Park struct {
	ID string
	On bool
}

// ContinueAfter schedules session ID, stopped by a usage limit, to be
// continued once the limit resets, a gap after any other continue
// scheduled then (its supervisor types the continue text).
type ContinueAfter struct{ ID string }

// ResumeAll starts the sessions IDs again, one at a time with the
// configured gap between two: each in its agent's conversation where it
// reported one (Resume), else with its command (Restart). Unless
// Confirmed, the app asks first.
type ResumeAll struct {
	IDs       []string
	Confirmed bool
}

// Interrupt stops the session's current turn without ending the session
// (session.CapInterrupt): the agent's interrupt key for a pty session.
type Interrupt struct{ ID string }

// Spawn starts a new session. A zero size is the focused pane's.
type Spawn struct{ Spec fleet.Spec }

// SpawnHeadless opens a headless Claude session (model, directory,
// permission mode, system prompt) through the blemeesd the dashboard runs;
// the app refuses it when it runs none.
type SpawnHeadless struct{ Spec fleet.HeadlessSpec }

// Send gives Text to the session as one line: for a terminal the app
// appends "\r" (Enter; an empty Text just presses Enter), a session that
// takes messages gets Text as one message.
type Send struct{ ID, Text string }

// Fit says what a Resize fits the session to.
type Fit uint8

const (
	FitPane     Fit = iota // the pane that shows the session
	FitTerminal            // the whole terminal
	FitExplicit            // Cols×Rows
)

func (f Fit) String() string {
	switch f {
	case FitPane:
		return "pane"
	case FitTerminal:
		return "terminal"
	case FitExplicit:
		return "explicit"
	}
	return "Fit(?)"
}

// Resize changes a session's screen size. Cols and Rows are set only for
// FitExplicit; the app computes the others.
type Resize struct {
	ID         string
	Fit        Fit
	Cols, Rows uint16
}

// Answer gives Choice to the dialog session ID shows (a permission, a
// question with options): its supervisor checks that the screen shows
// such a prompt and option, and types the agent's own key for it.
type Answer struct {
	ID     string
	Choice answer.Choice
}

// Theme switches to a built-in theme.
type Theme struct{ Name string }

// Quit leaves the dashboard. Unless Confirmed, the app first asks what to
// do with the running sessions started from a dashboard (when there are
// any): leave them running (they outlive the dashboard) or Stop them.
type Quit struct{ Confirmed, Stop bool }

// Attach hands the terminal to a session until the detach key.
type Attach struct{ ID string }

// Mode shows a layout ("grid", "zoom", "split") or opens "help". It sets,
// it does not toggle: a Mode already shown is a no-op (so ":zoom" twice
// zooms once, and leaving the zoom returns where the first one came from).
// The toggling keys (g, z, ?) become the Mode or Back that toggles.
type Mode struct{ Name string }

// Back leaves what is shown: help, then a zoom, then the grid, then the
// filter.
type Back struct{}

// Move moves the selection By rows of the list (panes of the grid),
// clamped to the first and last.
type Move struct{ By int }

// NextAttention selects the next session that needs input.
type NextAttention struct{}

// Filter starts typing the list's filter.
type Filter struct{}

// Sort switches the list to its next order.
type Sort struct{}

// Page opens a view: "inbox", or a planning view: "ledger", "blackboard"
// or "capsules".
type Page struct{ Name string }

// OpenSpawn, OpenCommand, OpenSend and OpenResize open the dialog that
// asks for the rest of a Spawn, a command, a Send or a Resize.
type (
	OpenSpawn   struct{}
	OpenCommand struct{}
	OpenSend    struct{ ID string }
	OpenResize  struct{ ID string }
	// OpenAnswerText asks for the words of an Answer of kind text.
	OpenAnswerText struct{ ID string }
	// OpenDiff shows what the session changed in its git working tree:
	// from its baseline, or from Base (a branch or commit, or @ID:
	// another session's baseline).
	OpenDiff struct{ ID, Base string }
)

// Ship commits session ID's changes and takes them as far as Ship says.
type Ship struct {
	ID   string
	Ship review.Ship
}

// Note keeps a review note on a line of session ID's diff (replacing the
// one on that line); an empty Text removes it.
type Note struct {
	ID   string
	Note review.Note
}

func (Close) action()          {}
func (Error) action()          {}
func (Kill) action()           {}
func (Remove) action()         {}
func (Restart) action()        {}
func (Interrupt) action()      {}
func (Spawn) action()          {}
func (SpawnHeadless) action()  {}
func (Send) action()           {}
func (Resize) action()         {}
func (Theme) action()          {}
func (Quit) action()           {}
func (Attach) action()         {}
func (Mode) action()           {}
func (Back) action()           {}
func (Move) action()           {}
func (NextAttention) action()  {}
func (Filter) action()         {}
func (Sort) action()           {}
func (Page) action()           {}
func (OpenSpawn) action()      {}
func (OpenCommand) action()    {}
func (OpenSend) action()       {}
func (OpenResize) action()     {}
func (Answer) action()         {}
func (OpenAnswerText) action() {}
func (OpenDiff) action()       {}
func (Note) action()           {}
func (Ship) action()           {}
func (ResumeAll) action()      {}
func (Park) action()           {}
func (ContinueAfter) action()  {}

// Target is the session a acts on, "" when it acts on none.
func Target(a Action) string {
	switch a := a.(type) {
	case Kill:
		return a.ID
	case Remove:
		return a.ID
	case Restart:
		return a.ID
	case Interrupt:
		return a.ID
	case Send:
		return a.ID
	case Resize:
		return a.ID
	case Attach:
		return a.ID
	case OpenSend:
		return a.ID
	case OpenResize:
		return a.ID
	case Answer:
		return a.ID
	case OpenAnswerText:
		return a.ID
	case OpenDiff:
		return a.ID
	case Note:
		return a.ID
	case Ship:
		return a.ID
	case Park:
		return a.ID
	case ContinueAfter:
		return a.ID
	}
	return ""
}

// Verb names a in a refusal ("attach: …"): the command that asks for it.
func Verb(a Action) string {
	switch a := a.(type) {
	case Kill:
		if a.Force {
			return "kill!"
		}
		return "kill"
	case Remove:
		return "remove"
	case Restart:
		return "restart"
	case Interrupt:
		return "interrupt"
	case Send, OpenSend:
		return "send"
	case Resize, OpenResize:
		return "resize"
	case Attach:
		return "attach"
	case Answer, OpenAnswerText:
		return "answer"
	case OpenDiff:
		return "diff"
	case Note:
		return "note"
	case Ship:
		return "ship"
	case Park:
		return "park"
	case ContinueAfter:
		return "continue"
	}
	return fmt.Sprintf("%T", a)
}
