package fleet

import (
	"errors"
	"fmt"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/launch"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// restartWait bounds how long a restart waits for the old member to end
// after its kill grace, and then for another process (a followed session's
// supervisor) to release the ID.
const restartWait = 10 * time.Second

// Restart starts the session again with the same spec and ID
// (session.CapRestart), stopping it first if it is alive. It returns at
// once when it has to wait for the old member to end (the kill grace, the
// old socket's release); errors after that arrive as Failed events. A pty
// session is started again from its record (else from what /proc showed of
// its command line) under a new supervisor, as one started from the
// dashboard: the quit choice "Stop them" then stops it too.
func (f *Fleet) Restart(id string) error {
	e, err := f.get(id)
	if err != nil {
		return err
	}
	rs, ok := e.m.(Restarter)
	if !ok {
		return capError("restart", e, session.CapRestart)
	}
	return f.restart(e, rs)
}

// Resume is Restart for an agent that reported its conversation id (a
// Claude session's hooks): the session starts again with its command
// line, `--resume ID` appended (an earlier --resume and its id dropped),
// in its working directory, so the conversation goes on.
func (f *Fleet) Resume(id string) error { return f.restartAs(id, "resume", launch.Resume) }

// RestartFresh is Restart with a new conversation: the command line
// without the --resume (and its id) a Resume added.
func (f *Fleet) RestartFresh(id string) error { return f.restartAs(id, "restart", launch.Fresh) }

// hostRestarter is a session of another host: restarted there, from its
// record there, as how says (launch.Again, Resume, Fresh).
type hostRestarter interface {
	restartAs(how string) Restarter
}

// restartAs restarts a restartable session with its command line changed
// as how says (launch.RestartArgv, given the agent's conversation id).
func (f *Fleet) restartAs(id, op, how string) error {
	e, err := f.get(id)
	if err != nil {
		return err
	}
	if hr, ok := e.m.(hostRestarter); ok {
		return f.restart(e, hr.restartAs(how))
	}
	_, ok := e.m.(Restarter)
	rd, pty := e.m.(recorded) // a pty session: its spec is a Spec
	if !ok || !pty {
		return capError(op, e, session.CapRestart)
	}
	in := e.m.Info()
	spec := specOf(id, in, rd.record())
	switch {
	case spec.ACP && how == launch.Resume && in.Conversation == "":
		return fmt.Errorf("%s %s: its agent has not reported a session id", op, id)
	case spec.ACP && how == launch.Resume: // the protocol's session/resume, not an argument
		spec.ACPResume = in.Conversation
	case spec.ACP:
	default:
		if spec.Argv, err = launch.RestartArgv(spec.Argv, how, in.Conversation); err != nil {
			return fmt.Errorf("%s %s: %w", op, id, err)
		}
	}
	return f.restart(e, specRestarter{f, spec})
}

// restart starts e again through rs (see Restart).
func (f *Fleet) restart(e *entry, rs Restarter) error {
	id := e.id
	f.mu.Lock()
	exited, again := e.exited, e.restarting
	e.restarting = true
	f.mu.Unlock()
	if again {
		return nil // a restart is already under way
	}
	if !exited {
		// A session that has just ended may not be marked so yet (its EXIT
		// read, its Exited not reported): its connection has ended then,
		// the Stop fails, and restartLater waits for the end as below.
		if err := e.m.Stop(false); err != nil && e.m.Info().Alive {
			f.restartFailed(e)
			return fmt.Errorf("restart %s: kill: %w", id, err)
		}
	} else {
		select {
		case <-e.m.Done():
			// Ended and released: start it now, so an error is the caller's.
			err := f.respawn(e, rs)
			if err == nil || !errors.Is(err, supervisor.ErrAlreadyRunning) {
				if err != nil {
					f.restartFailed(e)
				}
				return err
			}
			// Another process still holds the ID: wait for it below.
		default:
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	f.goLocked(func() { f.restartLater(e, rs) })
	return nil
}

// restartLater waits for e's member to end (bounded by the kill grace plus
// restartWait), then starts it again, retrying while another process
// still holds the ID (a followed session's supervisor removes its socket
// and drops its pid file's lock only after delivering EXIT).
func (f *Fleet) restartLater(e *entry, rs Restarter) {
	fail := func(err error) {
		f.restartFailed(e)
		f.mu.Lock()
		if !f.closed {
			f.publish(session.Failed, e.id, err)
		}
		f.mu.Unlock()
	}
	select {
	case <-e.m.Done():
	case <-time.After(f.cfg.KillGrace + restartWait):
		fail(fmt.Errorf("restart %s: it did not exit", e.id))
		return
	case <-f.done:
		return
	}
	deadline := time.Now().Add(restartWait)
	for {
		err := f.respawn(e, rs)
		if err == nil || errors.Is(err, ErrClosed) {
			return
		}
		if !errors.Is(err, supervisor.ErrAlreadyRunning) || time.Now().After(deadline) {
			fail(err)
			return
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-f.done:
			return
		}
	}
}

// restartFailed lets a later Restart of e try again.
func (f *Fleet) restartFailed(e *entry) {
	f.mu.Lock()
	e.restarting = false
	f.mu.Unlock()
}

// respawn starts prev's member again under its ID, replacing prev if it
// is still listed.
func (f *Fleet) respawn(prev *entry, rs Restarter) error {
	id := prev.id
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return ErrClosed
	}
	if f.sessions[id] != prev || f.claiming[id] {
		f.mu.Unlock()
		return fmt.Errorf("restart %s: session was removed or restarted meanwhile", id)
	}
	f.claiming[id] = true
	f.mu.Unlock()
	defer f.unreserve(id)
	e := &entry{id: id}
	m, err := rs.Restart(f.reporter(e))
	if err != nil {
		return err
	}
	return f.register(e, m, prev)
}
