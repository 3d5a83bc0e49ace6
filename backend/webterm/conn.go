package webterm

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/wsterm"
)

const (
	websocketGoingAway = websocket.StatusGoingAway
	// textLimit caps a text (JSON) frame; longer ones are ignored.
	textLimit = 64 << 10
	// maxSide bounds the rows and columns a client may ask for: the
	// session's supervisor refuses more.
	maxSide = supervisor.MaxSide
	// newCols, newRows: a session started here is 80×24 until a client
	// resizes it.
	newCols, newRows = 80, 24
	// replaceWait bounds a YOLO toggle's restart of the agent (its kill
	// grace included).
	replaceWait = 30 * time.Second
)

// sess is what the server keeps of one session id: its viewers, the name
// they gave it, YOLO mode. Guarded by Server.mu.
type sess struct {
	id      string
	clients map[*client]bool
	name    string
	yolo    bool
	// A YOLO toggle's restart under way: viewers whose output ends with
	// the old agent's exit wait for replaced, then follow the new one
	// (replaceErr nil) or report the exit.
	replacing  bool
	replaced   chan struct{}
	replaceErr error
}

// sessLocked returns id's sess, made if needed. s.mu is held.
// endWait bounds how long a join waits for the fleet to see the end of a
// session whose socket is already gone.
const endWait = 2 * time.Second

func (s *Server) sessLocked(id string) *sess {
	ss := s.sessions[id]
	if ss == nil {
		ss = &sess{id: id, clients: map[*client]bool{}}
		s.sessions[id] = ss
	}
	return ss
}

// endedReason is the close reason of a connection to an ended session.
const endedReason = "session has ended"

// msg is one WebSocket message queued for a client.
type msg struct {
	typ  websocket.MessageType
	data []byte
}

// client is one WebSocket. Everything sent to it goes through its queue
// (send, never blocking: over QueueLimit bytes the client is dropped) to
// its writer goroutine.
type client struct {
	s      *Server
	ss     *sess
	conn   *websocket.Conn
	ctx    context.Context // done once the client is dropped (not for the connection's I/O: see writeLoop)
	cancel context.CancelFunc
	wg     sync.WaitGroup // its writer and output pump

	rows, cols uint16 // the client's terminal size, 0 until it says (Server.mu)

	mu      sync.Mutex
	q       []msg
	queued  int
	ending  bool          // close the connection once q is written (finish)
	wake    chan struct{} // the queue has messages
	drained chan struct{} // a message left the queue

	dropOnce sync.Once
}

// send queues a message for the client. It never blocks: a client with
// more than twice QueueLimit queued is dropped instead (a client that
// does not read never stalls the session or the other viewers); its page
// reconnects and gets a fresh snapshot.
func (c *client) send(typ websocket.MessageType, data []byte) {
	c.mu.Lock()
	if c.ctx.Err() != nil {
		c.mu.Unlock()
		return
	}
	c.q = append(c.q, msg{typ, data})
	c.queued += len(data)
	queued := c.queued
	total := c.s.queued.Add(int64(len(data)))
	c.mu.Unlock()
	switch {
	case queued > 2*c.s.opts.QueueLimit:
	case total > 2*c.s.opts.QueueBudget && queued > len(data):
		// Over the server's budget, the clients that are behind go.
	default:
		select {
		case c.wake <- struct{}{}:
		default:
		}
		return
	}
	c.s.log.Info("web client too slow: disconnected", "session", c.ss.id, "queued", queued, "all clients", total)
	c.drop(websocket.StatusTryAgainLater, "client too slow")
}

// sendOutput queues the session's output for the client once its queue
// is under QueueLimit and, while all clients together have more than
// QueueBudget queued, empty: the output pump waits for a client that reads
// slower than the session writes (the session's supervisor holds, and at
// worst drops, what this follower cannot take: the pty never waits), and
// drops a client whose queue does not go under the limit within
// WriteTimeout. It reports whether the client is still there.
func (c *client) sendOutput(data []byte) bool {
	var timeout <-chan time.Time
	for {
		c.mu.Lock()
		queued := c.queued
		c.mu.Unlock()
		if queued <= c.s.opts.QueueLimit && (queued == 0 || c.s.queued.Load() <= c.s.opts.QueueBudget) {
			break
		}
		if timeout == nil {
			t := time.NewTimer(c.s.opts.WriteTimeout)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-c.drained:
		case <-c.ctx.Done():
			return false
		case <-timeout:
			c.s.log.Info("web client too slow: disconnected", "session", c.ss.id, "queued", queued)
			c.drop(websocket.StatusTryAgainLater, "client too slow")
			return false
		}
	}
	c.send(websocket.MessageBinary, data)
	return c.ctx.Err() == nil
}

// sendJSON queues a text message.
func (c *client) sendJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.s.log.Error("web message", "err", err)
		return
	}
	c.send(websocket.MessageText, b)
}

// finish closes the connection normally ("session has ended") once what
// is queued before it is written: the session's exit reaches the client
// before the close does, and a connection to an ended session is never
// left open (the page does not reconnect after an exit).
func (c *client) finish() {
	c.mu.Lock()
	c.ending = true
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// writeLoop writes the queue to the connection until the client is
// dropped, a write fails, or the queue is written after finish.
func (c *client) writeLoop() {
	defer c.wg.Done()
	for {
		select {
		case <-c.wake:
		case <-c.ctx.Done():
			return
		}
		for {
			c.mu.Lock()
			if len(c.q) == 0 {
				ending := c.ending
				c.mu.Unlock()
				if ending {
					c.drop(websocket.StatusNormalClosure, endedReason)
					return
				}
				break
			}
			m := c.q[0]
			c.q[0] = msg{}
			c.q = c.q[1:]
			c.queued -= len(m.data)
			c.s.queued.Add(-int64(len(m.data)))
			c.mu.Unlock()
			select {
			case c.drained <- struct{}{}:
			default:
			}
			// Not c.ctx: a write whose context ends closes the connection
			// at once, and drop wants to send its close frame.
			ctx, cancel := context.WithTimeout(context.Background(), c.s.opts.WriteTimeout)
			err := c.conn.Write(ctx, m.typ, m.data)
			cancel()
			if err != nil {
				c.drop(websocket.StatusGoingAway, "write failed")
				return
			}
		}
	}
}

// drop disconnects the client with code and reason (once).
func (c *client) drop(code websocket.StatusCode, reason string) {
	c.dropOnce.Do(func() {
		c.mu.Lock()
		c.cancel() // under c.mu: send queues nothing after
		c.s.queued.Add(-int64(c.queued))
		c.q, c.queued = nil, 0
		c.mu.Unlock()
		go c.conn.Close(code, reason)
	})
}

// originOK applies the WebSocket's Origin rule before anything is started
// for the request: no Origin (not a browser), the request's own host, or
// one of Options.Origins (matched as websocket.AcceptOptions does).
func (s *Server) originOK(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return fmt.Errorf("bad Origin %q", origin)
	}
	if strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	for _, p := range s.opts.Origins {
		target := u.Host
		if strings.Contains(p, "://") {
			target = u.Scheme + "://" + u.Host
		}
		if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(target)); ok {
			return nil
		}
	}
	return fmt.Errorf("origin %s may not use host %s", u.Host, r.Host)
}

// lookup finds session id in the fleet.
func (s *Server) lookup(id string) (session.Info, bool) {
	for _, in := range s.opts.Fleet.Sessions() {
		if in.ID == id {
			return in, true
		}
	}
	return session.Info{}, false
}

// start starts session id with the assistant key in the fleet, unless it
// exists by now (another request started it). It reports whether this
// request started it.
func (s *Server) start(id, key string) (bool, error) {
	s.mu.Lock()
	l := s.starting[id]
	if l == nil {
		l = &sync.Mutex{}
		s.starting[id] = l
	}
	s.mu.Unlock()
	l.Lock()
	defer func() {
		l.Unlock()
		s.mu.Lock()
		delete(s.starting, id)
		s.mu.Unlock()
	}()
	if _, ok := s.lookup(id); ok {
		return false, nil
	}
	if _, err := s.spawn(id, key); err != nil {
		return false, err
	}
	return true, nil
}

// spawn starts a session of assistant key in the fleet, under id (""): the
// fleet names it as the dashboard does, KEY-N) and returns its id. An
// unknown assistant or a refused start is an *httpError (400).
func (s *Server) spawn(id, key string) (string, error) {
	presets := s.opts.Fleet.Presets()
	a := s.assistant(key, presets)
	if len(a.argv) == 0 {
		var keys []string
		for _, a := range s.assistants(presets) {
			keys = append(keys, a.key)
		}
		what := fmt.Sprintf("no assistant %q", key)
		if id != "" {
			what = fmt.Sprintf("no session %q, and no assistant %q to start one", id, key)
		}
		return "", &httpError{http.StatusBadRequest, fmt.Sprintf("%s (one of %s)", what, strings.Join(keys, ", "))}
	}
	id, err := s.opts.Fleet.Spawn(fleet.Spec{ID: id, Agent: a.key, Argv: a.argv, Dir: s.workDir(),
		Env: []string{"TERM=xterm-256color"}, Cols: newCols, Rows: newRows})
	if err != nil {
		return "", &httpError{http.StatusBadRequest, err.Error()}
	}
	s.log.Info("web session started", "id", id, "assistant", a.key)
	return id, nil
}

type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

// serveWS is /ws/{id}?assistant=KEY: join the session, or start it.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := s.originOK(r); err != nil {
		s.log.Info("web socket refused", "remote", r.RemoteAddr, "err", err)
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "server shutting down", http.StatusServiceUnavailable)
		return
	}
	if s.active >= s.opts.MaxClients {
		s.mu.Unlock()
		s.log.Info("web socket refused: too many", "remote", r.RemoteAddr, "max", s.opts.MaxClients)
		http.Error(w, fmt.Sprintf("too many terminals open (at most %d): close one", s.opts.MaxClients), http.StatusServiceUnavailable)
		return
	}
	s.active++
	s.conns.Add(1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.active--
		s.mu.Unlock()
		s.conns.Done()
	}()

	// A YOLO toggle replacing the session's program: join the new one.
	s.mu.Lock()
	var replaced chan struct{}
	if ss := s.sessions[id]; ss != nil && ss.replacing {
		replaced = ss.replaced
	}
	s.mu.Unlock()
	if replaced != nil {
		select {
		case <-replaced:
		case <-r.Context().Done():
			return
		}
	}
	in, ok := s.lookup(id)
	started := false
	if !ok {
		var err error
		if started, err = s.start(id, r.URL.Query().Get("assistant")); err != nil {
			var he *httpError
			if errors.As(err, &he) {
				http.Error(w, he.msg, he.code)
			} else {
				http.Error(w, err.Error(), http.StatusInternalServerError)
			}
			return
		}
		if in, ok = s.lookup(id); !ok {
			http.Error(w, "session ended at once", http.StatusGone)
			return
		}
	}
	if in.Caps&session.CapScreen == 0 {
		http.Error(w, fmt.Sprintf("session %q has no terminal", id), http.StatusBadRequest)
		return
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.opts.Origins})
	if err != nil {
		s.log.Info("web socket not accepted", "remote", r.RemoteAddr, "err", err)
		return
	}
	conn.SetReadLimit(3 + 0xFFFF + s.opts.UploadLimit)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &client{s: s, conn: conn, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1), drained: make(chan struct{}, 1)}
	var o *fleet.Output
	if in.Alive {
		o, err = s.opts.Fleet.Output(id, true)
	}
	if !in.Alive || err != nil {
		// Ended (maybe just now): say how, and close. A session whose
		// socket is gone may still be listed alive for a moment (the
		// fleet reads its EXIT on a connection of its own): wait for that.
		in, ok = s.lookup(id)
		for deadline := time.Now().Add(endWait); ok && in.Alive && err != nil && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
			in, ok = s.lookup(id)
		}
		if ok && !in.Alive {
			b, _ := json.Marshal(wsterm.NewExit(in.ExitCode))
			wctx, wcancel := context.WithTimeout(ctx, s.opts.WriteTimeout)
			conn.Write(wctx, websocket.MessageText, b)
			wcancel()
			conn.Close(websocket.StatusNormalClosure, endedReason)
			return
		}
		s.log.Info("web socket: session not followed", "id", id, "err", err)
		conn.Close(websocket.StatusInternalError, "session unavailable")
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		o.Close()
		conn.Close(websocket.StatusGoingAway, "server shutting down")
		return
	}
	c.ss = s.sessLocked(id)
	// The screen first: a new session's repaint is its first output; a
	// viewer joining a running one gets it as a snapshot.
	if started {
		c.send(websocket.MessageBinary, o.Repaint())
	} else {
		for _, ch := range wsterm.Chunks(wsterm.Gzip(o.Repaint()), 0) {
			c.send(websocket.MessageBinary, ch)
		}
	}
	c.ss.clients[c] = true
	s.clients[c] = true
	s.mu.Unlock()
	s.log.Info("web viewer joined", "id", id, "remote", r.RemoteAddr, "started", started)
	c.wg.Add(2)
	go c.writeLoop()
	go s.pump(c, o)
	s.broadcastStatus(c.ss)

	s.readLoop(c)

	c.drop(websocket.StatusNormalClosure, "")
	s.leave(c)
	c.wg.Wait()
	s.log.Info("web viewer left", "id", id, "remote", r.RemoteAddr)
}

// readLoop handles the client's messages until it goes. Each message is
// read as it arrives: an upload streams to its file and input to the
// session in pieces, so what a client sends costs the server a copy
// buffer, whatever its size (the read limit still bounds a message).
func (s *Server) readLoop(c *client) {
	buf := make([]byte, inputPiece)
	for {
		// Not c.ctx (see writeLoop): drop's Close ends the read.
		typ, r, err := c.conn.Reader(context.Background())
		if err != nil {
			return
		}
		if typ == websocket.MessageText {
			data, err := io.ReadAll(io.LimitReader(r, textLimit+1))
			if err == nil && len(data) > textLimit {
				s.log.Info("web message ignored: too long", "id", c.ss.id, "bytes", ">"+strconv.Itoa(textLimit))
			} else if err == nil {
				s.handleText(c, data)
			}
		} else {
			err = s.handleBinary(c, r, buf)
		}
		// What a handler left unread (an ignored frame's rest) is skipped:
		// the next message starts after it.
		if _, derr := io.Copy(io.Discard, r); err != nil || derr != nil {
			return
		}
	}
}

// leave removes c from its session; the others get the new size and
// status.
func (s *Server) leave(c *client) {
	s.mu.Lock()
	delete(c.ss.clients, c)
	delete(s.clients, c)
	s.mu.Unlock()
	s.applySize(c.ss)
	s.broadcastStatus(c.ss)
}

// pump sends the session's output to c until it ends. At the program's
// exit the client gets exit with its code, unless a YOLO toggle is
// replacing it: then c follows the new program.
func (s *Server) pump(c *client, o *fleet.Output) {
	defer c.wg.Done()
	stop := context.AfterFunc(c.ctx, func() { o.Close() })
	defer func() { stop(); o.Close() }()
	for {
		b, err := o.Next()
		if err == nil {
			if !c.sendOutput(b) {
				return
			}
			continue
		}
		var exit *fleet.ExitError
		if !errors.As(err, &exit) {
			if c.ctx.Err() == nil {
				s.log.Info("web viewer: session output ended", "id", c.ss.id, "err", err)
				c.drop(websocket.StatusGoingAway, "session is gone")
			}
			return
		}
		s.mu.Lock()
		replacing, replaced := c.ss.replacing, c.ss.replaced
		s.mu.Unlock()
		if replacing {
			select {
			case <-replaced:
			case <-c.ctx.Done():
				return
			}
			s.mu.Lock()
			rerr := c.ss.replaceErr
			s.mu.Unlock()
			if rerr == nil {
				next, err := s.opts.Fleet.Output(c.ss.id, true)
				if err == nil {
					stop()
					o.Close()
					o = next
					stop = context.AfterFunc(c.ctx, func() { next.Close() })
					c.send(websocket.MessageBinary, o.Repaint())
					continue
				}
				s.log.Info("web viewer: replacement not followed", "id", c.ss.id, "err", err)
			}
		}
		c.sendJSON(wsterm.NewExit(exit.Code))
		c.finish()
		return
	}
}

// handleText handles a JSON message. Bad JSON, unknown types and messages
// a type's rules reject are ignored; the connection stays open.
func (s *Server) handleText(c *client, data []byte) {
	if len(data) > textLimit {
		s.log.Info("web message ignored: too long", "id", c.ss.id, "bytes", len(data))
		return
	}
	req, err := wsterm.ParseRequest(data)
	if err != nil {
		s.log.Info("web message ignored", "id", c.ss.id, "err", err)
		return
	}
	switch req.Type {
	case wsterm.TypePing:
		c.sendJSON(wsterm.NewPong(req.Data))
	case wsterm.TypeChat:
		if req.UserName == "" || req.Text == "" {
			return
		}
		b, _ := json.Marshal(wsterm.NewChat(req.UserName, req.Text, time.Now()))
		s.broadcast(c.ss, websocket.MessageText, b)
	case wsterm.TypeRename:
		name, ok := wsterm.SessionName(req.Name)
		if !ok {
			s.log.Info("web rename ignored", "id", c.ss.id, "name", req.Name)
			return
		}
		s.mu.Lock()
		c.ss.name = name
		s.mu.Unlock()
		s.broadcastStatus(c.ss)
	case wsterm.TypeToggleYolo:
		s.toggleYolo(c.ss)
	default:
		s.log.Debug("web message of unknown type ignored", "id", c.ss.id, "type", req.Type)
	}
}

// inputPiece is the most input read before it is sent on to the session.
const inputPiece = 32 << 10

// handleBinary handles a binary frame, read from r: resize, upload or
// input, told apart as wsterm.ParseBinary does. An error is the
// connection's read failing.
func (s *Server) handleBinary(c *client, r io.Reader, buf []byte) error {
	n, err := readHead(r, buf[:3])
	if err != nil {
		return err
	}
	switch {
	case n == 3 && buf[0] == wsterm.MarkerUpload:
		name := make([]byte, binary.BigEndian.Uint16(buf[1:3]))
		k, err := readHead(r, name)
		if err != nil {
			return err
		}
		if k < len(name) {
			s.log.Info("web frame ignored", "id", c.ss.id, "err", fmt.Errorf("%w: name of %d bytes in a frame of %d", wsterm.ErrUpload, len(name), 3+k))
			c.sendJSON(wsterm.UploadFailed("", "malformed upload frame"))
			return nil
		}
		s.upload(c, name, r)
		return nil
	case n == 3 && buf[0] == wsterm.MarkerResize:
		k, err := readHead(r, buf[3:5])
		if err != nil {
			return err
		}
		if n += k; n < 5 {
			break // too short for a resize: keystrokes
		}
		fr, _ := wsterm.ParseBinary(buf[:5])
		if fr.Rows == 0 || fr.Cols == 0 || fr.Rows > maxSide || fr.Cols > maxSide {
			s.log.Info("web resize ignored", "id", c.ss.id, "rows", fr.Rows, "cols", fr.Cols)
			return nil
		}
		s.mu.Lock()
		c.rows, c.cols = fr.Rows, fr.Cols
		s.mu.Unlock()
		s.applySize(c.ss)
		s.broadcastStatus(c.ss)
		return nil
	}
	return s.input(c, r, buf, n)
}

// readHead reads len(b) bytes of a message, or as many as it has: only a
// failing read is an error.
func readHead(r io.Reader, b []byte) (int, error) {
	n, err := io.ReadFull(r, b)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil
	}
	return n, err
}

// input sends the session an input frame whose first n bytes are in buf,
// and the rest of it from r, a piece at a time.
func (s *Server) input(c *client, r io.Reader, buf []byte, n int) error {
	for {
		k, err := io.ReadFull(r, buf[n:])
		n += k
		if n > 0 {
			s.send(c, buf[:n])
			n = 0
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// send types data into c's session.
func (s *Server) send(c *client, data []byte) {
	if err := s.opts.Fleet.Send(c.ss.id, session.Input{Data: bytes.Clone(data)}); err != nil {
		s.log.Debug("web input not delivered", "id", c.ss.id, "err", err)
	}
}

// minSizeLocked is the smallest size over the clients that gave one.
// s.mu is held.
func minSizeLocked(ss *sess) (cols, rows uint16, ok bool) {
	for c := range ss.clients {
		if c.cols == 0 || c.rows == 0 {
			continue
		}
		if !ok || c.cols < cols {
			cols = c.cols
		}
		if !ok || c.rows < rows {
			rows = c.rows
		}
		ok = true
	}
	return cols, rows, ok
}

// applySize sets the session's size to the minimum over its clients.
// It does so even when that is the size this server set last: something
// else (the dashboard fitting the session to its pane) may have resized
// the pty since, and a viewer's resize or leave puts it back to the
// viewers' minimum. (A pty set to the size it has does not signal its
// program.)
func (s *Server) applySize(ss *sess) {
	s.mu.Lock()
	cols, rows, ok := minSizeLocked(ss)
	s.mu.Unlock()
	if !ok {
		return
	}
	if err := s.opts.Fleet.Resize(ss.id, cols, rows); err != nil {
		s.log.Info("web resize failed", "id", ss.id, "err", err)
	}
}

// broadcast queues a message for every client of ss.
func (s *Server) broadcast(ss *sess, typ websocket.MessageType, b []byte) {
	s.mu.Lock()
	cs := make([]*client, 0, len(ss.clients))
	for c := range ss.clients {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.send(typ, b)
	}
}

// status describes ss: its viewers and the size they make (the session's
// own size while none has said).
func (s *Server) status(ss *sess) wsterm.Status {
	in, _ := s.lookup(ss.id)
	a := s.assistant(in.Agent, s.presets)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := wsterm.Status{Type: wsterm.TypeStatus, Viewers: len(ss.clients), Cols: in.Cols, Rows: in.Rows,
		Assistant: a.name, SessionName: ss.name, UUIDShort: wsterm.ShortID(ss.id), YoloMode: ss.yolo, YoloSupported: a.yolo != nil}
	if cols, rows, ok := minSizeLocked(ss); ok {
		st.Cols, st.Rows = int(cols), int(rows)
	}
	return st
}

func (s *Server) broadcastStatus(ss *sess) {
	b, _ := json.Marshal(s.status(ss))
	s.broadcast(ss, websocket.MessageText, b)
}

// toggleYolo restarts the session's agent with its YOLO command (or, when
// switching off, its resume command), if its preset has one: status and
// a notice in the terminal first, then the old program gets SIGTERM and
// the new one starts under the same id. Its viewers follow the new one
// (no exit message: the process was replaced, not ended).
func (s *Server) toggleYolo(ss *sess) {
	in, ok := s.lookup(ss.id)
	if !ok || !in.Alive {
		return
	}
	a := s.assistant(in.Agent, s.presets)
	if a.yolo == nil {
		s.log.Debug("web toggle_yolo ignored: no YOLO mode", "id", ss.id, "agent", in.Agent)
		return
	}
	s.mu.Lock()
	if ss.replacing {
		s.mu.Unlock()
		return
	}
	ss.yolo = !ss.yolo
	on := ss.yolo
	ss.replacing, ss.replaced, ss.replaceErr = true, make(chan struct{}), nil
	s.mu.Unlock()
	s.broadcastStatus(ss)
	word, argv, env := "OFF", a.resume, []string(nil)
	if on {
		word, argv, env = "ON", a.yolo, a.yoloEnv
	}
	s.broadcast(ss, websocket.MessageBinary, []byte("\r\n[Switching YOLO mode "+word+", restarting agent...]\r\n"))
	cols, rows := uint16(in.Cols), uint16(in.Rows)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), replaceWait)
		defer cancel()
		err := s.opts.Fleet.Replace(ctx, ss.id, fleet.Spec{Agent: in.Agent, Argv: argv, Dir: in.Dir,
			Env: append([]string{"TERM=xterm-256color"}, env...), Cols: cols, Rows: rows})
		if err != nil {
			s.log.Warn("web YOLO toggle: agent not restarted", "id", ss.id, "err", err)
		}
		s.mu.Lock()
		ss.replacing, ss.replaceErr = false, err
		if err != nil {
			ss.yolo = !on
		}
		close(ss.replaced)
		s.mu.Unlock()
		s.broadcastStatus(ss)
	}()
}
