package blemeesd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/wire/blemees/blemeestest"
)

// §6.1's spawn context: claude may be a #! script, is started when the
// session is opened (before any turn), inherits the daemon's environment
// and runs in the open's cwd, or the daemon's without one.
func TestSpawnContext(t *testing.T) {
	t.Setenv("FAKE_CLAUDE_PROBE", "inherited")
	e := newEnv(t, func(c *Config) {
		script := filepath.Join(t.TempDir(), "claude-wrapper")
		if err := os.WriteFile(script, []byte("#!/bin/sh\nexec '"+c.ClaudeBin+"' \"$@\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		c.ClaudeBin = script
	})
	c := e.connect()
	openSession(t, c, "ctx1")
	proj := filepath.Join(e.dir, "proj")
	os.Mkdir(proj, 0o700)
	openSession(t, c, "ctx2", "cwd", proj)
	wd, _ := os.Getwd()
	var starts []map[string]any
	for _, m := range e.fakeLog() {
		if m["event"] == "start" {
			starts = append(starts, m)
		}
	}
	if len(starts) != 2 || starts[0]["probe"] != "inherited" || starts[0]["cwd"] != wd || starts[1]["cwd"] != proj {
		t.Fatalf("starts (want the probe inherited, cwd %s then %s): %v", wd, proj, starts)
	}
	if text, _ := turnText(t, c, "ctx2", "through the script"); text != "echo: through the script" {
		t.Fatalf("turn: %q", text)
	}
}

// §5.5 and §6.2: the message of a claude.user reaches claude's stdin as
// sent (content blocks, fields the daemon does not know, NUL and astral
// characters, escaped or not); only the envelope is rewritten. What
// claude answers comes back unchanged too. A frame that is not UTF-8
// (§5.1's framing) is invalid_message, and the connection goes on.
func TestUserMessagePassthrough(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	proj := filepath.Join(e.dir, "pt")
	os.Mkdir(proj, 0o700)
	openSession(t, c, "pt", "cwd", proj)
	const text = "NUL \\u0000, a surrogate pair \\ud83d\\ude00 and 😀 <&>"
	msg := `{"role":"user","content":[{"type":"text","text":"` + text + `"},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}],"future_field":{"x":[1,2.5,null]}}`
	c.SendRaw(`{"type":"claude.user","session_id":"pt","message":` + msg + `}`)
	fs := c.Until("claude.result", "pt")
	var want string
	json.Unmarshal([]byte(`"`+text+`"`), &want)
	if got := deltas(fs); got != "echo: "+want {
		t.Fatalf("deltas %q, want %q", got, "echo: "+want)
	}
	// The fake appends each stdin line to the session's transcript.
	b, err := os.ReadFile(filepath.Join(e.home, ".claude", "projects", strings.ReplaceAll(proj, "/", "-"), "pt.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var line struct {
		Type      string          `json:"type"`
		SessionID string          `json:"session_id"`
		Message   json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(b, &line); err != nil {
		t.Fatalf("stdin line %q: %v", b, err)
	}
	var got, sent any
	json.Unmarshal(line.Message, &got)
	json.Unmarshal([]byte(msg), &sent)
	if line.Type != "user" || line.SessionID != "pt" || !reflect.DeepEqual(got, sent) {
		t.Fatalf("claude's stdin got %s\nwant type user, session_id pt, message %s", b, msg)
	}

	c.SendRaw("{\"type\":\"claude.user\",\"session_id\":\"pt\",\"message\":{\"role\":\"user\",\"content\":\"bad \xff\xfe byte\"}}")
	if f := c.Request(map[string]any{"type": "blemeesd.ping", "id": "p"}, "blemeesd.pong"); f.Str("code") != "invalid_message" {
		t.Fatalf("a frame that is not UTF-8: %v", f)
	}
	if f := c.Request(map[string]any{"type": "blemeesd.ping", "id": "p2"}, "blemeesd.pong"); f.Type() != "blemeesd.pong" {
		t.Fatalf("after the bad frame: %v", f)
	}
}

// §9.1: EOF on claude's stdout during a turn is a crash even when claude
// itself runs on: claude_crashed (with its stderr tail), the session stays
// open, the next turn respawns with --resume.
func TestStdoutClosedMidTurn(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	openSession(t, c, "eof")
	c.Send(user("eof", "closeout"))
	fs := c.Until("blemeesd.error", "eof")
	if f := fs[len(fs)-1]; f.Str("code") != "claude_crashed" || !strings.Contains(f.Str("message"), "stdout closed") {
		t.Fatalf("after claude closed its stdout: %v", f)
	}
	if text, _ := turnText(t, c, "eof", "next"); text != "echo: next" {
		t.Fatalf("turn after the crash: %q", text)
	}
	if st := e.starts(); len(st) != 2 || st[1][2] != "--resume" {
		t.Fatalf("starts %q", st)
	}
}

// §6.3: stdout lines that are not claude events (not JSON, not an object,
// no type) are dropped, not forwarded; seq stays gapless.
func TestNonJSONStdoutDropped(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	openSession(t, c, "g")
	text, fs := turnText(t, c, "g", "garbage")
	if text != "echo: garbage" {
		t.Fatalf("deltas %q", text)
	}
	for i, f := range fs {
		if !strings.HasPrefix(f.Type(), "claude.") || f.Type() == "claude.unknown" || f.Int("seq") != int64(i+2) {
			t.Fatalf("frame %d: %v", i, f)
		}
	}
}

// A "claude" whose first stdout line is not a JSON event does not speak
// the protocol: the client gets one internal error on the session (with a
// seq, what it wrote quoted), the process is stopped, and the session is
// not left busy: the next turn starts it again and is told the same.
func TestNotClaudeSaysSo(t *testing.T) {
	dir := t.TempDir()
	notClaude := filepath.Join(dir, "claude")
	if err := os.WriteFile(notClaude, []byte("#!/bin/sh\necho 'Usage: claude [options]'\nexec cat >/dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *Config) { c.ClaudeBin = notClaude })
	c := e.connect()
	if f := c.Request(open("n"), "blemeesd.opened"); f.Type() != "blemeesd.opened" {
		t.Fatalf("open: %v", f)
	}
	for _, turn := range []string{"", "one", "two"} { // "": claude started by the open
		if turn != "" {
			c.Send(user("n", turn))
		}
		fs := c.Until("blemeesd.error", "n")
		f := fs[len(fs)-1]
		if f.Str("code") != "internal" || f.Int("seq") == 0 || f.Str("message") != `claude's stdout is not JSON: "Usage: claude [options]"` {
			t.Fatalf("turn %s: %v", turn, f)
		}
	}
}

// A claude line longer than max_line_bytes is dropped alone: the turn
// goes on to its result and the session keeps working.
func TestOversizeClaudeLineDropped(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxLineBytes = 4096 })
	c := e.connect()
	openSession(t, c, "big")
	_, fs := turnText(t, c, "big", "big:10000")
	for _, f := range fs {
		if f.Type() == "claude.stream_event" && len(deltas([]blemeestest.Frame{f})) > 4096 {
			t.Fatalf("an oversize line was forwarded")
		}
	}
	if text, _ := turnText(t, c, "big", "after"); text != "echo: after" {
		t.Fatalf("turn after the oversize line: %q", text)
	}
}
