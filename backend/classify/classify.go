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
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// Classifier derives a session's state from its activity.
type Classifier interface {
	// Name is the classifier's name as given on the command line.
	Name() string
	// Output records n bytes of pty output at time t.
	Output(t time.Time, n int)
	// Exit records the child's exit at time t.
	Exit(t time.Time)
	// State returns the state at now and when that state began.
	State(now time.Time) (frame.State, time.Time)
}

// DefaultIdleThreshold is how long a session must be quiet before the simple
// classifier calls it Idle.
const DefaultIdleThreshold = 2 * time.Second

// New returns the named classifier ("simple"; "claude" arrives with the
// terminal emulator it reads). idle is the quiet threshold (0: default).
func New(name string, idle time.Duration, start time.Time) (Classifier, error) {
	switch name {
	case "", "simple":
		return NewSimple(idle, start), nil
	case "claude":
		return nil, fmt.Errorf("classifier %q is not available yet: it needs the terminal emulator (use --classifier simple)", name)
	default:
		return nil, fmt.Errorf("unknown classifier %q (want simple or claude)", name)
	}
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

// State implements Classifier.
func (s *Simple) State(now time.Time) (frame.State, time.Time) {
	switch {
	case !s.dead.IsZero():
		return frame.StateDead, s.dead
	case s.last.IsZero():
		return frame.StateIdle, s.start
	case now.Sub(s.last) < s.idle:
		return frame.StateActive, s.burstStart
	default:
		return frame.StateIdle, s.last.Add(s.idle)
	}
}
