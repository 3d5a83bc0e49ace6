package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"
	"github.com/heimdall-tui/heimdall-tui/tui/frametrace"
	"golang.org/x/term"

	"github.com/heimdall-tui/heimdall-tui/backend/appendfile"
	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/coord"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/host"
	"github.com/heimdall-tui/heimdall-tui/backend/notify"
	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/themes"
	tuiapp "github.com/heimdall-tui/heimdall-tui/tui/app"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

// dashboardOptions are the root command's own flags.
type dashboardOptions struct {
	theme    string
	logPath  string
	blemeesd bool   // run blemeesd in the dashboard (as config [blemeesd] enabled)
	web      string // serve the sessions to browsers on this address (as config [web] addr)
}

// dashState is what a dashboard keeps for the next one (the state dir's
// dashboard.json): the list's sort order the user chose.
type dashState struct {
	Sort string `json:"sort,omitempty"`
}

func dashStatePath() string { return filepath.Join(supervisor.StateDir(), "dashboard.json") }

// loadDashState reads the kept state; a missing or bad file is none.
func loadDashState() dashState {
	var st dashState
	if b, err := os.ReadFile(dashStatePath()); err == nil {
		json.Unmarshal(b, &st)
	}
	return st
}

// saveDashState keeps st, replacing the file whole (temp + rename).
func saveDashState(st dashState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	path := dashStatePath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".dashboard.json-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// defaultLogPath is the dashboard's log: $XDG_STATE_HOME/heimdall/dashboard.log
// or ~/.local/state/heimdall/dashboard.log (never the terminal, which the UI
// owns).
func defaultLogPath() string {
	return filepath.Join(supervisor.StateDir(), "dashboard.log")
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
		if km.Detach, err = attach.ParseDetachKey(a.cfg.DetachKey); err != nil {
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
	logger := slog.New(slog.NewJSONHandler(appendfile.New(logFile), nil)).With("dashboard_pid", os.Getpid())

	f, dir, err := a.openFleet(logger)
	if err != nil {
		return err
	}
	defer f.Close()
	var daemon *dashDaemon
	if o.blemeesd || a.cfg.Blemeesd.Enabled {
		turns := ledgerTurns(planning.Open(planning.DefaultRoot()), logger)
		daemon, err = startDashDaemon("/proc/self/exe", a.cfg.Blemeesd.Socket, f, turns, logger)
		switch {
		case errors.Is(err, errDaemonRunning):
			// A daemon answers on the socket but could not be followed.
			logger.Warn("blemeesd neither started nor followed", "err", err)
		case err != nil:
			return err
		default:
			defer daemon.Shutdown()
		}
	}
	// Browsers see the fleet's sessions (web.go); the URL is printed before
	// the UI takes the terminal, and shows again when it gives it back.
	var web *runningWeb
	if addr := cmp.Or(o.web, a.cfg.Web.Addr); addr != "" {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("web: %w", err)
		}
		if web, err = startWeb(l, a.cfg.Web, nil, f, logger, a.stderr); err != nil {
			l.Close()
			return err
		}
		defer web.stop(logger)
	}
	// Sessions that need input while no dashboard runs notify the user in
	// the terminal the last dashboard ran in (config notify).
	if t, ok := notify.CurrentTerminal(); ok {
		if err := notify.SaveTerminal(dir, t); err != nil {
			logger.Warn("terminal for notifications not saved", "err", err)
		}
	}
	cwd, _ := os.Getwd()
	// The planning views read .planning/ ($HEIMDALL_PLANNING_DIR) of the
	// directory the dashboard runs in, watched with fsnotify.
	live := tuiapp.LivePlanning{Live: planning.NewLive(planning.Open(planning.DefaultRoot())), Ledger: coord.Open("")}
	defer live.Close()
	m := tuiapp.New(tuiapp.Options{
		Backend:      f,
		Planning:     live,
		Theme:        palette,
		NoColor:      os.Getenv("NO_COLOR") != "",
		Keys:         km,
		KillGrace:    a.cfg.KillGrace,
		ResumeGap:    a.cfg.Resume.Gap,
		ResumeLost:   a.cfg.Resume.Lost == config.ResumeAll,
		ContinueText: a.cfg.Resume.Continue,
		DailyBudget:  a.cfg.Usage.DailyBudget,
		Prices:       a.cfg.Usage,
		Bell:         a.cfg.Bell,
		Alerter:      newDashAlerter(a.cfg, logger),
		Headless:     headlessOpener(daemon, dashHeddle(a.cfg.Heddle, f, logger)),
		DefaultDir:   cwd,
		WorktreeCopy: a.cfg.Worktree.Copy,
		Classifiers:  classify.Names(),
		Logger:       logger,
		Sort:         loadDashState().Sort,
		SaveSort:     func(order string) error { return saveDashState(dashState{Sort: order}) },
	})
	var root tea.Model = m
	var out io.Writer = outFile(a)
	// HEIMDALL_FRAMETRACE=FILE times every message and frame into FILE
	// (tui/frametrace; heimdall-loadcheck's busy scenario reads it).
	if path := os.Getenv("HEIMDALL_FRAMETRACE"); path != "" {
		if tf, err := os.Create(path); err != nil {
			logger.Warn("frame trace", "err", err)
		} else {
			defer tf.Close()
			tr := frametrace.New(tf)
			root, out = tr.Model(m), tr.Output(outFile(a))
		}
	}
	p := tea.NewProgram(root, tea.WithInput(a.stdin), tea.WithOutput(out))

	// SIGHUP (the terminal went away) and SIGTERM end the UI and leave the
	// sessions running, as tmux does: only the user's "Stop them" stops
	// them.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		if _, ok := <-sigs; ok {
			p.Quit()
		}
	}()

	logger.Info("dashboard started", "dir", dir)
	final, runErr := p.Run()
	if tm, ok := final.(interface{ Unwrap() tea.Model }); ok { // timed (frametrace)
		final = tm.Unwrap()
	}
	if web != nil {
		web.stop(logger)
	}
	if fm, ok := final.(*tuiapp.Model); ok && fm.StopSessions() {
		a.stopSessions(f, logger)
	}
	if err := f.Close(); err != nil {
		logger.Warn("fleet close", "err", err)
	}
	supervisor.ReapOrphans(host.OrphanWait)
	logger.Info("dashboard stopped", "err", runErr)
	if runErr != nil {
		return fmt.Errorf("dashboard: %w", runErr)
	}
	return nil
}

// openFleet opens the fleet of the socket dir (returned too, absolute)
// for a process that starts sessions: the dashboard, `web`. The
// supervisors it starts are its children while it lives: what they leave
// (a session's program whose supervisor crashed) comes to it rather than
// to init, and it reaps that.
func (a *app) openFleet(logger *slog.Logger) (*fleet.Fleet, string, error) {
	if err := supervisor.EnableSubreaper(logger); err != nil {
		logger.Warn("not a child subreaper: orphans of sessions go to init", "err", err)
	}
	dir, err := filepath.Abs(a.dir())
	if err != nil {
		return nil, "", err
	}
	f, err := fleet.New(fleet.Options{Dir: dir, Config: a.cfg, Logger: logger, Supervisor: a.supervisorCommand(dir)})
	if err == nil {
		followHosts(f, a.cfg.Hosts)
	}
	return f, dir, err
}

// supervisorCommand is how the dashboard starts a session's supervisor:
// heimdall beside this binary (supervisorExe), else this very binary
// (/proc/self/exe, so one replaced since still works), with the global
// flags that make it read the same config and serve in the same socket
// dir.
func (a *app) supervisorCommand(dir string) []string {
	exe := "/proc/self/exe" // this binary even if its file was replaced since
	if small, err := supervisorExe(); err == nil && filepath.Base(small) == "heimdall" {
		exe = small
	}
	cmd := []string{exe, "--socket-dir", dir}
	if a.configPath != "" {
		if p, err := filepath.Abs(a.configPath); err == nil {
			cmd = append(cmd, "--config", p)
		}
	}
	return cmd
}

// stopSessions is the quit choice "Stop them": every running session
// started from a dashboard is hung up, and the dashboard waits for them
// (the kill grace, and a little for their supervisors to finish).
func (a *app) stopSessions(f *fleet.Fleet, logger *slog.Logger) {
	running := 0
	for _, in := range f.Sessions() {
		if in.Owned && in.Alive {
			running++
		}
	}
	if running == 0 {
		return
	}
	fmt.Fprintf(a.stderr, "heimdall-tui: stopping %d session(s) (SIGHUP, SIGTERM a second later, SIGKILL after %s)…\n", running, a.cfg.KillGrace)
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.KillGrace+stopMargin)
	defer cancel()
	if _, err := f.StopOwned(ctx); err != nil {
		logger.Warn("stop sessions", "err", err)
		a.errorf("%v", err)
	}
}

// stopMargin is how long after the kill grace "Stop them" waits for the
// sessions' supervisors to deliver the exit and finish.
const stopMargin = 3 * time.Second
