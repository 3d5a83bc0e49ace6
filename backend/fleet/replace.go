package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// Replace starts spec in place of the pty session id, under the same ID:
// the session is stopped first if it is alive (its kind's SIGTERM, SIGKILL
// after the kill grace), and once it has ended and its supervisor has
// released the ID, spec is launched as Spawn launches (spec.ID is ignored).
// It is Restart with another command line (the web terminal's YOLO
// toggle restarts an agent with different flags). It blocks until the new
// session runs, or fails, or ctx ends (the old session may then have
// ended, with no new one). A restart or replacement already under way is
// an error.
func (f *Fleet) Replace(ctx context.Context, id string, spec Spec) error {
	if len(spec.Argv) == 0 {
		return errors.New("replace: no program given")
	}
	e, err := f.get(id)
	if err != nil {
		return err
	}
	if _, ok := e.m.(socketed); !ok {
		return capError("replace", e, session.CapScreen)
	}
	spec.ID, spec.Argv, spec.Env = id, slices.Clone(spec.Argv), slices.Clone(spec.Env)
	f.mu.Lock()
	exited, again := e.exited, e.restarting
	e.restarting = true
	f.mu.Unlock()
	if again {
		return fmt.Errorf("replace %s: a restart is already under way", id)
	}
	if !exited {
		if err := e.m.Stop(false); err != nil {
			f.restartFailed(e)
			return fmt.Errorf("replace %s: kill: %w", id, err)
		}
	}
	select {
	case <-e.m.Done():
	case <-ctx.Done():
		f.restartFailed(e)
		return fmt.Errorf("replace %s: it did not end: %w", id, ctx.Err())
	case <-f.done:
		return ErrClosed
	}
	rs := specRestarter{f, spec}
	for {
		err := f.respawn(e, rs)
		if err == nil || !errors.Is(err, supervisor.ErrAlreadyRunning) {
			if err != nil {
				f.restartFailed(e)
			}
			return err
		}
		// The old supervisor removes its socket and releases the ID just
		// after it delivered EXIT: wait for it.
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			f.restartFailed(e)
			return fmt.Errorf("replace %s: %w", id, err)
		case <-f.done:
			return ErrClosed
		}
	}
}

// specRestarter launches a given spec as a restart (see Replace).
type specRestarter struct {
	f    *Fleet
	spec Spec
}

func (s specRestarter) Restart(r Reporter) (Member, error) {
	return s.f.launch(s.spec.ID, s.spec, r)
}
