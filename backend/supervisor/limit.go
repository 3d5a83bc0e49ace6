package supervisor

import (
	"errors"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/usage"
)

// Usage limits and tokens. A turn stopped by a usage limit (Claude's
// StopFailure rate_limit, or the limit's words on a screen that has stood
// still: ScanLimit) makes the session Limited, with the reset time the
// agent named, until its next turn starts. The user may park it (nothing
// is sent to it by heimdall) or schedule a continue (Continue): at that
// time — never before the reset — the supervisor types the continue text
// as a prompt, if the session is still limited, not parked, and waiting
// at its prompt. The schedule lives here, so it outlives the dashboard
// that set it. The tokens come from the agent's transcript
// (usage.Transcript), read when a turn ends.

// Clock is the time as limits see it: the reset, the scheduled continue.
// Tests give a fake one (Config.Clock).
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a Clock's pending call.
type Timer interface{ Stop() bool }

type realClock struct{}

func (realClock) Now() time.Time                            { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// LimitView is what the session shows of a usage limit.
type LimitView struct {
	On         bool      // a usage limit stopped the last turn
	Reset      time.Time // when it resets (zero: not said)
	Auto       bool      // the agent continues by itself at the reset
	Parked     bool      // nothing is to be sent to it
	ContinueAt time.Time // a continue is scheduled (zero: none)
}

// limitState is a Session's (guarded by its mu).
type limitState struct {
	LimitView
	text    string    // what a scheduled continue types
	timer   Timer     // the scheduled continue
	atReset Timer     // publishes the view as the limit resets
	tries   int       // continues refused as busy so far
	cleared time.Time // the reset of the last limit a turn cleared: not read again off the screen
	usage   session.Usage
	resume  session.Resume
}

// continueRetry is how long a scheduled continue that found the session
// busy (someone typing, a dialog) waits before trying again, and
// continueTries how often it tries.
const (
	continueRetry = 30 * time.Second
	continueTries = 20
)

// limitLines is how many of the screen's last non-blank lines are read for
// a limit's words: Claude draws them just above its prompt.
const limitLines = 8

// ErrNotLimited is Continue's error for a session no limit stopped.
var ErrNotLimited = errors.New("no usage limit stopped it")

// limitHook applies what a hook says of limits, usage and the cost of
// going on.
func (s *Session) limitHook(h classify.Hook) {
	event, errKind, details := h.Event, h.Error, h.ErrorDetails
	if h.Transcript != "" {
		s.followUsage(h.Transcript, event)
	}
	switch {
	case event == "SessionStart" && (h.Source == "resume" || h.Source == "fork") && h.ContextTokens > 0:
		s.mu.Lock()
		s.lim.resume = session.Resume{Tokens: h.ContextTokens, Model: s.lim.resume.Model, Reported: true,
			Expired: h.CacheExpired, USD: h.CacheWriteUSD}
		s.mu.Unlock()
		s.publishState()
	case event == "StopFailure" && errKind == "rate_limit":
		now := s.clock.Now()
		l, ok := usage.ReadLimit(details, now)
		if !ok {
			l = usage.Limit{Reset: usage.ParseReset(details, now)}
		}
		if l.Reset.IsZero() {
			if sl, ok := usage.ReadLimit(s.screenTail(), now); ok {
				l = sl
			}
		}
		s.setLimit(l)
	case event == "UserPromptSubmit":
		s.mu.Lock()
		s.clearLimitLocked()
		s.lim.resume.Reported = false
		s.mu.Unlock()
		s.publishState()
	}
}

// ScanLimit reads the screen of an idle session for a usage limit's words
// (an agent without hooks; Claude's own message). A limit a turn has
// cleared is not read again.
func (s *Session) ScanLimit() {
	if s.Status().State != session.Idle {
		return
	}
	s.mu.Lock()
	on := s.lim.On
	s.mu.Unlock()
	if on {
		return
	}
	if l, ok := usage.ReadLimit(s.screenTail(), s.clock.Now()); ok {
		s.mu.Lock()
		again := !s.lim.cleared.IsZero() && l.Reset.Equal(s.lim.cleared)
		s.mu.Unlock()
		if !again {
			s.setLimit(l)
		}
	}
}

// screenTail is the screen's last limitLines non-blank lines.
func (s *Session) screenTail() string {
	lines := strings.Split(s.Screen().Text(), "\n")
	var tail []string
	for i := len(lines) - 1; i >= 0 && len(tail) < limitLines; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			tail = append(tail, l)
		}
	}
	return strings.Join(tail, "\n")
}

func (s *Session) setLimit(l usage.Limit) {
	s.mu.Lock()
	s.lim.On, s.lim.Reset, s.lim.Auto = true, l.Reset, l.Auto
	if s.lim.atReset != nil {
		s.lim.atReset.Stop()
		s.lim.atReset = nil
	}
	if d := l.Reset.Sub(s.clock.Now()); !l.Reset.IsZero() && d > 0 {
		s.lim.atReset = s.clock.AfterFunc(d, s.publishState) // the view stops saying Limited then
	}
	s.mu.Unlock()
	s.log.Info("usage limit", "reset", l.Reset, "auto", l.Auto)
	s.publishState()
}

// clearLimitLocked ends the limit (a turn started): a continue scheduled
// for it is dropped; parking stays. s.mu is held.
func (s *Session) clearLimitLocked() {
	if !s.lim.On {
		return
	}
	s.lim.cleared = s.lim.Reset
	s.lim.On, s.lim.Reset, s.lim.Auto = false, time.Time{}, false
	if s.lim.atReset != nil {
		s.lim.atReset.Stop()
		s.lim.atReset = nil
	}
	s.stopContinueLocked()
}

func (s *Session) stopContinueLocked() {
	if s.lim.timer != nil {
		s.lim.timer.Stop()
		s.lim.timer = nil
	}
	s.lim.ContinueAt, s.lim.tries = time.Time{}, 0
}

// Park says whether heimdall may send the session anything on its own (a
// scheduled continue): parked, it sends nothing, and a scheduled continue
// is dropped.
func (s *Session) Park(on bool) {
	s.mu.Lock()
	s.lim.Parked = on
	if on {
		s.stopContinueLocked()
	}
	s.mu.Unlock()
	s.publishState()
}

// Continue schedules text to be typed as a prompt at at, or at the
// limit's reset if that is later; text "" cancels a scheduled one. It is
// refused unless a limit stopped the session, and while it is parked.
func (s *Session) Continue(at time.Time, text string) error {
	s.mu.Lock()
	defer func() {
		s.mu.Unlock()
		s.publishState()
	}()
	if text == "" {
		s.stopContinueLocked()
		return nil
	}
	switch {
	case s.exited:
		return ErrExited
	case !s.lim.On:
		return ErrNotLimited
	case s.lim.Parked:
		return errors.New("it is parked: unpark it first")
	}
	if at.Before(s.lim.Reset) {
		at = s.lim.Reset
	}
	s.stopContinueLocked()
	s.lim.ContinueAt, s.lim.text = at, text
	s.lim.timer = s.clock.AfterFunc(at.Sub(s.clock.Now()), s.continueNow)
	s.log.Info("continue scheduled", "at", at)
	return nil
}

// continueNow is a scheduled continue's time: the text typed, if the
// session still waits at a limit and is not parked.
func (s *Session) continueNow() {
	s.mu.Lock()
	if !s.lim.On || s.lim.Parked || s.lim.ContinueAt.IsZero() || s.exited {
		s.mu.Unlock()
		return
	}
	if now := s.clock.Now(); now.Before(s.lim.ContinueAt) { // a clock that fired early
		s.lim.timer = s.clock.AfterFunc(s.lim.ContinueAt.Sub(now), s.continueNow)
		s.mu.Unlock()
		return
	}
	text := s.lim.text
	s.mu.Unlock()
	err := s.Say(text)
	s.mu.Lock()
	switch {
	case errors.Is(err, ErrBusy) && s.lim.tries+1 < continueTries && !s.lim.ContinueAt.IsZero():
		s.lim.tries++
		s.lim.timer = s.clock.AfterFunc(continueRetry, s.continueNow)
		s.log.Info("scheduled continue waits", "err", err)
	case err != nil:
		s.log.Warn("scheduled continue not typed", "err", err)
		s.stopContinueLocked()
	default:
		s.log.Info("scheduled continue typed")
		s.clearLimitLocked()
	}
	s.mu.Unlock()
	s.publishState()
}

// followUsage follows the agent's transcript, and reads it when a turn
// ends (off the caller's goroutine: a read is file I/O).
func (s *Session) followUsage(path, event string) {
	switch event {
	case "Stop", "StopFailure", "SessionEnd", "UserPromptSubmit", "PreCompact", "SessionStart":
	default:
		return
	}
	s.umu.Lock()
	if err := s.tr.Follow(path); err != nil {
		s.umu.Unlock()
		s.log.Warn("transcript not followed", "err", err)
		return
	}
	s.umu.Unlock()
	go s.readUsage()
}

// readUsage reads what the transcript gained; one read at a time.
func (s *Session) readUsage() {
	s.umu.Lock()
	changed, err := s.tr.Read()
	var u session.Usage
	var ctx int64
	var model string
	if changed {
		u = s.tr.Usage()
		ctx, model = s.tr.Context()
	}
	s.umu.Unlock()
	if err != nil {
		s.log.Warn("transcript", "err", err)
	}
	if !changed {
		return
	}
	s.mu.Lock()
	s.lim.usage = u
	if !s.lim.resume.Reported {
		s.lim.resume = session.Resume{Tokens: ctx, Model: model}
	} else {
		s.lim.resume.Model = model
	}
	s.mu.Unlock()
	s.publishState()
}

// limitViewLocked is the limit as the view shows it: limited until its
// reset (a continue scheduled for then still fires: the limit is kept
// until a turn starts); a turn under way (st busy) ends it. s.mu is
// held.
func (s *Session) limitViewLocked(st session.State) LimitView {
	if s.lim.On && st != session.Idle && st != session.Dead {
		s.clearLimitLocked()
	}
	v := s.lim.LimitView
	if v.On && !v.Reset.IsZero() && !s.clock.Now().Before(v.Reset) {
		v.On = false
	}
	return v
}
