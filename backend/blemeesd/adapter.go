// Package blemeesd is the blemeesd-compatible daemon: a headless.Manager
// served over a Unix socket with wire/blemees (Backend adapts one to the
// other), its configuration (defaults < config file < environment <
// flags, §8) and its lifecycle (Daemon: listen, serve, shut down as §9.5
// says). `heimdall-tui blemeesd` runs it; the dashboard starts one
// (detached) when none answers, and follows it (fleet.Blemees) with
// heimdall's extension (blemees.SessionsFeed).
package blemeesd

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/wire/blemees"
)

// Backend implements blemees.Backend over a headless.Manager.
type Backend struct {
	M *headless.Manager
	// Config is the effective configuration status_reply shows.
	Config map[string]any

	mu    sync.Mutex
	sinks map[blemees.Client]*sink

	hookOnce  sync.Once
	feedMu    sync.Mutex // held while a follower's list or a push is queued
	followers map[blemees.Client]bool
}

// sink delivers a session's events to one client as frames.
type sink struct{ c blemees.Client }

func (k *sink) Deliver(ev headless.Event) { k.c.Send(Frame(ev)) }

func (k *sink) Taken(session string, byPID int) {
	k.c.Send(blemees.SessionTakenFrame(session, byPID))
}

// Frame is ev as the frame a client gets.
func Frame(ev headless.Event) []byte {
	switch ev.Kind {
	case headless.EventClaude:
		return blemees.ClaudeFrame(ev.Session, ev.Seq, ev.Raw)
	case headless.EventStderr:
		return blemees.StderrFrame(ev.Session, ev.Seq, ev.Text)
	case headless.EventCrashed:
		return blemees.ErrorFrame("", ev.Session, ev.Seq, blemees.CodeClaudeCrashed, ev.Text)
	case headless.EventOAuthExpired:
		return blemees.ErrorFrame("", ev.Session, ev.Seq, blemees.CodeOAuthExpired, ev.Text)
	case headless.EventInterrupted:
		return blemees.InterruptedFrame(ev.Session, ev.Seq, ev.WasIdle)
	case headless.EventReplayGap:
		return blemees.ReplayGapFrame(ev.Session, ev.Since, ev.First)
	case headless.EventFault:
		// The spec has no code of its own for it: an unexpected error
		// of the session, not fatal.
		return blemees.ErrorFrame("", ev.Session, ev.Seq, blemees.CodeInternal, ev.Text)
	}
	return blemees.ErrorFrame("", ev.Session, ev.Seq, blemees.CodeInternal, "unknown event "+ev.Kind.String())
}

func (b *Backend) sinkFor(c blemees.Client) *sink {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sinks == nil {
		b.sinks = make(map[blemees.Client]*sink)
	}
	k := b.sinks[c]
	if k == nil {
		k = &sink{c: c}
		b.sinks[c] = k
	}
	return k
}

// codeOf maps the headless errors to blemees/1 error codes.
func codeOf(err error) error {
	if err == nil {
		return nil
	}
	var code string
	switch {
	case errors.Is(err, headless.ErrExists):
		code = blemees.CodeSessionExists
	case errors.Is(err, headless.ErrUnknown), errors.Is(err, headless.ErrNotOwner):
		code = blemees.CodeSessionUnknown
	case errors.Is(err, headless.ErrBusy):
		code = blemees.CodeSessionBusy
	case errors.Is(err, headless.ErrSpawn), errors.Is(err, headless.ErrTooMany):
		code = blemees.CodeSpawnFailed
	case errors.Is(err, headless.ErrUnsafeFlag):
		code = blemees.CodeUnsafeFlag
	case errors.Is(err, headless.ErrOAuthExpired):
		code = blemees.CodeOAuthExpired
	case errors.Is(err, headless.ErrShuttingDown):
		code = blemees.CodeDaemonShutdown
	case errors.Is(err, headless.ErrInvalidOption):
		code = blemees.CodeInvalidMessage
	default:
		code = blemees.CodeInternal
	}
	return blemees.Errorf(code, err.Error())
}

func (b *Backend) session(id string) (*headless.Session, error) {
	s, ok := b.M.Session(id)
	if !ok {
		return nil, blemees.Errorf(blemees.CodeSessionUnknown, "no such session: "+id)
	}
	return s, nil
}

// Open implements blemees.Backend.
func (b *Backend) Open(c blemees.Client, req *blemees.OpenRequest, ack func(pid int, lastSeq uint64)) error {
	spec := headless.Spec{ID: req.SessionID, Dir: req.Dir(), Args: req.Args(), Resume: req.Resume}
	_, err := b.M.Open(spec, headless.Attach{Sink: b.sinkFor(c), LastSeen: req.LastSeen(), PeerPID: c.PeerPID(), Ack: ack})
	return codeOf(err)
}

// Send implements blemees.Backend.
func (b *Backend) Send(c blemees.Client, id string, message json.RawMessage) error {
	s, err := b.session(id)
	if err != nil {
		return err
	}
	return codeOf(s.Send(b.sinkFor(c), message))
}

// Interrupt implements blemees.Backend.
func (b *Backend) Interrupt(c blemees.Client, id string) error {
	s, err := b.session(id)
	if err != nil {
		return err
	}
	return codeOf(s.Interrupt(b.sinkFor(c)))
}

// Close implements blemees.Backend.
func (b *Backend) Close(c blemees.Client, id string, del bool) error {
	s, err := b.session(id)
	if err != nil {
		return err
	}
	return codeOf(s.Close(b.sinkFor(c), del))
}

// Watch implements blemees.Backend.
func (b *Backend) Watch(c blemees.Client, id string, lastSeen int64, ack func(uint64)) error {
	s, err := b.session(id)
	if err != nil {
		return err
	}
	return codeOf(s.Watch(b.sinkFor(c), lastSeen, ack))
}

// Unwatch implements blemees.Backend.
func (b *Backend) Unwatch(c blemees.Client, id string) (bool, error) {
	s, ok := b.M.Session(id)
	if !ok {
		return false, nil
	}
	return s.Unwatch(b.sinkFor(c)), nil
}

// SessionInfo implements blemees.Backend.
func (b *Backend) SessionInfo(id string) (*blemees.SessionInfo, error) {
	s, err := b.session(id)
	if err != nil {
		return nil, err
	}
	inf := s.Info()
	u := inf.Usage
	out := &blemees.SessionInfo{Turns: u.Turns, LastTurnUsage: u.LastTurn, CumulativeUsage: u.Total,
		ContextTokens: u.ContextTokens, Attached: inf.Attached, SubprocessRunning: inf.Running, LastSeq: inf.LastSeq}
	if inf.Model != "" {
		out.Model = &inf.Model
	}
	if inf.Dir != "" {
		out.Cwd = &inf.Dir
	}
	if u.LastTurnAtMs > 0 {
		out.LastTurnAtMs = &u.LastTurnAtMs
	}
	if out.LastTurnUsage == nil {
		out.LastTurnUsage = map[string]int64{}
	}
	if out.CumulativeUsage == nil {
		out.CumulativeUsage = map[string]int64{}
	}
	for _, k := range []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"} {
		if _, ok := out.CumulativeUsage[k]; !ok {
			out.CumulativeUsage[k] = 0
		}
	}
	return out, nil
}

// ListSessions implements blemees.Backend.
func (b *Backend) ListSessions(cwd string) ([]blemees.SessionSummary, error) {
	rows, err := b.M.List(cwd)
	if err != nil {
		return nil, blemees.Errorf(blemees.CodeInternal, err.Error())
	}
	out := make([]blemees.SessionSummary, len(rows))
	for i, r := range rows {
		out[i] = blemees.SessionSummary{SessionID: r.ID, Attached: r.Attached, MtimeMs: max(r.Modified.UnixMilli(), 0), Size: r.Size, Preview: r.Preview}
	}
	return out, nil
}

// Status implements blemees.Backend.
func (b *Backend) Status() blemees.Status {
	n := b.M.Counts()
	return blemees.Status{
		Sessions: blemees.StatusSessions{Total: n.Total, Attached: n.Attached, Detached: n.Detached, ActiveTurns: n.ActiveTurns},
		Config:   b.Config,
	}
}

// FollowSessions implements blemees.SessionsFeed.
func (b *Backend) FollowSessions(c blemees.Client, reply func([]blemees.LiveSession)) {
	b.hookOnce.Do(func() {
		b.M.OnOpen(func(s *headless.Session) { b.push(blemees.SessionOpenedFrame(liveOf(s.Info()))) })
		b.M.OnClose(func(s *headless.Session) { b.push(blemees.SessionClosedFrame(s.ID())) })
	})
	b.feedMu.Lock()
	defer b.feedMu.Unlock()
	if b.followers == nil {
		b.followers = make(map[blemees.Client]bool)
	}
	b.followers[c] = true
	var rows []blemees.LiveSession
	for _, s := range b.M.Sessions() {
		rows = append(rows, liveOf(s.Info()))
	}
	reply(rows)
}

func liveOf(inf headless.Info) blemees.LiveSession {
	return blemees.LiveSession{SessionID: inf.ID, Cwd: inf.Dir, Model: inf.Model, Attached: inf.Attached, LastSeq: inf.LastSeq}
}

// push queues frame for every follower of the sessions.
func (b *Backend) push(frame []byte) {
	b.feedMu.Lock()
	defer b.feedMu.Unlock()
	for c := range b.followers {
		c.Send(frame)
	}
}

// Detach implements blemees.Backend.
func (b *Backend) Detach(c blemees.Client) {
	b.feedMu.Lock()
	delete(b.followers, c)
	b.feedMu.Unlock()
	b.mu.Lock()
	k := b.sinks[c]
	delete(b.sinks, c)
	b.mu.Unlock()
	if k != nil {
		b.M.Detach(k)
	}
}

// EventOf is the inverse of Frame, for a client following a daemon: the
// session event a frame a watcher gets (claude.*, blemeesd.stderr, the
// claude_crashed and oauth_expired errors, a session's sequenced internal
// error (EventFault), blemeesd.interrupted,
// blemeesd.replay_gap) stands for; ok is false for any other frame. A
// claude event's Raw is the frame as read (its type still prefixed
// "claude."; Type is the native one).
func EventOf(f blemees.Frame) (ev headless.Event, ok bool) {
	ev = headless.Event{Seq: f.Seq, Session: f.SessionID}
	if typ, found := strings.CutPrefix(f.Type, "claude."); found {
		ev.Kind, ev.Type, ev.Raw = headless.EventClaude, typ, f.Raw
		return ev, true
	}
	var body struct {
		Line    string `json:"line"`
		Code    string `json:"code"`
		Message string `json:"message"`
		WasIdle bool   `json:"was_idle"`
		Since   uint64 `json:"since_seq"`
		First   uint64 `json:"first_available_seq"`
	}
	if f.Decode(&body) != nil {
		return ev, false
	}
	switch {
	case f.Type == "blemeesd.stderr":
		ev.Kind, ev.Text = headless.EventStderr, body.Line
	case f.Type == "blemeesd.error" && body.Code == blemees.CodeClaudeCrashed:
		ev.Kind, ev.Text = headless.EventCrashed, body.Message
	case f.Type == "blemeesd.error" && body.Code == blemees.CodeOAuthExpired:
		ev.Kind, ev.Text = headless.EventOAuthExpired, body.Message
	case f.Type == "blemeesd.error" && body.Code == blemees.CodeInternal && f.SessionID != "" && f.Seq != 0:
		ev.Kind, ev.Text = headless.EventFault, body.Message
	case f.Type == "blemeesd.interrupted":
		ev.Kind, ev.WasIdle = headless.EventInterrupted, body.WasIdle
	case f.Type == "blemeesd.replay_gap":
		ev.Kind, ev.Since, ev.First = headless.EventReplayGap, body.Since, body.First
	default:
		return ev, false
	}
	return ev, true
}
