// Package mux carries many connections to sessions' sockets over one byte
// stream — the stdio of one `ssh HOST heimdall mux` — so that a dashboard
// follows every session of another machine over a single SSH connection
// (sshd's MaxSessions is never the limit) without port forwarding. Each
// connection is a channel: the client opens one to a session by its ID,
// and the channel then carries the session's own frame protocol
// (wire/frame) byte for byte, both ways. The server announces the
// sessions it serves as they come and go. PROTOCOL.md has the frames.
//
// Flow control is per channel: a side sends at most Window bytes of a
// channel's data that the other has not acknowledged (WINDOW), so a
// session whose reader is slow holds up its own channel only; the stream
// itself is never blocked by one channel.
package mux

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Frame types.
const (
	tHello    byte = 0x01 // channel 0, JSON Hello: the server's first frame
	tSessions byte = 0x02 // channel 0, JSON Sessions: server → client
	tOpen     byte = 0x03 // client → server: open a channel to the session named by the payload
	tOpened   byte = 0x04 // server → client: the channel is open
	tData     byte = 0x05 // either way: the channel's bytes
	tClose    byte = 0x06 // either way: the channel is closed; payload: why (may be empty)
	tWindow   byte = 0x07 // either way: u32 BE, bytes of the channel's data consumed
	tRun      byte = 0x08 // client → server, channel N: JSON RunRequest: start a session
	tRunDone  byte = 0x09 // server → client, channel N: JSON RunResult
)

// RunRequest asks the server to start a session, resolved on its machine:
// Preset names one of its presets (its command, classifier and
// environment); Argv, for a command of no preset, is run as given.
// Restart starts session ID again from its record there instead, once it
// has ended: "again" (its command line), "resume" (with --resume and the
// conversation its agent reported) or "fresh" (without a --resume).
type RunRequest struct {
	ID      string   `json:"id,omitempty"` // "" = the preset's (or program's) name and the lowest free -N
	Preset  string   `json:"preset,omitempty"`
	Argv    []string `json:"argv,omitempty"`
	Dir     string   `json:"dir,omitempty"` // "" or a directory the server lacks = its user's home
	Cols    uint16   `json:"cols,omitempty"`
	Rows    uint16   `json:"rows,omitempty"`
	Restart string   `json:"restart,omitempty"`
}

// RunResult answers a RunRequest: the session's ID, or why it did not
// start.
type RunResult struct {
	ID    string `json:"id,omitempty"`
	Error string `json:"error,omitempty"`
}

// Limits.
const (
	// Protocol is the version Hello carries.
	Protocol = 1
	// MaxPayload bounds a frame's payload; a larger one ends the stream.
	MaxPayload = 64 << 10
	// Window is how many bytes of a channel's data may be in flight
	// unacknowledged, each way.
	Window = 256 << 10
	// MaxChannels bounds the channels open at once on a stream.
	MaxChannels = 512
	headerLen   = 9 // type u8, channel u32, length u32
)

// Hello is the server's first frame.
type Hello struct {
	Protocol int    `json:"protocol"`
	Host     string `json:"host,omitempty"` // the server's host name
	Dir      string `json:"dir,omitempty"`  // its socket directory
	// Exe is the server's executable (an absolute path), which also
	// attaches a terminal to a session there: `EXE --socket-dir DIR attach ID`.
	Exe string `json:"exe,omitempty"`
}

// Sessions announces sessions: the first lists every session served, the
// next what changed.
type Sessions struct {
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// ErrClosed is returned for operations on a stream that has ended.
var ErrClosed = errors.New("mux: stream closed")

// Conn is one end of a multiplexed stream. Its methods are safe for
// concurrent use.
type Conn struct {
	rw     io.ReadWriteCloser
	server bool
	dial   func(id string) (net.Conn, error) // server: a channel's connection
	run    func(RunRequest) (string, error)  // server: start a session (nil: refused)
	runs   map[uint32]chan RunResult         // client: RUNs waiting for their result
	notify func(Sessions)                    // client: announcements

	wmu sync.Mutex // whole frames, one at a time

	mu    sync.Mutex
	chans map[uint32]*channel
	next  uint32 // the client's last channel id
	hello Hello
	err   error
	done  chan struct{}
	ready chan struct{} // client: Hello read
}

// Server serves the stream rw: each channel the client opens is the
// connection dial gives for its session ID (an error closes the channel
// with it as the reason). Run Announce to tell the client of sessions,
// and Wait for the stream's end.
func Server(rw io.ReadWriteCloser, hello Hello, dial func(id string) (net.Conn, error)) *Conn {
	c := newConn(rw)
	c.server, c.dial = true, dial
	hello.Protocol = Protocol
	b, _ := json.Marshal(hello)
	go func() {
		if err := c.write(tHello, 0, b); err != nil {
			c.fail(err)
			return
		}
		c.read()
	}()
	return c
}

// Client is the other end: notify gets every announcement (on the reading
// goroutine: it must not block for long). It returns once the server's
// Hello is read.
func Client(rw io.ReadWriteCloser, notify func(Sessions)) (*Conn, error) {
	c := newConn(rw)
	c.notify = notify
	go c.read()
	select {
	case <-c.ready:
		return c, nil
	case <-c.done:
		return nil, c.Err()
	}
}

func newConn(rw io.ReadWriteCloser) *Conn {
	return &Conn{rw: rw, chans: map[uint32]*channel{}, runs: map[uint32]chan RunResult{}, done: make(chan struct{}), ready: make(chan struct{})}
}

// ServeRuns makes the server start sessions on RUN with run (before any
// client can ask: call it right after Server).
func (c *Conn) ServeRuns(run func(RunRequest) (string, error)) {
	c.mu.Lock()
	c.run = run
	c.mu.Unlock()
}

// Run asks the server to start a session (client) and returns its ID.
func (c *Conn) Run(req RunRequest) (string, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return "", ErrClosed
	}
	c.next++
	id := c.next
	res := make(chan RunResult, 1)
	c.runs[id] = res
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.runs, id)
		c.mu.Unlock()
	}()
	if err := c.write(tRun, id, b); err != nil {
		return "", err
	}
	select {
	case r := <-res:
		if r.Error != "" {
			return "", errors.New(r.Error)
		}
		return r.ID, nil
	case <-c.done:
		return "", ErrClosed
	}
}

// Hello is what the server said of itself.
func (c *Conn) Hello() Hello {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hello
}

// Done is closed when the stream has ended (Err says why).
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the stream ended (nil while it runs).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the stream and every channel.
func (c *Conn) Close() error {
	c.fail(ErrClosed)
	return nil
}

// Announce sends an announcement (server).
func (c *Conn) Announce(s Sessions) error {
	b, _ := json.Marshal(s)
	return c.write(tSessions, 0, b)
}

// fail ends the stream with err (the first error stands).
func (c *Conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	chans := c.chans
	c.chans = map[uint32]*channel{}
	close(c.done)
	c.mu.Unlock()
	c.rw.Close()
	for _, ch := range chans {
		ch.end()
	}
}

// write sends one frame.
func (c *Conn) write(typ byte, ch uint32, payload []byte) error {
	if len(payload) > MaxPayload {
		return fmt.Errorf("mux: payload of %d bytes", len(payload))
	}
	var h [headerLen]byte
	h[0] = typ
	binary.BigEndian.PutUint32(h[1:5], ch)
	binary.BigEndian.PutUint32(h[5:9], uint32(len(payload)))
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	if _, err := c.rw.Write(append(h[:], payload...)); err != nil {
		c.fail(err)
		return err
	}
	return nil
}

// read reads frames until the stream ends.
func (c *Conn) read() {
	var h [headerLen]byte
	buf := make([]byte, MaxPayload)
	r := bufio.NewReaderSize(c.rw, headerLen+MaxPayload) // a frame in one read
	for {
		if _, err := io.ReadFull(r, h[:]); err != nil {
			if errors.Is(err, io.EOF) {
				c.drain() // the peer closed its side: what it sent is delivered
			}
			c.fail(fmt.Errorf("mux: stream ended: %w", err))
			return
		}
		typ, id, n := h[0], binary.BigEndian.Uint32(h[1:5]), binary.BigEndian.Uint32(h[5:9])
		if n > MaxPayload {
			c.fail(fmt.Errorf("mux: a frame of %d bytes (at most %d)", n, MaxPayload))
			return
		}
		p := buf[:n]
		if _, err := io.ReadFull(r, p); err != nil {
			c.fail(fmt.Errorf("mux: stream ended: %w", err))
			return
		}
		if err := c.handle(typ, id, p); err != nil {
			c.fail(err)
			return
		}
	}
}

// handle acts on one frame; an error ends the stream (the peer does not
// speak the protocol).
func (c *Conn) handle(typ byte, id uint32, p []byte) error {
	switch typ {
	case tHello:
		var h Hello
		if c.server || json.Unmarshal(p, &h) != nil || h.Protocol != Protocol {
			return fmt.Errorf("mux: the server speaks %q, not protocol %d", p, Protocol)
		}
		c.mu.Lock()
		c.hello = h
		c.mu.Unlock()
		close(c.ready)
	case tSessions:
		var s Sessions
		if c.server || json.Unmarshal(p, &s) != nil {
			return errors.New("mux: a bad SESSIONS")
		}
		if c.notify != nil {
			c.notify(s)
		}
	case tOpen:
		if !c.server || id == 0 {
			return errors.New("mux: an OPEN the client may not send")
		}
		c.open(id, string(p))
	case tOpened:
		if ch := c.channel(id); ch != nil && !c.server {
			ch.opened(nil)
		}
	case tRun:
		var req RunRequest
		if !c.server || id == 0 || json.Unmarshal(p, &req) != nil {
			return errors.New("mux: a bad RUN")
		}
		c.mu.Lock()
		run := c.run
		c.mu.Unlock()
		go func() {
			var r RunResult
			if run == nil {
				r.Error = "this server starts no sessions"
			} else if sid, err := run(req); err != nil {
				r.Error = err.Error()
			} else {
				r.ID = sid
			}
			b, _ := json.Marshal(r)
			c.write(tRunDone, id, b)
		}()
	case tRunDone:
		var r RunResult
		if c.server || json.Unmarshal(p, &r) != nil {
			return errors.New("mux: a bad RUN result")
		}
		c.mu.Lock()
		res := c.runs[id]
		c.mu.Unlock()
		if res != nil {
			res <- r
		}
	case tData:
		if ch := c.channel(id); ch != nil {
			return ch.take(p)
		}
		// A channel closed here while its data was in flight: dropped.
	case tWindow:
		if len(p) != 4 {
			return errors.New("mux: a bad WINDOW")
		}
		if ch := c.channel(id); ch != nil {
			ch.credit(int64(binary.BigEndian.Uint32(p)))
		}
	case tClose:
		if ch := c.channel(id); ch != nil {
			why := string(p)
			if why == "" {
				why = "closed by the other side"
			}
			ch.opened(errors.New(why))
			ch.remoteClosed()
		}
	default:
		return fmt.Errorf("mux: unknown frame type 0x%02x", typ)
	}
	return nil
}

func (c *Conn) channel(id uint32) *channel {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.chans[id]
}

// open serves a client's OPEN: its session's connection, off the reading
// goroutine (a dial may take a moment).
func (c *Conn) open(id uint32, session string) {
	c.mu.Lock()
	if c.chans[id] != nil || len(c.chans) >= MaxChannels {
		c.mu.Unlock()
		c.write(tClose, id, []byte("channel refused: in use, or too many open"))
		return
	}
	ch := newChannel(c, id)
	c.chans[id] = ch
	c.mu.Unlock()
	go func() {
		conn, err := c.dial(session)
		if err != nil {
			c.forget(ch)
			c.write(tClose, id, []byte(err.Error()))
			return
		}
		if err := c.write(tOpened, id, nil); err != nil {
			conn.Close()
			return
		}
		ch.attach(conn)
	}()
}

// Dial opens a channel to session id (client) and returns it as a
// net.Conn, once the server has connected it (or says why not).
func (c *Conn) Dial(id string) (net.Conn, error) {
	if len(id) > MaxPayload {
		return nil, errors.New("mux: session id too long")
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	if len(c.chans) >= MaxChannels {
		c.mu.Unlock()
		return nil, fmt.Errorf("mux: %d channels open already", MaxChannels)
	}
	c.next++
	ch := newChannel(c, c.next)
	c.chans[ch.id] = ch
	c.mu.Unlock()
	if err := c.write(tOpen, ch.id, []byte(id)); err != nil {
		c.forget(ch)
		return nil, err
	}
	select {
	case <-ch.openc:
	case <-c.done:
		return nil, ErrClosed
	}
	if ch.openErr != nil {
		c.forget(ch)
		return nil, fmt.Errorf("open %s: %w", id, ch.openErr)
	}
	return ch, nil
}

// forget removes ch from the stream's channels.
func (c *Conn) forget(ch *channel) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chans[ch.id] == ch {
		delete(c.chans, ch.id)
	}
}

// drainWait bounds how long a stream the peer closed waits for its
// channels to deliver what the peer sent before it (a KILL a command sent
// just before it disconnected).
const drainWait = 2 * time.Second

// drain treats the end of the peer's side as a CLOSE of every channel and
// waits, within drainWait, until each has written what it got.
func (c *Conn) drain() {
	c.mu.Lock()
	chans := make([]*channel, 0, len(c.chans))
	for _, ch := range c.chans {
		chans = append(chans, ch)
	}
	c.mu.Unlock()
	deadline := time.After(drainWait)
	for _, ch := range chans {
		ch.mu.Lock()
		attached := ch.local != nil
		ch.mu.Unlock()
		ch.remoteClosed()
		if !attached {
			continue
		}
		select {
		case <-ch.inDone:
		case <-deadline:
			return
		}
	}
}
