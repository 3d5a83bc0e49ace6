package classify

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Signals: what an agent reports besides its screen. Claude Code runs
// hooks at each step of a turn (../shared/specs/agent-signals.md §1);
// codex runs its notify program when a turn completes (§3). A Layered
// classifier puts them above the screen rules: hook events first, then the
// screen, then byte timing (the inner classifier's own fallback). Each
// hook verdict holds until a later hook replaces it or the screen shows it
// is stale (see Layered.State).

// Hook is one agent event, as the classifier reads it: the fields of a
// Claude Code hook payload it uses, or a codex notify (as Event "Stop").
type Hook struct {
	Event            string // hook_event_name: "PreToolUse", "Stop", …
	Conversation     string // the agent's own conversation id (session_id)
	Source           string // SessionStart: startup, resume, clear, compact
	NotificationType string // Notification: permission_prompt, idle_prompt, …
	Message          string // Notification: Claude's own words
	Tool             string // tool_name
	ToolInput        string // what the tool call is about: a command, a path, or its compact JSON input
	Error            string // StopFailure: rate_limit, overloaded, …
	ErrorDetails     string // StopFailure: error_details, as text
	LastMessage      string // Stop: the first line of last_assistant_message
	Transcript       string // transcript_path: the conversation's JSONL file (its usage)
	// SessionStart of a resumed conversation (Claude 2.1.251 on): the
	// tokens its first request re-sends, whether the prompt cache has
	// likely expired, Claude's estimate of re-caching them in USD.
	ContextTokens int64
	CacheExpired  bool
	CacheWriteUSD float64
}

// maxDetail bounds the text a hook contributes to a reason.
const maxDetail = 200

// ParseClaudeHook reads a Claude Code hook payload (the JSON its hooks get
// on stdin). Unknown fields are ignored; a payload without
// hook_event_name is an error.
func ParseClaudeHook(payload []byte) (Hook, error) {
	var p struct {
		Event            string          `json:"hook_event_name"`
		SessionID        string          `json:"session_id"`
		Source           string          `json:"source"`
		NotificationType string          `json:"notification_type"`
		Message          string          `json:"message"`
		Tool             string          `json:"tool_name"`
		ToolInput        json.RawMessage `json:"tool_input"`
		Error            json.RawMessage `json:"error"`
		ErrorDetails     json.RawMessage `json:"error_details"`
		LastMessage      string          `json:"last_assistant_message"`
		Transcript       string          `json:"transcript_path"`
		ContextTokens    int64           `json:"context_tokens"`
		CacheExpired     bool            `json:"prompt_cache_likely_expired"`
		CacheWriteUSD    float64         `json:"estimated_cache_write_usd"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return Hook{}, err
	}
	if p.Event == "" {
		return Hook{}, errNoEvent
	}
	return Hook{
		Event: p.Event, Conversation: p.SessionID, Source: p.Source, NotificationType: p.NotificationType,
		Message: clip(p.Message), Tool: p.Tool, ToolInput: toolDetail(p.Tool, p.ToolInput),
		Error: clip(jsonText(p.Error)), ErrorDetails: clip(jsonText(p.ErrorDetails)), LastMessage: firstLine(p.LastMessage),
		Transcript: p.Transcript, ContextTokens: max(0, p.ContextTokens), CacheExpired: p.CacheExpired,
		CacheWriteUSD: max(0, p.CacheWriteUSD),
	}, nil
}

// ParseCodexNotify reads the JSON argument codex gives its notify program;
// a turn's completion (type agent-turn-complete) is a Stop.
func ParseCodexNotify(arg []byte) (Hook, error) {
	var p struct {
		Type   string `json:"type"`
		Thread string `json:"thread-id"`
	}
	if err := json.Unmarshal(arg, &p); err != nil {
		return Hook{}, err
	}
	if p.Type != "agent-turn-complete" {
		return Hook{}, errNoEvent
	}
	return Hook{Event: "Stop", Conversation: p.Thread}, nil
}

type hookError string

func (e hookError) Error() string { return string(e) }

const errNoEvent = hookError("not an event the classifier reads")

// askTool is Claude Code's tool for asking the user a question with
// options.
const askTool = "AskUserQuestion"

// toolDetail is what a tool call is about: its command (Bash), file (Edit,
// Write, Read), pattern or URL, a question and its options
// (AskUserQuestion), else its input as compact JSON.
func toolDetail(tool string, raw json.RawMessage) string {
	if tool == askTool {
		var q struct {
			Questions []struct {
				Question string `json:"question"`
				Options  []struct {
					Label string `json:"label"`
				} `json:"options"`
			} `json:"questions"`
		}
		if json.Unmarshal(raw, &q) == nil && len(q.Questions) > 0 && q.Questions[0].Question != "" {
			s := q.Questions[0].Question
			var opts []string
			for i, o := range q.Questions[0].Options {
				opts = append(opts, strconv.Itoa(i+1)+". "+o.Label)
			}
			if len(opts) > 0 {
				s += " (" + strings.Join(opts, " · ") + ")"
			}
			return clip(s)
		}
	}
	var in map[string]any
	if json.Unmarshal(raw, &in) == nil {
		for _, k := range []string{"command", "file_path", "path", "pattern", "url", "query", "description"} {
			if s, ok := in[k].(string); ok && s != "" {
				return clip(s)
			}
		}
	}
	return clip(jsonText(raw))
}

// jsonText is a JSON value as text: a string's contents, else compact JSON.
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return ""
	}
	return b.String()
}

// firstLine is the first line of s with text in it, clipped.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if strings.TrimSpace(line) != "" {
			return clip(line)
		}
	}
	return ""
}

// clip makes s one line of at most maxDetail runes.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxDetail {
		s = string(r[:maxDetail-1]) + "…"
	}
	return s
}

// hookEffect is what one hook event means for the state: a rule of the
// table below.
type hookEffect struct {
	state    session.State // the state it reports (busy ones carry the tool)
	keep     bool          // no opinion on the state: a heartbeat of what was
	needs    bool          // the agent waits for the user
	finished bool          // the turn ended normally (Stop): Done until seen
	failed   bool          // the turn failed (StopFailure): Error
}

// hookRules maps events (and Notification types, as "Notification:TYPE")
// to their effect. Events not listed are ignored. The facts behind each
// row are in agent-signals §1: SessionStart "compact" fires mid-turn;
// idle_prompt comes about 60 s after a turn ended (an idle backstop);
// StopFailure ends a turn without Stop.
var hookRules = map[string]hookEffect{
	"SessionStart:startup":            {state: session.Idle},
	"SessionStart:resume":             {state: session.Idle},
	"SessionStart:clear":              {state: session.Idle},
	"SessionStart:compact":            {keep: true},
	"UserPromptSubmit":                {state: session.Thinking},
	"PreToolUse":                      {state: session.ToolUse},
	"PostToolUse":                     {state: session.Thinking},
	"PostToolUseFailure":              {state: session.Thinking},
	"PermissionRequest":               {state: session.Idle, needs: true},
	"Notification:permission_prompt":  {state: session.Idle, needs: true},
	"Notification:elicitation_dialog": {state: session.Idle, needs: true},
	"Notification:idle_prompt":        {state: session.Idle},
	"PreToolUse:AskUserQuestion":      {state: session.Idle, needs: true},
	"Stop":                            {state: session.Idle, finished: true},
	"StopFailure":                     {state: session.Idle, failed: true},
	"SubagentStart":                   {state: session.Thinking},
	"SubagentStop":                    {state: session.Thinking},
	"PreCompact":                      {state: session.Thinking},
	"PostCompact":                     {keep: true},
	"SessionEnd":                      {state: session.Idle},
}

func ruleFor(h Hook) (hookEffect, bool) {
	key := h.Event
	switch h.Event {
	case "SessionStart":
		key += ":" + h.Source
	case "Notification":
		key += ":" + h.NotificationType
	case "PreToolUse":
		if h.Tool == askTool {
			key += ":" + askTool // Claude fires no other hook for its questions
		}
	}
	e, ok := hookRules[key]
	return e, ok
}

// Layer windows.
const (
	// hookSettle: the screen may lag the hook that announced it (the
	// permission box is drawn after PermissionRequest fired); screen
	// changes within it do not make the hook stale.
	hookSettle = 300 * time.Millisecond
	// screenOverrule: how long a screen that changed after the last hook
	// must stand still reading idle before it overrules a busy hook, and
	// how long a busy screen verdict must hold to overrule an idle one —
	// an Esc interrupt fires no hook, and its idle prompt must win within
	// 2 s.
	screenOverrule = time.Second
	// screenStill: how long a screen that has not changed at all since a
	// busy hook, reading idle with no busy title, takes to overrule it (a
	// hook that came late, after the turn's end was drawn, or a turn whose
	// end no hook reported): a working agent's screen moves (its spinner
	// and timer) well within it, and the screen may lag the hook by
	// hookSettle.
	screenStill = 3 * time.Second
)

// Detail is what a classifier knows beyond the state.
type Detail struct {
	NeedsInput bool
	// Reason says why the agent waits (a hook's tool and command, or
	// Claude's own words); "" when only the screen says so.
	Reason string
	// Finished is when the last turn ended normally, by the agent's own
	// report (zero if the agent is not idle after such an end): a
	// supervisor shows it as Done until a user has seen the session.
	Finished time.Time
	// Error is the kind of the failure that ended the last turn
	// (rate_limit, overloaded, …) while the agent is idle after it, and
	// ErrorDetails what the agent said of it (a rate limit's reset time).
	Error, ErrorDetails string
	// Summary is the first line of the agent's last message, when its
	// last turn ended normally and it said (Claude's Stop hook).
	Summary string
	// Conversation is the agent's own conversation id (claude --resume
	// ID), as its last SessionStart (or any hook) said.
	Conversation string
	// Tool is the tool a busy agent runs, by its own report ("" if not
	// known).
	Tool string
}

// Layered is a Classifier that puts an agent's own reports (Signal) above
// an inner classifier (screen rules, or output timing). Without signals it
// is exactly its inner classifier.
type Layered struct {
	inner Classifier

	hook   Hook
	effect hookEffect
	// beforeEffect is the effect of the hook a question (a needs-input
	// hook) came after: what holds again once the question is answered.
	beforeEffect hookEffect
	hookAt       time.Time // zero: no hook yet
	finishedAt   time.Time // when the hook that ended the turn came (a heartbeat after it does not move it)
	signalAt     time.Time // the latest event recorded, listed or not
	screenAt     time.Time // the last time what the screen shows changed
	askedAt      time.Time // the last time the screen was seen showing a question (Screen, Asked)
	screenSum    uint64    // a hash of what it showed then
	titleBusy    bool      // the window title shows a busy glyph
	convo        string
	dead         bool
}

// NewLayered wraps inner.
func NewLayered(inner Classifier) *Layered { return &Layered{inner: inner} }

// Name implements Classifier: the inner classifier's.
func (l *Layered) Name() string { return l.inner.Name() }

// Output implements Classifier.
func (l *Layered) Output(t time.Time, n int) { l.inner.Output(t, n) }

// Exit implements Classifier.
func (l *Layered) Exit(t time.Time) {
	l.dead = true
	l.inner.Exit(t)
}

// Screen implements Classifier. screenAt moves only when what the screen
// shows changed: a feeder may hand the same screen again (after a pause).
func (l *Layered) Screen(t time.Time, s Screen) {
	h := fnv.New64a()
	io.WriteString(h, s.Title)
	for _, line := range s.Lines {
		h.Write([]byte{'\n'})
		io.WriteString(h, line)
	}
	if sum := h.Sum64(); sum != l.screenSum || l.screenAt.IsZero() {
		l.screenSum, l.screenAt = sum, t
	}
	l.titleBusy = busyGlyph(s.Title)
	l.inner.Screen(t, s)
	if l.inner.NeedsInput(t) {
		l.askedAt = t
	}
}

// Asked records that the screen showed a question at t, as something
// that read it to answer it saw (the rules report a question only once
// it has held for DebounceHold; an answer may come sooner).
func (l *Layered) Asked(t time.Time) {
	if t.After(l.askedAt) {
		l.askedAt = t
	}
}

// Signal records a hook event that happened at t. Events the table does
// not list only update the conversation id. An event that happened before
// one already recorded is dropped: it was delivered late (hooks are
// separate processes, their reports served concurrently), and applying it
// would set the agent back a step — a PreToolUse handled after the
// PermissionRequest that followed it hid the question's reason.
//
// Claude reports one permission prompt twice: PermissionRequest (the tool
// and its command) and Notification permission_prompt (a sentence). The
// vaguer report of a wait already recorded leaves its reason alone (it
// only makes the wait fresh again), and the specific one, delivered late,
// still gives its reason to the wait it reports.
func (l *Layered) Signal(t time.Time, h Hook) {
	e, ok := ruleFor(h)
	if t.Before(l.signalAt) {
		if ok && l.sameWait(e, h) && h.Tool != "" && l.hook.Tool == "" {
			l.hook = h
		}
		return
	}
	l.signalAt = t
	if h.Conversation != "" {
		l.convo = h.Conversation
	}
	if !ok {
		return
	}
	if e.keep || (l.sameWait(e, h) && h.Tool == "" && l.hook.Tool != "") {
		if !l.hookAt.IsZero() {
			l.hookAt = t // a heartbeat: the verdict is fresh again
		}
		return
	}
	if e.needs && !l.effect.needs {
		l.beforeEffect = l.effect // what the question interrupted
	}
	l.hook, l.effect, l.hookAt = h, e, t
	if e.finished {
		l.finishedAt = t
	}
}

// sameWait reports whether hook h (of effect e) and the one recorded are
// the two reports of one permission prompt.
func (l *Layered) sameWait(e hookEffect, h Hook) bool {
	if !e.needs || !l.effect.needs {
		return false
	}
	pair := func(a, b Hook) bool {
		return a.Event == "PermissionRequest" && b.Event == "Notification" && b.NotificationType == "permission_prompt"
	}
	return pair(l.hook, h) || pair(h, l.hook)
}

// verdict is the layered decision at now.
type verdict struct {
	state    session.State
	since    time.Time
	needs    bool
	fromHook bool
}

func (l *Layered) decide(now time.Time) verdict {
	st, since := l.inner.State(now)
	sv := verdict{state: st, since: since, needs: l.inner.NeedsInput(now)}
	if l.dead || l.hookAt.IsZero() {
		return sv
	}
	hv := verdict{state: l.effect.state, since: l.hookAt, needs: l.effect.needs, fromHook: true}
	if hv.needs {
		// Stale once the screen no longer shows a question and changed
		// after the hook settled, or after it showed the question the
		// hook announced: the user answered (at once, maybe: a key from
		// the inbox), the turn moved on.
		answered := !l.askedAt.Before(l.hookAt) && l.screenAt.After(l.askedAt)
		if sv.needs || !(l.screenAt.After(l.hookAt.Add(hookSettle)) || answered) {
			return hv
		}
		if !busy(l.beforeEffect.state) {
			return sv
		}
		// Allowed, the tool the question was about runs now (no hook
		// fires until it ends): the busy verdict from before the question
		// holds from when the screen moved on — unless the screen then
		// stands still at an idle prompt (refused: no hook fires either),
		// as below.
		hv = verdict{state: l.beforeEffect.state, since: l.screenAt, fromHook: true}
	}
	switch {
	case sv.needs:
		// A question on the screen the hooks did not announce: never
		// report a waiting agent as busy or idle.
		return sv
	case busy(hv.state) && !busy(sv.state) && l.screenAt.After(l.hookAt) && !l.titleBusy &&
		now.Sub(l.screenAt) >= screenOverrule:
		// The screen changed after the hook and has since stood still,
		// reading idle, with no busy title, for screenOverrule: the busy
		// hook is stale (an Esc interrupt fires none). A working agent's
		// screen does not stand still (its spinner and timer move), so a
		// busy screen the rules misread does not pass.
		return sv
	case busy(hv.state) && !busy(sv.state) && !l.screenAt.After(l.hookAt) && !l.titleBusy &&
		now.Sub(l.hookAt) >= screenStill:
		// The screen has not changed since the busy hook and reads idle:
		// after screenStill the hook is stale too.
		return sv
	case !busy(hv.state) && busy(sv.state) && since.After(l.hookAt) && now.Sub(since) >= screenOverrule:
		// The screen turned busy after an idle hook and has held.
		return sv
	}
	// Two busy verdicts do not disagree: the hook's, which names the
	// tool, stands.
	return hv
}

// busyGlyph reports whether a window title starts with a glyph Claude Code
// animates while it works (agent-signals §2: Braille dots up to 2.1.227,
// ◐/◑ after).
func busyGlyph(title string) bool {
	r, _ := utf8.DecodeRuneInString(title)
	return (r >= 0x2801 && r <= 0x28FF) || r == '◐' || r == '◑'
}

// busy reports whether st is an agent at work.
func busy(st session.State) bool { return st != session.Idle && st != session.Dead }

// State implements Classifier.
func (l *Layered) State(now time.Time) (session.State, time.Time) {
	v := l.decide(now)
	return v.state, v.since
}

// NeedsInput implements Classifier.
func (l *Layered) NeedsInput(now time.Time) bool { return l.decide(now).needs }

// Detail returns what the classifier knows at now beyond the state.
func (l *Layered) Detail(now time.Time) Detail {
	_, _, d := l.Verdict(now)
	return d
}

// Verdict is State and Detail at now from one decision (a caller that
// wants both asks once: each decision reads the inner classifier).
func (l *Layered) Verdict(now time.Time) (session.State, time.Time, Detail) {
	v := l.decide(now)
	d := Detail{NeedsInput: v.needs, Conversation: l.convo}
	if !v.fromHook {
		if r, ok := l.inner.(interface{ Reason() string }); ok && v.needs {
			d.Reason = r.Reason() // a dialog no hook reports, read off the screen
		}
		return v.state, v.since, d
	}
	if v.state == session.ToolUse {
		d.Tool = l.hook.Tool // a question names its tool as the call before it did
	}
	switch {
	case v.needs:
		d.Reason = l.reason()
	case l.effect.finished:
		// Not hookAt: a heartbeat after the turn ended (a compaction's
		// PostCompact) refreshes that, and must not make a session a
		// user has seen since Done again.
		d.Finished, d.Summary = l.finishedAt, l.hook.LastMessage
	case l.effect.failed:
		d.Error, d.ErrorDetails = l.hook.Error, l.hook.ErrorDetails
		if d.Error == "" {
			d.Error = "error"
		}
	}
	return v.state, v.since, d
}

// Conversation is the agent's conversation id as its hooks last said.
func (l *Layered) Conversation() string { return l.convo }

// reason is the waiting hook's reason: the tool and what it is about, or
// the agent's message.
func (l *Layered) reason() string {
	h := l.hook
	switch {
	case h.Tool == askTool && h.ToolInput != "":
		return h.ToolInput // the question says it
	case h.Tool != "" && h.ToolInput != "":
		return h.Tool + ": " + h.ToolInput
	case h.Message != "":
		return h.Message
	case h.Tool != "":
		return h.Tool
	}
	return ""
}
