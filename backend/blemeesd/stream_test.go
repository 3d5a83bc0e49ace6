package blemeesd

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/blemees/blemeestest"
)

func TestReplayAndGap(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.RingBufferSize = 8 })
	c := e.connect()
	openSession(t, c, "r1")
	_, fs := turnText(t, c, "r1", "flood:20")
	last := fs[len(fs)-1].Int("seq")
	c.NC.Close()
	// The daemon sees the close (a soft detach, which stops the idle
	// child) on its own time: a reattach before that finds the child
	// still running and owned, and has nothing to respawn.
	s, _ := e.d.Manager.Session("r1")
	waitFor(t, "the detach and claude stopped", func() bool {
		inf := s.Info()
		return !inf.Running && !inf.Attached
	})

	// Reattach with a last_seen_seq the ring no longer has: gap, then the ring.
	c2 := e.connect()
	c2.Send(open("r1", "resume", true, "last_seen_seq", 3))
	if f := c2.Next(); f.Type() != "blemeesd.opened" || f.Int("last_seq") != last {
		t.Fatalf("opened %v (last %d)", f, last)
	}
	gap := c2.Next()
	if gap.Type() != "blemeesd.replay_gap" || gap.Int("since_seq") != 3 || gap.Int("first_available_seq") != last-7 {
		t.Fatalf("gap %v", gap)
	}
	for want := last - 7; want <= last; want++ {
		if f := c2.Next(); f.Int("seq") != want {
			t.Fatalf("replay: seq %d, want %d: %v", f.Int("seq"), want, f)
		}
	}
	// The child was stopped at the detach (idle): the reattach respawned it.
	c2.Until("claude.system", "r1")
	c2.NC.Close()

	// last_seen_seq within the ring: no gap, just what follows.
	c3 := e.connect()
	c3.Send(open("r1", "resume", true, "last_seen_seq", last))
	if f := c3.Next(); f.Type() != "blemeesd.opened" {
		t.Fatal(f)
	}
	if f := c3.Next(); f.Type() != "claude.system" || f.Int("seq") != last+1 {
		t.Fatalf("after replay from %d: %v", last, f)
	}
	c3.NC.Close()

	// Without last_seen_seq: the whole ring.
	c4 := e.connect()
	c4.Send(open("r1", "resume", true))
	c4.Next()
	if f := c4.Next(); f.Type() == "blemeesd.replay_gap" || f.Int("seq") < last-6 {
		t.Fatalf("whole ring replay starts with %v", f)
	}
}

func TestSoftDetachFinishesTurn(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	openSession(t, c, "d1")
	c.Send(user("d1", "slow:300"))
	f := c.Until("claude.stream_event", "d1")
	seen := f[len(f)-1].Int("seq")
	c.NC.Close()
	s, _ := e.d.Manager.Session("d1")
	waitFor(t, "the finishing turn's end and claude stopped", func() bool {
		inf := s.Info()
		return !inf.Running && !inf.TurnActive && !inf.Attached
	})
	c2 := e.connect()
	c2.Send(open("d1", "resume", true, "last_seen_seq", seen))
	c2.Next()
	fs := c2.Until("claude.result", "d1")
	if deltas(fs) != "slow done" {
		t.Fatalf("replayed rest of the turn: %q", deltas(fs))
	}
	var stopped bool
	for _, m := range e.fakeLog() {
		stopped = stopped || m["event"] == "sigterm"
	}
	if !stopped {
		t.Fatal("claude was not stopped after the finishing turn")
	}
}

func TestIdleTimeoutReapsDetached(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.IdleTimeoutS = 0.2 })
	c := e.connect()
	openSession(t, c, "it")
	c.NC.Close()
	waitFor(t, "reap", func() bool { _, ok := e.d.Manager.Session("it"); return !ok })
}

func TestRestartWithEventLog(t *testing.T) {
	logDir := ""
	e := newEnv(t, func(c *Config) {
		c.EventLogDir = filepath.Join(os.TempDir(), "unused")
	})
	logDir = filepath.Join(e.dir, "events")
	e.stop()
	e.cfg.EventLogDir = logDir
	e.start()
	c := e.connect()
	proj := filepath.Join(e.dir, "p")
	os.Mkdir(proj, 0o700)
	openSession(t, c, "ev1", "cwd", proj)
	_, fs := turnText(t, c, "ev1", "one")
	last := fs[len(fs)-1].Int("seq")
	evPath, usagePath := filepath.Join(logDir, "ev1.jsonl"), filepath.Join(logDir, "ev1.usage.json")
	b, err := os.ReadFile(evPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if int64(len(lines)) != last {
		t.Fatalf("%d log lines, last seq %d", len(lines), last)
	}
	for _, l := range lines {
		if !strings.Contains(l, `"seq":`) {
			t.Fatalf("log line without seq: %s", l)
		}
	}
	if _, err := os.Stat(usagePath); err != nil {
		t.Fatal(err)
	}

	// Restart the daemon: replay and counters survive.
	e.stop()
	e.start()
	c2 := e.connect()
	c2.Send(open("ev1", "resume", true, "last_seen_seq", 2, "cwd", proj))
	if f := c2.Next(); f.Type() != "blemeesd.opened" || f.Int("last_seq") != last {
		t.Fatalf("reopen after restart: %v (last %d)", f, last)
	}
	for want := int64(3); want <= last; want++ {
		if f := c2.Next(); f.Int("seq") != want {
			t.Fatalf("replay from the log: %v, want seq %d", f, want)
		}
	}
	c2.Until("claude.system", "ev1")
	inf := c2.Request(map[string]any{"type": "blemeesd.session_info", "session_id": "ev1"}, "blemeesd.session_info_reply")
	if inf.Int("turns") != 1 || inf.Int("last_seq") != last+1 || inf.Str("model") != "claude-sonnet-4-6" {
		t.Fatalf("session_info after restart: %v", inf)
	}
	_, fs = turnText(t, c2, "ev1", "two")
	if fs[0].Int("seq") != last+2 {
		t.Fatalf("seq after restart: %v", fs[0])
	}
	inf = c2.Request(map[string]any{"type": "blemeesd.session_info", "session_id": "ev1"}, "blemeesd.session_info_reply")
	if inf.Int("turns") != 2 || inf["cumulative_usage"].(map[string]any)["input_tokens"] != 20.0 {
		t.Fatalf("usage after restart: %v", inf)
	}
	transcript := filepath.Join(e.home, ".claude", "projects", strings.ReplaceAll(proj, "/", "-"), "ev1.jsonl")
	if _, err := os.Stat(transcript); err != nil {
		t.Fatal(err)
	}
	c2.Request(map[string]any{"type": "blemeesd.close", "session_id": "ev1", "delete": true}, "blemeesd.closed")
	for _, p := range []string{evPath, usagePath, transcript} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after close {delete:true}: %v", p, err)
		}
	}
}

func TestWatch(t *testing.T) {
	e := newEnv(t)
	owner := e.connect()
	openSession(t, owner, "w1")
	w := e.connect()
	if f := w.Request(map[string]any{"type": "blemeesd.watch", "id": "q3", "session_id": "nope"}, "blemeesd.watching"); f.Str("code") != "session_unknown" {
		t.Fatalf("watch unknown: %v", f)
	}
	w.Send(map[string]any{"type": "blemeesd.watch", "id": "q3", "session_id": "w1", "last_seen_seq": 0})
	if f := w.Next(); f.Type() != "blemeesd.watching" || f.Int("last_seq") != 1 || f.Str("id") != "q3" {
		t.Fatalf("watching %v", f)
	}
	if f := w.Next(); f.Type() != "claude.system" {
		t.Fatalf("watch replay %v", f)
	}
	turnText(t, owner, "w1", "hello")
	if text := deltas(w.Until("claude.result", "w1")); text != "echo: hello" {
		t.Fatalf("watcher saw %q", text)
	}
	// Watchers cannot drive.
	for _, req := range []map[string]any{user("w1", "x"), {"type": "blemeesd.interrupt", "session_id": "w1"}, {"type": "blemeesd.close", "session_id": "w1"}} {
		if f := w.Request(req, "-"); f.Str("code") != "session_unknown" {
			t.Fatalf("watcher's %v: %v", req["type"], f)
		}
	}
	if f := w.Request(map[string]any{"type": "blemeesd.unwatch", "id": "q4", "session_id": "w1"}, "blemeesd.unwatched"); !f.Bool("was_watching") {
		t.Fatalf("unwatch %v", f)
	}
	if f := w.Request(map[string]any{"type": "blemeesd.unwatch", "session_id": "w1"}, "blemeesd.unwatched"); f.Bool("was_watching") {
		t.Fatalf("second unwatch %v", f)
	}
	turnText(t, owner, "w1", "again")
	if f := w.Request(map[string]any{"type": "blemeesd.ping", "id": "after"}, "blemeesd.pong"); f.Str("id") != "after" {
		t.Fatalf("after unwatch the watcher got %v", f)
	}
}

func TestTakeover(t *testing.T) {
	e := newEnv(t)
	a := e.connect()
	openSession(t, a, "t1")
	openSession(t, a, "t2")
	b := e.connect()
	b.Send(open("t1", "resume", true, "last_seen_seq", 1))
	if f := b.Next(); f.Type() != "blemeesd.opened" {
		t.Fatal(f)
	}
	taken := a.Until("blemeesd.session_taken")
	if f := taken[len(taken)-1]; f.Str("session_id") != "t1" || f.Int("by_peer_pid") != int64(os.Getpid()) {
		t.Fatalf("session_taken %v", f)
	}
	if text, _ := turnText(t, b, "t1", "mine"); text != "echo: mine" {
		t.Fatal(text)
	}
	if f := a.Request(user("t1", "x"), "-"); f.Str("code") != "session_unknown" {
		t.Fatalf("ex-owner's send: %v", f)
	}
	// The ex-owner's other session is unaffected.
	if text, _ := turnText(t, a, "t2", "still"); text != "echo: still" {
		t.Fatal(text)
	}
}

func TestListSessions(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	proj := filepath.Join(e.dir, "lp")
	os.Mkdir(proj, 0o700)
	if f := c.Request(map[string]any{"type": "blemeesd.list_sessions", "id": "l0"}, "blemeesd.sessions"); f.Str("code") != "invalid_message" {
		t.Fatalf("without cwd: %v", f)
	}
	openSession(t, c, "old", "cwd", proj)
	turnText(t, c, "old", "the first question")
	c.Request(map[string]any{"type": "blemeesd.close", "session_id": "old"}, "blemeesd.closed")
	time.Sleep(20 * time.Millisecond)
	openSession(t, c, "new", "cwd", proj)
	turnText(t, c, "new", "a newer question")
	openSession(t, c, "live-only", "cwd", proj, "session_persistence", false)
	openSession(t, c, "elsewhere", "cwd", e.dir)
	f := c.Request(map[string]any{"type": "blemeesd.list_sessions", "id": "l1", "cwd": proj}, "blemeesd.sessions")
	rows := f["sessions"].([]any)
	if f.Str("cwd") != proj || len(rows) != 3 {
		t.Fatalf("sessions %v", f)
	}
	row := func(i int) blemeestest.Frame { return blemeestest.Frame(rows[i].(map[string]any)) }
	if row(0).Str("session_id") != "live-only" || !row(0).Bool("attached") ||
		row(1).Str("session_id") != "new" || !row(1).Bool("attached") || row(1).Str("preview") != "a newer question" || row(1).Int("size") <= 0 ||
		row(2).Str("session_id") != "old" || row(2).Bool("attached") || row(2).Str("preview") != "the first question" {
		t.Fatalf("rows %v", rows)
	}
}

func TestStderrRateLimitAndOAuth(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.StderrRateLines = 5; c.StderrRateWindowS = 60 })
	c := e.connect()
	openSession(t, c, "e1")
	_, fs := turnText(t, c, "e1", "stderr:40")
	n := 0
	for _, f := range fs {
		if f.Type() == "blemeesd.stderr" {
			n++
		}
	}
	// stderr is read apart from stdout: lines may still come after the result.
	time.Sleep(50 * time.Millisecond)
	for {
		f := c.Request(map[string]any{"type": "blemeesd.ping"}, "blemeesd.pong")
		if f.Type() == "blemeesd.pong" {
			break
		}
	}
	if n > 5 {
		t.Fatalf("%d stderr frames, limit 5", n)
	}
	openSession(t, c, "o1")
	c.Send(user("o1", "oauth"))
	fs = c.Until("blemeesd.error", "o1")
	if f := fs[len(fs)-1]; f.Str("code") != "oauth_expired" || f.Int("seq") < 1 {
		t.Fatalf("oauth: %v", f)
	}
	// Later turns repeat the error while the token stays expired.
	t.Setenv("FAKE_CLAUDE_START", "oauth")
	s, _ := e.d.Manager.Session("o1")
	waitFor(t, "claude's exit", func() bool { return !s.Info().Running })
	if f := c.Request(user("o1", "again"), "-"); f.Str("code") != "oauth_expired" {
		t.Fatalf("turn after oauth: %v", f)
	}
}

func TestErrorCodes(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxLineBytes = 4096; c.SlowConsumerS = 0.3; c.QueueSize = 16 })
	code := func(c *blemeestest.Conn, v any) string {
		t.Helper()
		return c.Request(v, "-").Str("code")
	}

	t.Run("protocol_mismatch", func(t *testing.T) {
		c := blemeestest.Dial(t, e.sock)
		if f := c.Request(map[string]any{"type": "blemeesd.hello", "protocol": "blemees/2"}, "-"); f.Str("code") != "protocol_mismatch" {
			t.Fatal(f)
		}
		if _, err := c.Read(); err != io.EOF {
			t.Fatalf("after protocol_mismatch: %v", err)
		}
	})
	c := e.connect()
	checks := []struct {
		code string
		req  any
	}{
		{"invalid_message", "{not json"},
		{"invalid_message", "[1,2]"},
		{"invalid_message", map[string]any{"type": "claude.user", "session_id": "x", "message": map[string]any{"role": "assistant", "content": "x"}}},
		{"invalid_message", map[string]any{"type": "claude.user", "session_id": "x", "message": map[string]any{"role": "user", "content": 3}}},
		{"invalid_message", map[string]any{"type": "blemeesd.open", "session_id": "x", "model": 3}},
		{"invalid_message", map[string]any{"type": "blemeesd.open", "session_id": "x", "permission_mode": "yolo"}},
		{"unknown_message", map[string]any{"type": "blemeesd.frobnicate"}},
		{"session_unknown", user("nope", "x")},
		{"session_unknown", map[string]any{"type": "blemeesd.session_info", "session_id": "nope"}},
		{"session_unknown", map[string]any{"type": "blemeesd.interrupt", "session_id": "nope"}},
		{"spawn_failed", open("bad-cwd", "cwd", filepath.Join(e.dir, "missing"))},
	}
	for _, ch := range checks {
		var got string
		if s, ok := ch.req.(string); ok {
			c.SendRaw(s)
			got = c.Request(map[string]any{"type": "blemeesd.ping"}, "-").Str("code")
		} else {
			got = code(c, ch.req)
		}
		if got != ch.code {
			t.Errorf("%v: code %q, want %q", ch.req, got, ch.code)
		}
	}
	openSession(t, c, "busy")
	if got := code(c, open("busy")); got != "session_exists" {
		t.Errorf("open twice: %q", got)
	}
	c.Send(user("busy", "slow:400"))
	if got := code(c, user("busy", "second")); got != "session_busy" {
		t.Errorf("second turn: %q", got)
	}
	c.Until("claude.result", "busy")

	t.Run("oversize_message", func(t *testing.T) {
		c := e.connect()
		c.SendRaw(`{"type":"blemeesd.ping","data":"` + strings.Repeat("x", 5000) + `"}`)
		if f := c.Next(); f.Str("code") != "oversize_message" {
			t.Fatal(f)
		}
		if _, err := c.Read(); err != io.EOF {
			t.Fatalf("after oversize: %v", err)
		}
	})
	t.Run("slow_consumer", func(t *testing.T) {
		c := e.connect()
		openSession(t, c, "slow")
		c.Send(user("slow", "flood:200000"))
		time.Sleep(1500 * time.Millisecond) // never read: the daemon gives up after 0.3 s
		// Read what was buffered: it ends with slow_consumer, then EOF.
		var last string
		for {
			line, err := readRaw(c)
			if err != nil {
				break
			}
			last = line
		}
		if !strings.Contains(last, `"code":"slow_consumer"`) {
			t.Fatalf("last line %q", last)
		}
		if err := blemeestest.ValidateOutbound([]byte(last)); err != nil {
			t.Fatal(err)
		}
		// The session lives on, detached.
		s, ok := e.d.Manager.Session("slow")
		if !ok {
			t.Fatal("session gone")
		}
		waitFor(t, "detach", func() bool { return !s.Info().Attached })
	})
	t.Run("daemon_shutdown", func(t *testing.T) {
		c := e.connect()
		e.stop()
		if f := c.Next(); f.Str("code") != "daemon_shutdown" {
			t.Fatal(f)
		}
		if _, err := c.Read(); err != io.EOF {
			t.Fatalf("after daemon_shutdown: %v", err)
		}
		e.start()
	})
}

// readRaw reads a line without validating it (a slow consumer's stream may
// end with a frame torn by the daemon's give-up).
func readRaw(c *blemeestest.Conn) (string, error) {
	c.NC.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b []byte
	one := make([]byte, 1)
	for {
		n, err := c.NC.Read(one)
		if err != nil {
			return "", err
		}
		if n == 1 {
			if one[0] == '\n' {
				return string(b), nil
			}
			b = append(b, one[0])
		}
	}
}

func TestShutdownTiming(t *testing.T) {
	for _, tc := range []struct {
		grace    float64
		min, max time.Duration
		result   bool
	}{
		{grace: 30, min: 700 * time.Millisecond, max: 3 * time.Second, result: true},
		{grace: 0, max: 1500 * time.Millisecond},
	} {
		e := newEnv(t, func(c *Config) { c.ShutdownGraceS = tc.grace })
		e.cfg.EventLogDir = filepath.Join(e.dir, "ev")
		e.stop()
		e.start()
		c := e.connect()
		openSession(t, c, "busy")
		openSession(t, c, "idle")
		c.Send(user("busy", "slow:1000"))
		c.Until("claude.stream_event", "busy")
		start := time.Now()
		e.stop()
		took := time.Since(start)
		if took < tc.min || took > tc.max {
			t.Errorf("grace %v: shutdown took %v, want %v..%v", tc.grace, took, tc.min, tc.max)
		}
		if _, err := os.Stat(e.sock); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("socket left: %v", err)
		}
		b, _ := os.ReadFile(filepath.Join(e.cfg.EventLogDir, "busy.jsonl"))
		if got := strings.Contains(string(b), `"type":"result"`); got != tc.result {
			t.Errorf("grace %v: the turn's result in the log: %v", tc.grace, got)
		}
		e.start() // for the cleanup's stop
	}
}

// An unexpected daemon error is `internal` (§5.10: not fatal): here
// Claude Code's project directory for the cwd is a file. The connection
// goes on.
func TestInternalError(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	cwd := "/some/project"
	projects := filepath.Join(e.home, ".claude", "projects")
	if err := os.MkdirAll(projects, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(projects, "-some-project"), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := c.Request(map[string]any{"type": "blemeesd.list_sessions", "id": "l1", "cwd": cwd}, "blemeesd.sessions")
	if f.Type() != "blemeesd.error" || f.Str("code") != "internal" || f.Str("id") != "l1" {
		t.Fatalf("list over a broken project dir: %v", f)
	}
	if f := c.Request(map[string]any{"type": "blemeesd.ping", "id": "p"}, "blemeesd.pong"); f.Type() != "blemeesd.pong" {
		t.Fatalf("after internal: %v", f)
	}
}
