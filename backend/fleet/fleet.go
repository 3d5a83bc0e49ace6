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
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/launch"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
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
	// Config supplies the classifier, idle threshold and [[agent]] presets
	// of spawned sessions (their supervisors read the rest of it: env,
	// scrollback, kill grace).
	Config config.Config
	// Supervisor is the command line that starts a session's supervisor
	// process without run's own arguments: this binary with its global
	// flags, e.g. {"/proc/self/exe", "--socket-dir", DIR}; Spawn and
	// Restart append `run --dashboard --id ID … -- PROG ARGS…`. Without
	// it the fleet only follows sessions others started.
	Supervisor []string
	// Logger receives the fleet's own log (nil: discarded). The fleet never
	// writes to stdout or stderr: the dashboard owns the terminal.
	Logger *slog.Logger
	// Reader: the fleet is a command's look at the sessions (inbox,
	// wait), not a user's view: Close forgets no record of a session it
	// saw end, which the next dashboard still shows.
	Reader bool
}

// Fleet is every session in one socket directory, and the sessions of other
// kinds added to it, each a Member. Its methods are safe for concurrent use
// (Spawn and Add too: the dashboard calls them from a tea.Cmd) and, except
// Next, Spawn, Add and Close, do not block for long: they are map
// look-ups, one syscall or one socket write.
//
// Locking: f.mu guards the session map, the ID reservations and each
// entry's fields. It is never held across a call into a Member, socket
// I/O or a call into a Session that may wait; a Reporter takes it briefly
// (members call reporters without their own locks held, so the order is
// always f.mu before nothing else but the broker's). Must-deliver events
// are published with f.mu held, so Added always precedes its Exited and
// Removed.
//
// Timers: the fleet arms none. Members arm their own only after activity
// (a pty session refreshes its status while output flows and once after),
// so an idle fleet causes no wake-ups.
type Fleet struct {
	dir        string
	cfg        config.Config
	supervisor []string
	reader     bool // Options.Reader
	hosts      []*Host
	log        *slog.Logger
	idle       time.Duration
	boot       string // this boot's id: a lost session's record of another was lost to a reboot

	broker  *pubsub.Broker[session.Event]
	sub     *pubsub.Sub[session.Event]
	watcher *fsnotify.Watcher

	mu       sync.Mutex
	sessions map[string]*entry
	claiming map[string]bool // IDs being started by this process: never adopted, never given twice
	adopting map[string]bool // IDs being dialed as followed sessions
	closed   bool
	wg       sync.WaitGroup // every goroutine the fleet starts, and every listed member's Done

	closeOnce sync.Once
	done      chan struct{} // closed when Close begins
}

// entry is one listed session: a member and what the fleet keeps of it.
// Its fields are guarded by f.mu; m, kind and caps are set before it is
// listed and never change (a restart lists a new entry).
type entry struct {
	id   string
	m    Member
	kind session.Kind
	caps session.Caps
	// adopted: found in the socket dir; once it exited, a later session
	// served under its ID there replaces it.
	adopted    bool
	restarting bool // a Restart is under way: a second one is a no-op

	exited   bool // the member reported Exited
	code     int
	exitedAt time.Time

	// Reports made before the entry was listed, published after Added.
	earlyChanged bool
	earlyDirty   bool
	earlySeq     uint64
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
		dir:        dir,
		cfg:        opts.Config,
		supervisor: slices.Clone(opts.Supervisor),
		reader:     opts.Reader,
		log:        log,
		idle:       idle,
		boot:       supervisor.BootID(),
		broker:     pubsub.NewBroker[session.Event](),
		sessions:   make(map[string]*entry),
		claiming:   make(map[string]bool),
		adopting:   make(map[string]bool),
		done:       make(chan struct{}),
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
	var wg sync.WaitGroup // live sessions are dialed at once: n sessions cost one round trip, not n
	for _, de := range ents {
		if id, ok := sockID(de.Name()); ok && de.Type()&os.ModeSocket != 0 {
			wg.Go(func() { f.adopt(id, false) })
		}
	}
	wg.Wait()
	f.adoptEnded()
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

func (f *Fleet) publish(kind session.EventKind, id string, err error) {
	f.broker.Publish(session.Event{Kind: kind, ID: id, Err: err})
}

func (f *Fleet) dirty(id string, seq uint64) {
	f.broker.PublishLossy("dirty\x00"+id, session.Event{Kind: session.Dirty, ID: id, Seq: seq})
}

func (f *Fleet) changed(id string) {
	f.broker.PublishLossy("changed\x00"+id, session.Event{Kind: session.Changed, ID: id})
}

// reporter is an entry's Reporter.
type reporter struct {
	f *Fleet
	e *entry
}

func (f *Fleet) reporter(e *entry) reporter { return reporter{f, e} }

// listedLocked reports whether e is the entry listed under its ID. f.mu is held.
func (f *Fleet) listedLocked(e *entry) bool { return f.sessions[e.id] == e }

func (r reporter) Changed() {
	f, e := r.f, r.e
	f.mu.Lock()
	listed := f.listedLocked(e)
	if !listed {
		e.earlyChanged = true
	}
	f.mu.Unlock()
	if listed {
		f.changed(e.id)
	}
}

func (r reporter) Dirty(seq uint64) {
	f, e := r.f, r.e
	f.mu.Lock()
	listed := f.listedLocked(e)
	if !listed {
		e.earlyDirty, e.earlySeq = true, seq
	}
	f.mu.Unlock()
	if listed {
		f.dirty(e.id, seq)
	}
}

func (r reporter) Exited(code int) {
	f, e := r.f, r.e
	f.mu.Lock()
	defer f.mu.Unlock()
	if e.exited {
		return
	}
	e.exited, e.code, e.exitedAt = true, code, time.Now()
	if f.listedLocked(e) {
		f.log.Info("session exited", "id", e.id, "code", code)
		f.publish(session.Exited, e.id, nil)
	}
}

func (r reporter) Failed(err error) {
	f, e := r.f, r.e
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listedLocked(e) {
		f.publish(session.Failed, e.id, err)
	}
}

// register lists the started member m as e, replacing prev (a restart: only
// if prev is still listed) or, with prev nil, an exited adopted entry when
// e is adopted too. If the fleet closed or the ID was taken meanwhile, m is
// hung up and waited for, and register returns an error.
func (f *Fleet) register(e *entry, m Member, prev *entry) error {
	e.m, e.caps = m, capsOf(m)
	e.kind = m.Info().Kind
	f.mu.Lock()
	cur := f.sessions[e.id]
	var err error
	switch {
	case f.closed:
		err = ErrClosed
	case prev != nil && cur != prev:
		err = fmt.Errorf("restart %s: session was removed meanwhile", e.id)
	case prev == nil && cur != nil && !(e.adopted && cur.adopted && cur.exited):
		err = fmt.Errorf("session %q already exists", e.id)
	}
	if err != nil {
		f.mu.Unlock()
		m.Hangup()
		<-m.Done()
		return err
	}
	f.sessions[e.id] = e
	f.goLocked(func() { f.watchDone(e) })
	f.publish(session.Added, e.id, nil)
	if e.exited {
		f.publish(session.Exited, e.id, nil)
	}
	changed, dirty, seq := e.earlyChanged, e.earlyDirty, e.earlySeq
	f.mu.Unlock()
	if changed {
		f.changed(e.id)
	}
	if dirty {
		f.dirty(e.id, seq)
	}
	return nil
}

// watchDone waits for e's member to end. One that ends without having
// reported Exited has vanished (its server went away without EXIT): it is
// removed, unless the fleet is closing (Hangup disconnected it) or it is a
// pty session whose supervisor recorded its end first. That one is listed
// from its record as Dead (as adoptEnded lists a session that ended while
// no dashboard followed it): a dashboard that connects while a supervisor
// is finishing (its program gone, the record written, no subscriber left
// to wait for) can lose the connection before EXIT reaches it.
func (f *Fleet) watchDone(e *entry) {
	<-e.m.Done()
	f.mu.Lock()
	gone := f.closed || e.exited || !f.listedLocked(e)
	f.mu.Unlock()
	if gone {
		return
	}
	if rec, ok := f.recordedEnd(e); ok {
		ne := &entry{id: e.id, adopted: e.adopted}
		// It fails only if the fleet closed or e was replaced meanwhile:
		// nothing is left to do then either.
		if f.register(ne, f.endedMember(rec, f.reporter(ne)), e) == nil {
			f.log.Info("session ended as its connection did", "id", e.id, "code", rec.ExitCode)
		}
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || !f.listedLocked(e) {
		return
	}
	delete(f.sessions, e.id)
	f.log.Info("session vanished", "id", e.id)
	f.publish(session.Removed, e.id, nil)
}

// recordedEnd is the record of e's end, if e is a pty session whose
// supervisor wrote one for the program it ran (the same pid, when e knew
// it).
func (f *Fleet) recordedEnd(e *entry) (supervisor.Record, bool) {
	if e.kind != session.KindPty {
		return supervisor.Record{}, false
	}
	rec, err := supervisor.ReadRecord(f.dir, e.id)
	if err != nil || rec.Ended == nil {
		return supervisor.Record{}, false
	}
	if pid := e.m.Info().PID; pid != 0 && rec.PID != pid {
		return supervisor.Record{}, false
	}
	return rec, true
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

// Subscribe returns a reader of the fleet's events of its own, beside
// Next's (a server that watches the sessions while a dashboard reads
// Next). Close it when done; the fleet's Close ends it.
func (f *Fleet) Subscribe() *pubsub.Sub[session.Event] { return f.broker.Subscribe() }

// Sessions returns a copy of every known session, ordered by Started, then
// ID. Each member's Info is read outside the fleet's lock; ID, Caps and
// (after Exited) the exit are the fleet's.
func (f *Fleet) Sessions() []session.Info {
	type listed struct {
		e      *entry
		exited bool
		code   int
		at     time.Time
	}
	f.mu.Lock()
	es := make([]listed, 0, len(f.sessions))
	for _, e := range f.sessions {
		es = append(es, listed{e, e.exited, e.code, e.exitedAt})
	}
	f.mu.Unlock()
	out := make([]session.Info, 0, len(es))
	for _, l := range es {
		in := l.e.m.Info()
		in.ID, in.Caps = l.e.id, l.e.caps
		in.Argv = slices.Clone(in.Argv)
		if l.exited {
			if in.State != session.Dead {
				in.StateSince = l.at
			}
			in.Alive, in.ExitCode, in.State, in.NeedsInput = false, l.code, session.Dead, false
		}
		out = append(out, in)
	}
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

// getAlive is get for an operation (op) on a session that has not exited.
func (f *Fleet) getAlive(op, id string) (*entry, error) {
	e, err := f.get(id)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	exited := e.exited
	f.mu.Unlock()
	if exited {
		return nil, fmt.Errorf("%s %s: session has exited", op, id)
	}
	return e, nil
}

// Screen returns a copy of the session's screen, or nil if id is unknown
// or the session has no screen (session.CapScreen). For a followed session
// it is the fleet's own emulator fed from the session's socket.
func (f *Fleet) Screen(id string) *vt.Snapshot { return f.ScreenInto(id, nil) }

// ScreenInto is Screen written into dst's memory when the session can
// (see vt.Emulator.SnapshotInto): dst, an earlier copy or nil, is
// overwritten (or dropped) and must not be read or held any more.
func (f *Fleet) ScreenInto(id string, dst *vt.Snapshot) *vt.Snapshot {
	f.mu.Lock()
	e := f.sessions[id]
	f.mu.Unlock()
	if e == nil {
		return nil
	}
	if s, ok := e.m.(screenReuser); ok {
		return s.ScreenInto(dst)
	}
	if s, ok := e.m.(Screener); ok {
		return s.Screen()
	}
	return nil
}

// Transcript returns the entries after seq of a session that keeps a
// transcript (session.CapTranscript); nil for others (pty sessions keep
// none) and unknown IDs.
func (f *Fleet) Transcript(id string, after uint64) []session.Entry {
	f.mu.Lock()
	e := f.sessions[id]
	f.mu.Unlock()
	if e == nil {
		return nil
	}
	if t, ok := e.m.(Transcripter); ok {
		return t.Transcript(after)
	}
	return nil
}

// Presets returns the spawnable agents: the built-ins (claude, codex,
// aider, gemini, shell) in that order, each possibly replaced by a config
// [[agent]] of the same name, then the config's other agents in file order.
func (f *Fleet) Presets() []Preset {
	ps := launch.Presets(f.cfg)
	for i := range ps {
		ps[i].Found = len(ps[i].Argv) > 0 && found(ps[i].Argv[0])
	}
	return ps
}

// Send gives the session the user's input: typed into a terminal, or one
// message for a session that takes messages.
func (f *Fleet) Send(id string, in session.Input) error {
	e, err := f.getAlive("write to", id)
	if err != nil {
		return err
	}
	if err := e.m.Send(in); err != nil {
		return fmt.Errorf("write to %s: %w", id, err)
	}
	return nil
}

// Resize sets the size of the session's screen (session.CapScreen).
func (f *Fleet) Resize(id string, cols, rows uint16) error {
	if cols == 0 || rows == 0 {
		return fmt.Errorf("resize %s: invalid size %dx%d", id, cols, rows)
	}
	e, err := f.get(id)
	if err != nil {
		return err
	}
	s, ok := e.m.(Screener)
	if !ok {
		return capError("resize", e, session.CapScreen)
	}
	if err := s.Resize(cols, rows); err != nil {
		return fmt.Errorf("resize %s: %w", id, err)
	}
	return nil
}

// Seen tells session id that a user has seen it (a member that keeps a
// Done flag: a followed pty session's SEEN); others have nothing to clear.
func (f *Fleet) Seen(id string) error {
	e, err := f.get(id)
	if err != nil {
		return err
	}
	if s, ok := e.m.(Seener); ok {
		return s.Seen()
	}
	return nil
}

// Peek is the last n rows of session id's screen as it is now that have
// text, oldest first: a preview for a list of what wants the user. A
// session without a screen has none.
func (f *Fleet) Peek(id string, n int) ([]string, error) {
	e, err := f.get(id)
	if err != nil {
		return nil, err
	}
	p, ok := e.m.(Peeker)
	if !ok {
		if s, ok := e.m.(Screener); ok { // an ended session: its last screen
			if snap := s.Screen(); snap != nil {
				return lastRows(snap.Lines(), n), nil
			}
		}
		return nil, nil
	}
	rows, err := p.Peek()
	if err != nil {
		return nil, err
	}
	return lastRows(rows, n), nil
}

// lastRows is the last n of rows that have text, right-trimmed.
func lastRows(rows []string, n int) []string {
	var out []string
	for i := len(rows) - 1; i >= 0 && len(out) < n; i-- {
		if r := strings.TrimRight(rows[i], " "); strings.TrimSpace(r) != "" {
			out = append(out, r)
		}
	}
	slices.Reverse(out)
	return out
}

// View tells session id that a user looks at it here (on) or no longer
// (off), for its STATE's viewed (session.Info.Viewed) that every client
// reads; a member that cannot say so ignores it.
func (f *Fleet) View(id string, on bool) error {
	e, err := f.get(id)
	if err != nil {
		return err
	}
	if v, ok := e.m.(Viewer); ok {
		return v.View(on)
	}
	return nil
}

// Answer gives choice to the dialog session id shows — a permission, a
// question — as its supervisor checks and types it (supervisor
// Session.Answer): what was chosen, or why nothing was written.
func (f *Fleet) Answer(id string, c answer.Choice, question string) (answer.Given, error) {
	e, err := f.get(id)
	if err != nil {
		return answer.Given{}, err
	}
	a, ok := e.m.(Answerer)
	if !ok {
		return answer.Given{}, fmt.Errorf("answer: %s is %s: it has no screen whose prompt could be answered", id, e.kind.Describe())
	}
	g, err := a.Answer(c, question)
	if err != nil {
		return answer.Given{}, fmt.Errorf("%s not answered: %w", id, err)
	}
	return g, nil
}

// Prompt is the dialog session id shows now (its question and options), as
// Answer would read it, or why there is none.
func (f *Fleet) Prompt(id string) (answer.Prompt, error) {
	e, err := f.get(id)
	if err != nil {
		return answer.Prompt{}, err
	}
	a, ok := e.m.(Answerer)
	if !ok {
		return answer.Prompt{}, fmt.Errorf("%s is %s: it has no screen whose prompt could be read", id, e.kind.Describe())
	}
	return a.Prompt()
}

// Kill stops the session: for a pty session SIGTERM to its process group
// and SIGKILL after the kill grace (a followed session's own supervisor's
// grace), or SIGKILL at once with force. The Exited event follows.
func (f *Fleet) Kill(id string, force bool) error {
	e, err := f.getAlive("kill", id)
	if err != nil {
		return err
	}
	if err := e.m.Stop(force); err != nil {
		return fmt.Errorf("kill %s: %w", id, err)
	}
	return nil
}

// Interrupt interrupts the session's current turn without ending it
// (session.CapInterrupt).
func (f *Fleet) Interrupt(id string) error {
	e, err := f.getAlive("interrupt", id)
	if err != nil {
		return err
	}
	in, ok := e.m.(Interrupter)
	if !ok {
		return capError("interrupt", e, session.CapInterrupt)
	}
	if err := in.Interrupt(); err != nil {
		return fmt.Errorf("interrupt %s: %w", id, err)
	}
	return nil
}

// Remove forgets a session whose program has exited; it refuses a live one.
// The session's record goes too: the user has seen it end.
func (f *Fleet) Remove(id string) error {
	f.mu.Lock()
	e := f.sessions[id]
	var err error
	switch {
	case f.closed:
		err = ErrClosed
	case e == nil:
		err = fmt.Errorf("no session %q", id)
	case !e.exited:
		err = fmt.Errorf("remove %s: session is still running (kill it first)", id)
	default:
		delete(f.sessions, id)
		f.publish(session.Removed, id, nil)
	}
	f.mu.Unlock()
	if err != nil {
		return err
	}
	f.forgetRecord(e) // file I/O: outside the lock
	return nil
}

// dropEnded unlists session id if it has ended and is not being started
// again here (another host's session of that ID was run again there).
func (f *Fleet) dropEnded(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e := f.sessions[id]; e != nil && e.exited && !e.restarting && !f.closed {
		delete(f.sessions, id)
		f.publish(session.Removed, id, nil)
	}
}

// Endpoint opens an interactive attachment (session.CapAttach): over its
// socket for a pty session.
func (f *Fleet) Endpoint(id string) (attach.Endpoint, error) {
	e, err := f.get(id)
	if err != nil {
		return nil, err
	}
	a, ok := e.m.(Attacher)
	if !ok {
		return nil, capError("attach", e, session.CapAttach)
	}
	ep, err := a.Endpoint()
	if err != nil {
		return nil, fmt.Errorf("attach %s: %w", id, err)
	}
	return ep, nil
}

// Close stops the fleet: every member is hung up (Member.Hangup): pty
// sessions keep running (their supervisors are processes of their own) and
// only their connections close; members living in this process end. The
// records of sessions it showed as ended are removed: they have been seen.
// It waits for every member's Done and every goroutine the fleet started.
// Next then returns the remaining events and ErrClosed. Close is
// idempotent.
func (f *Fleet) Close() error {
	f.closeOnce.Do(func() {
		f.mu.Lock()
		hosts := slices.Clone(f.hosts)
		f.mu.Unlock()
		for _, h := range hosts {
			h.Close() // its sessions leave the list; they go on on the host
		}
		f.mu.Lock()
		f.closed = true
		close(f.done)
		ms := make([]Member, 0, len(f.sessions))
		var seen []*entry
		for _, e := range f.sessions {
			ms = append(ms, e.m)
			if e.exited && !f.reader {
				seen = append(seen, e)
			}
		}
		f.mu.Unlock()
		for _, e := range seen {
			f.forgetRecord(e)
		}
		if f.watcher != nil {
			f.watcher.Close()
		}
		for _, m := range ms {
			m.Hangup() // its watchDone (f.wg) waits for its Done
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

// adoptable reports whether id may become a followed session: nobody in
// this process claims it and it is unknown, or known only as an exited
// adopted session (a later `run` reused the ID). f.mu is held.
func (f *Fleet) adoptable(id string) bool {
	if f.claiming[id] || f.adopting[id] {
		return false
	}
	e := f.sessions[id]
	return e == nil || (e.adopted && e.exited)
}

// StopOwned stops every live session a dashboard started (Info.Owned) as a
// closing terminal would (Hanger: SIGHUP, SIGTERM a second later, SIGKILL
// after the kill grace; other members Stop(false)) and waits until each has
// ended and the supervisors this process launched for them have exited, or
// ctx ends. It returns how many it stopped; the error names those left.
// Sessions a user started with `run` are left alone.
func (f *Fleet) StopOwned(ctx context.Context) (int, error) {
	f.mu.Lock()
	var es []*entry
	for _, e := range f.sessions {
		if !e.exited {
			es = append(es, e)
		}
	}
	f.mu.Unlock()
	type stopping struct {
		e   *entry
		err error // the request failed: fine if it ends anyway (it was ending)
	}
	var stopped []stopping
	for _, e := range es {
		select {
		case <-e.m.Done():
			continue // ended or vanished meanwhile
		default:
		}
		if !e.m.Info().Owned {
			continue
		}
		var err error
		if h, ok := e.m.(Hanger); ok {
			err = h.HangupTerminal()
		} else {
			err = e.m.Stop(false)
		}
		stopped = append(stopped, stopping{e, err})
	}
	var errs []error
	for _, s := range stopped {
		wait := ctx
		if s.err != nil {
			var cancel context.CancelFunc
			wait, cancel = context.WithTimeout(ctx, time.Second)
			defer cancel()
		}
		select {
		case <-s.e.m.Done():
		case <-wait.Done():
			if s.err == nil && ctx.Err() != nil {
				// Not ended by the grace (its supervisor ignored HANGUP:
				// an older one): SIGKILL, and a last moment to end.
				s.e.m.Stop(true)
				select {
				case <-s.e.m.Done():
					continue
				case <-time.After(time.Second):
				}
			}
			err := s.err
			if err == nil {
				err = errors.New("still running")
			}
			errs = append(errs, fmt.Errorf("stop %s: %w", s.e.id, err))
			continue
		}
		if err := waitSupervisor(ctx, s.e.m); err != nil {
			errs = append(errs, fmt.Errorf("stop %s: %w", s.e.id, err))
		}
	}
	return len(stopped), errors.Join(errs...)
}

// waitSupervisor waits until the supervisor process of m's session has
// exited: reaped, if this process launched it; else gone (its record names
// it), as seen in the process table.
func waitSupervisor(ctx context.Context, m Member) error {
	if x, ok := m.(supervised); ok && x.supervisorDone() != nil {
		select {
		case <-x.supervisorDone():
			return nil
		case <-ctx.Done():
			return errors.New("its supervisor is still running")
		}
	}
	rd, ok := m.(recorded)
	if !ok || rd.record().Supervisor <= 0 {
		return nil
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !proc.Gone(rd.record().Supervisor) {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return errors.New("its supervisor is still running")
		}
	}
	return nil
}

// supervised is a member whose supervisor process this process launched.
type supervised interface{ supervisorDone() <-chan struct{} }
