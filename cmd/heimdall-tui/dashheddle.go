package main

import (
	"log/slog"
	"os"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/heddle"
	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	tuiapp "github.com/heimdall-tui/heimdall-tui/tui/app"
)

// heddleCommand is the worker command of config [heddle]: its command,
// else this very binary's heddle-headless (/proc/self/exe, as the
// supervisors are started).
func heddleCommand(c config.Heddle) []string {
	if len(c.Command) > 0 {
		return c.Command
	}
	return []string{"/proc/self/exe", "heddle-headless"}
}

// heddleEnv is what config [heddle] adds to a worker's environment.
func heddleEnv(c config.Heddle) []string {
	if c.BaseURL != "" {
		return []string{heddle.EnvBaseURL + "=" + c.BaseURL}
	}
	return nil
}

// dashHeddle is the dashboard's opener of heddle workers when config
// [heddle] enables them (nil otherwise): each send's usage goes to the
// token ledger.
func dashHeddle(c config.Heddle, f *fleet.Fleet, logger *slog.Logger) *fleet.Heddle {
	if !c.Enabled {
		return nil
	}
	return fleet.NewHeddle(f, fleet.HeddleConfig{
		Command: heddleCommand(c), Env: heddleEnv(c), Model: c.Model, SystemPrompt: c.SystemPrompt,
		Tools: c.Tools, MaxIterations: c.MaxIterations,
		OnTurn: ledgerHeddleTurns(planning.Open(planning.DefaultRoot()), logger),
	})
}

// headlessOpener opens the sessions of event-driven kinds the spawn
// dialog offers: headless Claude through the daemon the dashboard runs,
// or the standalone one it follows (owned by the follower's connection);
// heddle workers when config [heddle] enables them; nil (none offered)
// without any. A nil pointer must not become a non-nil interface.
func headlessOpener(dd *dashDaemon, h *fleet.Heddle) tuiapp.HeadlessOpener {
	o := fleet.Openers{}
	if dd != nil && dd.follow != nil {
		o[session.KindHeadless] = dd.follow
	}
	if h != nil {
		o[session.KindHeddle] = h
	}
	if len(o) == 0 {
		return nil
	}
	return o
}

// ledgerHeddleTurns is the OnTurn of the dashboard's heddle workers: each
// send's usage is a ledger entry (role = the session's name, kind = turn)
// in store, if its root exists (the dashboard does not create a .planning
// directory for it).
func ledgerHeddleTurns(store *planning.Store, logger *slog.Logger) func(string, fleet.HeddleUsage) {
	return func(id string, u fleet.HeddleUsage) {
		if _, err := os.Stat(store.Root()); err != nil {
			return
		}
		pu := &planning.Usage{Input: u.Prompt, Output: u.Completion}
		if err := store.Ledger().Log(planning.LedgerEntry{Role: id, Kind: "turn", Tokens: pu.Sum(), Usage: pu}); err != nil {
			logger.Warn("ledger: heddle turn not logged", "id", id, "err", err)
		}
	}
}
