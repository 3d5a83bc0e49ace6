package supervisor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/rawio"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// ErrServerClosed is returned by Serve after Shutdown or Close.
var ErrServerClosed = unixsock.ErrServerClosed

// replayChunk bounds the size of the OUTPUT frames that replay scrollback.
const replayChunk = 16 << 10

// Server serves one Session over the Heimdall frame protocol. Its zero value
// plus Session is ready to use; it is shaped like net/http.Server. Accepting,
// connection tracking and peer credentials are a unixsock.Server's; Server
// is its Handler.
type Server struct {
	Session *Session
	Logger  *slog.Logger
	// QueueBytes bounds each subscriber's pending output (default
	// DefaultQueueBytes); beyond it chunks are dropped for that subscriber.
	QueueBytes int
	// QueueBudget bounds the pending output of all subscribers together
	// (default DefaultQueueBudget); beyond it chunks are dropped for every
	// subscriber that is behind.
	QueueBudget int

	once   sync.Once
	us     unixsock.Server
	budget queueBudget

	mu    sync.Mutex
	conns map[*conn]struct{} // each connection's protocol state
}

func (srv *Server) logger() *slog.Logger {
	if srv.Logger != nil {
		return srv.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (srv *Server) base() *unixsock.Server {
	srv.once.Do(func() {
		srv.us.Handler = unixsock.HandlerFunc(srv.serveConn)
		srv.us.Logger = srv.logger()
		srv.conns = make(map[*conn]struct{})
		srv.budget.limit = int64(cmp.Or(srv.QueueBudget, DefaultQueueBudget))
	})
	return &srv.us
}

// Serve accepts connections on l until Shutdown or Close, serving each on
// its own goroutine. It always returns a non-nil error; after Shutdown or
// Close, ErrServerClosed.
func (srv *Server) Serve(l net.Listener) error { return srv.base().Serve(l) }

// Shutdown stops accepting, closes connections that are not subscribed, and
// waits for subscribers to finish: they end after the session's EXIT frame
// has been written to them. If ctx ends first the rest are closed and
// ctx's error is returned at once, as net/http does: a connection blocked in
// a pty write (INPUT to a raw-mode child that does not read) ends only when
// the child reads or exits, and Shutdown does not wait for it. Call it once
// the session is Done to deliver EXIT to everyone before the process goes
// away.
func (srv *Server) Shutdown(ctx context.Context) error { return srv.base().Shutdown(ctx) }

// Close stops accepting and closes every connection at once.
func (srv *Server) Close() error { return srv.base().Close() }

// serveConn is the unixsock Handler: it serves one connection until the
// client goes, the session's EXIT has been written to a subscriber, or the
// server closes it. At Shutdown (ctx done) a connection that is not
// subscribed is closed at once; a subscriber ends after EXIT.
func (srv *Server) serveConn(ctx context.Context, nc net.Conn) {
	c := &conn{srv: srv, nc: nc, log: unixsock.ConnLogger(ctx), accepted: unixsock.Accepted(ctx),
		done: make(chan struct{}), unlisten: func() {}, detach: func() {}}
	srv.mu.Lock()
	srv.conns[c] = struct{}{}
	srv.mu.Unlock()
	defer func() {
		srv.mu.Lock()
		delete(srv.conns, c)
		srv.mu.Unlock()
	}()
	stop := context.AfterFunc(ctx, func() {
		if !c.subscribed() {
			nc.Close()
		}
	})
	defer stop()
	c.serve()
}

// conn is one client connection. Until SUBSCRIBE (or SUBSCRIBE_SCREEN) only
// its read loop writes to it; after, every write goes through its outq.
type conn struct {
	srv      *Server
	nc       net.Conn
	log      *slog.Logger
	accepted time.Time     // when it was accepted: the time of a HOOK sent first (Session.Hook)
	done     chan struct{} // closed when the read loop ends

	smu  sync.Mutex
	q    *outq     // set by SUBSCRIBE
	term *terminal // set by TERMINAL (terminal.go)

	// wmu serialises the frames written straight to the socket before
	// SUBSCRIBE: the read loop's replies and WATCH_STATE's pushes (which
	// come from other goroutines); subscribe holds it while the outq takes
	// over.
	wmu sync.Mutex

	// lmu guards unlisten, which the subscriber's writer replaces when it
	// resyncs (resync) and the read loop ends.
	lmu      sync.Mutex
	unlisten func() // ends SUBSCRIBE's Listen (SUBSCRIBE_SCREEN's or a resync's ListenScreen)
	unheard  bool   // the connection has ended: no listener is added again

	// interactive is set by ATTACH: the subscriber shows the stream on a
	// terminal, so output dropped for it is made good with a repaint
	// (resync).
	interactive atomic.Bool

	// Used by the read loop only.
	later   bool                        // a frame has been handled: the next is not the first
	viewing bool                        // the client said VIEW 1 (and not 0 since)
	detach  func()                      // ends ATTACH's TerminalAttached
	unwatch func()                      // ends WATCH_STATE's WatchState (nil: none)
	paints  atomic.Pointer[screenWatch] // set by WATCH_SCREEN (paint.go); read by the writer too
	fdc     *rawio.FDConn               // the connection's reads, keeping descriptors received (nil: not a socket)
	writer  sync.WaitGroup              // the subscriber's writer
}

// subscribed reports whether the connection gets the session's output
// (SUBSCRIBE) or has its terminal (TERMINAL): Shutdown lets it end after
// EXIT.
func (c *conn) subscribed() bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.q != nil || (c.term != nil && c.term.active())
}

// endTerminal ends a hand-over in progress without telling the client.
func (c *conn) endTerminal() {
	c.smu.Lock()
	t := c.term
	c.smu.Unlock()
	if t != nil {
		t.end(0)
	}
}

func (c *conn) outq() *outq {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.q
}

// serve writes the mode byte, then reads and handles frames until the
// client goes, the connection is closed or a frame ends it; it returns
// once the subscriber's writer (if any) has finished.
func (c *conn) serve() {
	defer func() {
		close(c.done)
		c.nc.Close()
		c.endTerminal() // attach is gone: never write to its terminal again
		c.lmu.Lock()
		c.unlisten()
		c.unheard = true
		c.lmu.Unlock()
		c.detach()
		if c.viewing {
			c.srv.Session.Viewing(false)
		}
		if c.unwatch != nil {
			c.unwatch()
		}
		if w := c.paints.Load(); w != nil {
			w.remove()
		}
		c.writer.Wait()
		if q := c.outq(); q != nil {
			q.release()
		}
	}()
	// A client may have written and gone already (a HOOK sender reads
	// nothing): the mode byte then fails to go, but what it sent is
	// still read.
	if _, err := c.nc.Write([]byte{frame.ModeBinary}); err != nil {
		c.log.Debug("mode byte", "err", err)
	}
	// Raw reads (see rawio) when the connection is a socket, with
	// recvmsg: TERMINAL's descriptors come with its bytes.
	var src io.Reader = c.nc
	if rc, ok := rawio.Of(c.nc); ok {
		c.fdc = &rawio.FDConn{Conn: rc}
		defer c.fdc.CloseFDs()
		src = c.fdc
	}
	r := frame.NewReaderSize(src, 4<<10)
	for {
		// Shared: no payload outlives its iteration (INPUT is written to
		// the pty before the next read).
		f, err := r.NextShared()
		if err != nil {
			var oe *frame.OversizeError
			switch {
			case errors.As(err, &oe):
				c.log.Warn("oversize frame; closing connection", "type", oe.Type.String(), "length", oe.Length)
			case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
			default:
				c.log.Debug("read", "err", err)
			}
			return
		}
		if !c.handle(f) {
			return
		}
		c.later = true
	}
}

// handle acts on one client frame; false means the connection is done (a
// reply could not be written).
func (c *conn) handle(f frame.Frame) bool {
	sess := c.srv.Session
	switch f.Type {
	case frame.Input:
		if _, err := sess.Write(f.Payload); err != nil {
			c.log.Debug("input", "err", err)
		}
	case frame.Subscribe, frame.SubscribeScreen:
		c.extraPayload(f)
		if !c.subscribed() {
			mode := subOutput
			if f.Type == frame.SubscribeScreen {
				mode = subScreen
			}
			c.subscribe(mode)
		}
	case frame.Status:
		c.extraPayload(f)
		b, _ := WireStatus(sess.Status()).MarshalBinary()
		return c.write(frame.StatusResp, b) == nil
	case frame.Hello:
		id, err := frame.ParseHello(f.Payload)
		if err != nil {
			c.log.Warn("HELLO ignored", "err", err)
			return true
		}
		b, _ := frame.HelloInfo{Request: id, Protocol: frame.HelloProtocol, Features: features}.MarshalBinary()
		return c.write(frame.HelloResp, b) == nil
	case frame.Attach:
		if len(f.Payload) != 0 {
			c.log.Warn("ATTACH with a payload ignored", "len", len(f.Payload))
			return true
		}
		c.detach() // a repeated ATTACH counts once
		c.detach = sess.TerminalAttached()
		c.interactive.Store(true)
		c.log.Info("interactive terminal attached")
	case frame.Screen:
		if len(f.Payload) > 1 {
			c.log.Warn("SCREEN with a bad payload ignored", "len", len(f.Payload))
			return true
		}
		ansi := len(f.Payload) == 1 && f.Payload[0]&frame.ScreenANSI != 0
		b, _ := sess.screenInfo(ansi).MarshalBinary()
		return c.write(frame.ScreenResp, b) == nil
	case frame.Resize:
		cols, rows, err := frame.ParseResize(f.Payload)
		if err == nil {
			err = sess.Resize(cols, rows)
		}
		if err != nil {
			c.log.Warn("resize ignored", "err", err)
		}
	case frame.Kill:
		c.extraPayload(f)
		c.log.Info("kill requested")
		if err := sess.Kill(); err != nil {
			c.log.Warn("kill", "err", err)
		}
	case frame.Hangup:
		if len(f.Payload) != 0 {
			c.log.Warn("HANGUP with a payload ignored", "len", len(f.Payload))
			return true
		}
		c.log.Info("hang-up requested")
		if err := sess.Hangup(); err != nil {
			c.log.Warn("hang-up", "err", err)
		}
	case frame.Hook:
		h, err := ParseHook(f.Payload)
		if err != nil {
			c.log.Debug("hook ignored", "err", err)
			return true
		}
		// A HOOK sent first on its connection, as the hook command
		// sends it (one each), happened by the time it connected: the
		// accept orders it among the others (see Session.Hook). One
		// after other frames happened when it is read.
		at := c.accepted
		if c.later || at.IsZero() { // zero: not from a Server's listener
			at = time.Now()
		}
		sess.Hook(at, h)
	case frame.Seen:
		c.extraPayload(f)
		sess.Seen()
	case frame.WatchState:
		c.extraPayload(f)
		c.watchState()
	case frame.WatchScreen:
		c.extraPayload(f)
		c.watchScreen()
	case frame.Answer:
		return c.answer(f.Payload)
	case frame.Say:
		return c.say(f.Payload)
	case frame.Limit:
		return c.limit(f.Payload)
	case frame.View:
		if len(f.Payload) != 1 || f.Payload[0] > 1 {
			c.log.Warn("VIEW with a bad payload ignored", "len", len(f.Payload))
			return true
		}
		if on := f.Payload[0] == 1; on != c.viewing {
			c.viewing = on
			c.srv.Session.Viewing(on)
		}
	case frame.Prompt:
		c.extraPayload(f)
		var pi frame.PromptInfo
		if p, err := c.srv.Session.Prompt(); err != nil {
			pi.Error = err.Error()
		} else {
			pi = frame.PromptInfo{Family: p.Family, Question: p.Question, Options: p.Labels, Multi: p.Multi}
		}
		b, _ := json.Marshal(pi)
		return c.write(frame.PromptResp, b) == nil
	case frame.Terminal:
		var fds []int
		if c.fdc != nil {
			fds = c.fdc.Take()
		}
		return c.takeTerminal(f.Payload, fds)
	default:
		c.log.Warn("unexpected frame type ignored", "type", f.Type.String(), "len", len(f.Payload))
	}
	return true
}

// answer handles an ANSWER: the session answers the dialog on its
// screen, or says why not, in an ANSWER_RESP.
func (c *conn) answer(payload []byte) bool {
	var req frame.AnswerRequest
	res := frame.AnswerResult{}
	if len(payload) > frame.MaxAnswer {
		res.Error = fmt.Sprintf("ANSWER of %d bytes: at most %d", len(payload), frame.MaxAnswer)
	} else if err := json.Unmarshal(payload, &req); err != nil {
		res.Error = "ANSWER is not JSON: " + err.Error()
	} else {
		res.Request = req.Request
		a, err := c.srv.Session.Answer(answer.Choice{Kind: answer.Kind(req.Choice), Option: req.Option, Text: req.Text}, req.Question)
		if err != nil {
			res.Error = err.Error()
			c.log.Info("answer refused", "err", err)
		} else {
			res.OK, res.Option, res.Label, res.Question = true, a.Option, a.Label, a.Question
		}
	}
	b, _ := json.Marshal(res)
	return c.write(frame.AnswerResp, b) == nil
}

// say serves SAY: the prompt typed whole, or why not.
func (c *conn) say(payload []byte) bool {
	var req frame.SayRequest
	res := frame.SayResult{}
	if len(payload) > frame.MaxSay {
		res.Error = fmt.Sprintf("SAY of %d bytes: at most %d", len(payload), frame.MaxSay)
	} else if err := json.Unmarshal(payload, &req); err != nil {
		res.Error = "SAY is not JSON: " + err.Error()
	} else if res.Request = req.Request; strings.TrimSpace(req.Text) == "" {
		res.Error = "SAY with nothing to say"
	} else if err := c.srv.Session.Say(req.Text); err != nil {
		res.Error, res.Busy = err.Error(), errors.Is(err, ErrBusy)
	} else {
		res.OK = true
	}
	b, _ := json.Marshal(res)
	return c.write(frame.SayResp, b) == nil
}

// maxLimit bounds a LIMIT's payload (its text is a prompt of a line or
// two).
const maxLimit = 4 << 10

// limit serves LIMIT: park or unpark, or a continue scheduled or
// cancelled.
func (c *conn) limit(payload []byte) bool {
	var req frame.LimitRequest
	res := frame.LimitResult{}
	var err error
	switch {
	case len(payload) > maxLimit:
		err = fmt.Errorf("LIMIT of %d bytes: at most %d", len(payload), maxLimit)
	case json.Unmarshal(payload, &req) != nil:
		err = errors.New("LIMIT is not JSON")
	case req.Park != nil:
		c.srv.Session.Park(*req.Park)
	case req.Text != "" && req.ContinueAt <= 0:
		err = errors.New("LIMIT: a continue needs its time")
	case strings.ContainsAny(req.Text, "\x00\x1b"):
		err = errors.New("LIMIT: no NUL or escape in the text")
	default:
		err = c.srv.Session.Continue(time.UnixMilli(req.ContinueAt), req.Text)
	}
	res.Request = req.Request
	if err != nil {
		res.Error = err.Error()
	} else {
		res.OK = true
	}
	b, _ := json.Marshal(res)
	return c.write(frame.LimitResp, b) == nil
}

// features are the extensions this server serves, as HELLO_RESP lists
// them.
var features = []string{frame.FeatureScreen, frame.FeatureSubscribeScreen, frame.FeatureAttach, frame.FeatureHangup,
	frame.FeatureHook, frame.FeatureWatchState, frame.FeatureStateView, frame.FeatureWatchScreen, frame.FeatureTerminal,
	frame.FeatureAnswer, frame.FeatureView, frame.FeatureSay, frame.FeatureLimit}

// watchState (WATCH_STATE) sends a STATE now and after every change
// until the connection closes, straight to the socket before SUBSCRIBE and
// through the outq after. The session's watcher only leaves the latest
// view for the connection's state writer (a goroutine): a client that does
// not read never holds up the session, and it gets the newest state, not
// a backlog. A repeated WATCH_STATE counts once.
func (c *conn) watchState() {
	if c.unwatch != nil {
		return
	}
	var (
		mu      sync.Mutex
		pending []byte
		wake    = make(chan struct{}, 1)
	)
	c.unwatch = c.srv.Session.WatchState(func(v StateView) {
		b, _ := WireStateInfo(v, time.Now()).MarshalBinary()
		mu.Lock()
		pending = b
		mu.Unlock()
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	c.writer.Add(1)
	go func() {
		defer c.writer.Done()
		for {
			select {
			case <-wake:
			case <-c.done:
				return
			}
			mu.Lock()
			b := pending
			mu.Unlock()
			if err := c.write(frame.StateEvent, b); err != nil {
				c.nc.Close() // the read loop ends
				return
			}
		}
	}()
}

// subMode is what a subscriber gets of the session's output.
type subMode uint8

const (
	subOutput subMode = iota // SUBSCRIBE: the scrollback, then the output
	subScreen                // SUBSCRIBE_SCREEN: a repaint of the screen, then the output from there
	subPaints                // WATCH_SCREEN: no output (PAINTs, paint.go)
)

// subscribe attaches an outq to the connection and starts the writer that
// flushes it and ends the stream with EXIT. The output goes to the queue
// as mode says: after a replay of the scrollback (SUBSCRIBE), after a
// repaint of the screen (SUBSCRIBE_SCREEN, Session.ListenScreen), or not
// at all (WATCH_SCREEN).
func (c *conn) subscribe(mode subMode) {
	limit := c.srv.QueueBytes
	if limit <= 0 {
		limit = DefaultQueueBytes
	}
	q := newOutq(c.nc, limit, &c.srv.budget)
	c.wmu.Lock()
	c.smu.Lock()
	c.q = q
	c.smu.Unlock()
	c.wmu.Unlock()
	var replay []byte
	painted := make(chan struct{})
	c.lmu.Lock()
	switch mode {
	case subScreen:
		c.unlisten = c.srv.Session.ListenScreen(screenOutput(q, painted))
	case subOutput:
		close(painted)
		replay, c.unlisten = c.srv.Session.Listen(q.output)
	default:
		close(painted)
	}
	c.lmu.Unlock()
	c.writer.Add(1)
	go func() {
		defer c.writer.Done()
		c.subscriber(replay, q, mode == subScreen)
	}()
	// The repaint is the first frame after SUBSCRIBE_SCREEN: replies to
	// the frames after it queue behind it, so a client that sends STATUS
	// next tells a server that ignored SUBSCRIBE_SCREEN (STATUS_RESP
	// first) from one that did not. The feeder takes it within its
	// backlog (pacing bounds it) and a pause (see Feeder.Repaint).
	<-painted
}

// screenOutput is SUBSCRIBE_SCREEN's listener: its first chunk, the
// repaint, may be longer than a pty chunk and goes out as OUTPUT frames of
// at most maxChunk bytes, after which painted is closed; the output after
// it goes out as SUBSCRIBE's does. (ListenScreen never overlaps its calls.)
func screenOutput(q *outq, painted chan struct{}) func([]byte) {
	first := true
	return func(chunk []byte) {
		if !first {
			q.output(chunk)
			return
		}
		for piece := range pieces(chunk) {
			q.output(piece)
		}
		first = false
		close(painted)
	}
}

// extraPayload notes (at debug level) a payload on a frame whose payload is
// empty by the protocol (SUBSCRIBE, SUBSCRIBE_SCREEN, STATUS, KILL). Such a frame is acted on
// as if it were empty, as hm does: the extra bytes are ignored.
func (c *conn) extraPayload(f frame.Frame) {
	if len(f.Payload) != 0 {
		c.log.Debug("payload ignored", "type", f.Type.String(), "len", len(f.Payload))
	}
}

// write sends a reply frame: straight to the socket before SUBSCRIBE (under
// wmu), through the outq after.
func (c *conn) write(t frame.Type, p []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if q := c.outq(); q != nil {
		q.control(t, p)
		return nil
	}
	return frame.Write(c.nc, t, p)
}

// subscriber replays the scrollback (none for SUBSCRIBE_SCREEN), then
// flushes whatever the pty reader (or, with the repaint, the screen
// feeder) could not write directly, and finally writes EXIT and closes the
// connection. A subscriber that shows the stream on a screen (screen:
// SUBSCRIBE_SCREEN's emulator; or a terminal, after ATTACH) is resynced
// when output was dropped for it; a plain SUBSCRIBE's just misses it, as
// hm's do.
func (c *conn) subscriber(replay []byte, q *outq, screen bool) {
	sess := c.srv.Session
	for len(replay) > 0 {
		n := min(len(replay), replayChunk)
		if err := frame.Write(c.nc, frame.Output, replay[:n]); err != nil {
			return
		}
		replay = replay[n:]
	}
	q.replayDone()
	var repainted uint64 // the drops a resync has made good
	for {
		if !q.flush() {
			return
		}
		if d := q.Dropped(); d != repainted && (screen || c.interactive.Load()) {
			repainted = d
			c.resync(q)
			continue
		}
		if w := c.paints.Load(); w != nil {
			w.try() // a PAINT held back while the client was behind
		}
		select {
		case <-q.wake:
		case <-sess.Done():
			// The pty reader has finished: nothing more is delivered
			// directly, so flushing here sends everything, then EXIT.
			if d := q.Dropped(); d > 0 {
				c.log.Info("slow subscriber missed output", "chunks", d)
			}
			if w := c.paints.Load(); w != nil {
				w.final()
			}
			q.control(frame.Exit, frame.ExitPayload(int32(sess.ExitCode())))
			q.flush()
			c.nc.Close()
			return
		case <-c.done:
			return
		}
	}
}

// resync makes good the output dropped for a subscriber that shows it on a
// screen (its queue overflowed: a terminal or emulator that missed bytes
// shows a wrong screen until the program redraws): its stream goes on as SUBSCRIBE_SCREEN's, a repaint
// of the screen and then the output after it (Session.ListenScreen). The
// output the old listener had delivered goes first; what it missed, and
// what comes between its removal and the repaint's point, the repaint
// shows.
func (c *conn) resync(q *outq) {
	c.lmu.Lock()
	defer c.lmu.Unlock()
	if c.unheard {
		return
	}
	c.unlisten()
	c.unlisten = c.srv.Session.ListenScreen(screenOutput(q, make(chan struct{})))
	c.log.Info("subscriber missed output; repainted its screen")
}
