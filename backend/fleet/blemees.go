package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/blemeesd"
	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/wire/blemees"
)

// Blemees follows a standalone blemeesd (one the dashboard did not start)
// over its socket, listing its live sessions in a fleet as members of kind
// session.KindHeadless that show the same transcript and state as the
// sessions of the dashboard's own daemon (they feed the same claudeView).
//
// Finding the sessions: blemees/1 has no call that lists a daemon's live
// sessions — status_reply only counts them, and list_sessions {cwd} lists
// one project directory's transcripts merged with its live sessions. So
// the follower polls list_sessions for each of its directories (the
// dashboard's working directory) and watches (§5.14) every row that is
// attached (live, with an owner connection), replaying from the start of
// the daemon's ring. Sessions in other directories, and live sessions
// whose owner has gone (detached), are not found. A followed session is
// asked for its session_info on each poll: once the daemon says it does
// not know it (closed, or reaped) the member has exited.
//
// A watcher cannot drive a session (claude.user, interrupt and close stay
// with its owner), so Send, Stop and Interrupt are refused with the
// reason. When the connection to the daemon ends the members vanish (the
// fleet removes them); the follower does not reconnect.
type Blemees struct {
	f      *Fleet
	c      *blemees.Conn
	opt    BlemeesOptions
	stop   chan struct{}
	closed sync.Once
	done   chan struct{}

	mu      sync.Mutex
	members map[string]*blemeesMember // by session id
}

// BlemeesOptions configure a Blemees.
type BlemeesOptions struct {
	// Dirs are the project directories whose sessions are followed.
	Dirs []string
	// Poll is how often the directories and the followed sessions are
	// listed (0: 2 s).
	Poll time.Duration
	// OnTurn, if not nil, gets each live turn's usage (session_info's, as
	// headless.Usage) with the member's fleet ID, as NewHeadless's does;
	// turns replayed when a session is first watched are not reported.
	OnTurn func(id string, u headless.Usage)
	// Client names the dashboard in hello ("heimdall-tui").
	Client string
}

// FollowBlemees connects to the daemon on socket and follows its sessions
// in f (see Blemees) until Close or the daemon goes away.
func FollowBlemees(ctx context.Context, f *Fleet, socket string, opt BlemeesOptions) (*Blemees, error) {
	if opt.Poll <= 0 {
		opt.Poll = 2 * time.Second
	}
	if opt.Client == "" {
		opt.Client = "heimdall-tui"
	}
	b := &Blemees{f: f, opt: opt, stop: make(chan struct{}), done: make(chan struct{}), members: map[string]*blemeesMember{}}
	c, err := blemees.Dial(ctx, socket, opt.Client, b.dispatch)
	if err != nil {
		return nil, fmt.Errorf("follow blemeesd on %s: %w", socket, err)
	}
	b.c = c
	go b.loop()
	return b, nil
}

// Close stops following: the members are unlisted (as on a hangup) and
// the connection closed. The daemon's sessions go on.
func (b *Blemees) Close() {
	b.closed.Do(func() { close(b.stop) })
	<-b.done
}

// Daemon is the daemon's name and version, as its hello_ack says.
func (b *Blemees) Daemon() string { return b.c.Hello.Daemon }

// Done is closed once the follower has stopped (Close, or the daemon went
// away).
func (b *Blemees) Done() <-chan struct{} { return b.done }

// dispatch routes a frame to its session's member (the reader goroutine).
func (b *Blemees) dispatch(fr blemees.Frame) {
	ev, ok := blemeesd.EventOf(fr)
	if !ok {
		return
	}
	b.mu.Lock()
	m := b.members[fr.SessionID]
	b.mu.Unlock()
	if m != nil {
		m.deliver(ev)
	}
}

func (b *Blemees) log() *slog.Logger { return b.f.log.With("component", "blemeesd-follow") }

func (b *Blemees) loop() {
	defer close(b.done)
	defer b.c.Close()
	t := time.NewTicker(b.opt.Poll)
	defer t.Stop()
	for {
		b.poll()
		select {
		case <-t.C:
		case <-b.stop:
			b.endAll(func(m *blemeesMember) { m.Hangup() })
			return
		case <-b.c.Done():
			b.log().Info("daemon connection ended; its sessions are unlisted", "err", b.c.Err())
			b.endAll(func(m *blemeesMember) { m.vanish() })
			return
		}
	}
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

func (b *Blemees) request(typ string, fields map[string]any) (blemees.Frame, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return b.c.Request(ctx, typ, fields)
}

// poll checks the followed sessions and follows new ones.
func (b *Blemees) poll() {
	ms := b.followed()
	for _, m := range ms {
		if _, err := b.request("blemeesd.session_info", map[string]any{"session_id": m.sid}); isUnknown(err) {
			m.exit()
		}
	}
	for _, dir := range b.opt.Dirs {
		fr, err := b.request("blemeesd.list_sessions", map[string]any{"cwd": dir})
		if err != nil {
			b.log().Debug("list_sessions", "cwd", dir, "err", err)
			continue
		}
		var rows struct {
			Sessions []blemees.SessionSummary `json:"sessions"`
		}
		fr.Decode(&rows)
		for _, row := range rows.Sessions {
			if row.Attached {
				b.follow(row.SessionID)
			}
		}
	}
}

func isUnknown(err error) bool {
	var e *blemees.Error
	return errors.As(err, &e) && e.Code == blemees.CodeSessionUnknown
}

// follow watches session sid and lists it, unless it is followed already.
func (b *Blemees) follow(sid string) {
	b.mu.Lock()
	if b.members[sid] != nil {
		b.mu.Unlock()
		return
	}
	m := &blemeesMember{b: b, sid: sid, v: newClaudeView(sid, true), started: time.Now(),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), exited: make(chan struct{}), done: make(chan struct{})}
	b.members[sid] = m // before watch: the replay follows its ack
	b.mu.Unlock()
	err := addHeadless(b.f, sid, func(id string, r Reporter) (Member, error) {
		m.id, m.r = id, r
		if fr, err := b.request("blemeesd.session_info", map[string]any{"session_id": sid}); err == nil {
			var si struct {
				Cwd   *string `json:"cwd"`
				Model *string `json:"model"`
			}
			fr.Decode(&si)
			if si.Cwd != nil {
				m.dir = *si.Cwd
			}
			if si.Model != nil {
				m.model = *si.Model
			}
		}
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
		b.mu.Lock()
		delete(b.members, sid)
		b.mu.Unlock()
		b.log().Info("blemeesd session not followed", "session_id", sid, "err", err)
	}
}

// blemeesMember is a session of a standalone daemon the dashboard
// watches. The connection's reader queues its events (deliver); its
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

	mu    sync.Mutex
	queue []headless.Event
}

func (m *blemeesMember) deliver(ev headless.Event) {
	m.mu.Lock()
	m.queue = append(m.queue, ev)
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

func (m *blemeesMember) exit() { m.exitOnce.Do(func() { close(m.exited) }) }

// vanish ends the member without Exited: the connection has gone.
func (m *blemeesMember) vanish() {
	m.mu.Lock()
	m.vanished = true
	m.mu.Unlock()
	m.stopOnce.Do(func() { close(m.stop) })
}

func (m *blemeesMember) loop() {
	defer close(m.done)
	defer func() {
		m.b.mu.Lock()
		delete(m.b.members, m.sid)
		m.b.mu.Unlock()
	}()
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
	evs := m.queue
	m.queue = nil
	m.mu.Unlock()
	// Turns replayed on watch are history: only live ones are reported.
	i := 0
	for i < len(evs) && evs[i].Seq != 0 && evs[i].Seq <= m.liveAfter {
		i++
	}
	m.v.report(m.r, m.v.feed(evs[:i]))
	d := m.v.feed(evs[i:])
	m.v.report(m.r, d)
	if d.turnDone && m.b.opt.OnTurn != nil {
		fr, err := m.b.request("blemeesd.session_info", map[string]any{"session_id": m.sid})
		var u headless.Usage
		if err == nil && fr.Decode(&u) == nil {
			m.b.opt.OnTurn(m.id, u)
		}
	}
}

// Info implements Member.
func (m *blemeesMember) Info() session.Info {
	in := session.Info{Dir: m.dir, Started: m.started, Alive: true}
	m.v.info(&in, m.model)
	return in
}

// driveErr refuses what only a session's owner may do.
func (m *blemeesMember) driveErr(op string) error {
	return &CapError{Op: op, ID: m.id, Kind: session.KindHeadless, Reason: m.lacks(session.CapInterrupt)}
}

// lacks says why a followed session cannot be interrupted (or sent to, or
// closed).
func (m *blemeesMember) lacks(c session.Caps) string {
	if c == session.CapInterrupt {
		return "a session followed on a standalone blemeesd is driven by its owner only (a blemees/1 watcher cannot send, interrupt or close it)"
	}
	return ""
}

// Send implements Member: refused (a watcher cannot send a turn).
func (m *blemeesMember) Send(session.Input) error { return m.driveErr("send") }

// Stop implements Member: refused (a watcher cannot close the session).
func (m *blemeesMember) Stop(bool) error { return m.driveErr("stop") }

// Hangup implements Member: the member unwatches; the session goes on.
func (m *blemeesMember) Hangup() { m.stopOnce.Do(func() { close(m.stop) }) }

// Done implements Member.
func (m *blemeesMember) Done() <-chan struct{} { return m.done }

// Transcript implements Transcripter.
func (m *blemeesMember) Transcript(after uint64) []session.Entry { return m.v.transcript(after) }
