package fleet

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/launch"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// launchWait bounds how long a spawn waits for its supervisor to serve the
// session (the program's start included) or to give up.
const launchWait = 10 * time.Second

// recordWait bounds how long following a session whose socket was just
// created waits for its supervisor to write the session's record (just
// after it starts listening).
const recordWait = 300 * time.Millisecond

// launch starts spec under id (reserved by the caller) as a session of a
// supervisor process of its own — Options.Supervisor with run's arguments,
// `--dashboard` among them — and follows it once it serves the session.
// The supervisor leads its own session (setsid), so the terminal or the
// death of this process does not reach it; this process reaps it while it
// lives (proc.Start).
//
// Readiness: run --dashboard points its stdio at /dev/null once the
// session is served, so EOF on its stderr means it started, unless it
// exited: then what it printed is the error. A program that started and
// exited at once is a Dead session (its record says how it ended), as a
// program that exits later is.
func (f *Fleet) launch(id string, spec Spec, r Reporter) (Member, error) {
	if len(f.supervisor) == 0 {
		return nil, fmt.Errorf("spawn %s: no supervisor command configured", id)
	}
	args, environ, err := launch.Args(f.cfg, f.supervisor[1:], id, spec)
	if err != nil {
		return nil, fmt.Errorf("spawn %s: %w", id, err)
	}
	// A supervisor still serving the ID (a restart's old session finishing)
	// is told apart from other failures, so a restart waits for it.
	if st, _ := unixsock.Inspect(supervisor.SocketPath(f.dir, id)); st == unixsock.Live {
		return nil, fmt.Errorf("spawn %s: %w", id, supervisor.ErrAlreadyRunning)
	}
	deadline := time.Now().Add(launchWait)
	p, said, err := launch.Start(f.supervisor[0], args, environ, deadline, f.log)
	if err != nil {
		return nil, fmt.Errorf("spawn %s: %w", id, err)
	}
	m, err := f.follow(id, r, false, p)
	// A supervisor that serves but answers slowly (it runs at a low
	// priority on a busy machine) is given until the deadline.
	for err != nil && errors.Is(err, os.ErrDeadlineExceeded) && !exited(p) && time.Now().Before(deadline) {
		m, err = f.follow(id, r, false, p)
	}
	if err == nil {
		return m, nil
	}
	return f.launchFailure(id, p, said, err, r)
}

// exited reports whether p has exited.
func exited(p *proc.Process) bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}

// exitWait bounds how long a spawn that cannot follow its session waits
// for the supervisor to exit (a program that ends at once: run records it
// and finishes within a second).
const exitWait = 3 * time.Second

// launchFailure is launch's result when the session could not be followed
// (dialErr): the program ended at once (a Dead session, from its record),
// or the supervisor failed (what it said), or it runs without serving
// (then it is told to stop: SIGTERM, and it stops its session and cleans
// up, as run does).
func (f *Fleet) launchFailure(id string, p *proc.Process, said []byte, dialErr error, r Reporter) (Member, error) {
	select {
	case <-p.Done():
	case <-time.After(exitWait):
		p.Stop()
		return nil, fmt.Errorf("spawn %s: its supervisor does not answer: %w", id, dialErr)
	}
	if rec, err := supervisor.ReadRecord(f.dir, id); err == nil && rec.Ended != nil && rec.Supervisor == p.PID() {
		return f.endedMember(rec, r), nil
	}
	msg := strings.TrimSpace(string(said))
	msg = strings.TrimPrefix(msg, "heimdall-tui: ")
	if msg == "" {
		msg = fmt.Sprintf("its supervisor exited with code %d", p.ExitCode())
	}
	if p.ExitCode() == 1 && strings.Contains(msg, "already running") { // run's words for ErrAlreadyRunning
		return nil, fmt.Errorf("spawn %s: %w", id, supervisor.ErrAlreadyRunning)
	}
	return nil, fmt.Errorf("spawn %s: %s", id, msg)
}

// recordOf reads id's record if it describes the live session whose
// program is pid (a record an earlier session under the ID left has ended,
// or names another pid).
func (f *Fleet) recordOf(id string, pid int, wait bool) (supervisor.Record, bool) {
	deadline := time.Now().Add(recordWait)
	for {
		rec, err := supervisor.ReadRecord(f.dir, id)
		if err == nil && rec.PID == pid && rec.Ended == nil {
			return rec, true
		}
		if !wait || time.Now().After(deadline) {
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				f.log.Warn("session record", "id", id, "err", err)
			}
			return supervisor.Record{}, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// specOf is what a restart of the session in starts again.
func specOf(id string, in session.Info, rec supervisor.Record) Spec {
	sp := Spec{ID: id, Agent: in.Agent, Argv: slices.Clone(in.Argv), Dir: in.Dir,
		Classifier: in.Classifier, Env: slices.Clone(rec.Env), Cols: uint16(in.Cols), Rows: uint16(in.Rows), Worktree: in.Worktree}
	if rec.Kind == "acp" {
		sp.ACP, sp.ACPFS, sp.Classifier = true, rec.ACPFS, ""
	}
	return sp
}
