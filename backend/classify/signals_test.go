package classify

import (
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// screenStub is an inner classifier whose verdict the test sets.
type screenStub struct {
	st    session.State
	since time.Time
	needs bool
}

func (s *screenStub) Name() string             { return "stub" }
func (s *screenStub) Output(time.Time, int)    {}
func (s *screenStub) Exit(t time.Time)         { s.st, s.since = session.Dead, t }
func (s *screenStub) Screen(time.Time, Screen) {}
func (s *screenStub) State(time.Time) (session.State, time.Time) {
	return s.st, s.since
}
func (s *screenStub) NeedsInput(time.Time) bool { return s.needs }

// show makes the stub's screen say st (and needs) from t on, as a screen
// change the layered classifier sees.
func show(l *Layered, s *screenStub, t time.Time, st session.State, needs bool) {
	if st != s.st {
		s.since = t
	}
	s.st, s.needs = st, needs
	l.Screen(t, Screen{Lines: []string{t.String()}})
}

func hook(t *testing.T, payload string) Hook {
	t.Helper()
	h, err := ParseClaudeHook([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func wantState(t *testing.T, l *Layered, now time.Time, st session.State, needs bool) {
	t.Helper()
	if got, _ := l.State(now); got != st || l.NeedsInput(now) != needs {
		t.Fatalf("at %v: %v needs=%v, want %v needs=%v", now.Format("05.000"), got, l.NeedsInput(now), st, needs)
	}
}

var t0 = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// Without signals the layered classifier is its inner one.
func TestLayeredWithoutSignals(t *testing.T) {
	s := &screenStub{st: session.Streaming, since: at(5), needs: false}
	l := NewLayered(s)
	wantState(t, l, at(10), session.Streaming, false)
	s.st, s.needs = session.Idle, true
	wantState(t, l, at(20), session.Idle, true)
	if d := l.Detail(at(20)); d != (Detail{NeedsInput: true}) {
		t.Fatalf("detail %+v", d)
	}
}

// A turn as Claude's hooks report it: busy from the prompt, ToolUse with
// the tool, needs input with the command at once, Done after Stop.
func TestLayeredTurn(t *testing.T) {
	s := &screenStub{st: session.Idle, since: t0}
	l := NewLayered(s)
	l.Signal(at(0), hook(t, `{"hook_event_name":"SessionStart","source":"startup","session_id":"c-1","model":"opus"}`))
	wantState(t, l, at(1), session.Idle, false)
	l.Signal(at(100), hook(t, `{"hook_event_name":"UserPromptSubmit","session_id":"c-1","prompt":"fix it"}`))
	wantState(t, l, at(101), session.Thinking, false) // before the screen shows the spinner
	l.Signal(at(200), hook(t, `{"hook_event_name":"PreToolUse","session_id":"c-1","tool_name":"Bash","tool_input":{"command":"rm -rf build","description":"clean"}}`))
	wantState(t, l, at(201), session.ToolUse, false)
	if l.Detail(at(201)).Tool != "Bash" {
		t.Fatalf("tool %q", l.Detail(at(201)).Tool)
	}
	l.Signal(at(210), hook(t, `{"hook_event_name":"PermissionRequest","session_id":"c-1","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`))
	wantState(t, l, at(211), session.Idle, true)
	if d := l.Detail(at(211)); d.Reason != "Bash: rm -rf build" || d.Conversation != "c-1" {
		t.Fatalf("detail %+v", d)
	}
	// The box is drawn after the hook: no change of verdict; the same
	// screen handed again later is no change either.
	show(l, s, at(300), session.Idle, true)
	wantState(t, l, at(400), session.Idle, true)
	s.needs = false // a screen rule that missed the box
	l.Screen(at(300), Screen{Lines: []string{at(300).String()}})
	l.Screen(at(1500), Screen{Lines: []string{at(300).String()}})
	wantState(t, l, at(1600), session.Idle, true)
	// Allowed: the tool runs (no hook until PostToolUse); the screen
	// moving on clears the question.
	show(l, s, at(2000), session.Idle, false) // a screen rule that reads the running tool as idle
	wantState(t, l, at(2001), session.ToolUse, false)
	if l.Detail(at(2001)).Tool != "Bash" {
		t.Fatalf("tool %q after the question", l.Detail(at(2001)).Tool)
	}
	wantState(t, l, at(2900), session.ToolUse, false) // the screen stood still, but the hook was a question
	l.Signal(at(3000), hook(t, `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{"stdout":""}}`))
	wantState(t, l, at(3001), session.Thinking, false)
	l.Signal(at(4000), hook(t, `{"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done"}`))
	wantState(t, l, at(4001), session.Idle, false)
	if d := l.Detail(at(4001)); !d.Finished.Equal(at(4000)) || d.Error != "" {
		t.Fatalf("detail after Stop %+v", d)
	}
	// A heartbeat after the turn ended (a compaction's PostCompact) keeps
	// the verdict fresh but not the turn's end: it ended at the Stop.
	l.Signal(at(4500), hook(t, `{"hook_event_name":"PostCompact"}`))
	if d := l.Detail(at(4501)); !d.Finished.Equal(at(4000)) {
		t.Fatalf("detail after a heartbeat %+v", d)
	}
	// The next prompt: not finished any more.
	l.Signal(at(5000), hook(t, `{"hook_event_name":"UserPromptSubmit"}`))
	if d := l.Detail(at(5001)); !d.Finished.IsZero() {
		t.Fatalf("detail after a new prompt %+v", d)
	}
}

// A refused permission fires no hook: once the screen moved on and stands
// still at an idle prompt, the question and the tool call before it are
// stale.
func TestLayeredRefused(t *testing.T) {
	s := &screenStub{st: session.Thinking, since: at(0)}
	l := NewLayered(s)
	l.Signal(at(0), hook(t, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`))
	l.Signal(at(10), hook(t, `{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`))
	show(l, s, at(50), session.Idle, true) // the box
	wantState(t, l, at(800), session.Idle, true)
	show(l, s, at(900), session.Idle, false) // refused: "User rejected", the prompt
	wantState(t, l, at(901), session.ToolUse, false)
	wantState(t, l, at(1950), session.Idle, false)
}

// An answer typed at once (from the inbox, within the hook's settle and
// the screen's debounce): the answer saw the question on the screen after
// the hook, then the screen moved on: the question is stale as well, and
// a refusal reads idle.
func TestLayeredAnsweredAtOnce(t *testing.T) {
	s := &screenStub{st: session.Thinking, since: at(0)}
	l := NewLayered(s)
	l.Signal(at(0), hook(t, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`))
	l.Signal(at(10), hook(t, `{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`))
	show(l, s, at(20), session.Idle, false) // the prompt, before the box is drawn
	wantState(t, l, at(30), session.Idle, true)
	show(l, s, at(50), session.Idle, false) // the box, not yet held long enough to be reported
	l.Asked(at(60))                         // read by the answer
	show(l, s, at(90), session.Idle, false) // refused: the prompt again
	wantState(t, l, at(91), session.ToolUse, false)
	wantState(t, l, at(1100), session.Idle, false)
}

// StopFailure ends a turn without Stop: Idle with the error's kind and
// details.
func TestLayeredStopFailure(t *testing.T) {
	s := &screenStub{st: session.Thinking, since: at(0)}
	l := NewLayered(s)
	l.Signal(at(0), hook(t, `{"hook_event_name":"UserPromptSubmit"}`))
	l.Signal(at(50), hook(t, `{"hook_event_name":"StopFailure","error":"rate_limit","error_details":"resets at 3pm (Europe/Paris)"}`))
	wantState(t, l, at(51), session.Idle, false)
	if d := l.Detail(at(51)); d.Error != "rate_limit" || d.ErrorDetails != "resets at 3pm (Europe/Paris)" || !d.Finished.IsZero() {
		t.Fatalf("detail %+v", d)
	}
}

// An Esc interrupt fires no hook: the screen's idle prompt overrules the
// stale busy hook once it has held for screenOverrule, within 2 s.
func TestLayeredInterrupt(t *testing.T) {
	s := &screenStub{st: session.Thinking, since: at(0)}
	l := NewLayered(s)
	l.Signal(at(0), hook(t, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"sleep 100"}}`))
	show(l, s, at(500), session.Idle, false) // Esc: the idle prompt
	wantState(t, l, at(1000), session.ToolUse, false)
	wantState(t, l, at(1500), session.Idle, false)
	// A screen that reads idle and has not changed since before the hook
	// (the spinner may lag the hook) overrules it only after screenStill:
	// a turn whose end no hook reported does not read busy for minutes.
	l.Signal(at(2000), hook(t, `{"hook_event_name":"UserPromptSubmit"}`))
	wantState(t, l, at(4900), session.Thinking, false)
	wantState(t, l, at(5000), session.Idle, false)
	// Two busy verdicts: the hook's stands.
	show(l, s, at(9100), session.Streaming, false)
	wantState(t, l, at(12000), session.Thinking, false)

	// An Esc right after the prompt: the screen looked busy for less than
	// its debounce, so its idle verdict is older than the hook; it wins
	// once the screen changed after the hook and stood still. A busy
	// title keeps the hook.
	s2 := &screenStub{st: session.Idle, since: at(0)}
	l2 := NewLayered(s2)
	l2.Signal(at(1000), hook(t, `{"hook_event_name":"UserPromptSubmit"}`))
	l2.Screen(at(1400), Screen{Lines: []string{"idle prompt"}, Title: "⠂ Working"})
	wantState(t, l2, at(3000), session.Thinking, false)
	l2.Screen(at(3100), Screen{Lines: []string{"idle prompt"}, Title: "✳ Claude Code"})
	wantState(t, l2, at(3200), session.Thinking, false)
	wantState(t, l2, at(4100), session.Idle, false)
	// A screen that keeps moving (a spinner the rules misread) never
	// overrules.
	l2.Signal(at(5000), hook(t, `{"hook_event_name":"UserPromptSubmit"}`))
	for ms := 5100; ms < 9000; ms += 500 {
		l2.Screen(at(ms), Screen{Lines: []string{"✻ Pondering… " + at(ms).String()}})
		wantState(t, l2, at(ms+400), session.Thinking, false)
	}
}

// A question on the screen that no hook announced is never hidden, and a
// later hook clears a stale one at once.
func TestLayeredScreenQuestion(t *testing.T) {
	s := &screenStub{st: session.Thinking, since: at(0)}
	l := NewLayered(s)
	l.Signal(at(0), hook(t, `{"hook_event_name":"UserPromptSubmit"}`))
	show(l, s, at(100), session.Idle, true)
	wantState(t, l, at(101), session.Idle, true)
	if d := l.Detail(at(101)); d.Reason != "" {
		t.Fatalf("a screen question has no hook reason: %+v", d)
	}
	l.Signal(at(200), hook(t, `{"hook_event_name":"Notification","notification_type":"elicitation_dialog","message":"Claude needs your input: pick a database"}`))
	if d := l.Detail(at(201)); d.Reason != "Claude needs your input: pick a database" {
		t.Fatalf("detail %+v", d)
	}
	s.needs = false
	l.Signal(at(300), hook(t, `{"hook_event_name":"PostToolUse","tool_name":"AskUserQuestion"}`))
	wantState(t, l, at(301), session.Thinking, false)
}

// Conversation ids follow SessionStart (a /clear starts a new one);
// compact fires mid-turn and changes nothing; unknown events are ignored.
func TestLayeredConversation(t *testing.T) {
	s := &screenStub{st: session.Idle, since: t0}
	l := NewLayered(s)
	l.Signal(at(0), hook(t, `{"hook_event_name":"UserPromptSubmit","session_id":"a"}`))
	l.Signal(at(10), hook(t, `{"hook_event_name":"SessionStart","source":"compact","session_id":"a"}`))
	wantState(t, l, at(11), session.Thinking, false)
	l.Signal(at(20), hook(t, `{"hook_event_name":"SomethingNew","session_id":"a"}`))
	wantState(t, l, at(21), session.Thinking, false)
	l.Signal(at(30), hook(t, `{"hook_event_name":"SessionStart","source":"clear","session_id":"b"}`))
	if d := l.Detail(at(31)); d.Conversation != "b" {
		t.Fatalf("conversation %q", d.Conversation)
	}
	wantState(t, l, at(31), session.Idle, false)
}

func TestParseHooks(t *testing.T) {
	if _, err := ParseClaudeHook([]byte(`{"session_id":"x"}`)); err == nil {
		t.Error("a payload without hook_event_name")
	}
	if _, err := ParseClaudeHook([]byte(`not json`)); err == nil {
		t.Error("not JSON")
	}
	h := hook(t, `{"hook_event_name":"PermissionRequest","tool_name":"Edit","tool_input":{"file_path":"/src/a.go","old_string":"x","new_string":"y"},"permission_mode":"default","cwd":"/src","transcript_path":"/t.jsonl"}`)
	if h.Tool != "Edit" || h.ToolInput != "/src/a.go" || h.Transcript != "/t.jsonl" {
		t.Fatalf("%+v", h)
	}
	// A resumed conversation's SessionStart (Claude 2.1.251 on).
	h = hook(t, `{"session_id":"8b","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"SessionStart","source":"resume","seconds_since_last_response":23161,"context_tokens":149773,"prompt_cache_likely_expired":true,"estimated_cache_write_usd":1.1982}`)
	if h.Source != "resume" || h.ContextTokens != 149773 || !h.CacheExpired || h.CacheWriteUSD != 1.1982 {
		t.Fatalf("resume: %+v", h)
	}
	h = hook(t, `{"hook_event_name":"PermissionRequest","tool_name":"mcp__db__query","tool_input":{"sql":"select\n 1"}}`)
	if h.ToolInput != `{"sql":"select\n 1"}` {
		t.Fatalf("%+v", h)
	}
	h, err := ParseCodexNotify([]byte(`{"type":"agent-turn-complete","thread-id":"th-1","turn-id":"1","cwd":"/w","last-assistant-message":"ok"}`))
	if err != nil || h.Event != "Stop" || h.Conversation != "th-1" {
		t.Fatalf("%+v %v", h, err)
	}
	if _, err := ParseCodexNotify([]byte(`{"type":"something-else"}`)); err == nil {
		t.Error("a codex notify of another type")
	}
}

// An event delivered after a later one (hooks are processes of their own,
// served concurrently) is not news: a PreToolUse that comes in after the
// PermissionRequest that followed it leaves the question, and an older
// conversation id does not replace a newer one.
func TestLayeredDropsLateEvents(t *testing.T) {
	s := &screenStub{st: session.Idle, since: t0}
	l := NewLayered(s)
	l.Signal(at(20), hook(t, `{"hook_event_name":"PermissionRequest","session_id":"new","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`))
	l.Signal(at(10), hook(t, `{"hook_event_name":"PreToolUse","session_id":"old","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`))
	wantState(t, l, at(30), session.Idle, true)
	if d := l.Detail(at(30)); d.Reason != "Bash: rm -rf build" || d.Conversation != "new" || d.Tool != "" {
		t.Fatalf("after a late PreToolUse: %+v", d)
	}
	// At the same time it is taken (several frames of one connection).
	l.Signal(at(20), hook(t, `{"hook_event_name":"Stop","session_id":"new"}`))
	wantState(t, l, at(30), session.Idle, false)
}

// Claude reports one permission prompt twice, PermissionRequest then
// Notification permission_prompt: the reason keeps the tool and command
// in whichever order the two are taken, delivered late or not; a new
// prompt's report replaces it.
func TestLayeredPermissionReportedTwice(t *testing.T) {
	perm := `{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`
	note := `{"hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`
	for _, tc := range []struct {
		name        string
		first, then string
		tFirst      int
		tThen       int
	}{
		{"in order", perm, note, 10, 20},
		{"notification first", note, perm, 10, 20},
		{"request delivered late", note, perm, 20, 10},
	} {
		s := &screenStub{st: session.Thinking, since: t0}
		l := NewLayered(s)
		l.Signal(at(0), hook(t, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`))
		l.Signal(at(tc.tFirst), hook(t, tc.first))
		l.Signal(at(tc.tThen), hook(t, tc.then))
		wantState(t, l, at(50), session.Idle, true)
		if d := l.Detail(at(50)); d.Reason != "Bash: rm -rf build" {
			t.Fatalf("%s: reason %q", tc.name, d.Reason)
		}
	}
	// A new wait of another kind replaces the reason.
	s := &screenStub{st: session.Thinking, since: t0}
	l := NewLayered(s)
	l.Signal(at(10), hook(t, perm))
	l.Signal(at(20), hook(t, `{"hook_event_name":"Notification","notification_type":"elicitation_dialog","message":"Pick a database"}`))
	if d := l.Detail(at(30)); d.Reason != "Pick a database" {
		t.Fatalf("a new wait: reason %q", d.Reason)
	}
}
