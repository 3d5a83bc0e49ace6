package blemees

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/heimdall-tui/heimdall-tui/wire/jsonl"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// Client is a connection as the Backend sees it.
type Client interface {
	// Send queues a frame (one JSON object, no newline) for the
	// connection. It blocks while the connection's queue is full (the
	// backpressure of §9.3) and returns false at once if the connection
	// has gone (or goes meanwhile).
	Send(frame []byte) bool
	// PeerPID is the peer's process id (SO_PEERCRED; 0 if unknown).
	PeerPID() int
}

// Backend is what the server needs of a session manager. Methods get the
// Client asking; an *Error chooses the error frame's code, any other error
// is "internal". Events of sessions reach clients through Client.Send.
type Backend interface {
	// Open opens or reattaches req's session for c; on success it calls
	// ack (which queues blemeesd.opened) before it sends c any replayed
	// frame.
	Open(c Client, req *OpenRequest, ack func(pid int, lastSeq uint64)) error
	// Send is a claude.user turn (message: role user, content).
	Send(c Client, session string, message json.RawMessage) error
	// Interrupt interrupts session's turn; the backend sends the
	// blemeesd.interrupted frame (it has a seq).
	Interrupt(c Client, session string) error
	Close(c Client, session string, del bool) error
	// Watch subscribes c to session (ack queues blemeesd.watching, before
	// any replayed frame); lastSeen < 0: replay the whole ring.
	Watch(c Client, session string, lastSeen int64, ack func(lastSeq uint64)) error
	Unwatch(c Client, session string) (wasWatching bool, err error)
	SessionInfo(session string) (*SessionInfo, error)
	ListSessions(cwd string) ([]SessionSummary, error)
	Status() Status
	// Detach is c's soft detach: its connection has gone.
	Detach(c Client)
}

// SessionInfo is blemeesd.session_info_reply's body.
type SessionInfo struct {
	Model             *string          `json:"model"`
	Cwd               *string          `json:"cwd"`
	Turns             int              `json:"turns"`
	LastTurnAtMs      *int64           `json:"last_turn_at_ms"`
	LastTurnUsage     map[string]int64 `json:"last_turn_usage"`
	CumulativeUsage   map[string]int64 `json:"cumulative_usage"`
	ContextTokens     int64            `json:"context_tokens"`
	Attached          bool             `json:"attached"`
	SubprocessRunning bool             `json:"subprocess_running"`
	LastSeq           uint64           `json:"last_seq"`
}

// SessionSummary is a row of blemeesd.sessions.
type SessionSummary struct {
	SessionID string `json:"session_id"`
	Attached  bool   `json:"attached"`
	MtimeMs   int64  `json:"mtime_ms"`
	Size      int64  `json:"size"`
	Preview   string `json:"preview"`
}

// Status is the backend's part of blemeesd.status_reply.
type Status struct {
	Sessions StatusSessions `json:"sessions"`
	Config   map[string]any `json:"config"`
}

// StatusSessions counts sessions.
type StatusSessions struct {
	Total       int `json:"total"`
	Attached    int `json:"attached"`
	Detached    int `json:"detached"`
	ActiveTurns int `json:"active_turns"`
}

// Server serves blemees/1 connections: a unixsock.Handler. Set its fields
// before serving.
type Server struct {
	Backend Backend
	// Daemon names the daemon in hello_ack and status_reply ("blemeesd/…").
	Daemon string
	// ClaudeVersion is `claude --version`'s output (nil: unknown).
	ClaudeVersion *string
	SocketPath    string
	MaxLine       int // longest inbound line (jsonl.DefaultMaxLine)
	// MaxConns caps the connections served at once: one more gets an
	// error frame saying so and is closed (0: DefaultMaxConns).
	MaxConns int
	// InputBudget bounds what all connections together may hold of the
	// lines they are sending (0: DefaultInputBudget): the connection whose
	// line would go over it gets oversize_message and is closed.
	InputBudget  int64
	QueueSize    int           // frames queued per connection (1024)
	StallTimeout time.Duration // a write blocked this long is a slow consumer (30 s)
	Logger       *slog.Logger

	started time.Time
	once    sync.Once
	conns   atomic.Int64
	budget  *jsonl.Budget
}

// DefaultMaxConns and DefaultInputBudget are Server's defaults.
const (
	DefaultMaxConns    = 64
	DefaultInputBudget = 64 << 20
)

// Connections is the number of connections being served.
func (srv *Server) Connections() int { return int(srv.conns.Load()) }

func (srv *Server) init() {
	srv.once.Do(func() {
		srv.started = time.Now()
		if srv.MaxLine <= 0 {
			srv.MaxLine = jsonl.DefaultMaxLine
		}
		if srv.QueueSize <= 0 {
			srv.QueueSize = 1024
		}
		if srv.MaxConns <= 0 {
			srv.MaxConns = DefaultMaxConns
		}
		if srv.InputBudget <= 0 {
			srv.InputBudget = DefaultInputBudget
		}
		srv.budget = jsonl.NewBudget(srv.InputBudget)
		if srv.StallTimeout <= 0 {
			srv.StallTimeout = 30 * time.Second
		}
		if srv.Daemon == "" {
			srv.Daemon = "blemeesd/0.1.0"
		}
	})
}

// Start notes the daemon's start (for uptime) before the first connection.
func (srv *Server) Start() { srv.init() }

// finalFlush bounds the flush of the last frames of a closing connection.
const finalFlush = time.Second

// slowNotice is how long a slow consumer has to take its slow_consumer
// frame (it reaches a client that resumes reading meanwhile).
const slowNotice = 2 * time.Second

// conn is one client connection.
type conn struct {
	srv     *Server
	nc      net.Conn
	log     *slog.Logger
	peerPID int
	q       chan []byte
	quit    chan struct{} // reader → writer: flush and stop
	done    chan struct{} // the writer has stopped: Send fails
	fatal   atomic.Bool   // a fatal error frame was queued
	helloed bool
}

// Send implements Client.
func (c *conn) Send(frame []byte) bool {
	select {
	case <-c.done:
		return false
	default:
	}
	select {
	case c.q <- frame:
		return true
	case <-c.done:
		return false
	}
}

// PeerPID implements Client.
func (c *conn) PeerPID() int { return c.peerPID }

// ServeConn serves one connection (unixsock.Handler).
func (srv *Server) ServeConn(ctx context.Context, nc net.Conn) {
	srv.init()
	n := srv.conns.Add(1)
	defer srv.conns.Add(-1)
	if n > int64(srv.MaxConns) {
		log := unixsock.ConnLogger(ctx)
		log.Warn("connection refused: too many", "max", srv.MaxConns)
		nc.SetWriteDeadline(time.Now().Add(finalFlush))
		nc.Write(ErrorFrame("", "", 0, CodeInternal, fmt.Sprintf("too many connections: the daemon serves at most %d at once (max_connections)", srv.MaxConns)))
		nc.Close()
		return
	}
	c := &conn{srv: srv, nc: nc, log: unixsock.ConnLogger(ctx), q: make(chan []byte, srv.QueueSize),
		quit: make(chan struct{}), done: make(chan struct{})}
	if cred, err := unixsock.PeerCred(nc); err == nil {
		c.peerPID = int(cred.PID)
	}
	writerDone := make(chan struct{})
	go func() { c.writer(); close(writerDone) }()
	stopWatch := make(chan struct{})
	var shuttingDown atomic.Bool
	go func() {
		select {
		case <-ctx.Done():
			shuttingDown.Store(true)
			nc.SetReadDeadline(time.Now())
		case <-stopWatch:
		}
	}()
	c.readLoop(&shuttingDown)
	close(stopWatch)
	close(c.quit)
	<-writerDone
	srv.Backend.Detach(c)
	nc.Close()
	c.log.Info("connection closed")
}

func (c *conn) readLoop(shuttingDown *atomic.Bool) {
	r := jsonl.NewReader(c.nc, c.srv.MaxLine)
	r.SetBudget(c.srv.budget)
	defer r.Release()
	for {
		line, err := r.ReadLine()
		if err != nil {
			switch {
			case shuttingDown.Load():
				c.sendFatal("", "", CodeDaemonShutdown, "daemon shutting down")
			case errors.Is(err, jsonl.ErrBudget):
				c.sendFatal("", "", CodeOversizeMessage, fmt.Sprintf("frame refused: the daemon holds at most %d bytes of unfinished frames from all connections", c.srv.InputBudget))
			case errors.Is(err, jsonl.ErrLineTooLong):
				c.sendFatal("", "", CodeOversizeMessage, fmt.Sprintf("frame longer than %d bytes", c.srv.MaxLine))
			case err != io.EOF && !errors.Is(err, net.ErrClosed) && !errors.Is(err, os.ErrDeadlineExceeded):
				c.log.Debug("read", "err", err)
			}
			return
		}
		if !c.dispatch(line) || c.fatal.Load() {
			return
		}
	}
}

// sendError queues a non-fatal error frame.
func (c *conn) sendError(id, session, code, msg string) {
	c.log.Info("error frame", "code", code, "session_id", session, "message", msg)
	c.Send(ErrorFrame(id, session, 0, code, msg))
}

// sendFatal queues an error frame after which the connection closes.
func (c *conn) sendFatal(id, session, code, msg string) {
	c.sendError(id, session, code, msg)
	c.fatal.Store(true)
}

// writer writes queued frames, a batch per write, until quit (then it
// flushes what is queued, for at most finalFlush) or a write fails. A write
// blocked for StallTimeout is a slow consumer: the connection gets a
// slow_consumer error (after a newline ending the frame the write tore)
// and is closed.
func (c *conn) writer() {
	defer close(c.done)
	var buf []byte
	write := func(deadline time.Duration) bool {
		c.nc.SetWriteDeadline(time.Now().Add(deadline))
		n, err := c.nc.Write(buf)
		if err == nil {
			buf = buf[:0]
			return true
		}
		if errors.Is(err, os.ErrDeadlineExceeded) && deadline == c.srv.StallTimeout {
			c.log.Warn("slow consumer: closing the connection", "stalled", deadline)
			f := ErrorFrame("", "", 0, CodeSlowConsumer, fmt.Sprintf("client did not read for %v", deadline))
			var tail []byte
			if n > 0 && n < len(buf) {
				tail = append(tail, '\n')
			}
			c.nc.SetWriteDeadline(time.Now().Add(slowNotice))
			c.nc.Write(append(append(tail, f...), '\n'))
		}
		c.nc.Close() // the reader stops too
		return false
	}
	collect := func() {
		for len(buf) < 256<<10 {
			select {
			case f := <-c.q:
				buf = append(append(buf, f...), '\n')
			default:
				return
			}
		}
	}
	for {
		select {
		case f := <-c.q:
			buf = append(append(buf, f...), '\n')
			collect()
			if !write(c.srv.StallTimeout) {
				return
			}
		case <-c.quit:
			for {
				collect()
				if len(buf) == 0 || !write(finalFlush) {
					return
				}
			}
		}
	}
}

// envelope is what every inbound frame is first read as.
type envelope struct {
	Type      string          `json:"type"`
	ID        json.RawMessage `json:"id"`
	SessionID json.RawMessage `json:"session_id"`
}

// str is a string member's value ("" if absent or not a string).
func str(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// dispatch handles one inbound frame; false ends the connection.
func (c *conn) dispatch(line []byte) bool {
	// Frames are UTF-8 (§5.1). encoding/json would let bad bytes through
	// (as U+FFFD, or raw in a RawMessage bound for claude's stdin).
	if !utf8.Valid(line) {
		c.sendError("", "", CodeInvalidMessage, "frame is not valid UTF-8")
		return true
	}
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil || bytes.TrimSpace(line)[0] != '{' {
		c.sendError("", "", CodeInvalidMessage, "not a JSON object")
		return true
	}
	id, sid := str(env.ID), str(env.SessionID)
	fail := func(err error) {
		var e *Error
		if !errors.As(err, &e) {
			e = Errorf(CodeInternal, err.Error())
		}
		c.sendError(id, sid, e.Code, e.Message)
	}
	if !c.helloed && env.Type != "blemeesd.hello" {
		fail(Errorf(CodeInvalidMessage, "the first frame must be blemeesd.hello"))
		return true
	}
	b := c.srv.Backend
	switch env.Type {
	case "blemeesd.hello":
		var h struct {
			Protocol string `json:"protocol"`
			Client   string `json:"client"`
		}
		json.Unmarshal(line, &h)
		if h.Protocol != Protocol {
			c.sendFatal(id, "", CodeProtocolMismatch, fmt.Sprintf("protocol %q is not supported; this daemon speaks %s", h.Protocol, Protocol))
			return false
		}
		c.helloed = true
		c.log.Info("hello", "client", h.Client)
		c.Send(encode(struct {
			Type          string  `json:"type"`
			Daemon        string  `json:"daemon"`
			Protocol      string  `json:"protocol"`
			PID           int     `json:"pid"`
			ClaudeVersion *string `json:"claude_version"`
		}{"blemeesd.hello_ack", c.srv.Daemon, Protocol, os.Getpid(), c.srv.ClaudeVersion}))
	case "blemeesd.open":
		req, perr := ParseOpen(line)
		if perr != nil {
			fail(perr)
			return true
		}
		c.log.Info("open", "session_id", req.SessionID, "resume", req.Resume, "model", deref(req.Model))
		err := b.Open(c, req, func(pid int, lastSeq uint64) {
			c.Send(encode(struct {
				Type          string `json:"type"`
				ID            string `json:"id,omitempty"`
				SessionID     string `json:"session_id"`
				SubprocessPID int    `json:"subprocess_pid,omitempty"`
				LastSeq       uint64 `json:"last_seq"`
			}{"blemeesd.opened", req.ID, req.SessionID, pid, lastSeq}))
		})
		if err != nil {
			fail(err)
		}
	case "claude.user":
		var u struct {
			SessionID string          `json:"session_id"`
			Message   json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal(line, &u); err != nil || u.SessionID == "" {
			fail(Errorf(CodeInvalidMessage, "claude.user needs a session_id and a message"))
			return true
		}
		if err := checkUserMessage(u.Message); err != nil {
			fail(err)
			return true
		}
		if err := b.Send(c, u.SessionID, u.Message); err != nil {
			fail(err)
		}
	case "blemeesd.interrupt":
		if sid == "" {
			fail(Errorf(CodeInvalidMessage, "interrupt needs a session_id"))
		} else if err := b.Interrupt(c, sid); err != nil {
			fail(err)
		}
	case "blemeesd.close":
		var cl struct {
			SessionID string `json:"session_id"`
			Delete    bool   `json:"delete"`
		}
		if err := json.Unmarshal(line, &cl); err != nil || cl.SessionID == "" {
			fail(Errorf(CodeInvalidMessage, "close needs a session_id (and a boolean delete)"))
		} else if err := b.Close(c, cl.SessionID, cl.Delete); err != nil {
			fail(err)
		} else {
			c.Send(encode(reply{"blemeesd.closed", id, sid}))
		}
	case "blemeesd.ping":
		var p struct {
			Data json.RawMessage `json:"data"`
		}
		json.Unmarshal(line, &p)
		c.Send(encode(struct {
			Type string          `json:"type"`
			ID   string          `json:"id,omitempty"`
			Data json.RawMessage `json:"data,omitempty"`
		}{"blemeesd.pong", id, p.Data}))
	case "blemeesd.status":
		st := b.Status()
		c.Send(encode(struct {
			Type          string         `json:"type"`
			ID            string         `json:"id,omitempty"`
			Daemon        string         `json:"daemon"`
			Protocol      string         `json:"protocol"`
			PID           int            `json:"pid"`
			ClaudeVersion *string        `json:"claude_version"`
			UptimeS       float64        `json:"uptime_s"`
			SocketPath    string         `json:"socket_path"`
			Connections   int            `json:"connections"`
			Sessions      StatusSessions `json:"sessions"`
			Config        map[string]any `json:"config"`
		}{"blemeesd.status_reply", id, c.srv.Daemon, Protocol, os.Getpid(), c.srv.ClaudeVersion,
			time.Since(c.srv.started).Seconds(), c.srv.SocketPath, c.srv.Connections(), st.Sessions, st.Config}))
	case "blemeesd.watch":
		var w struct {
			SessionID   string `json:"session_id"`
			LastSeenSeq *int64 `json:"last_seen_seq"`
		}
		if err := json.Unmarshal(line, &w); err != nil || w.SessionID == "" || w.LastSeenSeq != nil && *w.LastSeenSeq < 0 {
			fail(Errorf(CodeInvalidMessage, "watch needs a session_id (and last_seen_seq ≥ 0)"))
			return true
		}
		seen := int64(-1)
		if w.LastSeenSeq != nil {
			seen = *w.LastSeenSeq
		}
		if err := b.Watch(c, w.SessionID, seen, func(lastSeq uint64) {
			c.Send(encode(struct {
				Type      string `json:"type"`
				ID        string `json:"id,omitempty"`
				SessionID string `json:"session_id"`
				LastSeq   uint64 `json:"last_seq"`
			}{"blemeesd.watching", id, w.SessionID, lastSeq}))
		}); err != nil {
			fail(err)
		}
	case "blemeesd.unwatch":
		if sid == "" {
			fail(Errorf(CodeInvalidMessage, "unwatch needs a session_id"))
			return true
		}
		was, err := b.Unwatch(c, sid)
		if err != nil {
			fail(err)
			return true
		}
		c.Send(encode(struct {
			Type        string `json:"type"`
			ID          string `json:"id,omitempty"`
			SessionID   string `json:"session_id"`
			WasWatching bool   `json:"was_watching"`
		}{"blemeesd.unwatched", id, sid, was}))
	case "blemeesd.session_info":
		if sid == "" {
			fail(Errorf(CodeInvalidMessage, "session_info needs a session_id"))
			return true
		}
		inf, err := b.SessionInfo(sid)
		if err != nil {
			fail(err)
			return true
		}
		c.Send(encode(struct {
			reply
			*SessionInfo
		}{reply{"blemeesd.session_info_reply", id, sid}, inf}))
	case "blemeesd.list_sessions":
		var l struct {
			Cwd *string `json:"cwd"`
		}
		if err := json.Unmarshal(line, &l); err != nil || l.Cwd == nil || *l.Cwd == "" {
			fail(Errorf(CodeInvalidMessage, "list_sessions needs a cwd"))
			return true
		}
		rows, err := b.ListSessions(*l.Cwd)
		if err != nil {
			fail(err)
			return true
		}
		if rows == nil {
			rows = []SessionSummary{}
		}
		c.Send(encode(struct {
			Type     string           `json:"type"`
			ID       string           `json:"id,omitempty"`
			Cwd      string           `json:"cwd"`
			Sessions []SessionSummary `json:"sessions"`
		}{"blemeesd.sessions", id, *l.Cwd, rows}))
	case TypeFollowSessions:
		feed, ok := b.(SessionsFeed)
		if !ok {
			fail(Errorf(CodeUnknownMessage, fmt.Sprintf("unknown message type %q", env.Type)))
			return true
		}
		feed.FollowSessions(c, func(rows []LiveSession) { c.Send(sessionsFrame(id, rows)) })
	default:
		if env.Type == "" {
			fail(Errorf(CodeInvalidMessage, "a frame needs a string type"))
		} else {
			fail(Errorf(CodeUnknownMessage, fmt.Sprintf("unknown message type %q", env.Type)))
		}
	}
	return true
}

// reply is the head of a reply frame.
type reply struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	SessionID string `json:"session_id"`
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// checkUserMessage checks a claude.user message: role "user", content a
// string or an array of objects with a string type. Other members pass.
func checkUserMessage(m json.RawMessage) error {
	var msg struct {
		Role    *string         `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(m, &msg); err != nil || len(bytes.TrimSpace(m)) == 0 || bytes.TrimSpace(m)[0] != '{' {
		return Errorf(CodeInvalidMessage, "claude.user: message must be an object")
	}
	if msg.Role == nil || *msg.Role != "user" {
		return Errorf(CodeInvalidMessage, `claude.user: message.role must be "user"`)
	}
	var s string
	if json.Unmarshal(msg.Content, &s) == nil {
		return nil
	}
	var blocks []struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(msg.Content, &blocks); err != nil || msg.Content == nil {
		return Errorf(CodeInvalidMessage, "claude.user: message.content must be a string or an array of content blocks")
	}
	for _, bl := range blocks {
		if bl.Type == nil || strings.TrimSpace(*bl.Type) == "" {
			return Errorf(CodeInvalidMessage, "claude.user: every content block needs a type")
		}
	}
	return nil
}
