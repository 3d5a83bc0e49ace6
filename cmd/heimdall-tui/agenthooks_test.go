package main

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/hook"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// watchState dials sock and asks for its STATE pushes.
func watchState(t *testing.T, sock string) *frame.Client {
	t.Helper()
	c, err := frame.Dial(sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Send(frame.WatchState, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

// awaitState reads STATE frames from c until ok holds (bounded).
func awaitState(t *testing.T, c *frame.Client, what string, ok func(frame.StateInfo) bool) frame.StateInfo {
	t.Helper()
	c.Conn().SetReadDeadline(time.Now().Add(waitTimeout))
	var last frame.StateInfo
	for {
		f, err := c.Next()
		if err != nil {
			t.Fatalf("no STATE with %s (last %+v): %v", what, last, err)
		}
		if f.Type != frame.StateEvent {
			continue
		}
		if err := last.UnmarshalBinary(f.Payload); err != nil {
			t.Fatal(err)
		}
		t.Logf("STATE %+v", last)
		if ok(last) {
			return last
		}
	}
}

// A Claude session run starts gets hooks of its own: a 0600 settings file
// passed with --settings (removed when the session ends), the user's
// ~/.claude/settings.json untouched; the fake claude's hooks reach the
// supervisor, so each step shows at once — busy, needs input with the
// command, Done after Stop until seen, Error after StopFailure, a new
// conversation id after /clear — in STATE, status --json and the record.
// An Esc interrupt (no hook) settles to Idle from the screen.
func TestAgentHooks(t *testing.T) {
	home := t.TempDir()
	userSettings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(userSettings), 0o700)
	const mine = "{\n  \"theme\": \"dark\",\n  \"hooks\": {}\n}\n"
	if err := os.WriteFile(userSettings, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("FAKE_CLAUDE_STEP", "200")
	dir := newSockDir(t)
	p := startRun(t, dir, "c1", nil, []string{"--agent", "claude", "--classifier", "claude"}, fakeClaudePath)
	waitLive(t, p)
	hooks := supervisor.HooksPath(dir, "c1")
	fi, err := os.Stat(hooks)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("hooks file: %v %v", fi, err)
	}
	w := watchState(t, p.sock)
	awaitState(t, w, "the conversation id", func(si frame.StateInfo) bool { return si.Conversation == "conv-1" })
	in, err := frame.Dial(p.sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	typeLine := func(s string) {
		t.Helper()
		if err := in.Input([]byte(s + "\r")); err != nil {
			t.Fatal(err)
		}
	}

	typeLine("perm")
	awaitState(t, w, "busy", func(si frame.StateInfo) bool { return si.State == "Thinking" || si.State == "ToolUse" })
	// The hook's report and the dialog on the screen reach the supervisor
	// by two paths (its socket, the pty): under load the screen's rule may
	// say needs input first, without a reason, until the hook's arrives.
	// Claude reports the prompt twice (PermissionRequest, Notification):
	// the command is the reason once the first has come, whichever order
	// they come in.
	awaitState(t, w, "needs input with the command", func(si frame.StateInfo) bool {
		return si.NeedsInput && si.Reason == "Bash: rm -rf build"
	})
	in.Input([]byte("1"))
	si := awaitState(t, w, "done", func(si frame.StateInfo) bool { return si.Done })
	if si.State != "Idle" || si.NeedsInput {
		t.Fatalf("STATE %+v", si)
	}
	var st statusJSON
	r := hm(t, "--socket-dir", dir, "status", "--json", "c1")
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || !st.Done || st.Conversation != "conv-1" {
		t.Fatalf("status --json: %v\n%v", err, r)
	}
	seen, err := frame.Dial(p.sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	seen.Send(frame.Seen, nil)
	seen.Close()
	awaitState(t, w, "not done once seen", func(si frame.StateInfo) bool { return !si.Done })

	typeLine("ratelimit")
	si = awaitState(t, w, "an error", func(si frame.StateInfo) bool { return si.Error != "" })
	if si.Error != "rate_limit" || !strings.Contains(si.ErrorDetails, "resets 3pm") {
		t.Fatalf("STATE %+v", si)
	}

	// Esc: no hook fires; the screen's idle prompt wins.
	typeLine("slow")
	awaitState(t, w, "busy", func(si frame.StateInfo) bool { return si.State == "Thinking" })
	in.Input([]byte{0x1b})
	awaitState(t, w, "idle after Esc", func(si frame.StateInfo) bool { return si.State == "Idle" })

	typeLine("/clear")
	awaitState(t, w, "a new conversation", func(si frame.StateInfo) bool { return si.Conversation == "conv-2" })
	rec, err := supervisor.ReadRecord(dir, "c1")
	for i := 0; (err != nil || rec.Conversation != "conv-2") && i < 100; i++ {
		time.Sleep(50 * time.Millisecond)
		rec, err = supervisor.ReadRecord(dir, "c1")
	}
	if err != nil || rec.Conversation != "conv-2" || rec.Argv[0] != fakeClaudePath || len(rec.Argv) != 1 {
		t.Fatalf("record %+v: %v", rec, err)
	}

	// No hook printed or failed (the fake shows "hook error" if one did).
	if out := hm(t, "--socket-dir", dir, "screen", "c1"); strings.Contains(out.stdout, "hook error") {
		t.Fatalf("a hook failed:\n%s", out.stdout)
	}
	typeLine("quit")
	if code := p.wait(); code != 0 {
		t.Fatalf("run exited %d\n%s", code, p)
	}
	if _, err := os.Stat(hooks); !os.IsNotExist(err) {
		t.Fatalf("hooks file after the session: %v", err)
	}
	if b, _ := os.ReadFile(userSettings); string(b) != mine {
		t.Fatalf("~/.claude/settings.json changed:\n%s", b)
	}
}

// --no-hooks (and a preset's hooks = false) leave claude as it was
// started: no --settings, no hooks file.
func TestAgentHooksOff(t *testing.T) {
	dir := newSockDir(t)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, []byte("[[agent]]\nname = \"claude\"\ncommand = [\"claude\"]\nhooks = false\n"), 0o600)
	for _, tc := range []struct{ global, flags []string }{
		{nil, []string{"--agent", "claude", "--no-hooks"}},
		{[]string{"--config", cfg}, []string{"--agent", "claude"}},
	} {
		p := startRun(t, dir, "off", tc.global, tc.flags, "sh", "-c", `echo "args:$*"; exec sleep 30`, "claude")
		waitLive(t, p)
		if _, err := os.Stat(supervisor.HooksPath(dir, "off")); !os.IsNotExist(err) {
			t.Fatalf("%v: a hooks file: %v", tc, err)
		}
		if out := hm(t, "--socket-dir", dir, "screen", "off"); !strings.Contains(out.stdout, "args:\n") && !strings.HasSuffix(strings.TrimSpace(out.stdout), "args:") {
			t.Fatalf("%v: argv changed:\n%s", tc, out.stdout)
		}
		p.stop()
	}
}

// The hook prints nothing and exits 0 within its budget whatever the
// supervisor does: none at all, one that never accepts, one that accepts
// and never reads.
func TestHookCommandAlwaysQuiet(t *testing.T) {
	dir := t.TempDir()
	payload := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	cases := map[string]string{"no socket": filepath.Join(dir, "none.sock"), "no variable": ""}
	// A supervisor that hangs: it accepts and never reads (nor writes the
	// mode byte); another that never accepts.
	hung, err := net.Listen("unix", filepath.Join(dir, "hung.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	go func() {
		var held []net.Conn
		for {
			c, err := hung.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	deaf, err := net.Listen("unix", filepath.Join(dir, "deaf.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer deaf.Close()
	cases["accepts, never reads"], cases["never accepts"] = hung.Addr().String(), deaf.Addr().String()
	for name, sock := range cases {
		cmd := exec.Command(binPath, "hook")
		cmd.Env = append(os.Environ(), hook.SocketEnv+"="+sock)
		cmd.Stdin = strings.NewReader(payload)
		out, err := cmd.CombinedOutput()
		if err != nil || len(out) != 0 {
			t.Errorf("%s: %v %q", name, err, out)
		}
	}
}

// A codex session gets codex's notify setting naming `hook --codex`; a
// turn completion it reports makes the session Done.
func TestAgentHooksCodex(t *testing.T) {
	dir := newSockDir(t)
	p := startRun(t, dir, "cx", nil, []string{"--agent", "codex"}, "sh", "-c", `printf 'arg:%s\n' "$@"; printf 'env:%s\n' "$`+hook.SocketEnv+`"; exec sleep 30`, "codex")
	waitLive(t, p)
	var screen string
	if !poll(waitTimeout, func() bool {
		screen = hm(t, "--socket-dir", dir, "screen", "cx").stdout
		return strings.Contains(screen, "env:")
	}) {
		t.Fatalf("no output:\n%s", screen)
	}
	notify, _ := json.Marshal([]string{binPath, "hook", "--codex"})
	for _, want := range []string{"arg:-c\n", "arg:notify=" + string(notify), "env:" + p.sock} {
		if !strings.Contains(strings.ReplaceAll(screen, "\n", ""), strings.ReplaceAll(want, "\n", "")) {
			t.Fatalf("no %q in:\n%s", want, screen)
		}
	}
	w := watchState(t, p.sock)
	cmd := exec.Command(binPath, "hook", "--codex", `{"type":"agent-turn-complete","thread-id":"th-1","turn-id":"t1","cwd":"/w","last-assistant-message":"ok"}`)
	cmd.Env = append(os.Environ(), hook.SocketEnv+"="+p.sock)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("hook --codex: %v %q", err, out)
	}
	awaitState(t, w, "done", func(si frame.StateInfo) bool { return si.Done && si.Conversation == "th-1" })
}

// Claude reports a permission prompt twice, PermissionRequest and
// Notification permission_prompt (the fake fires both hooks side by side):
// the reason the session waits keeps the tool and command, 50 times out
// of 50 (5 sessions side by side, 10 prompts each) — the last needs-input
// STATE before the prompt is answered has it.
func TestPermissionReasonKept(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("FAKE_CLAUDE_STEP", "20")
	const sessions, rounds = 5, 10
	var kept atomic.Int64
	t.Run("sessions", func(t *testing.T) {
		for n := range sessions {
			t.Run(strconv.Itoa(n), func(t *testing.T) {
				t.Parallel()
				kept.Add(int64(permRounds(t, rounds)))
			})
		}
	})
	if k := kept.Load(); k != sessions*rounds {
		t.Fatalf("the command stayed the reason in %d of %d prompts", k, sessions*rounds)
	}
}

// permRounds answers the fake's permission prompt rounds times in a
// session of its own and counts the prompts whose last needs-input STATE
// kept the command as the reason.
func permRounds(t *testing.T, rounds int) int {
	times := filepath.Join(t.TempDir(), "times")
	dir := newSockDir(t)
	p := startRun(t, dir, "r1", nil, []string{"--agent", "claude", "--classifier", "claude"}, "env", "FAKE_CLAUDE_TIMES="+times, fakeClaudePath)
	waitLive(t, p)
	w := watchState(t, p.sock)
	in, err := frame.Dial(p.sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	// dialogAt is when the fake drew its i-th dialog (0: not yet).
	dialogAt := func(i int) time.Time {
		b, _ := os.ReadFile(times)
		n := 0
		for _, l := range strings.Split(string(b), "\n") {
			if ns, ok := strings.CutPrefix(l, "dialog "); ok {
				if n++; n == i {
					v, _ := strconv.ParseInt(ns, 10, 64)
					return time.Unix(0, v)
				}
			}
		}
		return time.Time{}
	}
	kept := 0
	for i := 1; i <= rounds; i++ {
		if err := in.Input([]byte("perm\r")); err != nil {
			t.Fatal(err)
		}
		last := awaitState(t, w, "needs input with the command", func(si frame.StateInfo) bool {
			return si.NeedsInput && si.Reason == "Bash: rm -rf build"
		})
		// Both hooks have run (the dialog is drawn after them). A person
		// answers after the hooks' settle window (300 ms, classify): an
		// answer within it is not told from a screen that lags the hook.
		var drawn time.Time
		if !poll(waitTimeout, func() bool { drawn = dialogAt(i); return !drawn.IsZero() }) {
			t.Fatalf("round %d: no dialog", i)
		}
		time.Sleep(time.Until(drawn.Add(400 * time.Millisecond)))
		in.Input([]byte("3")) // refused: back to the prompt
		for {
			si := awaitState(t, w, "answered", func(frame.StateInfo) bool { return true })
			if !si.NeedsInput {
				break
			}
			last = si
		}
		if last.Reason == "Bash: rm -rf build" {
			kept++
		} else {
			t.Logf("round %d: the reason became %q", i, last.Reason)
		}
	}
	return kept
}
