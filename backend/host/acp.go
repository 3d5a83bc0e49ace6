package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/acp"
	"github.com/heimdall-tui/heimdall-tui/backend/appendfile"
	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// acpOpenWait bounds the agent's start: initialize and session/new.
const acpOpenWait = 60 * time.Second

// runACP is Run for an ACP agent (--acp): this process holds the agent's
// stdio as its ACP client (backend/acp) and serves the session on its
// socket; the record says it is one (Kind "acp") so that a dashboard
// restarts or resumes it as one.
func runACP(cfg config.Config, dir string, o Options, prog string, stderr io.Writer) (int, error) {
	if err := supervisor.ValidateID(dir, o.ID); err != nil {
		return 0, err
	}
	claim, err := supervisor.ClaimID(dir, o.ID)
	if errors.Is(err, supervisor.ErrAlreadyRunning) {
		fmt.Fprintf(stderr, "%s: session %q already running in %s\n", prog, o.ID, dir)
		return 0, ExitError(1)
	}
	if err != nil {
		return 0, err
	}
	defer claim.Release()
	logf, err := os.OpenFile(supervisor.LogPath(dir, o.ID), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return 0, fmt.Errorf("session log: %w", err)
	}
	defer logf.Close()
	logger := slog.New(slog.NewJSONHandler(appendfile.New(logf), nil)).With("supervisor_pid", os.Getpid())
	wd := o.Workdir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	ctx, cancel := context.WithTimeout(context.Background(), acpOpenWait)
	sess, err := acp.Start(ctx, acp.Options{ID: o.ID, Argv: o.Argv, Dir: wd, Env: append(cfg.EnvList(), o.Env...),
		FS: o.ACPFS, Resume: o.ACPResume, Logger: logger, KillGrace: cfg.KillGrace})
	cancel()
	if err != nil {
		logger.Error("acp start failed", "err", err)
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 0, ExitError(1)
	}
	srv := &acp.Server{Session: sess, Logger: logger}
	rec := supervisor.Record{ID: o.ID, Kind: "acp", ACPFS: o.ACPFS, Agent: o.Agent, Classifier: "acp", Argv: o.Argv, Dir: wd,
		Env: o.Env, Dashboard: o.Dashboard, PID: sess.PID(), Supervisor: os.Getpid(), Started: time.Now(),
		Conversation: sess.ID(), Boot: supervisor.BootID(), Worktree: o.Worktree}
	if err := supervisor.WriteRecord(dir, rec); err != nil {
		logger.Warn("no session record", "err", err)
		fmt.Fprintf(stderr, "%s: warning: session %q runs without its record (%v)\n", prog, o.ID, err)
	}
	go srv.Serve(claim.Listener)
	if o.detached() {
		releaseStdio(logger, supervisor.LogPath(dir, o.ID))
	} else {
		fmt.Fprintf(stderr, "%s: acp session %q running (agent pid %d, acp session %s), socket %s\n",
			prog, o.ID, sess.PID(), sess.ID(), supervisor.SocketPath(dir, o.ID))
	}
	// What it shows is recorded as it goes still: a lost session is
	// listed with it.
	record := func() {
		v := sess.View()
		now := time.Now()
		rec.Seen, rec.State, rec.Reason, rec.Usage = &now, v.State.String(), v.Reason, v.Usage
		rec.Cols, rec.Rows, rec.Screen = 80, 24, strings.ReplaceAll(sess.Screen(24), "\n", "\r\n")
		if claim.Owned() {
			if err := supervisor.WriteRecord(dir, rec); err != nil {
				logger.Warn("session record", "err", err)
			}
		}
	}
	still := newStillTimer(stillAfter, record)
	defer still.stop()
	remove := sess.Watch(still.activity)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	for waiting := true; waiting; {
		select {
		case sig := <-sigs:
			if sig != syscall.SIGHUP {
				logger.Info("stop requested", "signal", sig.String())
				sess.Kill(false)
			}
		case <-sess.Done():
			waiting = false
		}
	}
	remove()
	still.stop()
	record()
	now := time.Now()
	rec.Ended, rec.ExitCode = &now, sess.ExitCode()
	if claim.Owned() {
		if err := supervisor.WriteRecord(dir, rec); err != nil {
			logger.Warn("session record", "err", err)
		}
	}
	// Watchers get the last entries and EXIT before the socket goes.
	shut, cancelShut := context.WithTimeout(context.Background(), supervisor.ExitDeliveryTimeout)
	srv.Shutdown(shut)
	cancelShut()
	return rec.ExitCode, nil
}
