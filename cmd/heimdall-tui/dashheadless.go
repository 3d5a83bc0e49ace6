package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/blemeesd"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// dashDaemon is blemeesd in the dashboard ([blemeesd] enabled or
// --blemeesd): run in process, its Manager's sessions (those socket
// clients open and those the dashboard opens) are members of the
// dashboard's fleet; or, when a standalone daemon already answers on the
// socket, that one followed (follow), its sessions listed as they are
// found (fleet.Blemees: those of the dashboard's directories), so the same
// sessions show either way; the spawn dialog opens sessions through
// either.
type dashDaemon struct {
	d        *blemeesd.Daemon
	headless *fleet.Headless // nil when following a standalone daemon
	served   chan struct{}
	follow   *fleet.Blemees // non-nil when following a standalone daemon
}

// errDaemonRunning: a daemon already answers on the socket; the dashboard
// does not start its own (startDashDaemon follows it instead).
var errDaemonRunning = errors.New("a blemeesd already answers on the socket")

// startDashDaemon starts blemeesd on its socket (socket, else blemeesd's
// own resolution: its config file, BLEMEESD_SOCKET, the default) with its
// Manager's sessions listed in f. It logs to logger, never to the
// terminal. claude --version is not run (hello_ack says it is unknown):
// that would hold the dashboard's start.
func startDashDaemon(socket string, f *fleet.Fleet, onTurn func(string, headless.Usage), logger *slog.Logger) (*dashDaemon, error) {
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
	d := blemeesd.New(cfg, log, nil)
	if err := d.Listen(); err != nil {
		if errors.Is(err, unixsock.ErrInUse) {
			return followDaemon(cfg.SocketPath, f, onTurn, log)
		}
		return nil, fmt.Errorf("blemeesd: %w", err)
	}
	dd := &dashDaemon{d: d, headless: fleet.NewHeadless(f, d.Manager, onTurn), served: make(chan struct{})}
	go func() {
		defer close(dd.served)
		if err := d.Serve(); err != nil {
			log.Error("serve", "err", err)
		}
	}()
	log.Info("daemon start", "socket", cfg.SocketPath)
	return dd, nil
}

// followDaemon follows the standalone daemon answering on socket: its
// sessions of the dashboard's working directory are listed in f. An error
// wraps errDaemonRunning.
func followDaemon(socket string, f *fleet.Fleet, onTurn func(string, headless.Usage), log *slog.Logger) (*dashDaemon, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errDaemonRunning, socket, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := fleet.FollowBlemees(ctx, f, socket, fleet.BlemeesOptions{Dirs: []string{cwd}, OnTurn: onTurn, Client: "heimdall-tui/dashboard"})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errDaemonRunning, socket, err)
	}
	log.Info("following a standalone daemon", "socket", socket, "daemon", b.Daemon(), "cwd", cwd)
	return &dashDaemon{follow: b}, nil
}

// Shutdown stops the daemon as blemeesd does on SIGTERM (§9.5), or stops
// following the standalone one (its sessions go on). Call it after the
// fleet has closed (the sessions the dashboard owns are closed by then).
func (dd *dashDaemon) Shutdown() {
	if dd.follow != nil {
		dd.follow.Close()
		return
	}
	dd.d.Shutdown()
	<-dd.served
}

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
