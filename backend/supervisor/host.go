package supervisor

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/appendfile"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
)

// ExitDeliveryTimeout bounds how long Hosted.Finish waits for subscribers
// to take the session's last output and EXIT.
const ExitDeliveryTimeout = 5 * time.Second

// StartError is Host's error when the program could not be started (as
// opposed to claiming the ID or opening the log).
type StartError struct{ Err error }

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// ExitCode is the exit code a shell reports for such a failure: 127 if the
// program (or its working directory) does not exist, else 126.
func (e *StartError) ExitCode() int { return proc.StartFailureCode(e.Err) }

// Hosted is a Session served on its socket in a socket directory, logging
// to its log file there: what `heimdall-tui run` starts (for the dashboard
// too: each of its sessions is a `run --dashboard`), reachable by ls,
// status, attach and kill.
type Hosted struct {
	Session *Session
	Server  *Server
	Logger  *slog.Logger // the session's log (DIR/ID.log)

	claim *Claim
	logf  *os.File
}

// Host claims cfg.ID in dir (ErrAlreadyRunning if another process serves
// it), opens DIR/ID.log for appending (cfg.Logger is replaced by a JSON
// logger on it) and starts cfg. The session is not served until Serve.
// On error nothing is left behind: no claim (no pid file), and no log file
// that did not exist before. With EnableSubreaper the reaper never takes
// the started child's exit status (proc.Start).
func Host(dir string, cfg Config) (*Hosted, error) {
	claim, err := ClaimID(dir, cfg.ID)
	if err != nil {
		return nil, err
	}
	logPath := LogPath(dir, cfg.ID)
	_, statErr := os.Lstat(logPath)
	newLog := os.IsNotExist(statErr)
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		claim.Release()
		return nil, fmt.Errorf("session log: %w", err)
	}
	cfg.Logger = slog.New(slog.NewJSONHandler(appendfile.New(logf), nil)).With("supervisor_pid", os.Getpid())
	sess, err := Start(cfg) // proc.Start: the reaper never takes its exit status
	if err != nil {
		cfg.Logger.Error("start failed", "err", err)
		logf.Close()
		if newLog {
			os.Remove(logPath) // nothing ran; the error goes to the caller
		}
		claim.Release()
		return nil, &StartError{err}
	}
	return &Hosted{
		Session: sess,
		Server:  &Server{Session: sess, Logger: cfg.Logger},
		Logger:  cfg.Logger,
		claim:   claim,
		logf:    logf,
	}, nil
}

// Owned reports whether the session's files in the socket dir are still
// this process's (Claim.Owned): a record written after they were replaced
// would overwrite another session's.
func (h *Hosted) Owned() bool { return h.claim.Owned() }

// Serve serves the session on its socket until Finish (it returns
// ErrServerClosed then).
func (h *Hosted) Serve() error { return h.Server.Serve(h.claim.Listener) }

// Finish ends hosting once the child has exited, or stops it first (as
// Session.Close): it closes the session (reaping what is left of a killed
// process group), lets subscribers take the last output and EXIT (bounded
// by ExitDeliveryTimeout), removes the socket and pid file and closes the
// log. It returns the child's exit code. Call it once.
func (h *Hosted) Finish() int {
	code := h.Session.Close()
	ctx, cancel := context.WithTimeout(context.Background(), ExitDeliveryTimeout)
	h.Server.Shutdown(ctx)
	cancel()
	h.claim.Release()
	h.logf.Close()
	return code
}

// EnableSubreaper makes this process the child subreaper of what its
// sessions' programs orphan (proc.EnableSubreaper). Sessions started after
// it (Start, Host) keep their own children's exit statuses.
func EnableSubreaper(logger *slog.Logger) error { return proc.EnableSubreaper(logger) }

// ReapOrphans reaps what this process inherited, waiting up to wait for
// what still runs (proc.ReapOrphans).
func ReapOrphans(wait time.Duration) int { return proc.ReapOrphans(wait) }
