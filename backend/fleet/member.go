package fleet

import (
	"errors"
	"fmt"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// Member is one session of any kind in a fleet: the basics every kind has.
// What only some kinds can do (a screen, attach, a transcript, interrupt,
// restart) is a separate small interface below, found by type assertion
// (as io.Copy finds io.WriterTo); Info.Caps is filled from those
// assertions, and calling a fleet method a member lacks returns a
// *CapError.
//
// The fleet never calls a member while holding its own lock, and a member
// must not call its Reporter while holding a lock the fleet may be
// waiting for (in practice: any lock of its own that its methods take).
type Member interface {
	// Info returns the session as the dashboard shows it, a copy. It must
	// not block (no I/O): it is read on every list refresh. The fleet
	// sets ID and Caps itself, and once the member reported Exited it
	// shows it dead (Alive false, State Dead, the reported code) whatever
	// Info says.
	Info() session.Info
	// Send gives the session the user's input (see session.Input).
	Send(in session.Input) error
	// Stop ends the session: gracefully (its kind's SIGTERM with a grace),
	// or at once with force. Exited follows when it has ended.
	Stop(force bool) error
	// Hangup is the fleet closing: a session this process runs ends as on
	// a closed terminal (and is finished: sockets, files released); one
	// this process only follows is just disconnected and keeps running.
	// Done must close in bounded time after it.
	Hangup()
	// Done is closed once the member has ended or been disconnected and
	// released what it holds (its ID's socket too, so the ID can be
	// claimed again); its goroutines have returned. A member whose Done
	// closes without having reported Exited has vanished (its server went
	// away): the fleet removes it.
	Done() <-chan struct{}
}

// Reporter is how a member tells the fleet what changed. Each member gets
// its own (bound to its ID) when it is started. Calls never block for long
// and are safe from any goroutine; calls after the member was removed or
// replaced are ignored. Reports made before the member is listed are kept
// and published right after its Added (the latest Changed and Dirty, and
// Exited).
type Reporter interface {
	// Changed: Info fields other than the screen or transcript changed
	// (state, needs input, title, size). Lossy, coalesced.
	Changed()
	// Dirty: the screen or transcript changed; seq is its latest sequence
	// number (vt.Snapshot.Seq, or the last Entry's Seq). Lossy, coalesced.
	// For a screen, call it after the change can be read.
	Dirty(seq uint64)
	// Exited: the program has ended with code (128+signal if a signal
	// killed it). Must-deliver; call it once, before Done closes.
	Exited(code int)
	// Failed: an error the user should see. Must-deliver.
	Failed(err error)
}

// Screener is a member with a terminal screen (session.CapScreen).
type Screener interface {
	// Screen returns a copy of the screen (never nil).
	Screen() *vt.Snapshot
	// Resize sets the screen's (and the program's terminal's) size.
	Resize(cols, rows uint16) error
}

// screenReuser is a Screener that can copy its screen into an earlier
// copy's memory (vt.Emulator.SnapshotInto): the followed sessions a
// dashboard shows, whose screens it copies up to 60 times a second.
type screenReuser interface {
	ScreenInto(dst *vt.Snapshot) *vt.Snapshot
}

// Hanger is a member whose program has a terminal that can be hung up as
// a closing terminal is (pty sessions): SIGHUP, SIGTERM a second later if
// anything is left, SIGKILL after the kill grace. StopOwned uses it; other
// members are stopped with Stop(false).
type Hanger interface {
	HangupTerminal() error
}

// Attacher is a member that can be attached to interactively
// (session.CapAttach).
type Attacher interface {
	Endpoint() (attach.Endpoint, error)
}

// Transcripter is a member that keeps a transcript (session.CapTranscript).
type Transcripter interface {
	// Transcript returns the entries with Seq > after, oldest first (a
	// copy; nil if none).
	Transcript(after uint64) []session.Entry
}

// Interrupter is a member whose current turn can be interrupted without
// ending the session (session.CapInterrupt).
type Interrupter interface {
	Interrupt() error
}

// Restarter is a member that can be started again with the same spec and
// ID (session.CapRestart). The fleet calls Restart once the old member's
// Done has closed, holding the ID for it; Restart starts and returns the
// new member, which reports to r. An error wrapping
// supervisor.ErrAlreadyRunning is retried for a while (another process may
// not have released the ID yet).
type Restarter interface {
	Restart(r Reporter) (Member, error)
}

// Outliver is a member whose session runs outside this process, under a
// supervisor of its own or in a daemon, so that it goes on when the
// dashboard quits (session.CapOutlive); the fleet only follows it.
type Outliver interface {
	RunsOutside()
}

// capsOf lists what m can do beyond the basics, from its interfaces.
// Answerer is a member that can answer the dialog its agent shows
// (Fleet.Answer).
type Answerer interface {
	Answer(c answer.Choice, question string) (answer.Given, error)
	// Prompt is the dialog the agent shows now, as Answer would read it.
	Prompt() (answer.Prompt, error)
}

// Sayer is a member that takes a whole prompt typed into its agent
// once it waits at its prompt (SAY); an error wrapping ErrBusy means not
// now.
type Sayer interface {
	Say(text string) error
}

// Peeker is a member whose screen can be read as it is now, as text
// (Fleet.Peek).
type Peeker interface{ Peek() ([]string, error) }

// Viewer is a member that can tell its session a user looks at it here
// (Fleet.View): alerts anywhere then leave it alone.
type Viewer interface{ View(on bool) error }

// Seener is a member that clears its Done flag once a user has seen it
// (Fleet.Seen).
type Seener interface{ Seen() error }

func capsOf(m Member) session.Caps {
	var c session.Caps
	if _, ok := m.(Screener); ok {
		c |= session.CapScreen
	}
	if _, ok := m.(Attacher); ok {
		c |= session.CapAttach
	}
	if _, ok := m.(Transcripter); ok {
		c |= session.CapTranscript
	}
	if _, ok := m.(Interrupter); ok {
		c |= session.CapInterrupt
	}
	if _, ok := m.(Restarter); ok {
		c |= session.CapRestart
	}
	if _, ok := m.(Answerer); ok {
		c |= session.CapAnswer
	}
	if _, ok := m.(Outliver); ok {
		c |= session.CapOutlive
	}
	return c
}

// CapError is the error of a fleet method the session's kind cannot do:
// "attach transcript-1: a headless session has no terminal". It wraps
// errors.ErrUnsupported.
type CapError struct {
	Op     string // "attach", "resize", …
	ID     string
	Kind   session.Kind
	Cap    session.Caps // the capability missing
	Reason string       // why, if the member said more than its kind
}

func (e *CapError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("%s %s: %s", e.Op, e.ID, e.Reason)
	}
	return fmt.Sprintf("%s %s: %s %s", e.Op, e.ID, e.Kind.Describe(), capMissing(e.Cap))
}

func (e *CapError) Unwrap() error { return errors.ErrUnsupported }

// capMissing words a missing capability ("has no terminal"): as
// session.Caps.Lacks does, but a restart is "started again" here.
func capMissing(c session.Caps) string {
	if c == session.CapRestart {
		return "cannot be started again"
	}
	return session.Caps(0).Lacks(c)
}

// lacker is implemented by a member that can say more precisely than its
// kind why it lacks a capability (a followed pty session whose command
// line is unknown cannot be restarted; other pty sessions can).
type lacker interface {
	lacks(c session.Caps) string
}

// capError builds the error for op on a member of e lacking c.
func capError(op string, e *entry, c session.Caps) error {
	ce := &CapError{Op: op, ID: e.id, Kind: e.kind, Cap: c}
	if l, ok := e.m.(lacker); ok {
		ce.Reason = l.lacks(c)
	}
	return ce
}
