package acp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// Server serves a Session on the session's socket with the frame
// protocol's transcript features (PROTOCOL.md): HELLO, STATUS, SCREEN (the
// transcript's last lines), WATCH_STATE, WATCH_ENTRIES, SAY and INPUT (a
// prompt), CANCEL, PROMPT and ANSWER (the permission request), SEEN and
// KILL. Shaped like net/http.Server: Serve, Shutdown, Close.
type Server struct {
	Session *Session
	Logger  *slog.Logger
	us      unixsock.Server
}

// writeWait bounds one write to a client: one that stops reading for
// longer is dropped (its pushes never hold the session up).
const writeWait = 10 * time.Second

// maxPayload bounds what a client may send in one frame.
const maxPayload = 1 << 20

// Serve accepts connections on l until Shutdown or Close.
func (srv *Server) Serve(l net.Listener) error {
	srv.us.Handler = unixsock.HandlerFunc(srv.serveConn)
	srv.us.Logger = srv.Logger
	return srv.us.Serve(l)
}

// Shutdown stops accepting, closes the connections that watch nothing and
// waits for the watchers, which end once they have been sent the session's
// last entries and EXIT; when ctx ends first the rest are closed (as
// supervisor.Server's Shutdown). Call it once the session is Done.
func (srv *Server) Shutdown(ctx context.Context) error { return srv.us.Shutdown(ctx) }

// Close ends everything at once.
func (srv *Server) Close() error { return srv.us.Close() }

// conn is one client connection: its read loop answers requests; pushes
// (WATCH_STATE, WATCH_ENTRIES) go out from a goroutine of their own that
// a change wakes, so a client that stops reading holds up nobody.
type conn struct {
	srv  *Server
	nc   net.Conn
	log  *slog.Logger
	wake chan struct{}

	// Read loop only, then read by the pusher after a wake: set before
	// the wake that follows them.
	watchState   bool
	watchEntries bool
	after        uint64 // entries sent up to
	lastState    []byte
	exitSent     bool

	// watching: the client asked for pushes (WATCH_STATE, WATCH_ENTRIES),
	// so at Shutdown its connection stays until EXIT has been sent.
	watching atomic.Bool
	pushed   chan struct{} // closed when the pusher has returned (after EXIT)
}

// push hands the pusher a watch request; false once the pusher is done
// (the session ended: the connection ends too).
func (c *conn) push(pushes chan<- pushReq, r pushReq) bool {
	c.watching.Store(true)
	select {
	case pushes <- r:
		return true
	case <-c.pushed:
		return false
	}
}

func (srv *Server) serveConn(ctx context.Context, nc net.Conn) {
	c := &conn{srv: srv, nc: nc, log: unixsock.ConnLogger(ctx), wake: make(chan struct{}, 1), pushed: make(chan struct{})}
	stop := context.AfterFunc(ctx, func() {
		if !c.watching.Load() {
			nc.Close()
		}
	})
	defer stop()
	defer nc.Close()
	nc.SetWriteDeadline(time.Now().Add(writeWait))
	if _, err := nc.Write([]byte{frame.ModeBinary}); err != nil {
		return
	}
	pushes := make(chan pushReq, 4)
	done := make(chan struct{})
	go func() {
		defer close(c.pushed)
		c.pusher(pushes, done)
	}()
	defer close(done)
	remove := srv.Session.Watch(func() { c.signal() })
	defer remove()
	go func() {
		select {
		case <-srv.Session.Done():
			c.signal()
		case <-done:
		}
	}()
	r := frame.NewReaderSize(nc, 4<<10)
	r.SetMaxPayload(maxPayload)
	for {
		f, err := r.Next()
		if err != nil {
			return
		}
		if !c.handle(f, pushes) {
			return
		}
	}
}

// pushReq changes what the pusher sends.
type pushReq struct {
	state, entries bool
	after          uint64
}

func (c *conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// write sends one frame, within writeWait. The read loop's replies and
// the pusher's frames are written whole by one write each.
func (c *conn) write(t frame.Type, payload []byte) error {
	c.nc.SetWriteDeadline(time.Now().Add(writeWait))
	_, err := c.nc.Write(frame.AppendFrame(nil, t, payload))
	return err
}

// handle answers one frame; false ends the connection.
func (c *conn) handle(f frame.Frame, pushes chan<- pushReq) bool {
	s := c.srv.Session
	switch f.Type {
	case frame.Hello:
		id, _ := frame.ParseHello(f.Payload)
		b, _ := json.Marshal(frame.HelloInfo{Request: id, Protocol: frame.HelloProtocol,
			Features: []string{frame.FeatureTranscript, frame.FeatureWatchState, frame.FeatureScreen, frame.FeatureAnswer, frame.FeatureSay}})
		return c.reply(frame.HelloResp, b)
	case frame.Status:
		v := s.View()
		st := frame.StatusInfo{PID: uint32(v.PID), Alive: v.State != session.Dead, State: wireState(v.State),
			StateMS: millis(time.Since(v.Since)), IdleMS: millis(time.Since(v.Since))}
		b, _ := st.MarshalBinary()
		return c.reply(frame.StatusResp, b)
	case frame.Screen:
		v := s.View()
		b, _ := json.Marshal(frame.ScreenInfo{Cols: 80, Rows: 24, Title: "acp: " + agentName(s.opt.Argv),
			NeedsInput: v.NeedsInput, Screen: s.Screen(24), AgentState: agentState(v)})
		return c.reply(frame.ScreenResp, b)
	case frame.WatchState:
		return c.push(pushes, pushReq{state: true})
	case frame.WatchEntries:
		after, err := frame.ParseWatchEntries(f.Payload)
		if err != nil {
			return false
		}
		return c.push(pushes, pushReq{entries: true, after: after})
	case frame.Input:
		if err := s.Say(string(f.Payload)); err != nil {
			c.log.Info("input not taken", "err", err)
		}
	case frame.Say:
		var req frame.SayRequest
		res := frame.SayResult{}
		if err := json.Unmarshal(f.Payload, &req); err != nil {
			res.Error = "SAY is not JSON"
		} else if err := s.Say(req.Text); err != nil {
			res.Request, res.Error, res.Busy = req.Request, err.Error(), errors.Is(err, ErrBusy)
		} else {
			res.Request, res.OK = req.Request, true
		}
		b, _ := json.Marshal(res)
		return c.reply(frame.SayResp, b)
	case frame.Cancel:
		if err := s.Cancel(); err != nil {
			c.log.Info("cancel", "err", err)
		}
	case frame.Prompt:
		b, _ := json.Marshal(s.Prompt())
		return c.reply(frame.PromptResp, b)
	case frame.Answer:
		var req frame.AnswerRequest
		res := frame.AnswerResult{}
		if err := json.Unmarshal(f.Payload, &req); err != nil {
			res.Error = "ANSWER is not JSON"
		} else {
			res = s.Answer(req)
		}
		b, _ := json.Marshal(res)
		return c.reply(frame.AnswerResp, b)
	case frame.Seen:
		s.Seen()
	case frame.Kill:
		if err := s.Kill(false); err != nil {
			c.log.Info("kill", "err", err)
		}
	}
	return true
}

// reply writes a response; false if the connection broke.
func (c *conn) reply(t frame.Type, b []byte) bool { return c.write(t, b) == nil }

// pusher sends the watched STATE and ENTRIES after each change, and EXIT
// once the agent has exited.
func (c *conn) pusher(reqs <-chan pushReq, done <-chan struct{}) {
	s := c.srv.Session
	for {
		select {
		case <-done:
			return
		case r := <-reqs:
			if r.state {
				c.watchState, c.lastState = true, nil
			}
			if r.entries {
				c.watchEntries, c.after = true, r.after
			}
		case <-c.wake:
		}
		// Seen before what is sent: once ended, the session adds nothing,
		// so EXIT below comes after the last of it.
		ended := false
		select {
		case <-s.Done():
			ended = true
		default:
		}
		if c.watchState {
			b, _ := json.Marshal(stateInfo(s.View()))
			if string(b) != string(c.lastState) {
				if c.write(frame.StateEvent, b) != nil {
					c.nc.Close()
					return
				}
				c.lastState = b
			}
		}
		if c.watchEntries {
			for _, batch := range batches(s.Entries(c.after)) {
				b, _ := json.Marshal(batch)
				if c.write(frame.Entries, b) != nil {
					c.nc.Close()
					return
				}
				c.after = batch[len(batch)-1].Seq
			}
		}
		if ended && (c.watchState || c.watchEntries) && !c.exitSent {
			// The last frame a watcher gets: its connection ends after it.
			c.exitSent = true
			c.write(frame.Exit, frame.ExitPayload(int32(s.ExitCode())))
			c.nc.Close()
			return
		}
	}
}

// batches splits entries into frames of at most about 256 KiB.
func batches(es []session.Entry) [][]frame.Entry {
	var out [][]frame.Entry
	var cur []frame.Entry
	size := 0
	for _, e := range es {
		fe := frame.Entry{Seq: e.Seq, Time: e.Time.UnixMilli(), Role: string(e.Role), Text: e.Text}
		if size+len(e.Text) > 256<<10 && len(cur) > 0 {
			out, cur, size = append(out, cur), nil, 0
		}
		cur, size = append(cur, fe), size+len(e.Text)+64
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// stateInfo is v as a STATE payload.
func stateInfo(v View) frame.StateInfo {
	return frame.StateInfo{State: v.State.String(), StateMs: millis(time.Since(v.Since)), NeedsInput: v.NeedsInput,
		PID: v.PID, Title: "", AgentState: agentState(v)}
}

func agentState(v View) frame.AgentState {
	a := frame.AgentState{Reason: v.Reason, Done: v.Done, Tool: v.Tool, Summary: v.Summary, Conversation: v.Conversation}
	if v.Error != "" {
		a.Error = v.Error
	}
	for _, r := range v.Usage {
		a.Usage = append(a.Usage, frame.UsageRow{Day: r.Day, Model: r.Model, Input: r.Input, Output: r.Output,
			CacheWrite: r.CacheWrite, CacheRead: r.CacheRead})
	}
	return a
}

func millis(d time.Duration) uint32 { return uint32(min(max(d.Milliseconds(), 0), 1<<31)) }

// wireState is st as the STATUS_RESP state byte.
func wireState(st session.State) frame.State {
	switch st {
	case session.Thinking:
		return frame.StateThinking
	case session.Streaming:
		return frame.StateStreaming
	case session.ToolUse:
		return frame.StateToolUse
	case session.Dead:
		return frame.StateDead
	}
	return frame.StateIdle
}
