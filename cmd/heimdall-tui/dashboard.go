package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"golang.org/x/term"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/themes"
	tuiapp "github.com/heimdall-tui/heimdall-tui/tui/app"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

// dashboardOptions are the root command's own flags.
type dashboardOptions struct {
	theme   string
	logPath string
}

// defaultLogPath is the dashboard's log: $XDG_STATE_HOME/heimdall/dashboard.log
// or ~/.local/state/heimdall/dashboard.log (never the terminal, which the UI
// owns).
func defaultLogPath() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "heimdall", "dashboard.log")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "state", "heimdall", "dashboard.log")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("heimdall-dashboard-%d.log", os.Getuid()))
}

// dashboard runs the Bubble Tea dashboard over a fleet on the socket dir.
// Everything that can be wrong with the configuration is reported before the
// terminal is taken over.
func (a *app) dashboard(o dashboardOptions) error {
	if !term.IsTerminal(int(a.stdin.Fd())) || !term.IsTerminal(int(outFile(a).Fd())) {
		a.errorf("the dashboard needs a terminal; see `heimdall-tui --help` for the subcommands")
		return exitCode(2)
	}
	name := o.theme
	if name == "" {
		name = a.cfg.Theme
	}
	palette, err := themes.ByName(name)
	if err != nil {
		return err
	}
	km := keys.Default()
	if err := km.Apply(a.cfg.Keys); err != nil {
		return fmt.Errorf("config [keys]: %w", err)
	}
	if a.cfg.DetachKey != "" {
		if km.Detach, err = keys.ParseDetachKey(a.cfg.DetachKey); err != nil {
			return fmt.Errorf("config detach_key: %w", err)
		}
	}

	logPath := o.logPath
	if logPath == "" {
		logPath = defaultLogPath()
	}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		return fmt.Errorf("log: %w", err)
	}
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	defer logFile.Close()
	logger := slog.New(slog.NewJSONHandler(logFile, nil)).With("dashboard_pid", os.Getpid())

	// The dashboard hosts sessions too (backend/fleet, through
	// supervisor.Host): as run does, it reaps what they orphan.
	if err := supervisor.EnableSubreaper(logger); err != nil {
		logger.Warn("not a child subreaper: orphans of sessions go to init", "err", err)
	}
	dir := a.dir()
	f, err := fleet.New(fleet.Options{Dir: dir, Config: a.cfg, Logger: logger})
	if err != nil {
		return err
	}
	defer f.Close()
	cwd, _ := os.Getwd()
	// The planning views read .planning/ ($HEIMDALL_PLANNING_DIR) of the
	// directory the dashboard runs in, watched with fsnotify.
	live := planning.NewLive(planning.Open(planning.DefaultRoot()))
	defer live.Close()
	m := tuiapp.New(tuiapp.Options{
		Backend:     f,
		Planning:    live,
		Theme:       palette,
		NoColor:     os.Getenv("NO_COLOR") != "",
		Keys:        km,
		KillGrace:   a.cfg.KillGrace,
		Bell:        a.cfg.Bell,
		DefaultDir:  cwd,
		Classifiers: classify.Names(),
		Logger:      logger,
	})
	p := tea.NewProgram(m, tea.WithInput(a.stdin), tea.WithOutput(outFile(a)))

	// SIGHUP (the terminal went away) and SIGTERM end the UI the same way as
	// a confirmed quit: our sessions are then stopped below.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		if _, ok := <-sigs; ok {
			p.Quit()
		}
	}()

	logger.Info("dashboard started", "dir", dir)
	_, runErr := p.Run()
	running := 0
	for _, in := range f.Sessions() {
		if in.Owned && in.Alive {
			running++
		}
	}
	if running > 0 {
		fmt.Fprintf(a.stderr, "heimdall-tui: stopping %d session(s) (SIGHUP, SIGTERM a second later, SIGKILL after %s)…\n", running, a.cfg.KillGrace)
	}
	if err := f.Close(); err != nil {
		logger.Warn("fleet close", "err", err)
	}
	supervisor.ReapOrphans(orphanWait)
	logger.Info("dashboard stopped", "err", runErr)
	if runErr != nil {
		return fmt.Errorf("dashboard: %w", runErr)
	}
	return nil
}
