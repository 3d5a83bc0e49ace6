package supervisor

import (
	"slices"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// Agent signals: what an agent reports besides its screen (Claude Code's
// hooks, codex's notify) reach the session through Hook (the HOOK frame,
// sent by `heimdall-tui hook`), and its classifier puts them above the
// screen rules (classify.Layered). The session adds what needs a user:
// Done, a turn that ended normally and that nobody has seen since (Seen:
// the SEEN frame, a dashboard focusing the session; an attach). Whoever
// watches the verdict (WatchState: the WATCH_STATE frame) gets it at once
// and after every change, so a hook shows in a dashboard without a poll.
//
// Timers: a watched session re-reads its verdict twice after each hook or
// screen change (the classifier's windows end then: the screen rules'
// debounce, a hook's settle, the screen's overrule); nothing is armed
// while nobody watches or nothing happens.

// Detail is the session's verdict beyond its state.
type Detail struct {
	classify.Detail
	// Done: the last turn ended normally, by the agent's own report, and
	// no user has seen the session since.
	Done bool
	// Limit is the usage limit that stopped it, if one did, and what the
	// user said of it (parked, continue scheduled).
	Limit LimitView
	// Usage is the tokens its agent reported (its transcript); Resume
	// what going on with its conversation costs.
	Usage  session.Usage
	Resume session.Resume
}

// StateView is what a state watcher gets: the state and its detail.
type StateView struct {
	State     session.State
	Since     time.Time
	Attention bool
	Detail
	// What a viewer shows besides: the program's pid, the title, the
	// pty's size, and when the program last wrote (not compared: it
	// moves with every output).
	PID        int
	Title      string
	Cols, Rows int
	LastOutput time.Time
	// Viewed: a terminal is attached or a client said VIEW (Viewing).
	Viewed bool
}

// recheck are the delays after a hook or screen change at which a watched
// session reads its verdict again.
var recheck = [...]time.Duration{classify.DebounceHold + 100*time.Millisecond, 1300 * time.Millisecond, 3100 * time.Millisecond}

// signalState is a Session's (guarded by its mu).
type signalState struct {
	seen     time.Time // a user last saw the session
	alerted  time.Time // the program last rang the bell or sent a notification
	convo    string    // the conversation id last reported to OnConversation
	watchers map[int]func(StateView)
	nextW    int
	last     *StateView // the view last given to the watchers
	timer    *time.Timer
	step     int // the next recheck
	// quiet re-reads the verdict when a timing classifier turns the
	// session Idle on its own (quietAfter past the last output), while
	// watched: nothing else happens then to publish it.
	quiet      *time.Timer
	quietAfter time.Duration // 0: the classifier's verdict does not change with time alone
	wmu        sync.Mutex
}

func (g *signalState) stopTimer() {
	if g.timer != nil {
		g.timer.Stop()
	}
	if g.quiet != nil {
		g.quiet.Stop()
	}
}

// armQuietLocked arms the quiet re-read for the last output (s.mu held).
func (s *Session) armQuietLocked(now time.Time) {
	if s.sig.quietAfter <= 0 || len(s.sig.watchers) == 0 || s.exited {
		return
	}
	d := s.lastOut.Add(s.sig.quietAfter).Sub(now)
	if d <= 0 {
		return
	}
	if s.sig.quiet == nil {
		s.sig.quiet = time.AfterFunc(d, s.publishState)
	} else {
		s.sig.quiet.Reset(d)
	}
}

// Hook records an agent's event that happened at at (see
// classify.Layered.Signal): for a HOOK frame, when its sender's connection
// was accepted. Each hook runs as a process of its own, in the order the
// agent's events come, and connects once; the kernel queues connections in
// that order and the server accepts them so, but serves each on a
// goroutine of its own, so two hooks a moment apart (PreToolUse, then
// PermissionRequest as the dialog opens) may be handled in either order.
// Their accept times keep them in the agent's order: an event older than
// the last one recorded is not news (Signal drops it).
func (s *Session) Hook(at time.Time, h classify.Hook) {
	now := time.Now()
	s.mu.Lock()
	if s.exited {
		s.mu.Unlock()
		return
	}
	s.cls.Signal(at, h)
	s.mu.Unlock()
	s.log.Debug("agent signal", "event", h.Event, "tool", h.Tool)
	s.limitHook(h)
	s.checkAttention(now, false)
	s.signalled()
}

// alerted is the emulator's Alert: the program rang the bell or sent a
// desktop notification (OSC 9/99/777). It wants attention until a user
// has seen the session (Attention). The sequence goes nowhere else: a
// dashboard draws the session from cells, so the program's bells never
// reach the dashboard's own terminal.
func (s *Session) alerted(a vt.Alert) {
	s.mu.Lock()
	s.sig.alerted = time.Now()
	s.mu.Unlock()
	s.log.Debug("the program asks for attention", "bell", a.Bell, "text", a.Text)
	s.publishState()
}

// Seen records that a user has seen the session (focused it in a
// dashboard, attached to it): it is no longer Done, and a bell it rang
// is answered.
func (s *Session) Seen() {
	s.mu.Lock()
	s.sig.seen = time.Now()
	s.attn.on = false // it still needs input, if it does: that shows on its own
	s.mu.Unlock()
	s.publishState()
}

// viewLocked is the view at now, from one classifier decision.
func (s *Session) viewLocked(now time.Time) StateView {
	st, since, cd := s.cls.Verdict(now)
	d := Detail{Detail: cd, Done: !cd.Finished.IsZero() && cd.Finished.After(s.sig.seen),
		Limit: s.limitViewLocked(st), Usage: s.lim.usage, Resume: s.lim.resume}
	return StateView{State: st, Since: since, Attention: s.attentionLocked(), Detail: d,
		PID: s.proc.PID(), Title: s.Title(), Cols: int(s.cols), Rows: int(s.rows), LastOutput: s.lastOut,
		Viewed: s.terminals.Load() > 0 || s.viewers.Load() > 0}
}

// View is the session's state view now.
func (s *Session) View() StateView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.viewLocked(time.Now())
}

// WatchState calls fn with the session's state view now and after each
// change, until remove is called. fn runs on whatever goroutine noticed
// the change, one call at a time; it must not block or call back into
// the session.
func (s *Session) WatchState(fn func(StateView)) (remove func()) {
	s.sig.wmu.Lock()
	defer s.sig.wmu.Unlock()
	s.mu.Lock()
	if s.sig.watchers == nil {
		s.sig.watchers = map[int]func(StateView){}
	}
	id := s.sig.nextW
	s.sig.nextW++
	s.sig.watchers[id] = fn
	now := time.Now()
	v := s.viewLocked(now)
	s.sig.last = &v
	// A verdict about to change with time (a debounce, a hook going
	// stale, the session turning Idle) is re-read for the new watcher
	// as after a change.
	if !s.exited {
		s.sig.step = 0
		s.armLocked()
		s.armQuietLocked(now)
	}
	s.mu.Unlock()
	fn(v)
	return func() {
		s.sig.wmu.Lock()
		defer s.sig.wmu.Unlock()
		s.mu.Lock()
		delete(s.sig.watchers, id)
		s.mu.Unlock()
	}
}

// signalled follows a hook or a screen change: the view is published and,
// while watched, re-read at the recheck delays.
func (s *Session) signalled() {
	s.publishState()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sig.watchers) == 0 || s.exited {
		return
	}
	s.sig.step = 0
	s.armLocked()
	s.armQuietLocked(time.Now())
}

func (s *Session) armLocked() {
	d := recheck[s.sig.step]
	if s.sig.step > 0 {
		d -= recheck[s.sig.step-1]
	}
	if s.sig.timer == nil {
		s.sig.timer = time.AfterFunc(d, s.rechecked)
	} else {
		s.sig.timer.Reset(d)
	}
}

func (s *Session) rechecked() {
	s.publishState()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sig.step++; s.sig.step < len(recheck) && !s.exited && len(s.sig.watchers) > 0 {
		s.armLocked()
	}
}

// publishState gives the watchers the view if it changed, and tells
// OnConversation of a new conversation id.
func (s *Session) publishState() {
	s.sig.wmu.Lock()
	defer s.sig.wmu.Unlock()
	s.mu.Lock()
	convo := ""
	if c := s.cls.Conversation(); c != s.sig.convo {
		s.sig.convo, convo = c, c
	}
	var fns []func(StateView)
	var v StateView
	if len(s.sig.watchers) > 0 { // nobody watching: no view to make (observe calls this)
		v = s.viewLocked(time.Now())
		// Output moves the idle time without a change of the view: a
		// watcher hears of it at most each second while output flows.
		if s.sig.last == nil || !sameView(*s.sig.last, v) || v.LastOutput.Sub(s.sig.last.LastOutput) >= time.Second {
			s.sig.last = &v
			for _, fn := range s.sig.watchers {
				fns = append(fns, fn)
			}
		}
	}
	s.mu.Unlock()
	for _, fn := range fns {
		fn(v)
	}
	if convo != "" && s.cfg.OnConversation != nil {
		s.cfg.OnConversation(convo)
	}
}

// sameView reports whether a and b show the same (Since is not compared:
// it moves only with the state; nor LastOutput, which moves with every
// output).
func sameView(a, b StateView) bool {
	return a.State == b.State && a.Attention == b.Attention && a.Detail.Detail == b.Detail.Detail && a.Done == b.Done &&
		a.Limit == b.Limit && slices.Equal(a.Usage, b.Usage) && a.Resume == b.Resume &&
		a.PID == b.PID && a.Title == b.Title && a.Cols == b.Cols && a.Rows == b.Rows && a.Viewed == b.Viewed
}
