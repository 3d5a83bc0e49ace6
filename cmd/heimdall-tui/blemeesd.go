package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/appendfile"
	"github.com/heimdall-tui/heimdall-tui/backend/blemeesd"
	hmproc "github.com/heimdall-tui/heimdall-tui/backend/proc"
)

type blemeesdOptions struct {
	socket, claude, logLevel, logFile, config string
	version, unit                             bool
}

func newBlemeesdCmd(a *app) *cobra.Command {
	var o blemeesdOptions
	cmd := &cobra.Command{
		Use:   "blemeesd",
		Short: "Run the headless Claude daemon (blemeesd-compatible, protocol blemees/1)",
		Long: "blemeesd serves `claude -p` sessions over a Unix socket with the blemees/1 protocol, so\n" +
			"clients written for blemeesd work unchanged. It runs in the foreground; --systemd-unit\n" +
			"prints a user unit for running it as a service.\n\n" +
			"Configuration, each layer overriding the one before: defaults, ~/.config/blemeesd/config.toml\n" +
			"(or --config), BLEMEESD_* variables (SOCKET, CLAUDE, LOG_LEVEL, LOG_FILE, MAX_LINE,\n" +
			"IDLE_TIMEOUT, RING_BUFFER_SIZE, EVENT_LOG_DIR, SHUTDOWN_GRACE), flags.",
		Args: cobra.NoArgs,
		// Not heimdall's config: the daemon has its own.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(*cobra.Command, []string) error {
			return a.blemeesd(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.socket, "socket", "", "socket path (default $BLEMEESD_SOCKET, $XDG_RUNTIME_DIR/blemeesd.sock or /tmp/blemeesd-$UID.sock)")
	f.StringVar(&o.claude, "claude", "", "the claude program (default claude on $PATH)")
	f.StringVar(&o.logLevel, "log-level", "", "debug, info, warning or error (default info)")
	f.StringVar(&o.logFile, "log-file", "", "JSON log file (default stderr)")
	f.StringVar(&o.config, "config", "", "config file (TOML; default ~/.config/blemeesd/config.toml if present)")
	f.BoolVar(&o.version, "version", false, "print the version and exit")
	f.BoolVar(&o.unit, "systemd-unit", false, "print a systemd user unit running this daemon and exit")
	return cmd
}

// systemdUnit is a user unit running exe's daemon. It has no After=:
// default.target, which wants it, is ordered after it already, and an
// After=default.target would make an ordering cycle that systemd breaks
// by dropping a job. The path is quoted as systemd reads ExecStart.
func systemdUnit(exe string) string {
	return `[Unit]
Description=Headless agent daemon (blemeesd-compatible, heimdall-tui)

[Service]
ExecStart=` + strconv.Quote(exe) + ` blemeesd
Restart=on-failure
RestartSec=2s

[Install]
WantedBy=default.target
`
}

func (a *app) blemeesd(o blemeesdOptions) error {
	if o.unit {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		if abs, err := filepath.EvalSymlinks(exe); err == nil {
			exe = abs
		}
		fmt.Fprint(a.stdout, systemdUnit(exe))
		return nil
	}
	if o.version {
		fmt.Fprintf(a.stdout, "blemeesd %s (heimdall-tui), protocol blemees/1\n", blemeesd.Version)
		return nil
	}
	cfg, warnings, err := loadBlemeesdConfig(o.config)
	if err != nil {
		return err
	}
	for _, kv := range []struct{ flag, dst *string }{{&o.socket, &cfg.SocketPath}, {&o.claude, &cfg.ClaudeBin},
		{&o.logLevel, &cfg.LogLevel}, {&o.logFile, &cfg.LogFile}} {
		if *kv.flag != "" {
			*kv.dst = *kv.flag
		}
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	var w io.Writer = a.stderr
	if cfg.LogFile != "" {
		f, err := os.OpenFile(cfg.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("log file: %w", err)
		}
		defer f.Close()
		w = appendfile.New(f)
	}
	log := blemeesd.NewLogger(w, cfg.LogLevel)
	for _, warn := range warnings {
		log.Warn("config", "warning", warn)
	}
	if cfg.Housekeeping {
		home, _ := os.UserHomeDir()
		n, err := blemeesd.Housekeep(home, cfg.SessionRetentionDays, time.Now())
		log.Info("housekeeping: old session files removed", "removed", n, "retention_days", cfg.SessionRetentionDays, "err", err)
	}
	// What claude orphans comes to us, and is reaped.
	hmproc.EnableSubreaper(log)
	version := blemeesd.ClaudeVersion(cfg.ClaudeBin, 5*time.Second)
	d := blemeesd.New(cfg, log, version)
	if err := d.Listen(); err != nil {
		a.errorf("blemeesd: %v", err)
		log.Error("cannot listen", "socket", cfg.SocketPath, "err", err)
		return exitCode(1)
	}
	log.Info("daemon start", "socket", cfg.SocketPath, "claude_version", version, "pid", os.Getpid(),
		"event_log_dir", cfg.EventLogDir, "version", blemeesd.Version)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	stopped := make(chan struct{})
	go func() {
		sig := <-sigs
		log.Info("signal; shutting down", "signal", sig.String(), "grace_s", cfg.ShutdownGraceS)
		// §9.5: past grace + 5 s the daemon force-exits 1.
		budget := cfg.ForceExitAfter()
		time.AfterFunc(budget, func() {
			log.Error("shutdown over budget; exiting", "budget", budget)
			os.Exit(1)
		})
		d.Shutdown()
		close(stopped)
	}()
	if err := d.Serve(); err != nil {
		log.Error("serve", "err", err)
		d.Shutdown()
		return exitCode(1)
	}
	<-stopped
	log.Info("daemon stop", "pid", os.Getpid())
	return nil
}

// loadBlemeesdConfig is blemeesd's configuration before the command line:
// defaults, the file (path, else ~/.config/blemeesd/config.toml if
// present), the BLEMEESD_* environment.
func loadBlemeesdConfig(path string) (blemeesd.Config, []string, error) {
	cfg := blemeesd.Default()
	explicit := path != ""
	if path == "" {
		path = blemeesd.DefaultConfigPath()
	}
	warnings, err := cfg.LoadFile(path, explicit)
	if err != nil {
		return cfg, warnings, err
	}
	return cfg, warnings, cfg.ApplyEnv(os.Getenv)
}
