package fleet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// Spawn starts spec as a pty session under a supervisor process of its own
// (`heimdall-tui run --dashboard`, Options.Supervisor), served on
// DIR/ID.sock, and follows it; the session outlives this process. It
// returns the session's ID. An empty spec.ID becomes the agent's name (or
// argv[0]'s base name) plus the lowest "-N" no known session or socket file
// uses (and, if another process takes that ID meanwhile, the next one). A
// program that cannot start is an error, and nothing is left in the
// directory. It may be called from any goroutine; it blocks while the
// program starts. An ID HOST:NAME of a followed host (FollowHost) starts
// the session on that host (see Host.spawn).
func (f *Fleet) Spawn(spec Spec) (string, error) {
	if len(spec.Argv) == 0 {
		return "", errors.New("spawn: no program given")
	}
	if h, rid, ok := f.hostOf(spec.ID); ok {
		if spec.NewWorktree != nil {
			return "", fmt.Errorf("spawn on %s: a worktree there is not made from here yet", h.opt.Name)
		}
		return h.spawn(spec, rid) // HOST:NAME: on that host
	}
	if w := spec.NewWorktree; w != nil {
		ctx, cancel := context.WithTimeout(context.Background(), diffWait)
		top, wd, err := review.AddWorktree(ctx, cmp.Or(spec.Dir, "."), *w)
		cancel()
		if err != nil {
			return "", fmt.Errorf("spawn: %w", err)
		}
		spec.Dir, spec.Worktree, spec.NewWorktree = wd, top, nil
		f.log.Info("worktree made", "path", top, "branch", w.Branch)
	}
	spec.Argv = slices.Clone(spec.Argv)
	spec.Env = slices.Clone(spec.Env)
	for tries := 0; ; tries++ {
		id, err := f.reserve("spawn", spec)
		if err != nil {
			return "", err
		}
		e := &entry{id: id}
		m, err := f.launch(id, spec, f.reporter(e))
		if spec.ID == "" && errors.Is(err, supervisor.ErrAlreadyRunning) && tries < 10 {
			// Another process (a second dashboard) took the ID this one
			// picked: keep it reserved, so the next pick skips it.
			defer f.unreserve(id)
			continue
		}
		defer f.unreserve(id)
		if err != nil {
			return "", err
		}
		if err := f.register(e, m, nil); err != nil {
			return "", err
		}
		f.log.Info("session spawned", "id", id, "pid", m.Info().PID, "argv", spec.Argv)
		return id, nil
	}
}

// StartFunc starts a member of some kind under id, reporting to r (see
// Add).
type StartFunc func(id string, r Reporter) (Member, error)

// Add starts a member that runs in this process but is not a pty session
// (a headless session, …) and lists it. id must be a valid session ID
// (supervisor.ValidateID) that no listed session has and no Spawn, Add,
// restart or adoption under way is claiming; the ID is held while start
// runs, so start may take its time. start's reports before the member is
// listed are published after its Added. If start fails nothing is listed.
// It may be called from any goroutine.
func (f *Fleet) Add(id string, start StartFunc) error {
	if id == "" {
		return errors.New("add: no session id given")
	}
	if _, err := f.reserve("add", Spec{ID: id}); err != nil {
		return err
	}
	defer f.unreserve(id)
	e := &entry{id: id}
	m, err := start(id, f.reporter(e))
	if err != nil {
		return fmt.Errorf("add %s: %w", id, err)
	}
	if m == nil {
		return fmt.Errorf("add %s: no member started", id)
	}
	if err := f.register(e, m, nil); err != nil {
		return fmt.Errorf("add %s: %w", id, err)
	}
	f.log.Info("session added", "id", id, "kind", e.kind)
	return nil
}

// reserve picks spec's ID and marks it as being claimed (see
// reserveLocked).
func (f *Fleet) reserve(op string, spec Spec) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return "", ErrClosed
	}
	return f.reserveLocked(op, spec)
}

// reserveLocked picks spec's ID and marks it as being claimed, so that
// neither another Spawn or Add nor the directory watcher takes the ID
// this process is about to use. f.mu is held.
func (f *Fleet) reserveLocked(op string, spec Spec) (string, error) {
	if spec.ID != "" {
		if err := supervisor.ValidateID(f.dir, spec.ID); err != nil {
			return "", fmt.Errorf("%s: %w", op, err)
		}
		if f.sessions[spec.ID] != nil || f.claiming[spec.ID] || f.adopting[spec.ID] {
			return "", fmt.Errorf("%s: session %q already exists", op, spec.ID)
		}
		f.claiming[spec.ID] = true
		return spec.ID, nil
	}
	base := spec.Agent
	if base == "" {
		base = filepath.Base(spec.Argv[0])
	}
	for n := 1; n < 10000; n++ {
		id := base + "-" + strconv.Itoa(n)
		if f.sessions[id] != nil || f.claiming[id] || f.adopting[id] {
			continue
		}
		if _, err := os.Lstat(supervisor.SocketPath(f.dir, id)); err == nil {
			continue
		}
		if err := supervisor.ValidateID(f.dir, id); err != nil {
			return "", fmt.Errorf("%s: %w", op, err)
		}
		f.claiming[id] = true
		return id, nil
	}
	return "", fmt.Errorf("%s: no free id for %q", op, base)
}

func (f *Fleet) unreserve(id string) {
	f.mu.Lock()
	delete(f.claiming, id)
	f.mu.Unlock()
}
