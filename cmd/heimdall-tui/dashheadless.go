package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/heimdall-tui/heimdall-tui/backend/blemeesd"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
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
func startDashDaemon(socket string, f *fleet.Fleet, logger *slog.Logger) (*dashDaemon, error) {
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
	dd := &dashDaemon{d: d, headless: fleet.NewHeadless(f, d.Manager), served: make(chan struct{})}
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
