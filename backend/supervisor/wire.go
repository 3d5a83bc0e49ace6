package supervisor

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// The frame protocol's types are used only here, where a Server writes its
// replies, and where the fleet reads another supervisor's: the rest of the
// supervisor speaks the domain types of backend/session.

// wireStates maps each State to the byte the frame protocol carries.
var wireStates = [...]frame.State{
	session.Idle:      frame.StateIdle,
	session.Thinking:  frame.StateThinking,
	session.Streaming: frame.StateStreaming,
	session.ToolUse:   frame.StateToolUse,
	session.Active:    frame.StateActive,
	session.Dead:      frame.StateDead,
}

// WireState is s as a STATUS_RESP carries it.
func WireState(s session.State) frame.State {
	if int(s) < len(wireStates) {
		return wireStates[s]
	}
	return frame.StateIdle
}

// StateFromWire is the State a STATUS_RESP's byte names; a byte no state
// has (a newer supervisor's) reads as Active: something the dashboard does
// not know is going on, and it is not waiting.
func StateFromWire(w frame.State) session.State {
	for s, v := range wireStates {
		if v == w {
			return session.State(s)
		}
	}
	return session.Active
}

// WireStatus is st as the STATUS_RESP payload.
func WireStatus(st session.Status) frame.StatusInfo {
	return frame.StatusInfo{
		PID:     uint32(st.PID),
		IdleMS:  millis(st.Idle),
		Alive:   st.Alive,
		State:   WireState(st.State),
		StateMS: millis(st.StateFor),
	}
}

// StatusFromWire is a STATUS_RESP payload as a Status.
func StatusFromWire(w frame.StatusInfo) session.Status {
	return session.Status{
		PID:      int(w.PID),
		Alive:    w.Alive,
		State:    StateFromWire(w.State),
		StateFor: time.Duration(w.StateMS) * time.Millisecond,
		Idle:     time.Duration(w.IdleMS) * time.Millisecond,
	}
}

// screenInfo is the SCREEN_RESP payload for the session's current screen,
// as plain text or with SGR colours.
func (s *Session) screenInfo(ansi bool) frame.ScreenInfo {
	snap := s.Screen()
	text := snap.Text()
	if ansi {
		text = strings.TrimRight(snap.ANSI(), "\n")
	}
	s.mu.Lock()
	v := s.viewLocked(time.Now())
	s.mu.Unlock()
	return frame.ScreenInfo{
		Cols: snap.Cols, Rows: snap.Rows,
		CursorX: snap.Cursor.X, CursorY: snap.Cursor.Y, CursorVisible: snap.Cursor.Visible,
		AltScreen: snap.Modes.AltScreen, Title: snap.Title,
		NeedsInput: v.NeedsInput, Attention: v.Attention, Screen: text,
		AgentState: WireAgentState(v.Detail),
	}
}

// WireAgentState is d as the frame protocol's SCREEN_RESP and STATE carry
// it.
func WireAgentState(d Detail) frame.AgentState {
	a := frame.AgentState{Reason: d.Reason, Done: d.Done, Error: d.Error, ErrorDetails: d.ErrorDetails,
		Tool: d.Tool, Summary: d.Summary, Conversation: d.Conversation,
		Limited: d.Limit.On, LimitReset: unixMilli(d.Limit.Reset), AutoContinue: d.Limit.Auto,
		Parked: d.Limit.Parked, ContinueAt: unixMilli(d.Limit.ContinueAt),
		ContextTokens: d.Resume.Tokens, ContextModel: d.Resume.Model, ResumeReported: d.Resume.Reported,
		CacheExpired: d.Resume.Expired, CacheWriteUSD: d.Resume.USD}
	for _, r := range d.Usage {
		a.Usage = append(a.Usage, frame.UsageRow{Day: r.Day, Model: r.Model, Input: r.Input, Output: r.Output,
			CacheWrite: r.CacheWrite, CacheRead: r.CacheRead})
	}
	return a
}

// unixMilli is t in Unix ms, 0 for the zero time.
func unixMilli(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromUnixMilli is unixMilli's inverse.
func fromUnixMilli(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// ApplyAgentState sets in's fields from the agent's reports; it reports a
// change.
func ApplyAgentState(in *session.Info, a frame.AgentState) bool {
	errText := a.Error
	if a.ErrorDetails != "" {
		errText += ": " + a.ErrorDetails
	}
	ch := in.Reason != a.Reason || in.Done != a.Done || in.Error != errText || in.Tool != a.Tool || in.Summary != a.Summary ||
		(a.Conversation != "" && in.Conversation != a.Conversation)
	in.Reason, in.Done, in.Error, in.Tool, in.Summary = a.Reason, a.Done, errText, a.Tool, a.Summary
	if a.Conversation != "" {
		in.Conversation = a.Conversation
	}
	reset, at := fromUnixMilli(a.LimitReset), fromUnixMilli(a.ContinueAt)
	ch = ch || in.Limited != a.Limited || !in.LimitReset.Equal(reset) || in.AutoContinue != a.AutoContinue ||
		in.Parked != a.Parked || !in.ContinueAt.Equal(at)
	in.Limited, in.LimitReset, in.AutoContinue, in.Parked, in.ContinueAt = a.Limited, reset, a.AutoContinue, a.Parked, at
	r := session.Resume{Tokens: a.ContextTokens, Model: a.ContextModel, Reported: a.ResumeReported, Expired: a.CacheExpired, USD: a.CacheWriteUSD}
	ch = ch || in.Resume != r
	in.Resume = r
	var u session.Usage
	for _, r := range a.Usage {
		u = append(u, session.UsageRow{Day: r.Day, Model: r.Model, Tokens: session.Tokens{Input: r.Input, Output: r.Output,
			CacheWrite: r.CacheWrite, CacheRead: r.CacheRead}})
	}
	if !slices.Equal(in.Usage, u) {
		in.Usage, ch = u, true
	}
	return ch
}

// WireStateInfo is v as a STATE payload.
func WireStateInfo(v StateView, now time.Time) frame.StateInfo {
	return frame.StateInfo{State: v.State.String(), StateMs: millis(now.Sub(v.Since)), NeedsInput: v.NeedsInput,
		Attention: v.Attention, AgentState: WireAgentState(v.Detail),
		PID: v.PID, Title: v.Title, Cols: v.Cols, Rows: v.Rows, IdleMs: millis(now.Sub(v.LastOutput)), Viewed: v.Viewed}
}

// ParseHook reads a HOOK payload: its source byte, then the agent's JSON.
func ParseHook(p []byte) (classify.Hook, error) {
	if len(p) < 1 {
		return classify.Hook{}, errors.New("HOOK: empty payload")
	}
	switch p[0] {
	case frame.HookClaude:
		return classify.ParseClaudeHook(p[1:])
	case frame.HookCodex:
		return classify.ParseCodexNotify(p[1:])
	}
	return classify.Hook{}, fmt.Errorf("HOOK: unknown source 0x%02x", p[0])
}

func millis(d time.Duration) uint32 {
	switch ms := d.Milliseconds(); {
	case ms < 0:
		return 0
	case ms > 1<<32-1:
		return 1<<32 - 1
	default:
		return uint32(ms)
	}
}
