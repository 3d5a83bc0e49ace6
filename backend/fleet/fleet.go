package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/pubsub"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// ErrClosed is returned by the Fleet's methods after Close, and by Next
// once the events pending at Close have been returned.
var ErrClosed = errors.New("fleet: closed")

const (
	// recheckMargin is added to the classifier deadlines a re-evaluation is
	// armed for, so that it lands just after the state had its chance to
	// change rather than just before.
	recheckMargin = 20 * time.Millisecond
)

// Options configure a Fleet.
type Options struct {
	// Dir is the socket directory ("" = supervisor.DefaultDir()).
	Dir string
	// Config supplies the env, scrollback, kill grace, classifier, idle
	// threshold and [[agent]] presets of owned sessions.
	Config config.Config
	// Logger receives the fleet's own log (nil: discarded). The fleet never
	// writes to stdout or stderr: the dashboard owns the terminal.
	Logger *slog.Logger
}

// Fleet is every session in one socket directory. Its methods are safe for
// concurrent use and, except Next and Close, do not block for long: they
// are map look-ups, one syscall or one socket write.
//
// Locking: one mutex guards the session map and every entry's Info. It is
// never held across socket I/O or a call into a Session that may wait;
// callbacks from the supervisor (OnScreen, on the screen feeder) only
// update the map and publish lossily.
//
// Timers: nothing runs periodically. After activity an owned session arms
// one timer (reset by further activity) that re-evaluates its classifier at
// lastActivity+classify.DebounceHold and again at lastActivity+IdleThreshold
// (each plus a small margin), the two instants at which a classifier's state
// can change without new output; an external session arms one timer that
// refreshes its status at most four times a second while output flows and
// once after it went quiet. Once those have fired nothing is armed, so an
// idle fleet causes no wake-ups.
type Fleet struct {
	dir  string
	cfg  config.Config
	log  *slog.Logger
	idle time.Duration

	broker  *pubsub.Broker[session.Event]
	sub     *pubsub.Sub[session.Event]
	watcher *fsnotify.Watcher

	mu       sync.Mutex
	sessions map[string]*entry
	claiming map[string]bool // IDs being claimed by this process: never adopted
	adopting map[string]bool // IDs being dialed as external sessions
	closed   bool
	wg       sync.WaitGroup // every goroutine the fleet starts

	closeOnce sync.Once
	done      chan struct{} // closed when Close begins
}

// entry is one session: owned (sess != nil) or external (ext != nil).
type entry struct {
	info       session.Info
	spec       Spec // what Restart starts again
	restarting bool // a Restart is under way: a second one is a no-op

	// Owned sessions.
	hosted  *supervisor.Hosted
	sess    *supervisor.Session // hosted.Session
	cleaned chan struct{}       // closed once hosted is finished (socket released)
	timer   *time.Timer         // classifier re-evaluation (see Fleet)

	// External sessions.
	ext *external
}

// New opens the socket directory (creating it 0700 if needed), adopts the
// live sessions already served there and starts watching it for more.
func New(opts Options) (*Fleet, error) {
	dir := opts.Dir
	if dir == "" {
		dir = supervisor.DefaultDir()
	}
	if err := supervisor.EnsureDir(dir); err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	idle := opts.Config.IdleThreshold
	if idle <= 0 {
		idle = classify.DefaultIdleThreshold
	}
	f := &Fleet{
		dir:      dir,
		cfg:      opts.Config,
		log:      log,
		idle:     idle,
		broker:   pubsub.NewBroker[session.Event](),
		sessions: make(map[string]*entry),
		claiming: make(map[string]bool),
		adopting: make(map[string]bool),
		done:     make(chan struct{}),
	}
	f.sub = f.broker.Subscribe()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch socket dir: %w", err)
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return nil, fmt.Errorf("watch socket dir %s: %w", dir, err)
	}
	f.watcher = w
	f.mu.Lock()
	f.goLocked(f.watchLoop)
	f.mu.Unlock()
	// Scan after the watch is in place, so a socket created in between is
	// seen by one or the other (adopt ignores a second attempt).
	ents, err := os.ReadDir(dir)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read socket dir: %w", err)
	}
	for _, de := range ents {
		if id, ok := sockID(de.Name()); ok && de.Type()&os.ModeSocket != 0 {
			f.adopt(id, false)
		}
	}
	return f, nil
}

// goLocked runs fn on a goroutine Close waits for. f.mu is held and the
// fleet is open.
func (f *Fleet) goLocked(fn func()) {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		fn()
	}()
}

// enter registers a timer callback with Close's wait group; false once
// closed. The caller calls f.wg.Done when enter returned true.
func (f *Fleet) enter() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.wg.Add(1)
	return true
}

func (f *Fleet) publish(kind session.EventKind, id string, err error) {
	f.broker.Publish(session.Event{Kind: kind, ID: id, Err: err})
}

func (f *Fleet) dirty(id string, seq uint64) {
	f.broker.PublishLossy("dirty\x00"+id, session.Event{Kind: session.Dirty, ID: id, Seq: seq})
}

func (f *Fleet) changed(id string) {
	f.broker.PublishLossy("changed\x00"+id, session.Event{Kind: session.Changed, ID: id})
}

// Next blocks until at least one event is pending (or ctx ends) and returns
// every pending event: must-deliver ones (Added, Removed, Exited, Failed)
// first, in order, then the latest Changed and Dirty per session. After
// Close it returns what was still pending, then ErrClosed.
func (f *Fleet) Next(ctx context.Context) ([]session.Event, error) {
	evs, err := f.sub.Next(ctx)
	if errors.Is(err, pubsub.ErrClosed) {
		err = ErrClosed
	}
	return evs, err
}

// Sessions returns a copy of every known session, ordered by Started, then ID.
func (f *Fleet) Sessions() []session.Info {
	f.mu.Lock()
	out := make([]session.Info, 0, len(f.sessions))
	for _, e := range f.sessions {
		in := e.info
		in.Argv = slices.Clone(in.Argv)
		out = append(out, in)
	}
	f.mu.Unlock()
	slices.SortFunc(out, func(a, b session.Info) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

func (f *Fleet) get(id string) (*entry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, ErrClosed
	}
	e := f.sessions[id]
	if e == nil {
		return nil, fmt.Errorf("no session %q", id)
	}
	return e, nil
}

// Screen returns a copy of the session's screen, or nil if id is unknown.
// For an external session it is the fleet's own emulator fed from the
// session's socket.
func (f *Fleet) Screen(id string) *vt.Snapshot {
	f.mu.Lock()
	e := f.sessions[id]
	f.mu.Unlock()
	switch {
	case e == nil:
		return nil
	case e.sess != nil:
		return e.sess.Screen()
	default:
		return e.ext.feed.Emulator().Snapshot()
	}
}

// Transcript returns the entries after seq of a session that keeps a
// transcript; pty sessions keep none (nil).
func (f *Fleet) Transcript(id string, after uint64) []session.Entry { return nil }

// Presets returns the spawnable agents: the built-ins (claude, codex,
// aider, gemini, shell) in that order, each possibly replaced by a config
// [[agent]] of the same name, then the config's other agents in file order.
func (f *Fleet) Presets() []Preset {
	ps := presets(f.cfg)
	for i := range ps {
		ps[i].Found = len(ps[i].Argv) > 0 && found(ps[i].Argv[0])
	}
	return ps
}

// Send gives the session's program in.Data as typed input.
func (f *Fleet) Send(id string, in session.Input) error {
	p := in.Data
	e, err := f.get(id)
	if err != nil {
		return err
	}
	f.mu.Lock()
	alive := e.info.Alive
	f.mu.Unlock()
	if !alive {
		return fmt.Errorf("write to %s: session has exited", id)
	}
	if e.sess != nil {
		_, err = e.sess.Write(p)
	} else {
		err = e.ext.a.Input(p)
	}
	if err != nil {
		return fmt.Errorf("write to %s: %w", id, err)
	}
	return nil
}

// Resize sets the session's pty size.
func (f *Fleet) Resize(id string, cols, rows uint16) error {
	if cols == 0 || rows == 0 {
		return fmt.Errorf("resize %s: invalid size %dx%d", id, cols, rows)
	}
	e, err := f.get(id)
	if err != nil {
		return err
	}
	if e.sess != nil {
		// The feeder applies it and calls OnScreen, which updates Info.
		if err := e.sess.Resize(cols, rows); err != nil {
			return fmt.Errorf("resize %s: %w", id, err)
		}
		return nil
	}
	return f.resizeExternal(e, cols, rows)
}

// Kill stops the session: SIGTERM to its process group and SIGKILL after
// the kill grace (for an external session, its own supervisor's grace), or
// SIGKILL at once with force. The Exited event follows.
func (f *Fleet) Kill(id string, force bool) error {
	e, err := f.get(id)
	if err != nil {
		return err
	}
	f.mu.Lock()
	alive, pid := e.info.Alive, e.info.PID
	f.mu.Unlock()
	if !alive {
		return fmt.Errorf("kill %s: session has exited", id)
	}
	if e.sess != nil {
		if force {
			err = e.sess.ForceKill()
		} else {
			err = e.sess.Kill()
		}
	} else if force {
		err = killGroup(pid)
	} else {
		err = e.ext.a.Kill()
	}
	if err != nil {
		return fmt.Errorf("kill %s: %w", id, err)
	}
	return nil
}

// killGroup SIGKILLs an external session's process group: its child leads
// its own session, so the group's id is its pid. It falls back to the pid
// alone if the group is gone or not ours.
func killGroup(pid int) error {
	if pid <= 0 {
		return errors.New("pid unknown")
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err == nil {
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// Remove forgets a session whose program has exited; it refuses a live one.
func (f *Fleet) Remove(id string) error {
	f.mu.Lock()
	e := f.sessions[id]
	switch {
	case f.closed:
		f.mu.Unlock()
		return ErrClosed
	case e == nil:
		f.mu.Unlock()
		return fmt.Errorf("no session %q", id)
	case e.info.Alive:
		f.mu.Unlock()
		return fmt.Errorf("remove %s: session is still running (kill it first)", id)
	}
	delete(f.sessions, id)
	f.mu.Unlock()
	f.publish(session.Removed, id, nil)
	return nil
}

// Endpoint opens an interactive attachment: in-process for an owned
// session, over its socket for an external one.
func (f *Fleet) Endpoint(id string) (attach.Endpoint, error) {
	e, err := f.get(id)
	if err != nil {
		return nil, err
	}
	if e.sess != nil {
		return attach.NewLocal(e.sess), nil
	}
	ep, err := attach.Dial(supervisor.SocketPath(f.dir, id))
	if err != nil {
		return nil, fmt.Errorf("attach %s: %w", id, err)
	}
	return ep, nil
}

// Close stops the fleet: every live owned session is hung up as when its
// terminal closes (Session.Hangup: SIGHUP, SIGTERM a second later, SIGKILL
// after the grace) and, once it exited, finished (socket removed); external
// sessions keep running (they belong to other processes) and only their
// connections close. It waits for every goroutine the fleet started. Next
// then returns the remaining events and ErrClosed. Close is idempotent.
func (f *Fleet) Close() error {
	f.closeOnce.Do(func() {
		f.mu.Lock()
		f.closed = true
		close(f.done)
		var exts []*external
		for _, e := range f.sessions {
			if e.timer != nil {
				e.timer.Stop()
			}
			if e.sess != nil {
				// Its exit goroutine (f.wg) finishes it once it exited.
				e.sess.Hangup()
			} else {
				exts = append(exts, e.ext)
			}
		}
		f.mu.Unlock()
		if f.watcher != nil {
			f.watcher.Close()
		}
		for _, x := range exts {
			x.close()
		}
		f.wg.Wait()
		f.broker.Close()
	})
	return nil
}

// watchLoop follows the socket directory. A new socket (Create, or the
// Chmod that ClaimID does once it listens) is adopted unless this process
// owns its ID. A removed socket needs nothing: the session's subscribed
// connection sees EXIT or EOF first.
func (f *Fleet) watchLoop() {
	for {
		select {
		case ev, ok := <-f.watcher.Events:
			if !ok {
				return
			}
			if !ev.Has(fsnotify.Create) && !ev.Has(fsnotify.Chmod) {
				continue
			}
			id, ok := sockID(filepath.Base(ev.Name))
			if !ok {
				continue
			}
			f.mu.Lock()
			if !f.closed && f.adoptable(id) {
				f.goLocked(func() { f.adopt(id, ev.Has(fsnotify.Create)) })
			}
			f.mu.Unlock()
		case err, ok := <-f.watcher.Errors:
			if !ok {
				return
			}
			f.log.Warn("socket dir watch", "err", err)
		}
	}
}

// sockID returns the session ID of a socket file name.
func sockID(name string) (string, bool) {
	id, ok := strings.CutSuffix(name, ".sock")
	if !ok || id == "" || strings.HasPrefix(id, ".") {
		return "", false
	}
	return id, true
}

// adoptable reports whether id may become an external session: nobody in
// this process claims it and it is unknown, or known only as an exited
// external session (a later `run` reused the ID). f.mu is held.
func (f *Fleet) adoptable(id string) bool {
	if f.claiming[id] || f.adopting[id] {
		return false
	}
	e := f.sessions[id]
	return e == nil || (e.ext != nil && !e.info.Alive)
}
