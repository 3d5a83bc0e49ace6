package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/inbox"
	"github.com/heimdall-tui/heimdall-tui/backend/notify"
)

// dashAlerter is the dashboard's tui/app Alerter, from the config: a
// desktop notification in the dashboard's own terminal (notify: OSC 9,
// 777 or 99, wrapped for tmux's passthrough inside tmux) and the
// notify_command hook, each with the item's kind — needs_input, done or
// failed — and what it is about.
type dashAlerter struct {
	format string // notify.Format*, "" for none
	tmux   bool
	cmd    *notify.Notifier // the command only (nil: none)
	log    *slog.Logger
}

func newDashAlerter(cfg config.Config, log *slog.Logger) *dashAlerter {
	a := &dashAlerter{format: cfg.Notify, tmux: os.Getenv("TMUX") != "", log: log}
	if a.format == notify.FormatOff {
		a.format = ""
	}
	if cfg.NotifyCommand != "" {
		n, err := notify.New(notify.Options{Command: cfg.NotifyCommand, Logger: log})
		if err != nil {
			log.Warn("notify_command not run", "err", err)
		} else {
			a.cmd = n
		}
	}
	return a
}

// alertEvent is item it as a notification: "ID needs input: Bash: rm -rf
// build", "ID done: All tests pass.", "ID failed: rate_limit: …".
func alertEvent(it inbox.Item) notify.Event {
	reason := map[inbox.Kind]string{inbox.Input: notify.ReasonNeedsInput, inbox.Done: "done", inbox.Error: "failed"}[it.Kind]
	return notify.Event{ID: it.Session, Agent: it.Agent, Title: it.Title, Dir: it.Dir, Reason: reason, Detail: it.Reason}
}

// Sequence implements tui/app.Alerter.
func (a *dashAlerter) Sequence(it inbox.Item) string {
	if a.format == "" {
		return ""
	}
	s, err := notify.Sequence(a.format, alertEvent(it), a.tmux)
	if err != nil {
		a.log.Warn("notification", "err", err)
		return ""
	}
	return s
}

// Run implements tui/app.Alerter.
func (a *dashAlerter) Run(it inbox.Item) error {
	if a.cmd == nil {
		return nil
	}
	return a.cmd.Notify(context.Background(), alertEvent(it))
}
