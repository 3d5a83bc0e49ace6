package fleet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// Spawn starts spec as a session owned by this process, served on
// DIR/ID.sock exactly as `heimdall-tui run` serves it (so `ls`, `attach`,
// `status` and `kill` from another terminal see it), and returns its ID.
// An empty spec.ID becomes the agent's name (or argv[0]'s base name) plus
// the lowest "-N" no known session or socket file uses. A program that
// cannot start is an error, and nothing is left in the directory.
func (f *Fleet) Spawn(spec Spec) (string, error) {
	if len(spec.Argv) == 0 {
		return "", errors.New("spawn: no program given")
	}
	spec.Argv = slices.Clone(spec.Argv)
	spec.Env = slices.Clone(spec.Env)
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return "", ErrClosed
	}
	id, err := f.reserveLocked(spec)
	f.mu.Unlock()
	if err != nil {
		return "", err
	}
	defer f.unreserve(id)
	if err := f.startOwned(id, spec, nil); err != nil {
		return "", err
	}
	return id, nil
}

// reserveLocked picks spec's ID and marks it as being claimed, so the
// directory watcher never adopts the socket this process is about to
// create. f.mu is held.
func (f *Fleet) reserveLocked(spec Spec) (string, error) {
	if spec.ID != "" {
		if err := supervisor.ValidateID(f.dir, spec.ID); err != nil {
			return "", fmt.Errorf("spawn: %w", err)
		}
		if f.sessions[spec.ID] != nil || f.claiming[spec.ID] || f.adopting[spec.ID] {
			return "", fmt.Errorf("spawn: session %q already exists", spec.ID)
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
			return "", fmt.Errorf("spawn: %w", err)
		}
		f.claiming[id] = true
		return id, nil
	}
	return "", fmt.Errorf("spawn: no free id for %q", base)
}

func (f *Fleet) unreserve(id string) {
	f.mu.Lock()
	delete(f.claiming, id)
	f.mu.Unlock()
}

// startOwned claims id, starts the program and serves it. id is reserved
// in f.claiming by the caller. prev, if set, is the entry being restarted:
// the new one replaces it only if it is still in the map.
func (f *Fleet) startOwned(id string, spec Spec, prev *entry) error {
	cfg := f.cfg.Session() // then the preset's env, then the spec's
	clsName := spec.Classifier
	if p, ok := f.preset(spec.Agent); ok {
		cfg.Env = append(cfg.Env, p.Env...)
		if clsName == "" {
			clsName = p.Classifier
		}
	}
	cfg.Env = append(cfg.Env, spec.Env...)
	if clsName == "" {
		clsName = f.cfg.Classifier
	}
	now := time.Now()
	cls, err := classify.New(clsName, f.cfg.IdleThreshold, now)
	if err != nil {
		return fmt.Errorf("spawn %s: %w", id, err)
	}
	e := &entry{spec: spec, cleaned: make(chan struct{})}
	cfg.ID, cfg.Argv, cfg.Dir = id, spec.Argv, spec.Dir
	cfg.Cols, cfg.Rows, cfg.Classifier = spec.Cols, spec.Rows, cls
	cfg.OnScreen = func(seq uint64) { f.onOwnedScreen(e, seq) }
	h, err := supervisor.Host(f.dir, cfg)
	if err != nil {
		return fmt.Errorf("spawn %s: %w", id, err)
	}
	sess := h.Session
	dir := spec.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	cols, rows := sess.Size()
	st := sess.Status()

	f.mu.Lock()
	if f.closed || (prev != nil && f.sessions[id] != prev) {
		closed := f.closed
		f.mu.Unlock()
		h.Finish()
		if closed {
			return ErrClosed
		}
		return fmt.Errorf("restart %s: session was removed meanwhile", id)
	}
	e.hosted, e.sess = h, sess
	e.info = session.Info{
		ID:         id,
		Agent:      spec.Agent,
		Classifier: cls.Name(),
		Argv:       slices.Clone(spec.Argv),
		Dir:        dir,
		Kind:       session.KindPty,
		Caps:       session.CapScreen | session.CapAttach | session.CapRestart,
		Owned:      true,
		PID:        sess.PID(),
		State:      st.State,
		StateSince: now,
		Started:    now,
		Alive:      true,
		Cols:       int(cols),
		Rows:       int(rows),
	}
	f.sessions[id] = e
	f.goLocked(func() { h.Serve() })
	f.goLocked(func() { f.ownedExit(e) })
	f.mu.Unlock()
	f.log.Info("session spawned", "id", id, "pid", sess.PID(), "argv", spec.Argv)
	f.publish(session.Added, id, nil)
	// Output the feeder applied before e.sess was set was not reported.
	if seq := sess.Screen().Seq; seq != 0 {
		f.onOwnedScreen(e, seq)
	}
	return nil
}

// ownedExit waits for the child's exit, reports it, then does what `run`
// does after an exit: Close (reaps what is left of a killed group), shut
// the server down (subscribers get EXIT, bounded) and release the claim
// (socket and pid file go). The entry stays, dead, until Remove.
func (f *Fleet) ownedExit(e *entry) {
	<-e.sess.Done()
	code := e.sess.ExitCode()
	now := time.Now()
	f.mu.Lock()
	e.info.Alive = false
	e.info.ExitCode = code
	if e.info.State != session.Dead {
		e.info.State, e.info.StateSince = session.Dead, now
	}
	e.info.NeedsInput = false
	if e.timer != nil {
		e.timer.Stop()
	}
	id := e.info.ID
	f.mu.Unlock()
	f.log.Info("session exited", "id", id, "code", code)
	f.publish(session.Exited, id, nil)

	e.hosted.Finish()
	close(e.cleaned)
}

// onOwnedScreen runs on the session's screen feeder after it applied a
// batch: the screen is readable, so Dirty goes out now, with any change of
// state, needs-input, title or size.
func (f *Fleet) onOwnedScreen(e *entry, seq uint64) {
	f.mu.Lock()
	sess, id := e.sess, e.info.ID
	f.mu.Unlock()
	if sess == nil {
		return // still in startOwned, which reports once it is registered
	}
	f.evalOwned(e, true)
	f.dirty(id, seq)
}

// evalOwned reads the session's classifier and updates Info, publishing
// Changed on a difference. activity (new output) re-arms the timer.
func (f *Fleet) evalOwned(e *entry, activity bool) {
	sess := e.sess
	st := sess.Status()
	ni := sess.NeedsInput()
	title := sess.Title()
	cols, rows := sess.Size()
	now := time.Now()
	since := now.Add(-st.StateFor)
	f.mu.Lock()
	if f.sessions[e.info.ID] != e || !e.info.Alive {
		// Removed, replaced by a restart, or exited (Dead is final).
		f.mu.Unlock()
		return
	}
	if activity {
		e.info.LastOutput = now
	}
	ch := applyLocked(&e.info, st.State, since, ni, title, int(cols), int(rows), now)
	if activity && !f.closed {
		f.armLocked(e, now)
	}
	id := e.info.ID
	f.mu.Unlock()
	if ch {
		f.changed(id)
	}
}

// applyLocked updates in and reports whether anything the UI shows changed.
func applyLocked(in *session.Info, st session.State, since time.Time, ni bool, title string, cols, rows int, now time.Time) bool {
	ch := false
	if in.State != st || in.NeedsInput != ni {
		if in.State != st {
			in.StateSince = since
		} else {
			in.StateSince = now
		}
		in.State, in.NeedsInput = st, ni
		ch = true
	}
	if in.Title != title {
		in.Title, ch = title, true
	}
	if cols > 0 && rows > 0 && (in.Cols != cols || in.Rows != rows) {
		in.Cols, in.Rows, ch = cols, rows, true
	}
	return ch
}

// nextCheck returns how long from now until the next instant a classifier
// may change state by itself after activity at last, or 0 if both passed.
func (f *Fleet) nextCheck(last, now time.Time) time.Duration {
	for _, d := range []time.Duration{classify.DebounceHold, f.idle} {
		if at := last.Add(d + recheckMargin); at.After(now) {
			return at.Sub(now)
		}
	}
	return 0
}

// armLocked (re)arms e's single re-evaluation timer for the next instant
// after e.info.LastOutput at which the state may change without output. f.mu is held.
func (f *Fleet) armLocked(e *entry, now time.Time) {
	d := f.nextCheck(e.info.LastOutput, now)
	switch {
	case d <= 0:
		if e.timer != nil {
			e.timer.Stop()
		}
	case e.timer == nil:
		e.timer = time.AfterFunc(d, func() { f.recheck(e) })
	default:
		e.timer.Reset(d)
	}
}

func (f *Fleet) recheck(e *entry) {
	if !f.enter() {
		return
	}
	defer f.wg.Done()
	f.evalOwned(e, false)
	f.mu.Lock()
	if f.sessions[e.info.ID] == e && e.info.Alive && !f.closed {
		f.armLocked(e, time.Now())
	}
	f.mu.Unlock()
}

// Restart starts the session again with the same spec and ID, killing it
// first if it is alive. It returns at once when it has to wait for an exit
// (the kill grace, the old socket's release); errors after that arrive as
// Failed events. An external session can be restarted only if its argv was
// readable (from /proc): it is killed, and once it has exited the same
// ID, argv and directory are started again as a session OWNED by this
// process (it then stops when the dashboard quits).
func (f *Fleet) Restart(id string) error {
	e, err := f.get(id)
	if err != nil {
		return err
	}
	if e.ext != nil {
		return f.restartExternal(e)
	}
	f.mu.Lock()
	alive, again := e.info.Alive, e.restarting
	e.restarting = true
	f.mu.Unlock()
	if again {
		return nil // a restart is already under way
	}
	if alive {
		e.sess.Kill()
	} else {
		select {
		case <-e.cleaned:
			err := f.respawn(e, e.spec)
			if err != nil {
				f.restartFailed(e)
			}
			return err
		default:
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	f.goLocked(func() {
		<-e.cleaned
		if err := f.respawn(e, e.spec); err != nil && !errors.Is(err, ErrClosed) {
			f.restartFailed(e)
			f.publish(session.Failed, id, err)
		}
	})
	return nil
}

// restartFailed lets a later Restart of e try again.
func (f *Fleet) restartFailed(e *entry) {
	f.mu.Lock()
	e.restarting = false
	f.mu.Unlock()
}

// respawn starts spec under prev's ID, replacing prev if it is still listed.
func (f *Fleet) respawn(prev *entry, spec Spec) error {
	id := prev.info.ID
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
	spec.ID = id
	return f.startOwned(id, spec, prev)
}
