package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/blemeesd"
	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/wire/blemees"
)

// Blemees follows a blemeesd over its socket — the daemon the dashboard
// shows headless Claude sessions of, whether it started it or not —
// listing its live sessions in a fleet as members of kind
// session.KindHeadless, each with the transcript and state its stream
// gives (claudeView).
//
// Finding the sessions: blemees/1 has no call that lists a daemon's live
// sessions (status_reply only counts them; list_sessions {cwd} lists one
// project directory's stored transcripts merged with its live sessions).
// heimdall's daemon has an extension for it (wire/blemees
// SessionsFeed: heimdall.follow_sessions): the follower asks once per
// connection for the sessions open, then is told of each one opened and
// closed. It watches (§5.14) every session the daemon runs — attached
// (with an owner connection) or detached (its owner, a dashboard that
// quit, say, has gone) — replaying from the start of the daemon's ring; a
// closed one has exited. A daemon without the extension (another
// blemeesd) shows only the sessions opened through the follower.
//
// A watcher cannot drive a session (claude.user, interrupt and close stay
// with its owner), so Send, Stop and Interrupt of a watched session are
// refused with the reason. Sessions the dashboard opens through the
// follower (Open) are owned by its connection; when the fleet closes they
// are left to the daemon (detached, §5.9), not closed.
//
// When the connection to the daemon ends (it stopped, or restarts under
// systemd) the members vanish (the fleet removes them; an owned session
// is soft-detached by the daemon, §5.9) and the follower dials again, with
// a backoff of up to 10 s, until Close: a daemon that answers again has its
// sessions listed again.
type Blemees struct {
	f      *Fleet
	socket string
	opt    BlemeesOptions
	stop   chan struct{}
	closed sync.Once
	done   chan struct{}
	told   *queue[notice] // the pushes of c not yet handled, in order

	mu      sync.Mutex
	c       *blemees.Conn             // nil while the daemon does not answer
	daemon  string                    // the last hello_ack's daemon
	members map[string]*blemeesMember // by session id
}

// notice is a push of the sessions feed: a session opened, or closed.
type notice struct {
	opened *blemees.LiveSession
	closed string
}

// BlemeesOptions configure a Blemees.
type BlemeesOptions struct {
	// OnTurn, if not nil, gets each live turn's usage (session_info's, as
	// headless.Usage) with the member's fleet ID;
	// turns replayed when a session is first watched are not reported.
	OnTurn func(id string, u headless.Usage)
	// Client names the dashboard in hello ("heimdall-tui").
	Client string
	// Names is the file the names of the sessions opened here are kept
	// in (headlessnames.go), so that a dashboard that follows them later
	// lists them under those names ("": none kept).
	Names string
	// Redial is the first wait before dialing a daemon that went away
	// again (0: 250 ms); each failure doubles it, up to 40 times it.
	Redial time.Duration
}

// FollowBlemees connects to the daemon on socket and follows its sessions
// in f (see Blemees) until Close. It fails if the daemon does not answer
// now; later outages are waited out.
func FollowBlemees(ctx context.Context, f *Fleet, socket string, opt BlemeesOptions) (*Blemees, error) {
	if opt.Redial <= 0 {
		opt.Redial = 250 * time.Millisecond
	}
	if opt.Client == "" {
		opt.Client = "heimdall-tui"
	}
	b := &Blemees{f: f, socket: socket, opt: opt, stop: make(chan struct{}), done: make(chan struct{}),
		told: newQueue[notice](), members: map[string]*blemeesMember{}}
	if err := b.dial(ctx); err != nil {
		return nil, fmt.Errorf("follow blemeesd on %s: %w", socket, err)
	}
	go b.loop()
	return b, nil
}

// dial connects to the daemon; the connection is b's once it answered.
func (b *Blemees) dial(ctx context.Context) error {
	c, err := blemees.Dial(ctx, b.socket, b.opt.Client, b.dispatch)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.c, b.daemon = c, c.Hello.Daemon
	b.told.take() // an earlier connection's
	b.mu.Unlock()
	return nil
}

// conn is the connection to the daemon, nil while it does not answer.
func (b *Blemees) conn() *blemees.Conn {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.c
}

// Close stops following: the members are unlisted (as on a hangup: the
// sessions the dashboard opened are closed, the others left to their
// owners) and the connection closed.
func (b *Blemees) Close() {
	b.closed.Do(func() { close(b.stop) })
	<-b.done
}

// Daemon is the daemon's name and version, as its last hello_ack said.
func (b *Blemees) Daemon() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.daemon
}

// Done is closed once the follower has stopped (Close).
func (b *Blemees) Done() <-chan struct{} { return b.done }

// dispatch routes a frame (the reader goroutine): a session's to its
// member, the sessions feed's to the follower's loop (which may make
// requests, which this goroutine's reading answers).
func (b *Blemees) dispatch(fr blemees.Frame) {
	switch fr.Type {
	case blemees.TypeSessionOpened:
		var o struct {
			Session blemees.LiveSession `json:"session"`
		}
		if fr.Decode(&o) == nil && o.Session.SessionID != "" {
			b.tell(notice{opened: &o.Session})
		}
		return
	case blemees.TypeSessionClosed:
		if fr.SessionID != "" {
			b.tell(notice{closed: fr.SessionID})
		}
		return
	}
	b.mu.Lock()
	m := b.members[fr.SessionID]
	b.mu.Unlock()
	if m == nil {
		return
	}
	if fr.Type == "blemeesd.session_taken" {
		var t struct {
			By int `json:"by_peer_pid"`
		}
		fr.Decode(&t)
		m.takeover(t.By)
		return
	}
	if ev, ok := blemeesd.EventOf(fr); ok {
		m.deliver(ev)
	}
}

func (b *Blemees) tell(n notice) { b.told.push(n) }

func (b *Blemees) log() *slog.Logger { return b.f.log.With("component", "blemeesd-follow") }

func (b *Blemees) loop() {
	defer close(b.done)
	for {
		c := b.conn()
		if !b.followConn(c) {
			return
		}
		b.log().Info("daemon connection ended; its sessions are unlisted until it answers again", "err", c.Err())
		if !b.redial() {
			return
		}
		b.log().Info("daemon answers again", "daemon", b.Daemon())
	}
}

// followConn follows the daemon's sessions over c until it ends (false:
// Close was called, the members are hung up and c is closed).
func (b *Blemees) followConn(c *blemees.Conn) bool {
	fr, err := b.request(blemees.TypeFollowSessions, nil)
	if err != nil {
		b.log().Warn("the daemon does not tell its sessions (heimdall.follow_sessions): only those opened here are listed", "daemon", b.Daemon(), "err", err)
	}
	var rows struct {
		Sessions []blemees.LiveSession `json:"sessions"`
	}
	fr.Decode(&rows)
	for _, row := range rows.Sessions {
		b.follow(row)
	}
	for {
		select {
		case <-b.told.Ready():
			for _, n := range b.told.take() {
				if n.opened != nil {
					b.follow(*n.opened)
				} else if m := b.member(n.closed); m != nil {
					m.exit()
				}
			}
		case <-b.stop:
			b.endAll(func(m *blemeesMember) { m.hangup() })
			c.Close()
			return false
		case <-c.Done():
			b.mu.Lock()
			b.c = nil
			b.mu.Unlock()
			b.endAll(func(m *blemeesMember) { m.vanish() })
			return true
		}
	}
}

// redial dials until the daemon answers (true) or Close (false), waiting
// Redial (250 ms) after the first failure, doubling up to 40 times that
// (10 s).
func (b *Blemees) redial() bool {
	wait := b.opt.Redial
	for {
		select {
		case <-b.stop:
			return false
		case <-time.After(wait):
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := b.dial(ctx)
		cancel()
		if err == nil {
			return true
		}
		b.log().Debug("redial", "err", err)
		wait = min(2*wait, 40*b.opt.Redial)
	}
}

// member is session sid's member, nil if none.
func (b *Blemees) member(sid string) *blemeesMember {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.members[sid]
}

// followed lists the members.
func (b *Blemees) followed() []*blemeesMember {
	b.mu.Lock()
	defer b.mu.Unlock()
	ms := make([]*blemeesMember, 0, len(b.members))
	for _, m := range b.members {
		ms = append(ms, m)
	}
	return ms
}

// endAll ends every member with end and waits for them.
func (b *Blemees) endAll(end func(*blemeesMember)) {
	ms := b.followed()
	for _, m := range ms {
		end(m)
		<-m.done
	}
}

// errNoDaemon: the followed daemon does not answer now.
var errNoDaemon = errors.New("blemeesd does not answer (the dashboard dials it again)")

func (b *Blemees) request(typ string, fields map[string]any) (blemees.Frame, error) {
	c := b.conn()
	if c == nil {
		return blemees.Frame{}, errNoDaemon
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Request(ctx, typ, fields)
}

// send writes a frame that gets no reply.
func (b *Blemees) send(typ string, fields map[string]any) error {
	c := b.conn()
	if c == nil {
		return errNoDaemon
	}
	return c.Send(typ, fields)
}

// follow lists session row, unless it is followed already: watched, or,
// when it is detached and a dashboard opened it (its name is kept), taken
// over (blemees/1 open with resume, as on a restart), so that the
// dashboard that comes back drives it as the one that opened it did.
func (b *Blemees) follow(row blemees.LiveSession) {
	sid := row.SessionID
	b.mu.Lock()
	if b.members[sid] != nil {
		b.mu.Unlock()
		return
	}
	m := newBlemeesMember(b, sid)
	b.members[sid] = m // before watch: the replay follows its ack
	b.mu.Unlock()
	name := nameOf(b.opt.Names, sid)
	if !row.Attached && name != "" {
		b.forget(m) // openOwned lists its own
		spec := HeadlessSpec{ID: name, Dir: row.Cwd, Model: row.Model}
		err := addHeadless(b.f, sid, name, func(id string, r Reporter) (Member, error) { return b.openOwned(id, sid, spec, true, r) })
		if err != nil {
			b.log().Info("blemeesd session not taken over", "session_id", sid, "err", err)
		}
		return
	}
	err := addHeadless(b.f, sid, name, func(id string, r Reporter) (Member, error) {
		m.id, m.r, m.dir, m.model = id, r, row.Cwd, row.Model
		fr, err := b.request("blemeesd.watch", map[string]any{"session_id": sid, "last_seen_seq": 0})
		if err != nil {
			return nil, err
		}
		var w struct {
			LastSeq uint64 `json:"last_seq"`
		}
		fr.Decode(&w)
		m.liveAfter = w.LastSeq
		go m.loop()
		return m, nil
	})
	if err != nil {
		b.forget(m)
		b.log().Info("blemeesd session not followed", "session_id", sid, "err", err)
	}
}

// forget unlists m, unless its session already has a newer member (a
// restart).
func (b *Blemees) forget(m *blemeesMember) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.members[m.sid] == m {
		delete(b.members, m.sid)
	}
}

// blemeesMember is a session of a standalone daemon the dashboard
// watches, or owns (opened through the follower, until another client
// takes it over). The connection's reader queues its events (deliver); its
// goroutine feeds them to its claudeView.
type blemeesMember struct {
	b         *Blemees
	sid       string
	id        string // the fleet's
	r         Reporter
	v         *claudeView
	dir       string
	model     string // session_info's, until claude's init says
	started   time.Time
	liveAfter uint64 // the last seq when the watch began: later turns are live

	wake     chan struct{}
	stop     chan struct{} // Hangup: unwatch
	stopOnce sync.Once
	exited   chan struct{} // the daemon no longer knows the session
	exitOnce sync.Once
	vanished bool // set before stop: the connection is gone
	done     chan struct{}

	mu      sync.Mutex
	queue   []headless.Event
	own     bool // this connection owns the session: it drives it
	taken   bool // set by a session_taken not yet handled: watch instead
	takenBy int  // the new owner's pid (0: not known)
	// usage is the session's tokens per day, from session_info after
	// each live turn (its cumulative totals: what grew since the last
	// counts today); counted the totals last seen.
	usage   session.Usage
	counted session.Tokens
}

func newBlemeesMember(b *Blemees, sid string) *blemeesMember {
	return &blemeesMember{b: b, sid: sid, v: newClaudeView(sid), started: time.Now(),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), exited: make(chan struct{}), done: make(chan struct{})}
}

// owns reports whether this connection drives the session.
func (m *blemeesMember) owns() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.own && !m.taken
}

// takeover records a takeover (the reader goroutine): the member's
// goroutine watches the session from where it was.
func (m *blemeesMember) takeover(pid int) {
	m.mu.Lock()
	if m.own {
		m.taken, m.takenBy = true, pid
	}
	m.mu.Unlock()
	m.signal()
}

func (m *blemeesMember) signal() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

func (m *blemeesMember) deliver(ev headless.Event) {
	m.mu.Lock()
	m.queue = append(m.queue, ev)
	m.mu.Unlock()
	m.signal()
}

func (m *blemeesMember) exit() { m.exitOnce.Do(func() { close(m.exited) }) }

// vanish ends the member without Exited: the connection has gone.
func (m *blemeesMember) vanish() {
	m.mu.Lock()
	m.vanished = true
	m.mu.Unlock()
	m.stopOnce.Do(func() { close(m.stop) })
}

// hangup ends the member as the fleet closes: the dashboard stops
// following the session, which goes on in the daemon (one it owned is
// detached there, as its connection ends) for the next dashboard to show.
// Stop closes a session.
func (m *blemeesMember) hangup() {
	m.stopOnce.Do(func() { close(m.stop) })
}

func (m *blemeesMember) loop() {
	defer close(m.done)
	defer m.b.forget(m)
	for {
		select {
		case <-m.wake:
			m.drain()
		case <-m.exited:
			m.drain()
			m.r.Exited(0)
			return
		case <-m.stop:
			m.mu.Lock()
			vanished := m.vanished
			m.mu.Unlock()
			if !vanished {
				m.b.request("blemeesd.unwatch", map[string]any{"session_id": m.sid})
			}
			return
		}
	}
}

func (m *blemeesMember) drain() {
	m.mu.Lock()
	evs, taken := m.queue, m.taken
	m.queue = nil
	if taken {
		m.own, m.taken = false, false
	}
	m.mu.Unlock()
	if taken {
		// Another client took the session: go on as its watcher, from
		// the last event seen (§5.9: the ring is the session's).
		if _, err := m.b.request("blemeesd.watch", map[string]any{"session_id": m.sid, "last_seen_seq": m.v.seen()}); err != nil {
			m.b.log().Info("watch after takeover", "session_id", m.sid, "err", err)
		}
		m.r.Changed()
	}
	// Turns replayed on watch are history: only live ones are reported.
	i := 0
	for i < len(evs) && evs[i].Seq != 0 && evs[i].Seq <= m.liveAfter {
		i++
	}
	m.v.report(m.r, m.v.feed(evs[:i]))
	d := m.v.feed(evs[i:])
	m.v.report(m.r, d)
	if d.turnDone {
		fr, err := m.b.request("blemeesd.session_info", map[string]any{"session_id": m.sid})
		var u headless.Usage
		if err == nil && fr.Decode(&u) == nil {
			m.countUsage(u, time.Now())
			if m.b.opt.OnTurn != nil {
				m.b.opt.OnTurn(m.id, u)
			}
			m.r.Changed()
		}
	}
}

// countUsage adds what u's totals grew by since the last count to day
// now's row of the session's usage.
func (m *blemeesMember) countUsage(u headless.Usage, now time.Time) {
	total := session.Tokens{Input: u.Total["input_tokens"], Output: u.Total["output_tokens"],
		CacheWrite: u.Total["cache_creation_input_tokens"], CacheRead: u.Total["cache_read_input_tokens"]}
	m.mu.Lock()
	defer m.mu.Unlock()
	grew := session.Tokens{Input: total.Input - m.counted.Input, Output: total.Output - m.counted.Output,
		CacheWrite: total.CacheWrite - m.counted.CacheWrite, CacheRead: total.CacheRead - m.counted.CacheRead}
	if grew.Input < 0 || grew.Output < 0 || grew.CacheWrite < 0 || grew.CacheRead < 0 {
		grew = total // the daemon counts afresh (a restarted session)
	}
	m.counted = total
	day, model := now.Format(time.DateOnly), u.Model
	for i := range m.usage {
		if m.usage[i].Day == day && m.usage[i].Model == model {
			m.usage[i].Tokens = m.usage[i].Tokens.Add(grew)
			return
		}
	}
	m.usage = append(m.usage, session.UsageRow{Day: day, Model: model, Tokens: grew})
}

// Info implements Member.
// RunsOutside implements Outliver: the session is the daemon's.
func (m *blemeesMember) RunsOutside() {}

func (m *blemeesMember) Info() session.Info {
	in := session.Info{Dir: m.dir, Started: m.started, Alive: true, Owned: m.owns()}
	m.v.info(&in, m.model)
	m.mu.Lock()
	in.Usage = slices.Clone(m.usage)
	m.mu.Unlock()
	return in
}

// driveErr refuses what only a session's owner may do.
func (m *blemeesMember) driveErr(op string) error {
	return &CapError{Op: op, ID: m.id, Kind: session.KindHeadless, Reason: m.lacks(session.CapInterrupt)}
}

// lacks says why a followed session cannot be interrupted (or sent to, or
// closed).
func (m *blemeesMember) lacks(c session.Caps) string {
	if c != session.CapInterrupt {
		return ""
	}
	m.mu.Lock()
	by := m.takenBy
	m.mu.Unlock()
	if by != 0 {
		return fmt.Sprintf("another client (pid %d) took the session over; a blemees/1 watcher cannot send, interrupt or close it", by)
	}
	return "a session followed on a standalone blemeesd is driven by its owner only (a blemees/1 watcher cannot send, interrupt or close it)"
}

// Send implements Member: the text is a user turn, if the dashboard owns
// the session (else refused: a watcher cannot send a turn).
func (m *blemeesMember) Send(in session.Input) error {
	if !m.owns() {
		return m.driveErr("send")
	}
	text := strings.TrimRight(string(in.Data), "\r\n")
	msg := map[string]any{"role": "user", "content": text}
	seq, changed, err := m.v.sendTurn(text,
		func() error { return m.b.send("claude.user", map[string]any{"session_id": m.sid, "message": msg}) },
		func() session.State { return session.Thinking })
	if err != nil {
		return fmt.Errorf("send to %s: %w", m.id, err)
	}
	m.r.Dirty(seq)
	if changed {
		m.r.Changed()
	}
	return nil
}

// Stop implements Member: the session is closed, if the dashboard owns
// it (else refused: a watcher cannot close it).
func (m *blemeesMember) Stop(bool) error {
	if !m.owns() {
		return m.driveErr("stop")
	}
	if _, err := m.b.request("blemeesd.close", map[string]any{"session_id": m.sid}); err != nil {
		return fmt.Errorf("close %s: %w", m.id, err)
	}
	m.exit()
	return nil
}

// Hangup implements Member (see hangup).
func (m *blemeesMember) Hangup() { m.hangup() }

// Done implements Member.
func (m *blemeesMember) Done() <-chan struct{} { return m.done }

// Transcript implements Transcripter.
func (m *blemeesMember) Transcript(after uint64) []session.Entry { return m.v.transcript(after) }
