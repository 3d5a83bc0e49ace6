package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/heimdall-tui/heimdall-tui/backend/blemeesd"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// dashDaemon is blemeesd run inside the dashboard ([blemeesd] enabled or
// --blemeesd): its Manager's sessions, those socket clients open and
// those the dashboard opens, are members of the dashboard's fleet.
type dashDaemon struct {
	d        *blemeesd.Daemon
	headless *fleet.Headless
	served   chan struct{}
}

// errDaemonRunning: a daemon already answers on the socket; the dashboard
// does not start its own.
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
			return nil, fmt.Errorf("%w: %s", errDaemonRunning, cfg.SocketPath)
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

// Shutdown stops the daemon as blemeesd does on SIGTERM (§9.5). Call it
// after the fleet has closed (the sessions the dashboard owns are closed
// by then).
func (dd *dashDaemon) Shutdown() {
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
