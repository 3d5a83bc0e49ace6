package blemeesd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Config is the daemon's configuration (§8). Layers, each overriding the
// one before: Default, the TOML file (LoadFile), the BLEMEESD_* environment
// (ApplyEnv), the command line.
type Config struct {
	SocketPath               string  `toml:"socket_path"`
	ClaudeBin                string  `toml:"claude_bin"`
	LogLevel                 string  `toml:"log_level"`
	LogFile                  string  `toml:"log_file"`
	MaxLineBytes             int     `toml:"max_line_bytes"`
	IdleTimeoutS             float64 `toml:"idle_timeout_s"`
	SessionRetentionDays     int     `toml:"session_retention_days"`
	MaxSessionsPerConnection int     `toml:"max_sessions_per_connection"`
	MaxConcurrentSessions    int     `toml:"max_concurrent_sessions"`
	StderrRateLines          int     `toml:"stderr_rate_lines"`
	StderrRateWindowS        float64 `toml:"stderr_rate_window_s"`
	RingBufferSize           int     `toml:"ring_buffer_size"`
	EventLogDir              string  `toml:"event_log_dir"`
	ShutdownGraceS           float64 `toml:"shutdown_grace_s"`
	// SlowConsumerS is how long a write to a client may block before it is
	// a slow consumer (§9.3's 30 s).
	SlowConsumerS float64 `toml:"slow_consumer_timeout_s"`
	// QueueSize is the per-connection frame queue (§9.3's 1024).
	QueueSize int `toml:"queue_size"`
	// MaxConnections caps the clients served at once (not in §8: without
	// it enough connections each holding a long line take the daemon, and
	// every session in it, down).
	MaxConnections int `toml:"max_connections"`
	// InputBudgetBytes bounds the unfinished inbound lines of all
	// connections together.
	InputBudgetBytes int64 `toml:"input_budget_bytes"`
	// Housekeeping is set when the config file names
	// session_retention_days: the start-up removal of old Claude Code
	// session files is opt-in (§6), whatever the default's value.
	Housekeeping bool `toml:"-"`
}

// Default is the configuration of §8 (the socket path resolved as §5.1).
func Default() Config {
	return Config{
		SocketPath:               DefaultSocket(),
		ClaudeBin:                "claude",
		LogLevel:                 "info",
		MaxLineBytes:             16 << 20,
		IdleTimeoutS:             900,
		SessionRetentionDays:     7,
		MaxSessionsPerConnection: 32,
		MaxConcurrentSessions:    64,
		StderrRateLines:          50,
		StderrRateWindowS:        10,
		RingBufferSize:           1024,
		ShutdownGraceS:           30,
		SlowConsumerS:            30,
		QueueSize:                1024,
		MaxConnections:           64,
		InputBudgetBytes:         64 << 20,
	}
}

// DefaultSocket is $XDG_RUNTIME_DIR/blemeesd.sock, else
// /tmp/blemeesd-<uid>.sock ($BLEMEESD_SOCKET, which wins, is ApplyEnv's).
func DefaultSocket() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "blemeesd.sock")
	}
	return fmt.Sprintf("/tmp/blemeesd-%d.sock", os.Getuid())
}

// DefaultConfigPath is ~/.config/blemeesd/config.toml ($XDG_CONFIG_HOME
// respected).
func DefaultConfigPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "blemeesd", "config.toml")
}

// LoadFile overlays the TOML file at path on c. A missing file is fine
// unless explicit. Unknown keys are returned as warnings.
func (c *Config) LoadFile(path string, explicit bool) (warnings []string, err error) {
	if path == "" {
		return nil, nil
	}
	md, err := toml.DecodeFile(path, c)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	for _, k := range md.Undecoded() {
		warnings = append(warnings, fmt.Sprintf("config %s: unknown key %q", path, k.String()))
	}
	c.Housekeeping = md.IsDefined("session_retention_days")
	return warnings, nil
}

// ApplyEnv overlays the BLEMEESD_* variables getenv has on c.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	strs := []struct {
		name string
		dst  *string
	}{
		{"BLEMEESD_SOCKET", &c.SocketPath}, {"BLEMEESD_CLAUDE", &c.ClaudeBin}, {"BLEMEESD_LOG_LEVEL", &c.LogLevel},
		{"BLEMEESD_LOG_FILE", &c.LogFile}, {"BLEMEESD_EVENT_LOG_DIR", &c.EventLogDir},
	}
	for _, s := range strs {
		if v := getenv(s.name); v != "" {
			*s.dst = v
		}
	}
	ints := []struct {
		name string
		dst  *int
	}{{"BLEMEESD_MAX_LINE", &c.MaxLineBytes}, {"BLEMEESD_RING_BUFFER_SIZE", &c.RingBufferSize}, {"BLEMEESD_MAX_CONNECTIONS", &c.MaxConnections}}
	for _, s := range ints {
		if v := getenv(s.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return fmt.Errorf("%s=%q: want a positive integer", s.name, v)
			}
			*s.dst = n
		}
	}
	floats := []struct {
		name string
		dst  *float64
	}{{"BLEMEESD_IDLE_TIMEOUT", &c.IdleTimeoutS}, {"BLEMEESD_SHUTDOWN_GRACE", &c.ShutdownGraceS}}
	for _, s := range floats {
		if v := getenv(s.name); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 {
				return fmt.Errorf("%s=%q: want a number of seconds ≥ 0", s.name, v)
			}
			*s.dst = f
		}
	}
	return nil
}

// Validate checks the values no layer may get wrong.
func (c *Config) Validate() error {
	switch strings.ToLower(c.LogLevel) {
	case "debug", "info", "warn", "warning", "error":
	default:
		return fmt.Errorf("log level %q: want debug, info, warning or error", c.LogLevel)
	}
	switch {
	case c.SocketPath == "":
		return errors.New("no socket path")
	case len(c.SocketPath) >= 108:
		return fmt.Errorf("socket path %s is too long for a Unix socket (%d bytes, < 108)", c.SocketPath, len(c.SocketPath))
	case c.MaxLineBytes <= 0, c.RingBufferSize <= 0, c.MaxConcurrentSessions <= 0, c.MaxSessionsPerConnection <= 0,
		c.StderrRateLines <= 0, c.QueueSize <= 0, c.MaxConnections <= 0, c.InputBudgetBytes <= 0:
		return errors.New("max_line_bytes, ring_buffer_size, max_*_sessions, stderr_rate_lines, queue_size, max_connections and input_budget_bytes must be positive")
	case c.InputBudgetBytes < int64(c.MaxLineBytes):
		return fmt.Errorf("input_budget_bytes (%d) is less than max_line_bytes (%d): no line that long could be read", c.InputBudgetBytes, c.MaxLineBytes)
	case c.IdleTimeoutS <= 0, c.StderrRateWindowS <= 0, c.SlowConsumerS <= 0, c.ShutdownGraceS < 0:
		return errors.New("idle_timeout_s, stderr_rate_window_s and slow_consumer_timeout_s must be positive, shutdown_grace_s ≥ 0")
	}
	return nil
}

// Status is the configuration as status_reply shows it.
func (c *Config) Status() map[string]any {
	return map[string]any{
		"ring_buffer_size":            c.RingBufferSize,
		"event_log_enabled":           c.EventLogDir != "",
		"idle_timeout_s":              c.IdleTimeoutS,
		"shutdown_grace_s":            c.ShutdownGraceS,
		"max_concurrent_sessions":     c.MaxConcurrentSessions,
		"max_sessions_per_connection": c.MaxSessionsPerConnection,
		"max_line_bytes":              c.MaxLineBytes,
		"max_connections":             c.MaxConnections,
		"stderr_rate_lines":           c.StderrRateLines,
		"stderr_rate_window_s":        c.StderrRateWindowS,
	}
}
