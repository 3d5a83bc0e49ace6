package supervisor

import (
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
)

// Attention: a session that starts needing input (its classifier's
// verdict) while nobody watches it — no subscriber on its socket (no
// dashboard follows it, no terminal is attached) and no in-process
// subscription — asks for attention: Attention reports it, and SCREEN's
// `attention` with it, until the session stops needing input; a dashboard
// that comes back shows such sessions first. Config.OnAttention is called
// once when it begins (run notifies the user from it).
//
// The classifier debounces, so a screen that settles into a prompt, or
// leaves one, is reported so DebounceHold later, with no output in
// between: after output while unwatched one timer re-checks then. Nothing
// is armed while the session is watched or quiet. A user who has seen the
// session (Seen) has seen what it wants: the attention ends.

// attentionRecheck is when, after the screen changed, the verdict is read
// again: just after the classifier's debounce.
const attentionRecheck = classify.DebounceHold + 20*time.Millisecond

// Attention reports whether the session wants the user's attention: it
// started needing input while nobody watched it, and still does; or its
// program rang the bell (or sent a notification) since a user last saw it
// (signals.go).
func (s *Session) Attention() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attentionLocked()
}

func (s *Session) attentionLocked() bool {
	return s.attn.on || (!s.sig.alerted.IsZero() && s.sig.alerted.After(s.sig.seen))
}

// checkAttention reads the classifier's verdict at now and updates the
// attention state; changed is true after new output (the screen changed),
// which arms the re-check while unwatched.
func (s *Session) checkAttention(now time.Time, changed bool) {
	s.mu.Lock()
	needs := !s.exited && s.cls.NeedsInput(now)
	watched := len(s.listeners)+len(s.subs) > 0
	began := needs && !s.attn.needs
	s.attn.needs = needs
	fire := false
	switch {
	case !needs:
		s.attn.on = false
	case began && !watched:
		s.attn.on, fire = true, true
	}
	// Re-read once the debounce has passed, whichever way the verdict is
	// turning: a prompt that appears, and one that goes (answered: the
	// verdict says needs input until the debounce, and with no output
	// after it nothing would read it again).
	if changed && !watched && !s.exited {
		if s.attn.timer == nil {
			s.attn.timer = time.AfterFunc(attentionRecheck, func() { s.checkAttention(time.Now(), false) })
		} else {
			s.attn.timer.Reset(attentionRecheck)
		}
	}
	s.mu.Unlock()
	if fire && s.cfg.OnAttention != nil {
		s.cfg.OnAttention()
	}
}

// attentionState is a Session's (guarded by its mu).
type attentionState struct {
	needs bool        // the last verdict read
	on    bool        // needs input since a moment nobody watched
	timer *time.Timer // the re-check after output, made on first use
}
