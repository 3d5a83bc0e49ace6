package blemeesd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Default is §8's table, the socket resolved as §5.1 says for the daemon's
// own default: $XDG_RUNTIME_DIR/blemeesd.sock, else /tmp/blemeesd-<uid>.sock
// ($BLEMEESD_SOCKET, the first step, is the environment layer's).
func TestConfigDefaults(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1234")
	c := Default()
	want := Config{
		SocketPath: "/run/user/1234/blemeesd.sock", ClaudeBin: "claude", LogLevel: "info", LogFile: "",
		MaxLineBytes: 16777216, IdleTimeoutS: 900, SessionRetentionDays: 7, MaxSessionsPerConnection: 32,
		MaxConcurrentSessions: 64, StderrRateLines: 50, StderrRateWindowS: 10,
		RingBufferSize: 1024, ShutdownGraceS: 30, SlowConsumerS: 30, QueueSize: 1024, MaxConnections: 64, InputBudgetBytes: 64 << 20,
	}
	if c != want {
		t.Fatalf("defaults\n%+v\nwant\n%+v", c, want)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	if got, want := DefaultSocket(), fmt.Sprintf("/tmp/blemeesd-%d.sock", os.Getuid()); got != want {
		t.Fatalf("without XDG_RUNTIME_DIR: %s, want %s", got, want)
	}
}

// Every BLEMEESD_* variable of the issue overrides the file, which
// overrides the defaults; bad values are refused, not ignored.
func TestConfigLayers(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	os.WriteFile(file, []byte(`socket_path = "/f.sock"
claude_bin = "/f/claude"
log_level = "error"
idle_timeout_s = 5
ring_buffer_size = 3
session_retention_days = 2
max_concurrent_sessions = 8
`), 0o600)
	c := Default()
	warnings, err := c.LoadFile(file, true)
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	if c.SocketPath != "/f.sock" || c.ClaudeBin != "/f/claude" || c.IdleTimeoutS != 5 || c.RingBufferSize != 3 ||
		c.MaxConcurrentSessions != 8 || !c.Housekeeping || c.SessionRetentionDays != 2 || c.MaxSessionsPerConnection != 32 {
		t.Fatalf("after the file: %+v", c)
	}
	env := map[string]string{
		"BLEMEESD_SOCKET": "/e.sock", "BLEMEESD_CLAUDE": "/e/claude", "BLEMEESD_LOG_LEVEL": "debug",
		"BLEMEESD_LOG_FILE": "/e.log", "BLEMEESD_MAX_LINE": "4096", "BLEMEESD_IDLE_TIMEOUT": "1.5",
		"BLEMEESD_RING_BUFFER_SIZE": "16", "BLEMEESD_EVENT_LOG_DIR": "/e/events", "BLEMEESD_SHUTDOWN_GRACE": "0",
	}
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.SocketPath, want.ClaudeBin, want.LogLevel, want.LogFile = "/e.sock", "/e/claude", "debug", "/e.log"
	want.MaxLineBytes, want.IdleTimeoutS, want.RingBufferSize, want.EventLogDir, want.ShutdownGraceS = 4096, 1.5, 16, "/e/events", 0
	want.MaxConcurrentSessions, want.SessionRetentionDays, want.Housekeeping = 8, 2, true
	if c != want {
		t.Fatalf("after the environment\n%+v\nwant\n%+v", c, want)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("grace 0 (no graceful phase) is valid: %v", err)
	}
	if st := c.Status(); st["event_log_enabled"] != true || st["shutdown_grace_s"] != 0.0 || st["max_line_bytes"] != 4096 {
		t.Fatalf("status config %v", st)
	}
	for k, v := range map[string]string{"BLEMEESD_MAX_LINE": "0", "BLEMEESD_RING_BUFFER_SIZE": "x",
		"BLEMEESD_IDLE_TIMEOUT": "-1", "BLEMEESD_SHUTDOWN_GRACE": "soon"} {
		c := Default()
		if err := c.ApplyEnv(func(name string) string {
			if name == k {
				return v
			}
			return ""
		}); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: %v", k, v, err)
		}
	}
	// A missing default file is fine; a missing explicit one is not.
	c = Default()
	if _, err := c.LoadFile(filepath.Join(dir, "none.toml"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.LoadFile(filepath.Join(dir, "none.toml"), true); err == nil {
		t.Fatal("explicit missing config file accepted")
	}
}
