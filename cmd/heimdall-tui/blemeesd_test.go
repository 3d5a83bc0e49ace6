package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/headless/headlesstest"
	"github.com/heimdall-tui/heimdall-tui/wire/blemees/blemeestest"
)

// daemonEnv is a short temp dir with a fake $HOME for a blemeesd run.
func daemonEnv(t *testing.T) (dir string, env []string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "bdc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	os.Mkdir(home, 0o700)
	env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_RUNTIME_DIR="+dir,
		"BLEMEESD_CLAUDE="+headlesstest.FakeClaude(t))
	return dir, env
}

// startDaemon runs `heimdall-tui blemeesd args...` and waits for its socket.
func startDaemon(t *testing.T, env []string, sock string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"blemeesd"}, args...)...)
	cmd.Env = env
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	// Accepting, not only there: the file exists from bind(2), and a
	// connect before listen(2) is refused.
	if !poll(10*time.Second, func() bool {
		nc, err := net.Dial("unix", sock)
		if err == nil {
			nc.Close()
		}
		return err == nil
	}) {
		t.Fatalf("no socket accepting at %s; stderr:\n%s", sock, stderr.String())
	}
	return cmd, &stderr
}

// waitExit waits for the daemon's exit (bounded) and returns its code and
// how long it took.
func waitExit(t *testing.T, cmd *exec.Cmd, bound time.Duration) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(bound):
		cmd.Process.Kill()
		<-done
		t.Fatalf("daemon still running after %v", bound)
	}
	return cmd.ProcessState.ExitCode(), time.Since(start)
}

// The daemon as a user runs it: defaults + environment, JSON logs without
// prompts, SIGTERM with a turn in flight lets it finish, exit 0, socket gone.
func TestBlemeesdDaemon(t *testing.T) {
	dir, env := daemonEnv(t)
	sock := filepath.Join(dir, "blemeesd.sock") // $XDG_RUNTIME_DIR/blemeesd.sock
	cmd, stderr := startDaemon(t, env, sock)
	c := blemeestest.Connect(t, sock)
	c.Send(map[string]any{"type": "blemeesd.open", "id": "o", "session_id": "s1", "system_prompt": "TOP-SECRET-PROMPT"})
	c.Until("claude.system")
	c.Send(map[string]any{"type": "claude.user", "session_id": "s1", "message": map[string]any{"role": "user", "content": "slow:800 SECRET-USER-TEXT"}})
	c.Until("claude.stream_event")
	// A second daemon on the same socket refuses to start.
	second := exec.Command(binPath, "blemeesd")
	second.Env = env
	out, _ := second.CombinedOutput()
	if second.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "another daemon") {
		t.Fatalf("second daemon: %d %s", second.ProcessState.ExitCode(), out)
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	fs := c.Until("blemeesd.error")
	if f := fs[len(fs)-1]; f.Str("code") != "daemon_shutdown" {
		t.Fatal(f)
	}
	code, _ := waitExit(t, cmd, 10*time.Second)
	took := time.Since(start)
	if code != 0 || took < 500*time.Millisecond || took > 4*time.Second {
		t.Fatalf("exit %d after %v (the turn had ~800 ms left)\n%s", code, took, stderr.String())
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("socket left: %v", err)
	}
	log := stderr.String()
	if strings.Contains(log, "SECRET") {
		t.Fatalf("a prompt or message body reached the INFO log:\n%s", log)
	}
	events := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line not JSON: %q", l)
		}
		if m["ts"] == nil || m["level"] == nil || m["event"] == nil {
			t.Fatalf("log line without ts/level/event: %q", l)
		}
		events[m["event"].(string)] = true
	}
	for _, e := range []string{"daemon start", "client connected", "claude spawned", "session open", "claude exited", "daemon stop"} {
		if !events[e] {
			t.Errorf("no %q in the log:\n%s", e, log)
		}
	}
}

// Precedence: flags over environment over the config file; no config file
// and no claude are needed; debug logs redact bodies.
func TestBlemeesdConfigPrecedence(t *testing.T) {
	dir, env := daemonEnv(t)
	cfgPath := filepath.Join(dir, "c.toml")
	os.WriteFile(cfgPath, []byte("socket_path = \""+filepath.Join(dir, "file.sock")+"\"\nring_buffer_size = 7\nshutdown_grace_s = 0\nlog_level = \"error\"\n"), 0o600)
	env = append(env, "BLEMEESD_SOCKET="+filepath.Join(dir, "env.sock"), "BLEMEESD_RING_BUFFER_SIZE=9", "BLEMEESD_CLAUDE=/nonexistent/claude")
	sock := filepath.Join(dir, "flag.sock")
	cmd, stderr := startDaemon(t, env, sock, "--config", cfgPath, "--socket", sock, "--log-level", "debug", "--claude", headlesstest.FakeClaude(t))
	c := blemeestest.Dial(t, sock)
	c.Send(map[string]any{"type": "blemeesd.hello", "protocol": "blemees/1"})
	if f := c.Next(); f.Str("claude_version") != "2.1.118" {
		t.Fatalf("hello_ack %v", f)
	}
	st := c.Request(map[string]any{"type": "blemeesd.status"}, "blemeesd.status_reply")
	cfg := st["config"].(map[string]any)
	if st.Str("socket_path") != sock || cfg["ring_buffer_size"] != 9.0 || cfg["shutdown_grace_s"] != 0.0 {
		t.Fatalf("status %v", st)
	}
	c.Send(map[string]any{"type": "blemeesd.open", "session_id": "s1", "system_prompt": "SECRET-SYSTEM-PROMPT"})
	c.Until("claude.system")
	c.Send(map[string]any{"type": "claude.user", "session_id": "s1", "message": map[string]any{"role": "user", "content": "SECRET-USER-TEXT"}})
	c.Until("claude.result")
	// claude's stderr ("warning line N") is a body too.
	c.Send(map[string]any{"type": "claude.user", "session_id": "s1", "message": map[string]any{"role": "user", "content": "stderr:3"}})
	c.Until("claude.result")
	cmd.Process.Signal(syscall.SIGINT)
	if code, took := waitExit(t, cmd, 10*time.Second); code != 0 || took > 2*time.Second {
		t.Fatalf("exit %d after %v", code, took)
	}
	log := stderr.String()
	if strings.Contains(log, "SECRET") || strings.Contains(log, "warning line") || !strings.Contains(log, "<redacted ") {
		t.Fatalf("debug log does not redact:\n%s", log)
	}

	// No claude at all: it starts, and says so in hello_ack.
	env2 := append(env, "BLEMEESD_SOCKET="+filepath.Join(dir, "noclaude.sock"))
	cmd, _ = startDaemon(t, env2, filepath.Join(dir, "noclaude.sock"))
	c = blemeestest.Dial(t, filepath.Join(dir, "noclaude.sock"))
	c.Send(map[string]any{"type": "blemeesd.hello", "protocol": "blemees/1"})
	if f := c.Next(); f["claude_version"] != nil {
		t.Fatalf("hello_ack without claude: %v", f)
	}
	if f := c.Request(map[string]any{"type": "blemeesd.open", "session_id": "s1"}, "blemeesd.opened"); f.Str("code") != "spawn_failed" {
		t.Fatalf("open without claude: %v", f)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	waitExit(t, cmd, 10*time.Second)
}

// §7 and §9.6 as a user meets them: the socket is created 0600; a stale
// socket (a file nobody accepts on) is replaced; a path owned by another
// user is refused with exit 1 and left alone (a file there, as §7 says of
// any path); --log-file takes the JSON
// log, whose connection lines carry the peer's pid and uid.
func TestBlemeesdSocketAndLogFile(t *testing.T) {
	dir, env := daemonEnv(t)
	sock := filepath.Join(dir, "x.sock")
	// A daemon killed outright leaves its socket behind.
	killed, _ := startDaemon(t, env, sock, "--socket", sock)
	killed.Process.Kill()
	killed.Wait()
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("no stale socket: %v", err)
	}
	logFile := filepath.Join(dir, "d.log")
	cmd, stderr := startDaemon(t, env, sock, "--socket", sock, "--log-file", logFile)
	if !poll(10*time.Second, func() bool {
		nc, err := net.Dial("unix", sock)
		if err == nil {
			nc.Close()
		}
		return err == nil
	}) {
		t.Fatalf("the daemon did not replace the stale socket:\n%s", stderr.String())
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", fi.Mode(), err)
	}
	c := blemeestest.Connect(t, sock)
	c.Request(map[string]any{"type": "blemeesd.ping", "id": "p"}, "blemeesd.pong")
	c.NC.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	if code, _ := waitExit(t, cmd, 10*time.Second); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if stderr.String() != "" {
		t.Fatalf("with --log-file, stderr got %q", stderr.String())
	}
	b, _ := os.ReadFile(logFile)
	peer := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line not JSON: %q", l)
		}
		if ev, _ := m["event"].(string); ev == "client connected" || ev == "connection closed" {
			peer[ev] = m["peer_pid"] == float64(os.Getpid()) && m["peer_uid"] == float64(os.Getuid()) && m["connection_id"] != nil
		}
	}
	if !peer["client connected"] || !peer["connection closed"] {
		t.Fatalf("peer pid %d / uid %d not on the connection lines:\n%s", os.Getpid(), os.Getuid(), b)
	}

	if os.Geteuid() != 0 {
		t.Log("not root: the path of another user cannot be arranged")
		return
	}
	other := filepath.Join(dir, "other.sock")
	os.WriteFile(other, nil, 0o600)
	os.Chown(other, 65534, 65534)
	r := exec.Command(binPath, "blemeesd", "--socket", other)
	r.Env = env
	out, _ := r.CombinedOutput()
	if r.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "owned by uid 65534") {
		t.Fatalf("socket path of another user: exit %d\n%s", r.ProcessState.ExitCode(), out)
	}
	if _, err := os.Lstat(other); err != nil {
		t.Fatalf("the other user's socket was touched: %v", err)
	}
}

func TestBlemeesdUnitAndVersion(t *testing.T) {
	r := hm(t, "blemeesd", "--systemd-unit")
	if r.code != 0 || !strings.Contains(r.stdout, "ExecStart="+strconv.Quote(binPath)+" blemeesd\n") || !strings.Contains(r.stdout, "WantedBy=default.target") {
		t.Fatalf("unit: %v", r)
	}
	// No After=default.target: with WantedBy=default.target it is an
	// ordering cycle.
	if strings.Contains(r.stdout, "After=") {
		t.Fatalf("unit orders itself: %v", r)
	}
	if r := hm(t, "blemeesd", "--version"); r.code != 0 || !strings.HasPrefix(r.stdout, "blemeesd 0.1.0") {
		t.Fatalf("version: %v", r)
	}
}

// The daemon's resident memory with 64 idle sessions (the fake claude
// children not counted).
func BenchmarkBlemeesdIdleRSS(b *testing.B) {
	for b.Loop() {
		dir, err := os.MkdirTemp("", "bdr")
		if err != nil {
			b.Fatal(err)
		}
		defer os.RemoveAll(dir)
		sock := filepath.Join(dir, "r.sock")
		cmd := exec.Command(binPath, "blemeesd", "--socket", sock, "--claude", headlesstest.FakeClaude(b), "--log-level", "error")
		cmd.Env = append(os.Environ(), "HOME="+dir)
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		poll(10*time.Second, func() bool { _, err := os.Stat(sock); return err == nil })
		rss := func() int64 {
			s, _ := os.ReadFile(filepath.Join("/proc", fmt.Sprint(cmd.Process.Pid), "status"))
			for _, l := range strings.Split(string(s), "\n") {
				if strings.HasPrefix(l, "VmRSS:") {
					var kb int64
					fmt.Sscan(strings.TrimPrefix(l, "VmRSS:"), &kb)
					return kb
				}
			}
			return 0
		}
		before := rss()
		conns := []*blemeestest.Conn{blemeestest.Connect(b, sock), blemeestest.Connect(b, sock)}
		for i := range 64 {
			c := conns[i%2]
			c.NoCheck = true
			if f := c.Request(map[string]any{"type": "blemeesd.open", "session_id": fmt.Sprint("s", i)}, "blemeesd.opened"); f.Type() != "blemeesd.opened" {
				b.Fatal(f)
			}
		}
		time.Sleep(500 * time.Millisecond)
		after := rss()
		b.ReportMetric(float64(before)/1024, "MiB-rss-0-sessions")
		b.ReportMetric(float64(after)/1024, "MiB-rss-64-idle")
		b.ReportMetric(float64(after-before)/64, "KiB/session")
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}
}
