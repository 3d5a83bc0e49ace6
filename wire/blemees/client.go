package blemees

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/jsonl"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// Frame is one frame a client read: its envelope decoded, the line kept.
type Frame struct {
	Type      string
	ID        string // the request's id, on replies ("" on events)
	SessionID string
	Seq       uint64 // 0: none (replies, replay_gap)
	Raw       []byte // the whole line (owned by the Frame)
}

// Decode unmarshals the frame's line into v.
func (f Frame) Decode(v any) error { return json.Unmarshal(f.Raw, v) }

// HelloAck is the daemon's answer to the handshake.
type HelloAck struct {
	Daemon        string  `json:"daemon"`
	Protocol      string  `json:"protocol"`
	PID           int     `json:"pid"`
	ClaudeVersion *string `json:"claude_version"`
}

// ErrConnClosed is returned by requests on (or interrupted by) a closed
// connection; Conn.Err says why it closed.
var ErrConnClosed = errors.New("blemees: connection closed")

// Conn is a client connection to a blemees/1 daemon (what the dashboard
// uses to follow a standalone blemeesd). Replies are matched to requests
// by id (Request); every other frame — session events, replays, replay
// gaps, error frames without a request id — goes to the OnFrame callback
// given to Dial, in the order read. Its methods are safe for concurrent
// use.
type Conn struct {
	// Hello is the daemon's hello_ack.
	Hello HelloAck

	nc      net.Conn
	onFrame func(Frame)
	wmu     sync.Mutex

	mu      sync.Mutex
	nextID  uint64
	pending map[string]chan Frame
	err     error
	done    chan struct{}
}

// Dial connects to the daemon on socket path and shakes hands as client
// (hello's "client"). onFrame (nil: dropped) gets every frame that is not
// a reply to a request, from the connection's reader goroutine: it must
// not block for long and must not call Request (the reply could not be
// read meanwhile). A protocol_mismatch refusal is an *Error.
func Dial(ctx context.Context, path, client string, onFrame func(Frame)) (*Conn, error) {
	nc, err := unixsock.Dial(ctx, path)
	if err != nil {
		return nil, err
	}
	c := &Conn{nc: nc, onFrame: onFrame, pending: map[string]chan Frame{}, done: make(chan struct{})}
	r := jsonl.NewReader(nc, 0)
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
	}
	fail := func(err error) (*Conn, error) {
		nc.Close()
		return nil, fmt.Errorf("blemees hello: %w", err)
	}
	if err := c.write(map[string]any{"type": "blemeesd.hello", "client": client, "protocol": Protocol}); err != nil {
		return fail(err)
	}
	line, err := r.ReadLine()
	if err != nil {
		return fail(err)
	}
	f, err := parseFrame(line)
	if err != nil {
		return fail(err)
	}
	switch f.Type {
	case "blemeesd.hello_ack":
		if err := f.Decode(&c.Hello); err != nil {
			return fail(err)
		}
	case "blemeesd.error":
		return fail(frameError(f))
	default:
		return fail(fmt.Errorf("unexpected %s", f.Type))
	}
	nc.SetDeadline(time.Time{})
	go c.read(r)
	return c, nil
}

// parseFrame decodes a line's envelope.
func parseFrame(line []byte) (Frame, error) {
	var env struct {
		Type      string `json:"type"`
		ID        any    `json:"id"`
		SessionID string `json:"session_id"`
		Seq       uint64 `json:"seq"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		return Frame{}, fmt.Errorf("frame: %w", err)
	}
	id, _ := env.ID.(string)
	return Frame{Type: env.Type, ID: id, SessionID: env.SessionID, Seq: env.Seq, Raw: append([]byte(nil), line...)}, nil
}

// frameError is a blemeesd.error frame as an *Error.
func frameError(f Frame) *Error {
	var e Error
	var body struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	f.Decode(&body)
	e.Code, e.Message = body.Code, body.Message
	return &e
}

// read dispatches frames until the connection fails.
func (c *Conn) read(r *jsonl.Reader) {
	var err error
	for {
		var line []byte
		line, err = r.ReadLine()
		if err != nil {
			break
		}
		f, perr := parseFrame(line)
		if perr != nil {
			continue
		}
		if f.ID != "" {
			c.mu.Lock()
			ch := c.pending[f.ID]
			delete(c.pending, f.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- f
				continue
			}
		}
		if c.onFrame != nil {
			c.onFrame(f)
		}
	}
	c.nc.Close()
	c.mu.Lock()
	c.err = err
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.done)
}

func (c *Conn) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.nc.Write(append(b, '\n'))
	return err
}

// Send writes a frame that gets no reply (claude.user, blemeesd.interrupt):
// fields plus "type" typ.
func (c *Conn) Send(typ string, fields map[string]any) error {
	m := map[string]any{"type": typ}
	for k, v := range fields {
		m[k] = v
	}
	return c.write(m)
}

// Request sends a request (fields plus "type" typ and a fresh "id") and
// waits for the frame answering it. A blemeesd.error reply is returned as
// an *Error (with the frame). Frames the daemon sends after the reply
// (a watch's replay) go to OnFrame.
func (c *Conn) Request(ctx context.Context, typ string, fields map[string]any) (Frame, error) {
	c.mu.Lock()
	if c.err != nil || c.isDone() {
		c.mu.Unlock()
		return Frame{}, ErrConnClosed
	}
	c.nextID++
	id := "h" + strconv.FormatUint(c.nextID, 10)
	ch := make(chan Frame, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	m := map[string]any{"type": typ, "id": id}
	for k, v := range fields {
		m[k] = v
	}
	if err := c.write(m); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return Frame{}, fmt.Errorf("%s: %w", typ, err)
	}
	select {
	case f, ok := <-ch:
		if !ok {
			return Frame{}, fmt.Errorf("%s: %w", typ, ErrConnClosed)
		}
		if f.Type == "blemeesd.error" {
			return f, frameError(f)
		}
		return f, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return Frame{}, fmt.Errorf("%s: %w", typ, ctx.Err())
	}
}

func (c *Conn) isDone() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// Done is closed when the connection has ended (the daemon went away, or
// Close); OnFrame is not called after it.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the connection ended (nil while it is up; io.EOF when the
// daemon closed it).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection (a soft detach for the daemon) and waits
// for the reader to stop.
func (c *Conn) Close() error {
	err := c.nc.Close()
	<-c.done
	return err
}
