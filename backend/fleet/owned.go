package fleet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// Spawn starts spec as a pty session owned by this process, served on
// DIR/ID.sock exactly as `heimdall-tui run` serves it (so `ls`, `attach`,
// `status` and `kill` from another terminal see it), and returns its ID.
// An empty spec.ID becomes the agent's name (or argv[0]'s base name) plus
// the lowest "-N" no known session or socket file uses. A program that
// cannot start is an error, and nothing is left in the directory. It may
// be called from any goroutine; it blocks while the program starts.
func (f *Fleet) Spawn(spec Spec) (string, error) {
	if len(spec.Argv) == 0 {
		return "", errors.New("spawn: no program given")
	}
	spec.Argv = slices.Clone(spec.Argv)
	spec.Env = slices.Clone(spec.Env)
	id, err := f.reserve("spawn", spec)
	if err != nil {
		return "", err
	}
	defer f.unreserve(id)
	e := &entry{id: id}
	m, err := f.startOwned(id, spec, f.reporter(e))
	if err != nil {
		return "", err
	}
	if err := f.register(e, m, nil); err != nil {
		return "", err
	}
	f.log.Info("session spawned", "id", id, "pid", m.sess.PID(), "argv", spec.Argv)
	return id, nil
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

// owned is a pty session this process runs: a supervisor session hosted in
// the socket dir (as `run` hosts one) whose state comes from its classifier
// in this process.
//
// Timers: after output, one timer (reset by further output) re-evaluates
// the classifier at lastOutput+classify.DebounceHold and again at
// lastOutput+idle (each plus recheckMargin), the two instants at which its
// state can change without new output; then nothing is armed.
//
// Locking: mu guards info, timer, ready and quiet; it is never held while
// calling into the Session or the Reporter.
type owned struct {
	f      *Fleet // for Restart (startOwned), its log and idle threshold
	id     string
	spec   Spec // what Restart starts again (ID set)
	r      Reporter
	hosted *supervisor.Hosted
	sess   *supervisor.Session // hosted.Session
	done   chan struct{}       // closed once finished (socket released) and its goroutines returned

	serving sync.WaitGroup // Serve
	cbs     sync.WaitGroup // timer callbacks under way (Add only while !quiet)

	mu    sync.Mutex
	ready bool // hosted and sess are set: OnScreen before that is reported by startOwned
	quiet bool // exited or hung up: no timer is armed any more
	info  session.Info
	timer *time.Timer
}

// startOwned claims id in the socket dir, starts the program and serves
// it. id is reserved in f.claiming by the caller. The member is not listed.
func (f *Fleet) startOwned(id string, spec Spec, r Reporter) (*owned, error) {
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
		return nil, fmt.Errorf("spawn %s: %w", id, err)
	}
	spec.ID = id
	o := &owned{f: f, id: id, spec: spec, r: r, done: make(chan struct{})}
	cfg.ID, cfg.Argv, cfg.Dir = id, spec.Argv, spec.Dir
	cfg.Cols, cfg.Rows, cfg.Classifier = spec.Cols, spec.Rows, cls
	cfg.OnScreen = o.onScreen
	h, err := supervisor.Host(f.dir, cfg)
	if err != nil {
		return nil, fmt.Errorf("spawn %s: %w", id, err)
	}
	sess := h.Session
	dir := spec.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	cols, rows := sess.Size()
	st := sess.Status()
	o.mu.Lock()
	o.hosted, o.sess, o.ready = h, sess, true
	o.info = session.Info{
		ID:         id,
		Agent:      spec.Agent,
		Classifier: cls.Name(),
		Argv:       slices.Clone(spec.Argv),
		Dir:        dir,
		Kind:       session.KindPty,
		Owned:      true,
		PID:        sess.PID(),
		State:      st.State,
		StateSince: now,
		Started:    now,
		Alive:      true,
		Cols:       int(cols),
		Rows:       int(rows),
	}
	o.mu.Unlock()
	o.serving.Add(1)
	go func() {
		defer o.serving.Done()
		h.Serve()
	}()
	go o.waitExit()
	// Output the feeder applied before sess was set was not reported.
	if seq := sess.Screen().Seq; seq != 0 {
		o.onScreen(seq)
	}
	return o, nil
}

func (o *owned) Info() session.Info {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.info
}

func (o *owned) Send(in session.Input) error {
	_, err := o.sess.Write(in.Data)
	return err
}

func (o *owned) Stop(force bool) error {
	if force {
		return o.sess.ForceKill()
	}
	return o.sess.Kill()
}

// Hangup stops re-evaluating and hangs the session up (Session.Hangup);
// waitExit finishes it once it exited.
func (o *owned) Hangup() {
	o.mu.Lock()
	o.quiet = true
	if o.timer != nil {
		o.timer.Stop()
	}
	o.mu.Unlock()
	o.sess.Hangup()
}

func (o *owned) Done() <-chan struct{} { return o.done }

func (o *owned) Screen() *vt.Snapshot { return o.sess.Screen() }

// Resize resizes the pty; the feeder applies it to the screen and calls
// onScreen, which updates Info.
func (o *owned) Resize(cols, rows uint16) error { return o.sess.Resize(cols, rows) }

func (o *owned) Endpoint() (attach.Endpoint, error) { return attach.NewLocal(o.sess), nil }

func (o *owned) Restart(r Reporter) (Member, error) {
	m, err := o.f.startOwned(o.id, o.spec, r)
	if err != nil {
		return nil, err // not a nil *owned in a non-nil Member
	}
	return m, nil
}

// waitExit waits for the child's exit, reports it, then does what `run`
// does after an exit: Finish (reaps what is left of a killed group, shuts
// the server down so subscribers get EXIT, bounded, and releases the
// claim: socket and pid file go). Then Done closes.
func (o *owned) waitExit() {
	<-o.sess.Done()
	code := o.sess.ExitCode()
	now := time.Now()
	o.mu.Lock()
	o.quiet = true
	o.info.Alive, o.info.ExitCode = false, code
	if o.info.State != session.Dead {
		o.info.State, o.info.StateSince = session.Dead, now
	}
	o.info.NeedsInput = false
	if o.timer != nil {
		o.timer.Stop()
	}
	o.mu.Unlock()
	o.r.Exited(code)
	o.hosted.Finish()
	o.serving.Wait()
	o.cbs.Wait()
	close(o.done)
}

// onScreen runs on the session's screen feeder after it applied a batch:
// the screen is readable, so Dirty goes out now, with any change of
// state, needs-input, title or size.
func (o *owned) onScreen(seq uint64) {
	o.mu.Lock()
	ready := o.ready
	o.mu.Unlock()
	if !ready {
		return // still in startOwned, which reports once sess is set
	}
	o.eval(true)
	o.r.Dirty(seq)
}

// eval reads the session's classifier and updates Info, reporting Changed
// on a difference. activity (new output) re-arms the timer.
func (o *owned) eval(activity bool) {
	sess := o.sess
	st := sess.Status()
	ni := sess.NeedsInput()
	title := sess.Title()
	cols, rows := sess.Size()
	now := time.Now()
	since := now.Add(-st.StateFor)
	o.mu.Lock()
	if !o.info.Alive {
		o.mu.Unlock()
		return // Dead is final
	}
	if activity {
		o.info.LastOutput = now
	}
	ch := applyInfo(&o.info, st.State, since, ni, title, int(cols), int(rows), now)
	if activity {
		o.armLocked(now)
	}
	o.mu.Unlock()
	if ch {
		o.r.Changed()
	}
}

// applyInfo updates in and reports whether anything the UI shows changed.
func applyInfo(in *session.Info, st session.State, since time.Time, ni bool, title string, cols, rows int, now time.Time) bool {
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
// with idle threshold idle may change state by itself after activity at
// last, or 0 if both passed.
func nextCheck(last, now time.Time, idle time.Duration) time.Duration {
	for _, d := range []time.Duration{classify.DebounceHold, idle} {
		if at := last.Add(d + recheckMargin); at.After(now) {
			return at.Sub(now)
		}
	}
	return 0
}

// armLocked (re)arms the single re-evaluation timer for the next instant
// after info.LastOutput at which the state may change without output, unless
// quiet. o.mu is held.
func (o *owned) armLocked(now time.Time) {
	d := nextCheck(o.info.LastOutput, now, o.f.idle)
	switch {
	case o.quiet || d <= 0:
		if o.timer != nil {
			o.timer.Stop()
		}
	case o.timer == nil:
		o.timer = time.AfterFunc(d, o.recheck)
	default:
		o.timer.Reset(d)
	}
}

func (o *owned) recheck() {
	o.mu.Lock()
	if o.quiet {
		o.mu.Unlock()
		return
	}
	o.cbs.Add(1)
	o.mu.Unlock()
	defer o.cbs.Done()
	o.eval(false)
	o.mu.Lock()
	if o.info.Alive {
		o.armLocked(time.Now())
	}
	o.mu.Unlock()
}
