package blemeesd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/blemees/blemeestest"
)

// The reference client's flow (Appendix A): hello, open, send, stream the
// deltas, result, close; every frame it sends is one the inbound schemas
// allow, every frame it reads one the outbound schemas allow.
func TestReferenceClientFlow(t *testing.T) {
	e := newEnv(t)
	c := blemeestest.Dial(t, e.sock)
	c.CheckSent = true
	c.Send(map[string]any{"type": "blemeesd.hello", "client": "your-tool/0.1", "protocol": "blemees/1"})
	if ack := c.Next(); ack.Type() != "blemeesd.hello_ack" || ack.Str("protocol") != "blemees/1" || ack.Int("pid") != int64(os.Getpid()) {
		t.Fatalf("hello_ack %v", ack)
	}
	proj := filepath.Join(e.dir, "proj")
	os.Mkdir(proj, 0o700)
	opened := c.Request(open("s_abc", "model", "sonnet", "system_prompt", "You are a terse assistant.", "tools", "",
		"permission_mode", "bypassPermissions", "cwd", proj), "blemeesd.opened")
	if opened.Type() != "blemeesd.opened" || opened.Str("id") != "req_s_abc" || opened.Int("last_seq") != 0 || opened.Int("subprocess_pid") <= 0 {
		t.Fatalf("opened: %v", opened)
	}
	sys := c.Next()
	if sys.Type() != "claude.system" || sys.Str("model") != "sonnet" || sys.Int("seq") != 1 || sys.Str("session_id") != "s_abc" {
		t.Fatalf("first event: %v", sys)
	}
	text, fs := turnText(t, c, "s_abc", "What is 2+2?")
	if text != "echo: What is 2+2?" {
		t.Fatalf("deltas %q", text)
	}
	var last int64 = 1
	for _, f := range fs {
		if n := f.Int("seq"); n != last+1 {
			t.Fatalf("seq %d after %d: %v", n, last, f)
		}
		last++
	}
	// The next turn works the same.
	if text, _ := turnText(t, c, "s_abc", "again"); text != "echo: again" {
		t.Fatalf("second turn %q", text)
	}
	if f := c.Request(map[string]any{"type": "blemeesd.close", "id": "req_099", "session_id": "s_abc"}, "blemeesd.closed"); f.Type() != "blemeesd.closed" || f.Str("id") != "req_099" {
		t.Fatalf("close: %v", f)
	}
	if st := e.starts(); len(st) != 1 {
		t.Fatalf("claude started %d times", len(st))
	}
	// The child ran in cwd.
	if cwd := e.fakeLog()[0]["cwd"]; cwd != proj {
		t.Fatalf("claude ran in %v", cwd)
	}
}

func TestFlagMapping(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	openSession(t, c, "s1",
		"model", "opus", "system_prompt", "SP", "append_system_prompt", "ASP", "tools", "",
		"disallowed_tools", []string{"Bash", "Edit"}, "permission_mode", "plan", "add_dir", []string{"/a", "/b"},
		"effort", "high", "agent", "rev", "agents", map[string]any{"rev": map[string]any{"description": "d"}},
		"mcp_config", []string{"m.json"}, "strict_mcp_config", true, "settings", "s.json", "setting_sources", "user,project",
		"plugin_dir", []string{"p1", "p2"}, "betas", []string{"b1"}, "exclude_dynamic_system_prompt_sections", true,
		"max_budget_usd", 1.5, "json_schema", map[string]any{"type": "object"}, "fallback_model", "haiku",
		"session_name", "nm", "session_persistence", false, "include_partial_messages", true, "replay_user_messages", true,
		"unknown_future_field", 1)
	openSession(t, c, "s2", "agent", nil, "strict_mcp_config", false, "disallowed_tools", []string{}, "session_persistence", true)
	st := e.starts()
	want1 := []string{"-p", "--verbose", "--session-id", "s1", "--input-format", "stream-json", "--output-format", "stream-json",
		"--model=opus", "--system-prompt=SP", "--append-system-prompt=ASP", "--tools=",
		"--disallowedTools=Bash", "--disallowedTools=Edit", "--permission-mode=plan", "--add-dir=/a", "--add-dir=/b", "--effort=high",
		"--agent=rev", `--agents={"rev":{"description":"d"}}`, "--mcp-config=m.json", "--strict-mcp-config",
		"--settings=s.json", "--setting-sources=user,project", "--plugin-dir=p1", "--plugin-dir=p2",
		"--betas=b1", "--exclude-dynamic-system-prompt-sections", "--max-budget-usd=1.5",
		`--json-schema={"type":"object"}`, "--fallback-model=haiku", "--name=nm", "--no-session-persistence",
		"--include-partial-messages", "--replay-user-messages"}
	want2 := []string{"-p", "--verbose", "--session-id", "s2", "--input-format", "stream-json", "--output-format", "stream-json"}
	if len(st) != 2 || !slices.Equal(st[0], want1) || !slices.Equal(st[1], want2) {
		t.Fatalf("argv:\n%q\n%q\nwant\n%q\n%q", st[0], st[1], want1, want2)
	}
	// resume:true of a session the daemon does not have: --resume.
	c2 := e.connect()
	openSession(t, c2, "s3", "resume", true)
	if st := e.starts(); !slices.Equal(st[2][:4], []string{"-p", "--verbose", "--resume", "s3"}) {
		t.Fatalf("resume argv %q", st[2])
	}
}

func TestUnsafeFlagsRefused(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	for _, f := range []string{"dangerously_skip_permissions", "allow_dangerously_skip_permissions", "bare", "continue", "from_pr"} {
		r := c.Request(open("u1", f, true), "blemeesd.opened")
		if r.Type() != "blemeesd.error" || r.Str("code") != "unsafe_flag" || r.Str("id") != "req_u1" {
			t.Fatalf("%s: %v", f, r)
		}
	}
	// However the field is spelled.
	for _, f := range []string{"dangerouslySkipPermissions", "--dangerously-skip-permissions", "Continue", "from-pr"} {
		r := c.Request(open("u1", f, true), "blemeesd.opened")
		if r.Str("code") != "unsafe_flag" {
			t.Fatalf("field %s: %v", f, r)
		}
	}
	for _, f := range []string{"input_format", "output_format"} {
		r := c.Request(open("u3", f, "text"), "blemeesd.opened")
		if r.Str("code") != "invalid_message" {
			t.Fatalf("%s: %v", f, r)
		}
	}
	if r := c.Request(open("-x"), "blemeesd.opened"); r.Str("code") != "invalid_message" {
		t.Fatalf("a session id that looks like a flag: %v", r)
	}
	// bypassPermissions is allowed.
	openSession(t, c, "u4", "permission_mode", "bypassPermissions")
	if n := len(e.starts()); n != 1 {
		t.Fatalf("claude started %d times, want once (refused opens spawn nothing)", n)
	}
}

// A value that looks like a flag reaches claude as data, glued to its own
// flag: it can never become one (a list value above all, which claude's
// parser would otherwise end the list at).
func TestValuesStayData(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	openSession(t, c, "v1", "add_dir", []string{"/a", "--debug-file x"}, "betas", []string{"--output-format", "text"},
		"model", "--resume", "mcp_config", []string{"--dangerously-skip-permissions", "-c"}, "session_name", "--bare")
	argv := e.starts()[0]
	want := []string{"--model=--resume", "--add-dir=/a", "--add-dir=--debug-file x", "--mcp-config=--dangerously-skip-permissions",
		"--mcp-config=-c", "--betas=--output-format", "--betas=text", "--name=--bare"}
	var got []string
	for _, a := range argv[8:] { // after -p, --verbose, --session-id v1, the formats
		got = append(got, a)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("argv %q\nwant its tail %q", argv, want)
	}
	for _, a := range argv {
		if slices.Contains([]string{"--debug-file", "--resume", "--output-format=text", "--bare", "-c", "--dangerously-skip-permissions"}, a) {
			t.Fatalf("a value became the flag %q: %q", a, argv)
		}
	}
}

func TestCrashRespawn(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	openSession(t, c, "c1")
	c.Send(user("c1", "crash"))
	fs := c.Until("blemeesd.error", "c1")
	crash := fs[len(fs)-1]
	if crash.Str("code") != "claude_crashed" || !strings.Contains(crash.Str("message"), "simulated crash") || crash.Int("seq") < 1 {
		t.Fatalf("crash: %v", crash)
	}
	if inf := c.Request(map[string]any{"type": "blemeesd.session_info", "session_id": "c1"}, "blemeesd.session_info_reply"); inf.Bool("subprocess_running") {
		t.Fatalf("after the crash: %v", inf)
	}
	// The next turn respawns with --resume and works.
	if text, _ := turnText(t, c, "c1", "after"); text != "echo: after" {
		t.Fatalf("turn after crash: %q", text)
	}
	st := e.starts()
	if len(st) != 2 || st[1][2] != "--resume" {
		t.Fatalf("starts %q", st)
	}
}

func TestInterrupt(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	openSession(t, c, "i1", "model", "opus")
	c.Send(user("i1", "slow:10000"))
	c.Until("claude.stream_event", "i1")
	start := time.Now()
	c.Send(map[string]any{"type": "blemeesd.interrupt", "session_id": "i1"})
	fs := c.Until("blemeesd.interrupted", "i1")
	took := time.Since(start)
	if f := fs[len(fs)-1]; f.Bool("was_idle") || f.Int("seq") < 1 {
		t.Fatalf("interrupted: %v", f)
	}
	if took > 2*time.Second {
		t.Fatalf("interrupt took %v", took)
	}
	// SIGTERM reached claude; the respawn has --resume and the open's flags.
	waitFor(t, "respawn", func() bool { return len(e.starts()) == 2 })
	var sigterm bool
	for _, m := range e.fakeLog() {
		sigterm = sigterm || m["event"] == "sigterm"
	}
	st := e.starts()
	if !sigterm || st[1][2] != "--resume" || !slices.Contains(st[1], "--model=opus") {
		t.Fatalf("sigterm %v, starts %q", sigterm, st)
	}
	c.Until("claude.system", "i1")
	if text, _ := turnText(t, c, "i1", "continue"); text != "echo: continue" {
		t.Fatalf("after interrupt: %q", text)
	}
	if f := c.Request(map[string]any{"type": "blemeesd.interrupt", "session_id": "i1"}, "blemeesd.interrupted"); !f.Bool("was_idle") {
		t.Fatalf("idle interrupt: %v", f)
	}
}

func TestInterruptEscalatesToSIGKILL(t *testing.T) {
	t.Setenv("FAKE_CLAUDE_IGNORE_TERM", "1")
	e := newEnv(t)
	c := e.connect()
	openSession(t, c, "k1")
	c.Send(user("k1", "slow:10000"))
	c.Until("claude.stream_event", "k1")
	start := time.Now()
	c.Send(map[string]any{"type": "blemeesd.interrupt", "session_id": "k1"})
	c.Until("blemeesd.interrupted", "k1")
	if d := time.Since(start); d < 450*time.Millisecond || d > 2*time.Second {
		t.Fatalf("interrupt of a claude ignoring SIGTERM took %v, want ≈500ms", d)
	}
}

func TestConcurrentSessions(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	ids := []string{"a", "b", "c"}
	for _, id := range ids {
		openSession(t, c, id)
	}
	for _, id := range ids {
		c.Send(user(id, "flood:50"))
	}
	results := map[string]int{}
	counts := map[string]int{}
	lastSeq := map[string]int64{}
	for len(results) < 3 {
		f := c.Next()
		id := f.Str("session_id")
		if n := f.Int("seq"); n > 0 {
			if n <= lastSeq[id] {
				t.Fatalf("%s: seq %d after %d", id, n, lastSeq[id])
			}
			lastSeq[id] = n
		}
		if f.Type() == "claude.stream_event" {
			counts[id]++
		}
		if f.Type() == "claude.result" {
			results[id]++
		}
	}
	for _, id := range ids {
		if counts[id] != 51 { // message_start + 50 deltas
			t.Fatalf("session %s got %d stream events: %v", id, counts[id], counts)
		}
	}
	if n := len(e.starts()); n != 3 {
		t.Fatalf("%d children", n)
	}
}

func TestPingStatusSessionInfo(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	if f := c.Request(map[string]any{"type": "blemeesd.ping", "id": "p1", "data": map[string]any{"x": []any{1.0, "y"}}}, "blemeesd.pong"); f.Str("id") != "p1" || f["data"].(map[string]any)["x"].([]any)[1] != "y" {
		t.Fatalf("pong %v", f)
	}
	if f := c.Request(map[string]any{"type": "blemeesd.ping"}, "blemeesd.pong"); f["data"] != nil {
		t.Fatalf("pong without data %v", f)
	}
	openSession(t, c, "st1", "cwd", e.dir)
	turnText(t, c, "st1", "hi")
	turnText(t, c, "st1", "hi")
	st := c.Request(map[string]any{"type": "blemeesd.status", "id": "r2"}, "blemeesd.status_reply")
	sess := st["sessions"].(map[string]any)
	cfg := st["config"].(map[string]any)
	if !strings.HasPrefix(st.Str("daemon"), "blemeesd/") || st.Int("connections") != 1 || st.Str("socket_path") != e.sock ||
		len(sess) != 4 || sess["total"] != 1.0 || sess["attached"] != 1.0 || sess["detached"] != 0.0 || sess["active_turns"] != 0.0 ||
		cfg["ring_buffer_size"] != 1024.0 || cfg["event_log_enabled"] != false || cfg["idle_timeout_s"] != 900.0 ||
		cfg["shutdown_grace_s"] != 30.0 || cfg["max_concurrent_sessions"] != 64.0 || cfg["max_line_bytes"] != float64(16<<20) {
		t.Fatalf("status %v", st)
	}
	inf := c.Request(map[string]any{"type": "blemeesd.session_info", "id": "r5", "session_id": "st1"}, "blemeesd.session_info_reply")
	cum := inf["cumulative_usage"].(map[string]any)
	lt := inf["last_turn_usage"].(map[string]any)
	if inf.Str("model") != "claude-sonnet-4-6" || inf.Str("cwd") != e.dir || inf.Int("turns") != 2 || cum["input_tokens"] != 20.0 ||
		cum["cache_read_input_tokens"] != 200.0 || lt["output_tokens"] != 5.0 || inf.Int("context_tokens") != 117 ||
		!inf.Bool("attached") || !inf.Bool("subprocess_running") || inf.Int("last_seq") < 10 || inf.Int("last_turn_at_ms") < time.Now().Add(-time.Minute).UnixMilli() {
		t.Fatalf("session_info %v", inf)
	}
}
