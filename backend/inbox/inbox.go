// Package inbox is what wants the user, across every session: one item
// per session that needs input (with why), failed (the failure that ended
// its turn, or its exit) or finished a turn no user has seen yet. Items
// are derived from what the fleet knows of the sessions (session.Info);
// an item is resolved when its session moves on (the agent goes back to
// work, or a user sees it: focusing or attaching a session clears Done),
// so the inbox keeps no state of its own and every client that can list
// sessions (the dashboard, the CLI, the web page) shows the same one.
package inbox

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Kind is what an item asks of the user.
type Kind string

const (
	// Input: the agent waits for the user (a permission, a question).
	Input Kind = "input"
	// Error: the last turn failed (a rate limit, an auth error), or the
	// program exited with a failure.
	Error Kind = "error"
	// Done: the last turn ended normally and no user has seen it since.
	Done Kind = "done"
)

// Item is one thing that wants the user.
type Item struct {
	Session string `json:"session"`
	Kind    Kind   `json:"kind"`
	// Reason says what is wanted: for Input the tool and its command, or
	// the agent's question; for Error the failure; for Done the first
	// line of the agent's last message, if it said.
	Reason string    `json:"reason,omitempty"`
	Since  time.Time `json:"since"` // when the session came to this
	Agent  string    `json:"agent,omitempty"`
	Title  string    `json:"title,omitempty"`
	Dir    string    `json:"dir,omitempty"`
	// Terminal: the session has a screen to open (session.CapScreen); an
	// ACP agent's has a transcript instead, and is answered from its item.
	Terminal bool `json:"terminal"`
}

// Of is session in's item, if it wants the user: Input over Error over
// Done.
func Of(in session.Info) (Item, bool) {
	it := Item{Session: in.ID, Since: in.StateSince, Agent: in.Agent, Title: in.Title, Dir: in.Dir, Terminal: in.Caps.Has(session.CapScreen)}
	switch {
	case in.Alive && in.NeedsInput:
		it.Kind, it.Reason = Input, in.Reason
		if it.Reason == "" {
			it.Reason = "waiting for input"
		}
	case !in.Alive && in.ExitCode != 0 && !in.Lost:
		it.Kind, it.Reason = Error, fmt.Sprintf("exited with code %d", in.ExitCode)
	case in.Alive && in.Limited:
		it.Kind, it.Reason = Error, LimitText(in)
	case in.Alive && in.Error != "":
		it.Kind, it.Reason = Error, in.Error
	case in.Done:
		it.Kind, it.Reason = Done, in.Summary
	default:
		return Item{}, false
	}
	return it, true
}

// LimitText says what a usage limit that stopped session in means now:
// what happens next (parked, a continue scheduled, the agent's own
// auto-continue) first, then the agent's words (else when it resets).
func LimitText(in session.Info) string {
	t := in.Error
	if t == "" {
		t = "usage limit"
		if !in.LimitReset.IsZero() {
			t += ", resets " + clock(in.LimitReset)
		}
	}
	switch {
	case in.Parked:
		t = "parked · " + t
	case !in.ContinueAt.IsZero():
		t = "continues " + clock(in.ContinueAt) + " · " + t
	case in.AutoContinue:
		t = "continues by itself · " + t
	}
	return t
}

// clock is t as the user reads it: its time of day, with the date when
// not today.
func clock(t time.Time) string {
	t = t.Local()
	if y, m, d := t.Date(); y == time.Now().Year() && m == time.Now().Month() && d == time.Now().Day() {
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}

// Items are the items of infos, newest first (ties by session ID).
func Items(infos []session.Info) []Item {
	var items []Item
	for _, in := range infos {
		if it, ok := Of(in); ok {
			items = append(items, it)
		}
	}
	slices.SortStableFunc(items, func(a, b Item) int {
		if c := b.Since.Compare(a.Since); c != 0 {
			return c
		}
		return strings.Compare(a.Session, b.Session)
	})
	return items
}

// Key identifies an item: the same session wanting the same kind of thing
// since the same moment is the same item (an alert is sent once per key),
// whatever its reason says meanwhile (Claude reports a permission prompt
// twice, the second time more precisely).
func (it Item) Key() string {
	return it.Session + "\x00" + string(it.Kind) + "\x00" + it.Since.UTC().Format(time.RFC3339Nano)
}

// Age is how long the item has waited at now, in a short form ("42s",
// "3m", "2h", "5d").
func (it Item) Age(now time.Time) string {
	d := now.Sub(it.Since)
	switch {
	case it.Since.IsZero() || d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Wait is a condition `wait --for` waits on.
type Wait string

const (
	ForInput Wait = "input" // the session needs input
	ForDone  Wait = "done"  // a turn ended normally after the wait began (Done), or the session ended
	ForIdle  Wait = "idle"  // its agent is idle, not waiting for input (or the session ended)
)

// ParseWait reads a --for value.
func ParseWait(s string) (Wait, error) {
	switch w := Wait(s); w {
	case ForInput, ForDone, ForIdle:
		return w, nil
	}
	return "", fmt.Errorf("unknown condition %q (want input, done or idle)", s)
}

// Holds reports whether in meets w for a wait that began at start (a
// Done from before it is an earlier turn's).
func (w Wait) Holds(in session.Info, start time.Time) bool {
	switch w {
	case ForInput:
		return in.Alive && in.NeedsInput
	case ForDone:
		return !in.Alive || (in.Done && !in.StateSince.Before(start))
	case ForIdle:
		return !in.Alive || (in.State == session.Idle && !in.NeedsInput)
	}
	return false
}
