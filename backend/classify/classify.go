// Package classify turns what a session does (output timing, and later its
// screen) into the state reported on the wire and shown in the dashboard.
//
// Classifiers are pure: they hold no timers and start no goroutines. They are
// fed events and asked for the state at a given instant, so an idle session
// costs no wake-ups and tests need no clocks. A Classifier is not safe for
// concurrent use; the supervisor serialises calls to it.
package classify

import (
	"fmt"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Screen is what the terminal emulator shows at one instant: the visible
// rows as plain text with trailing spaces trimmed (row 0 at the top), the
// window title, and the cursor row (carried for future rules; the built-in
// profiles do not use it). Classifiers must not keep references to Lines
// beyond the Screen call; the caller may reuse the slice.
type Screen struct {
	Lines   []string
	Title   string
	CursorY int
}

// Classifier derives a session's state from its activity.
type Classifier interface {
	// Name is the classifier's name as given on the command line.
	Name() string
	// Output records n bytes of pty output at time t.
	Output(t time.Time, n int)
	// Exit records the child's exit at time t.
	Exit(t time.Time)
	// Screen records that the emulated screen shows s from time t on.
	// Timing-only classifiers ignore it.
	Screen(t time.Time, s Screen)
	// State returns the state at now and when that state began.
	State(now time.Time) (session.State, time.Time)
	// NeedsInput reports whether, at now, the agent is waiting for the user
	// to answer a question (a permission or confirmation prompt). It is a
	// dashboard-only flag: the wire keeps reporting such a session as Idle.
	NeedsInput(now time.Time) bool
}

// DefaultIdleThreshold is how long a session must be quiet before the simple
// classifier calls it Idle.
const DefaultIdleThreshold = 2 * time.Second

// New returns the named classifier: "simple" (output timing; also ""), or a
// screen-rule classifier for an agent profile ("claude", "codex", "aider").
// idle is the simple classifier's quiet threshold (0: default); the rule
// classifiers do not use it, they read the screen instead.
func New(name string, idle time.Duration, start time.Time) (Classifier, error) {
	switch name {
	case "", "simple":
		return NewSimple(idle, start), nil
	}
	if p, ok := Profiles[name]; ok {
		return NewRules(p, start), nil
	}
	return nil, fmt.Errorf("unknown classifier %q (want %s)", name, strings.Join(Names(), ", "))
}

// Simple reports Active while output keeps arriving, Idle once the session
// has been quiet for the threshold, and Dead after exit.
type Simple struct {
	idle       time.Duration
	start      time.Time // session start: Idle since then until first output
	burstStart time.Time // first output of the current Active period
	last       time.Time // last output
	dead       time.Time
}

// NewSimple returns a simple classifier for a session started at start.
func NewSimple(idle time.Duration, start time.Time) *Simple {
	if idle <= 0 {
		idle = DefaultIdleThreshold
	}
	return &Simple{idle: idle, start: start}
}

// Name implements Classifier.
func (s *Simple) Name() string { return "simple" }

// IdleThreshold is how long after the last output the session turns Idle:
// a verdict that changes with time alone, which a session publishing its
// state re-reads then.
func (s *Simple) IdleThreshold() time.Duration { return s.idle }

// Output implements Classifier.
func (s *Simple) Output(t time.Time, n int) {
	if n <= 0 || !s.dead.IsZero() {
		return
	}
	if s.last.IsZero() || t.Sub(s.last) >= s.idle {
		s.burstStart = t
	}
	s.last = t
}

// Exit implements Classifier.
func (s *Simple) Exit(t time.Time) {
	if s.dead.IsZero() {
		s.dead = t
	}
}

// Screen implements Classifier: the simple classifier ignores the screen.
func (s *Simple) Screen(time.Time, Screen) {}

// NeedsInput implements Classifier: output timing cannot tell, so never.
func (s *Simple) NeedsInput(time.Time) bool { return false }

// State implements Classifier.
func (s *Simple) State(now time.Time) (session.State, time.Time) {
	switch {
	case !s.dead.IsZero():
		return session.Dead, s.dead
	case s.last.IsZero():
		return session.Idle, s.start
	case now.Sub(s.last) < s.idle:
		return session.Active, s.burstStart
	default:
		return session.Idle, s.last.Add(s.idle)
	}
}
