package blemeesd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/wire/blemees"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// Version is the daemon's version as hello_ack and status_reply give it
// ("blemeesd/" + Version).
const Version = "0.1.0"

// forceBudget bounds the force phase of a shutdown (§9.5 step 5).
const forceBudget = 5 * time.Second

// Daemon is blemeesd: a Manager served on a socket.
type Daemon struct {
	Cfg     Config
	Log     *slog.Logger
	Manager *headless.Manager
	Server  *blemees.Server

	us       unixsock.Server
	ln       *net.UnixListener
	shutOnce sync.Once
}

// New builds a daemon from cfg (validated by the caller); log nil: none.
// claudeVersion is what hello_ack reports (nil: unknown).
func New(cfg Config, log *slog.Logger, claudeVersion *string) *Daemon {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	secs := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	m := headless.NewManager(headless.Config{
		Claude:       cfg.ClaudeBin,
		RingSize:     cfg.RingBufferSize,
		EventLogDir:  cfg.EventLogDir,
		MaxLine:      cfg.MaxLineBytes,
		IdleTimeout:  secs(cfg.IdleTimeoutS),
		MaxSessions:  cfg.MaxConcurrentSessions,
		MaxPerOwner:  cfg.MaxSessionsPerConnection,
		StderrLines:  cfg.StderrRateLines,
		StderrWindow: secs(cfg.StderrRateWindowS),
		Logger:       log,
	})
	d := &Daemon{Cfg: cfg, Log: log, Manager: m}
	d.Server = &blemees.Server{
		Backend:       &Backend{M: m, Config: cfg.Status()},
		Daemon:        "blemeesd/" + Version,
		ClaudeVersion: claudeVersion,
		SocketPath:    cfg.SocketPath,
		MaxLine:       cfg.MaxLineBytes,
		MaxConns:      cfg.MaxConnections,
		InputBudget:   cfg.InputBudgetBytes,
		QueueSize:     cfg.QueueSize,
		StallTimeout:  secs(cfg.SlowConsumerS),
		Logger:        log,
	}
	d.us.Handler = d.Server
	d.us.Logger = log
	return d
}

// Listen claims the socket (0600; a stale one replaced, a live one or one
// of another user refused, §7 and §9.6). A live one is an error wrapping
// unixsock.ErrInUse.
func (d *Daemon) Listen() error {
	ln, err := unixsock.Listen(d.Cfg.SocketPath)
	if err != nil {
		if errors.Is(err, unixsock.ErrInUse) {
			return fmt.Errorf("another daemon is running on %s: %w", d.Cfg.SocketPath, err)
		}
		return err
	}
	d.ln = ln
	d.Server.Start()
	return nil
}

// Serve serves until Shutdown (then it returns nil).
func (d *Daemon) Serve() error {
	err := d.us.Serve(d.ln)
	if errors.Is(err, unixsock.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown is §9.5: stop accepting; daemon_shutdown to every connection
// (they close, so their sessions detach softly); turns in flight get what
// is left of the shutdown grace (counted from the start) to reach their
// result, idle children are stopped at once; then SIGTERM, SIGKILL 500 ms
// later, all within 5 s; the socket is removed. It returns within the
// grace + 5 s the spec budgets unless a child cannot be reaped (the
// command then exits 1 at that budget, ForceExitAfter).
func (d *Daemon) Shutdown() {
	d.shutOnce.Do(func() {
		start := time.Now()
		d.Log.Info("daemon stopping", "socket", d.Cfg.SocketPath)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		d.us.Shutdown(ctx)
		cancel()
		grace := max(d.Cfg.grace()-time.Since(start), 0)
		d.Manager.Shutdown(grace, forceBudget)
		if d.ln != nil {
			d.ln.Close()
		}
		d.Log.Info("daemon stopped", "took_ms", time.Since(start).Milliseconds())
	})
}

// ForceExitAfter is §9.5's overall budget of a shutdown: the grace, then
// 5 s for the force phase. Past it the daemon exits 1.
func (c *Config) ForceExitAfter() time.Duration { return c.grace() + forceBudget }

func (c *Config) grace() time.Duration {
	return time.Duration(c.ShutdownGraceS * float64(time.Second))
}

// ClaudeVersion runs `claude --version` (bounded by timeout) and returns
// its first line, or nil if it fails.
func ClaudeVersion(bin string, timeout time.Duration) *string {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return nil
	}
	v := strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	v, _, _ = strings.Cut(v, " ")
	if v == "" {
		return nil
	}
	return &v
}

// NewLogger is the daemon's JSON log (§10): one object a line with ts,
// level and event (and connection_id, session_id where they apply).
func NewLogger(w io.Writer, level string) *slog.Logger {
	var lv slog.Level
	switch strings.ToLower(level) {
	case "debug":
		lv = slog.LevelDebug
	case "warn", "warning":
		lv = slog.LevelWarn
	case "error":
		lv = slog.LevelError
	default:
		lv = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lv, ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) > 0 {
			return a
		}
		switch a.Key {
		case slog.TimeKey:
			a.Key = "ts"
		case slog.MessageKey:
			a.Key = "event"
		case "conn":
			a.Key = "connection_id"
		}
		return a
	}}))
}
