// Package headless is the `claude -p` stream-json session kind: a Manager of
// Sessions, each one `claude -p --input-format stream-json --output-format
// stream-json --verbose` child spawned when the session is opened, fed user
// messages on stdin and read event by event on stdout.
//
// A session's output is a stream of Events numbered by Seq from 1: every
// claude event (its stdout line, verbatim), rate-limited stderr lines,
// crash and OAuth errors, interrupts. The stream is kept in a bounded ring
// (replay from a last seen seq, with a gap when the ring rolled over) and,
// with Config.EventLogDir, in an append-only log DIR/ID.jsonl (reloaded on
// reopen, so replay survives a restart of the process) beside the usage
// counters DIR/ID.usage.json (rewritten by atomic rename after each turn).
//
// Sessions outlive whoever drives them. A Sink owns a session (it may send
// user turns, interrupt, close); others may watch. When the owner goes
// (Detach), a turn in flight runs to its result before the child is
// stopped ("finishing"), an idle child is stopped at once, and the session
// is reaped after Config.IdleTimeout unless someone reopens it with Resume,
// which may also take it over from a live owner (Sink.Taken).
//
// These are domain types: no wire protocol. wire/blemees speaks blemees/1
// over a socket; backend/blemeesd adapts it to a Manager, and the dashboard
// can drive the same Manager in process.
package headless

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/jsonl"
)

// Errors of the Manager and its Sessions; callers map them to their
// protocol's codes with errors.Is.
var (
	ErrExists        = errors.New("session already exists")
	ErrUnknown       = errors.New("no such session")
	ErrNotOwner      = errors.New("session is not owned by this client")
	ErrBusy          = errors.New("a turn is already in flight")
	ErrSpawn         = errors.New("cannot start claude")
	ErrUnsafeFlag    = errors.New("refused flag")
	ErrTooMany       = errors.New("too many sessions")
	ErrOAuthExpired  = errors.New("OAuth token expired: run `claude auth` to re-authenticate")
	ErrShuttingDown  = errors.New("shutting down")
	ErrInvalidOption = errors.New("invalid session option")
)

// UnsafeFlags are the claude flags no session may get, however spelled:
// with a value glued on (`--from-pr=1`), in another case, or by their short
// names (unsafeShort).
var UnsafeFlags = []string{"--dangerously-skip-permissions", "--allow-dangerously-skip-permissions", "--bare", "--continue", "--from-pr"}

// unsafeShort are the short names of UnsafeFlags.
var unsafeShort = map[string]string{"-c": "--continue"}

// CheckArgs refuses args carrying an unsafe flag (ErrUnsafeFlag, wrapped).
// Args are claude's argv as the daemon builds it: a flag's value is glued
// to it (`--model=x`, see blemees.OpenRequest.Args), so an argument that
// does not start with "-" is data, and what follows a flag's "=" too.
func CheckArgs(args []string) error {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(a, "=")
		name = strings.ToLower(name)
		if long, ok := unsafeShort[name]; ok {
			name = long
		}
		if slices.Contains(UnsafeFlags, name) {
			return fmt.Errorf("%w: %s", ErrUnsafeFlag, name)
		}
	}
	return nil
}

// Config tunes a Manager. Zero fields take the defaults noted.
type Config struct {
	Claude         string        // the claude program (default "claude" on $PATH)
	RingSize       int           // events kept per session for replay (1024)
	EventLogDir    string        // durable event log and usage sidecars ("": none)
	MaxLine        int           // longest stdout line (jsonl.DefaultMaxLine)
	IdleTimeout    time.Duration // a detached session is reaped after this (900 s)
	MaxSessions    int           // sessions at once (64)
	MaxPerOwner    int           // sessions one Sink owns (32)
	StderrLines    int           // stderr lines forwarded per window (50)
	StderrWindow   time.Duration // (10 s)
	InterruptGrace time.Duration // SIGTERM → SIGKILL (500 ms)
	// Home is where Claude Code keeps its sessions
	// (Home/.claude/projects/...); default $HOME.
	Home   string
	Logger *slog.Logger
}

func (c *Config) defaults() {
	if c.Claude == "" {
		c.Claude = "claude"
	}
	if c.RingSize <= 0 {
		c.RingSize = 1024
	}
	if c.MaxLine <= 0 {
		c.MaxLine = jsonl.DefaultMaxLine
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 900 * time.Second
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = 64
	}
	if c.MaxPerOwner <= 0 {
		c.MaxPerOwner = 32
	}
	if c.StderrLines <= 0 {
		c.StderrLines = 50
	}
	if c.StderrWindow <= 0 {
		c.StderrWindow = 10 * time.Second
	}
	if c.InterruptGrace <= 0 {
		c.InterruptGrace = 500 * time.Millisecond
	}
	if c.Home == "" {
		c.Home, _ = os.UserHomeDir()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Spec is what a session is opened with.
type Spec struct {
	ID string
	// Dir is the child's working directory ("": the process's).
	Dir string
	// Args are claude's flags beyond those the Manager owns (-p, --verbose,
	// --input-format, --output-format, --session-id/--resume): --model,
	// --system-prompt, ... (wire/blemees maps the open fields of blemees/1).
	Args []string
	// Resume reattaches a session this Manager has (taking it over from a
	// live owner) or, if it has none, starts claude with --resume ID
	// (reloading the event log); without it the ID must be new and claude
	// gets --session-id ID.
	Resume bool
}

// Attach says who attaches to a session and how.
type Attach struct {
	Sink Sink
	// LastSeen is the highest seq the sink has seen: events after it are
	// replayed (a gap reported first if the ring no longer has them all).
	// Negative: replay the whole ring.
	LastSeen int64
	// PeerPID identifies the attaching client to the owner it takes a
	// session from (0: unknown).
	PeerPID int
	// Ack, if set, is called once attached, before any replayed event, with
	// the child's pid and the session's last seq.
	Ack func(pid int, lastSeq uint64)
}

// Sink receives a session's events. The Manager calls it with no lock
// held that the Sink's own calls into the Manager need, from the
// goroutine that produced the event.
type Sink interface {
	// Deliver gets the session's events in seq order (and a replay gap,
	// which has no seq, before a replay). It may block to push back: the
	// child's output is then not read until it returns. A sink that is
	// gone must return at once.
	Deliver(ev Event)
	// Taken tells the owner that the session was taken over (by the client
	// with process id byPID, 0 if unknown); no more events follow.
	Taken(session string, byPID int)
}

// Manager holds the sessions of one process.
type Manager struct {
	cfg Config
	log *slog.Logger

	mu       sync.Mutex
	sessions map[string]*Session
	closing  bool
	onOpen   []func(*Session)
	onClose  []func(*Session)
	wg       sync.WaitGroup // children not yet finished (Session.childDone)
}

// NewManager returns a Manager with cfg (defaults filled in).
func NewManager(cfg Config) *Manager {
	cfg.defaults()
	return &Manager{cfg: cfg, log: cfg.Logger, sessions: make(map[string]*Session)}
}

// Config returns the Manager's configuration with defaults filled in.
func (m *Manager) Config() Config { return m.cfg }

// Open opens spec's session for a.Sink, or reattaches to it (Spec.Resume).
// On a new session the child is started before Open returns (ErrSpawn if
// it cannot be); a reattached session whose child is gone gets a new one
// with --resume.
func (m *Manager) Open(spec Spec, a Attach) (*Session, error) {
	if spec.ID == "" {
		return nil, fmt.Errorf("%w: empty session id", ErrInvalidOption)
	}
	if err := CheckArgs(spec.Args); err != nil {
		return nil, err
	}
	if spec.Dir != "" && !filepath.IsAbs(spec.Dir) {
		abs, err := filepath.Abs(spec.Dir)
		if err != nil {
			return nil, fmt.Errorf("%w: cwd: %v", ErrInvalidOption, err)
		}
		spec.Dir = abs
	}
	m.mu.Lock()
	if m.closing {
		m.mu.Unlock()
		return nil, ErrShuttingDown
	}
	if s := m.sessions[spec.ID]; s != nil {
		m.mu.Unlock()
		if !spec.Resume {
			return nil, fmt.Errorf("%w: %s", ErrExists, spec.ID)
		}
		return s, s.reattach(spec, a)
	}
	if len(m.sessions) >= m.cfg.MaxSessions {
		m.mu.Unlock()
		return nil, fmt.Errorf("%w: max_concurrent_sessions (%d) reached", ErrTooMany, m.cfg.MaxSessions)
	}
	owned := 0
	for _, s := range m.sessions {
		if s.ownedBy(a.Sink) {
			owned++
		}
	}
	if owned >= m.cfg.MaxPerOwner {
		m.mu.Unlock()
		return nil, fmt.Errorf("%w: max_sessions_per_connection (%d) reached", ErrTooMany, m.cfg.MaxPerOwner)
	}
	s := newSession(m, spec)
	s.ctl.Lock()
	m.sessions[spec.ID] = s
	m.mu.Unlock()
	err := s.start(spec, a)
	s.ctl.Unlock()
	if err != nil {
		m.forget(s)
		return nil, err
	}
	m.mu.Lock()
	hooks := slices.Clone(m.onOpen)
	m.mu.Unlock()
	for _, fn := range hooks {
		fn(s)
	}
	return s, nil
}

// OnOpen calls fn with every session this Manager opens from now on (a new
// session, not a reattached one), after Open has started it and before Open
// returns, on Open's goroutine; OnClose with every session closed from now
// on (Close, or reaped), once it is forgotten, on Close's goroutine. fn
// must not block for long. They are how the daemon tells followers of its
// sessions (heimdall.follow_sessions); Sessions lists those open already.
func (m *Manager) OnOpen(fn func(*Session)) {
	m.mu.Lock()
	m.onOpen = append(m.onOpen, fn)
	m.mu.Unlock()
}

// OnClose: see OnOpen.
func (m *Manager) OnClose(fn func(*Session)) {
	m.mu.Lock()
	m.onClose = append(m.onClose, fn)
	m.mu.Unlock()
}

func (m *Manager) closed(s *Session) {
	m.mu.Lock()
	hooks := slices.Clone(m.onClose)
	m.mu.Unlock()
	for _, fn := range hooks {
		fn(s)
	}
}

// Session returns the session with id, if the Manager has it.
func (m *Manager) Session(id string) (*Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	return s, ok
}

// Sessions returns the Manager's sessions, sorted by id.
func (m *Manager) Sessions() []*Session {
	m.mu.Lock()
	ss := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		ss = append(ss, s)
	}
	m.mu.Unlock()
	slices.SortFunc(ss, func(a, b *Session) int { return strings.Compare(a.id, b.id) })
	return ss
}

func (m *Manager) forget(s *Session) {
	m.mu.Lock()
	if m.sessions[s.id] == s {
		delete(m.sessions, s.id)
	}
	m.mu.Unlock()
}

// Detach is the sink's soft detach from every session (its client went
// away): it stops watching, and a session it owns is detached (see the
// package doc).
func (m *Manager) Detach(k Sink) {
	for _, s := range m.Sessions() {
		s.detach(k)
	}
}

// Counts are the Manager's sessions by state.
type Counts struct {
	Total, Attached, Detached, ActiveTurns int
}

// Counts counts the sessions.
func (m *Manager) Counts() Counts {
	var c Counts
	for _, s := range m.Sessions() {
		inf := s.Info()
		c.Total++
		if inf.Attached {
			c.Attached++
		} else {
			c.Detached++
		}
		if inf.TurnActive {
			c.ActiveTurns++
		}
	}
	return c
}

// Shutdown stops every session: no more opens; a turn in flight may run to
// its result for up to grace (0: none), idle children are stopped at once;
// then what is left gets SIGTERM and, after the interrupt grace, SIGKILL.
// It returns once every child has been reaped, or when force (the budget
// of that last phase) has passed too.
func (m *Manager) Shutdown(grace, force time.Duration) {
	m.mu.Lock()
	m.closing = true
	m.mu.Unlock()
	ss := m.Sessions()
	for _, s := range ss {
		if grace > 0 {
			s.finishOrStop()
		} else {
			s.stopChild()
		}
	}
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	if grace > 0 {
		select {
		case <-done:
		case <-time.After(grace):
		}
	}
	for _, s := range ss {
		s.stopChild()
	}
	select {
	case <-done:
	case <-time.After(force):
		m.log.Warn("children still running after the shutdown budget", "budget", force)
	}
	for _, s := range ss {
		s.closeLog()
	}
}

// projectDir is where Claude Code keeps the sessions of cwd: every "/"
// replaced by "-".
func (m *Manager) projectDir(cwd string) string {
	return filepath.Join(m.cfg.Home, ".claude", "projects", strings.ReplaceAll(cwd, "/", "-"))
}
