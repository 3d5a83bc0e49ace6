package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	hmproc "github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// dashDaemon is the dashboard's blemeesd ([blemeesd] enabled or
// --blemeesd): a daemon outside the dashboard, as supervisors are — the
// one already answering on the socket, or one the dashboard starts,
// detached, when none does — followed (fleet.Blemees): its sessions are
// listed, and the spawn dialog opens headless
// sessions through it. So headless sessions, like pty sessions, outlive
// the dashboard (a quit, a closed terminal, a crash) and a dashboard
// started again lists them with their transcripts.
type dashDaemon struct {
	follow *fleet.Blemees
}

// daemonStartWait bounds how long a dashboard waits for the daemon it
// started to answer.
const daemonStartWait = 10 * time.Second

// startDashDaemon follows the blemeesd answering on its socket (socket,
// else blemeesd's own resolution: its config file, BLEMEESD_SOCKET, the
// default), starting one first if none answers: exe's `blemeesd`,
// detached (a session of its own, stdio on /dev/null, its log
// $XDG_STATE_HOME/heimdall/blemeesd.log). It logs to logger, never to the
// terminal.
func startDashDaemon(exe, socket string, f *fleet.Fleet, onTurn func(string, headless.Usage), logger *slog.Logger) (*dashDaemon, error) {
	cfg, warnings, err := loadBlemeesdConfig("")
	if err != nil {
		return nil, fmt.Errorf("blemeesd: %w", err)
	}
	if socket != "" {
		cfg.SocketPath = socket
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("blemeesd: %w", err)
	}
	log := logger.With("component", "blemeesd")
	for _, w := range warnings {
		log.Warn("config", "warning", w)
	}
	if st, _ := unixsock.Inspect(cfg.SocketPath); st != unixsock.Live {
		if err := spawnDaemon(exe, cfg.SocketPath, log); err != nil {
			return nil, fmt.Errorf("blemeesd: %w", err)
		}
	}
	return followDaemon(cfg.SocketPath, f, onTurn, log)
}

// spawnDaemon starts exe's blemeesd on socket, detached, and waits until
// it answers there (or exits: its log says why).
func spawnDaemon(exe, socket string, log *slog.Logger) error {
	logPath := filepath.Join(supervisor.StateDir(), "blemeesd.log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		return err
	}
	cmd := exec.Command(exe, "blemeesd", "--socket", socket, "--log-file", logPath)
	cmd.Dir = "/" // a daemon lives for hours: it keeps no directory busy
	p, err := hmproc.Start(cmd, hmproc.Options{Logger: log})
	if err != nil {
		return fmt.Errorf("start the daemon: %w", err)
	}
	deadline := time.Now().Add(daemonStartWait)
	for {
		if st, _ := unixsock.Inspect(socket); st == unixsock.Live {
			log.Info("daemon started", "socket", socket, "pid", p.PID())
			return nil
		}
		select {
		case <-p.Done():
			return fmt.Errorf("the daemon exited with code %d (its log: %s)", p.ExitCode(), logPath)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.Stop()
			return fmt.Errorf("the daemon does not answer on %s", socket)
		}
	}
}

// followDaemon follows the daemon answering on socket: its sessions are
// listed in f. An error wraps errDaemonRunning.
func followDaemon(socket string, f *fleet.Fleet, onTurn func(string, headless.Usage), log *slog.Logger) (*dashDaemon, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := fleet.FollowBlemees(ctx, f, socket, fleet.BlemeesOptions{OnTurn: onTurn, Client: "heimdall-tui/dashboard",
		Names: filepath.Join(supervisor.StateDir(), "headless-names.json")})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errDaemonRunning, socket, err)
	}
	log.Info("following the daemon", "socket", socket, "daemon", b.Daemon())
	return &dashDaemon{follow: b}, nil
}

// errDaemonRunning: a daemon answers on the socket but could not be
// followed.
var errDaemonRunning = errors.New("a blemeesd answers on the socket")

// Shutdown stops following the daemon; it and its sessions go on. Call it
// after the fleet has closed (the sessions the dashboard stopped are
// closed by then).
func (dd *dashDaemon) Shutdown() { dd.follow.Close() }

// ledgerTurns is the OnTurn of the dashboard's headless sessions: each
// turn's usage, as claude reported it, is a ledger entry (role = the
// session's name, kind = turn) in store, if its root exists (the dashboard
// does not create a .planning directory for it).
func ledgerTurns(store *planning.Store, logger *slog.Logger) func(string, headless.Usage) {
	return func(id string, u headless.Usage) {
		if _, err := os.Stat(store.Root()); err != nil {
			return
		}
		t := u.LastTurn
		pu := &planning.Usage{Input: t["input_tokens"], Output: t["output_tokens"],
			CacheRead: t["cache_read_input_tokens"], CacheCreation: t["cache_creation_input_tokens"]}
		if err := store.Ledger().Log(planning.LedgerEntry{Role: id, Kind: "turn", Tokens: pu.Sum(), Usage: pu}); err != nil {
			logger.Warn("ledger: headless turn not logged", "id", id, "err", err)
		}
	}
}
