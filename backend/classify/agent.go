package classify

import (
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Rules is a classifier that reads the screen through a Profile's rule
// table. Its raw state changes only when a screen arrives (never by the
// passing of time alone), and is then debounced by DebounceHold, so the
// reported state settles within DebounceHold of the screen settling.
//
// Output timing is deliberately not used: when no rule matches the screen is
// Idle. An agent that prints without any busy sign is, for a dashboard, as
// good as waiting; guessing Streaming from bytes would make the spinner
// redraws every agent does while idle-but-animated look like work.
type Rules struct {
	p     *compiledProfile
	start time.Time
	dead  time.Time
	deb   debouncer

	why        string    // why the last screen waits, as its rule's Why reads it
	prevBusy   bool      // the previous screen was busy
	prevAbove  string    // its text above the status row
	lastChange time.Time // last screen whose text above the status row changed
}

// NewRules returns a rule classifier for a session started at start. It
// panics if p does not compile; the built-in profiles are checked by tests.
func NewRules(p Profile, start time.Time) *Rules {
	cp, err := compile(p)
	if err != nil {
		panic(err)
	}
	return newRules(cp, start)
}

func newRules(cp *compiledProfile, start time.Time) *Rules {
	return &Rules{p: cp, start: start, deb: newDebouncer(DebounceHold, start)}
}

// Name implements Classifier.
func (c *Rules) Name() string { return c.p.Name }

// Output implements Classifier; see the type comment for why it is unused.
func (c *Rules) Output(time.Time, int) {}

// Exit implements Classifier: Dead from t on, whatever the screen says.
func (c *Rules) Exit(t time.Time) {
	if c.dead.IsZero() {
		c.dead = t
	}
}

// Screen implements Classifier. Screens, Exit and State must come in
// non-decreasing time order, as the supervisor's clock gives them.
func (c *Rules) Screen(t time.Time, s Screen) {
	if !c.dead.IsZero() {
		return
	}
	r, name := c.classify(t, s)
	c.why = ""
	if r == RawNeedsInput {
		c.why = c.p.why(name, s.Lines)
	}
	c.deb.set(t, r)
}

// Reason is why the last screen waits for the user, when its rule reads
// it off the screen ("" otherwise): a dialog no hook reports.
func (c *Rules) Reason() string { return c.why }

// classify computes the raw state of s shown at t and updates the streaming
// bookkeeping. It returns the raw state and the deciding rule.
func (c *Rules) classify(t time.Time, s Screen) (Raw, string) {
	v := newView(c.p, s)
	r, name, busy := c.p.eval(v)
	above := ""
	if busy {
		above = v.above()
		if c.prevBusy && above != c.prevAbove {
			c.lastChange = t
		}
	}
	c.prevBusy, c.prevAbove = busy, above
	if r == RawBusy {
		if !c.lastChange.IsZero() && t.Sub(c.lastChange) < c.p.StreamHold {
			r = RawStreaming
		} else {
			r = c.p.BusyDefault
		}
	}
	if !busy {
		c.lastChange = time.Time{}
	}
	return r, name
}

// State implements Classifier.
func (c *Rules) State(now time.Time) (session.State, time.Time) {
	if !c.dead.IsZero() {
		return session.Dead, c.dead
	}
	r, since := c.deb.at(now)
	return wireState(r), since
}

// NeedsInput implements Classifier.
func (c *Rules) NeedsInput(now time.Time) bool {
	if !c.dead.IsZero() {
		return false
	}
	r, _ := c.deb.at(now)
	return r == RawNeedsInput
}

// wireState maps a raw state to the wire: NeedsInput is Idle on the wire.
func wireState(r Raw) session.State {
	switch r {
	case RawThinking:
		return session.Thinking
	case RawStreaming:
		return session.Streaming
	case RawToolUse:
		return session.ToolUse
	default:
		return session.Idle
	}
}
