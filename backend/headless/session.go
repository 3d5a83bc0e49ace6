package headless

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Session is one headless claude session. Its methods are safe for
// concurrent use.
//
// Locks, always taken in this order: ctl serializes control operations
// (start, reattach, send, interrupt, close); emitMu makes seq order the
// delivery order and an attach's replay atomic with live events (it is
// held while sinks' Deliver runs, so a sink never calls back into the
// session from Deliver); mu guards the fields.
type Session struct {
	m  *Manager
	id string

	ctl    sync.Mutex
	emitMu sync.Mutex
	mu     sync.Mutex

	dir        string
	args       []string
	seq        uint64
	ring       ring
	owner      Sink
	watchers   []Sink
	sinks      []Sink // owner + watchers, rebuilt on change (read by emit)
	child      *child
	turn       bool // a user message was sent and its result has not come
	finishing  bool // stop the child after the turn's result (detached)
	closed     bool
	done       chan struct{} // closed by Close
	state      session.State
	model      string
	usage      Usage
	oauth      bool // claude said its token expired; cleared by the next init
	detachedAt time.Time
	idle       *time.Timer
	dropped    int // stderr lines over the rate limit, in all
	log        *eventLog
	started    time.Time
	lastActive time.Time
}

func newSession(m *Manager, spec Spec) *Session {
	now := time.Now()
	return &Session{m: m, id: spec.ID, dir: spec.Dir, args: slices.Clone(spec.Args), done: make(chan struct{}),
		ring: newRing(m.cfg.RingSize), started: now, lastActive: now}
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// argv is claude's arguments for a start (resume: --resume, else
// --session-id).
func (s *Session) argv(resume bool) []string {
	idFlag := "--session-id"
	if resume {
		idFlag = "--resume"
	}
	return append([]string{"-p", "--verbose", idFlag, s.id,
		"--input-format", "stream-json", "--output-format", "stream-json"}, s.args...)
}

// start starts a new session's child and attaches a (ctl held).
func (s *Session) start(spec Spec, a Attach) error {
	if dir := s.m.cfg.EventLogDir; dir != "" {
		l, tail, u, err := openLog(dir, s.id, spec.Resume, s.m.cfg.RingSize, s.m.cfg.MaxLine)
		if err != nil {
			return fmt.Errorf("event log: %w", err)
		}
		s.log = l
		for _, ev := range tail {
			ev.Session = s.id
			s.ring.push(ev)
			s.seq = ev.Seq
		}
		s.usage = u
		s.model = u.Model
	}
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	if err := s.spawn(spec.Resume); err != nil {
		if s.log != nil {
			s.log.close()
			s.log = nil
		}
		return err
	}
	s.m.log.Info("session open", "session_id", s.id, "resume", spec.Resume, "cwd", s.dir, "replayed_from_log", s.seq)
	s.mu.Lock()
	s.owner = a.Sink
	s.rebuildSinksLocked()
	s.mu.Unlock()
	s.ackAndReplay(a)
	return nil
}

// reattach gives the session to a (Spec.Resume of a session we have).
func (s *Session) reattach(spec Spec, a Attach) error {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	s.settleChild()
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrUnknown, s.id)
	}
	prev, c := s.owner, s.child
	s.finishing = false
	s.stopIdleLocked()
	if c == nil {
		// A new start with what this open asked for.
		s.dir, s.args = spec.Dir, slices.Clone(spec.Args)
	}
	s.mu.Unlock()
	if c == nil {
		if err := s.spawn(true); err != nil {
			return err
		}
	}
	if prev != nil && prev != a.Sink {
		prev.Taken(s.id, a.PeerPID)
		s.m.log.Info("session taken over", "session_id", s.id, "by_peer_pid", a.PeerPID)
	}
	s.mu.Lock()
	s.owner = a.Sink
	s.watchers = slices.DeleteFunc(s.watchers, func(k Sink) bool { return k == a.Sink })
	s.rebuildSinksLocked()
	s.mu.Unlock()
	s.m.log.Info("session reattached", "session_id", s.id)
	s.ackAndReplay(a)
	return nil
}

// ackAndReplay acks an attach and replays what it missed (emitMu held).
func (s *Session) ackAndReplay(a Attach) {
	s.mu.Lock()
	pid := 0
	if s.child != nil {
		pid = s.child.p.PID()
	}
	last, first := s.seq, s.ring.first()
	var evs []Event
	var gap *Event
	if a.LastSeen < 0 {
		evs = s.ring.after(0)
	} else if seen := uint64(a.LastSeen); seen < last {
		evs = s.ring.after(seen)
		if first == 0 {
			first = last + 1
		}
		if seen+1 < first {
			gap = &Event{Session: s.id, Kind: EventReplayGap, Since: seen, First: first}
		}
	}
	s.mu.Unlock()
	if a.Ack != nil {
		a.Ack(pid, last)
	}
	if gap != nil {
		a.Sink.Deliver(*gap)
	}
	for _, ev := range evs {
		a.Sink.Deliver(ev)
	}
}

func (s *Session) rebuildSinksLocked() {
	sinks := make([]Sink, 0, 1+len(s.watchers))
	if s.owner != nil {
		sinks = append(sinks, s.owner)
	}
	s.sinks = append(sinks, s.watchers...)
}

func (s *Session) ownedBy(k Sink) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return k != nil && s.owner == k
}

// emit numbers ev, keeps it (ring, log) and delivers it to the owner and
// the watchers.
func (s *Session) emit(ev Event) { s.emitObserved(ev, nil) }

// emitObserved is emit of a claude event read as l.
func (s *Session) emitObserved(ev Event, read *Line) {
	s.emitMu.Lock()
	s.mu.Lock()
	s.seq++
	ev.Seq, ev.Session = s.seq, s.id
	s.lastActive = time.Now()
	ended := false
	if read != nil {
		ended = s.observeLocked(read)
	}
	s.ring.push(ev)
	sinks, l, finish := s.sinks, s.log, ended && s.finishing
	var u Usage
	if ended && l != nil {
		u = s.usage.clone()
	}
	s.mu.Unlock()
	if l != nil {
		l.append(ev)
		if ended {
			l.saveUsage(u)
		}
	}
	for _, k := range sinks {
		k.Deliver(ev)
	}
	s.emitMu.Unlock()
	if finish {
		// The detached turn is over: the transcript is whole, stop.
		s.m.log.Info("finishing turn done; stopping claude", "session_id", s.id)
		s.stopChild()
	}
}

// observeLocked updates the state from a claude event; it reports a
// turn's end (a result).
func (s *Session) observeLocked(l *Line) bool {
	if l.Init() {
		if l.Model != "" {
			s.model = l.Model
			s.usage.Model = l.Model
		}
		s.oauth = false
	}
	if l.TurnEnd() {
		s.turn = false
		s.state = session.Idle
		s.usage.add(l.Usage, time.Now())
		return true
	}
	if st, ok := l.State(); ok && s.turn {
		s.state = st
	}
	return false
}

// Send sends one user message (a Claude Code stream-json "message": role
// user, content a string or blocks) as the session's next turn. Only the
// owner may; one turn at a time (ErrBusy). A session whose child has gone
// gets a new one with --resume first.
func (s *Session) Send(from Sink, message json.RawMessage) error {
	s.ctl.Lock()
	s.mu.Lock()
	err := s.checkOwnerLocked(from)
	if err == nil && s.turn {
		err = ErrBusy
	}
	s.mu.Unlock()
	var c *child
	if err == nil {
		c = s.settleChild()
	}
	s.mu.Lock()
	oauth := s.oauth
	s.mu.Unlock()
	if err == nil && c == nil {
		err = s.spawn(true)
	}
	if err == nil && oauth {
		err = ErrOAuthExpired
	}
	if err != nil {
		s.ctl.Unlock()
		return err
	}
	line, err := json.Marshal(struct {
		Type      string          `json:"type"`
		Message   json.RawMessage `json:"message"`
		SessionID string          `json:"session_id"`
	}{"user", message, s.id})
	if err != nil {
		s.ctl.Unlock()
		return fmt.Errorf("%w: message: %v", ErrInvalidOption, err)
	}
	s.mu.Lock()
	if c = s.child; c == nil {
		// The child started for this turn has exited already (and was
		// reaped): its exit said why; the next turn starts another.
		s.mu.Unlock()
		s.ctl.Unlock()
		return fmt.Errorf("%w: claude exited before the message reached it", ErrSpawn)
	}
	s.turn, s.state = true, session.Thinking
	s.lastActive = time.Now()
	s.mu.Unlock()
	s.ctl.Unlock()
	s.m.log.Debug("user message", "session_id", s.id, "message", Redact(message))
	// A child that died meanwhile fails the write; its exit reports the
	// crash of the turn.
	c.stdin.Write(append(line, '\n'))
	return nil
}

func (s *Session) checkOwnerLocked(from Sink) error {
	switch {
	case s.closed:
		return fmt.Errorf("%w: %s", ErrUnknown, s.id)
	case from != nil && s.owner != from:
		return fmt.Errorf("%w: %s", ErrNotOwner, s.id)
	}
	return nil
}

// settleChild waits for a child being stopped (or already gone) to be
// done and returns the session's child, nil if none runs (ctl held).
func (s *Session) settleChild() *child {
	s.mu.Lock()
	c := s.child
	s.mu.Unlock()
	if c != nil && (c.exp.Load() || c.exited()) {
		<-c.done
		s.mu.Lock()
		c = s.child
		s.mu.Unlock()
	}
	return c
}

// Interrupt ends the turn in flight: SIGTERM to claude, SIGKILL after the
// interrupt grace, an EventInterrupted once it has gone (what it wrote
// before is delivered first), and a new child with --resume. With no turn
// in flight it only emits EventInterrupted{WasIdle}.
func (s *Session) Interrupt(from Sink) error {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	s.mu.Lock()
	err := s.checkOwnerLocked(from)
	c, active := s.child, s.turn
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.m.log.Info("interrupt", "session_id", s.id, "turn_active", active)
	if !active || c == nil {
		s.emit(Event{Kind: EventInterrupted, WasIdle: true})
		return nil
	}
	c.expect()
	c.p.Stop()
	<-c.done
	s.emit(Event{Kind: EventInterrupted})
	return s.spawn(true)
}

// Close ends the session: claude is stopped (SIGTERM, SIGKILL after the
// interrupt grace) and the session forgotten. With del, Claude Code's
// transcript of it and its event log and usage sidecar are removed too.
// Only the owner may close (from nil: anyone).
func (s *Session) Close(from Sink, del bool) error {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	s.mu.Lock()
	if err := s.checkOwnerLocked(from); err != nil {
		s.mu.Unlock()
		return err
	}
	s.closed = true
	s.stopIdleLocked()
	c, dir := s.child, s.dir
	s.mu.Unlock()
	s.m.forget(s)
	if c != nil {
		c.expect()
		c.p.Stop()
		<-c.done
	}
	s.closeLog()
	close(s.done)
	s.m.closed(s)
	if del {
		if dir == "" {
			dir, _ = os.Getwd()
		}
		if safeID(s.id) {
			if err := os.Remove(filepath.Join(s.m.projectDir(dir), s.id+".jsonl")); err != nil && !os.IsNotExist(err) {
				s.m.log.Warn("remove session transcript", "session_id", s.id, "err", err)
			}
		}
		if s.m.cfg.EventLogDir != "" {
			removeLog(s.m.cfg.EventLogDir, s.id)
		}
	}
	s.m.log.Info("session closed", "session_id", s.id, "delete", del)
	return nil
}

// Done is closed once the session has been closed (Close, or reaped after
// its idle timeout) and its child has gone. A Manager's Shutdown stops
// children but closes no session.
func (s *Session) Done() <-chan struct{} { return s.done }

// safeID reports whether id can name a file in a directory.
func safeID(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, "/\x00")
}

// Watch makes k a watcher: it gets the session's events (after a replay
// from lastSeen, as Attach.LastSeen) without owning it. ack, if set, is
// called with the last seq before the replay.
func (s *Session) Watch(k Sink, lastSeen int64, ack func(lastSeq uint64)) error {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrUnknown, s.id)
	}
	if !slices.Contains(s.watchers, k) && s.owner != k {
		s.watchers = append(s.watchers, k)
		s.rebuildSinksLocked()
	}
	s.mu.Unlock()
	var a Attach
	a.Sink, a.LastSeen = k, lastSeen
	if ack != nil {
		a.Ack = func(_ int, last uint64) { ack(last) }
	}
	s.ackAndReplay(a)
	return nil
}

// Unwatch stops k watching; it reports whether k was.
func (s *Session) Unwatch(k Sink) bool {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.watchers)
	s.watchers = slices.DeleteFunc(s.watchers, func(w Sink) bool { return w == k })
	s.rebuildSinksLocked()
	return len(s.watchers) != n
}

// detach is k's soft detach (Manager.Detach).
func (s *Session) detach(k Sink) {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchers = slices.DeleteFunc(s.watchers, func(w Sink) bool { return w == k })
	if s.owner == k && k != nil {
		s.owner = nil
		s.detachedAt = time.Now()
		if s.turn {
			s.finishing = true
		} else if s.child != nil {
			s.child.expect()
			s.child.p.Stop()
		}
		at := s.detachedAt
		s.stopIdleLocked()
		s.idle = time.AfterFunc(s.m.cfg.IdleTimeout, func() { s.reap(at) })
		s.m.log.Info("session detached", "session_id", s.id, "finishing", s.finishing)
	}
	s.rebuildSinksLocked()
}

func (s *Session) stopIdleLocked() {
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
}

// reap closes the session if it is still detached since at.
func (s *Session) reap(at time.Time) {
	s.mu.Lock()
	still := s.owner == nil && s.detachedAt.Equal(at) && !s.closed
	s.mu.Unlock()
	if still {
		s.m.log.Info("reaping idle detached session", "session_id", s.id)
		s.Close(nil, false)
	}
}

// finishOrStop is a shutdown's first step: a turn in flight finishes, an
// idle child is stopped.
func (s *Session) finishOrStop() {
	s.mu.Lock()
	if s.turn {
		s.finishing = true
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.stopChild()
}

// stopChild stops the child, if any (SIGTERM, SIGKILL after the grace).
func (s *Session) stopChild() {
	s.mu.Lock()
	c := s.child
	s.mu.Unlock()
	if c != nil {
		c.expect()
		c.p.Stop()
	}
}

func (s *Session) closeLog() {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.mu.Lock()
	l := s.log
	s.log = nil
	s.mu.Unlock()
	if l != nil {
		l.close()
	}
}

// Info is a session at an instant.
type Info struct {
	ID, Dir, Model string
	PID            int // the child's (0: none running)
	Running        bool
	Attached       bool // it has an owner
	Watchers       int
	TurnActive     bool
	Finishing      bool
	State          session.State
	LastSeq        uint64
	Usage          Usage
	StderrDropped  int
	Started        time.Time
	LastActive     time.Time
	DetachedAt     time.Time // zero while attached
}

// Info returns the session's state.
func (s *Session) Info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	inf := Info{ID: s.id, Dir: s.dir, Model: s.model, Running: s.child != nil, Attached: s.owner != nil,
		Watchers: len(s.watchers), TurnActive: s.turn, Finishing: s.finishing, State: s.state,
		LastSeq: s.seq, Usage: s.usage.clone(), StderrDropped: s.dropped, Started: s.started,
		LastActive: s.lastActive}
	if s.child != nil {
		inf.PID = s.child.p.PID()
	}
	if s.owner == nil {
		inf.DetachedAt = s.detachedAt
	}
	return inf
}

// Redact stands for a message body in logs: its length only.
func Redact(b []byte) string { return fmt.Sprintf("<redacted %d chars>", len([]rune(string(b)))) }
