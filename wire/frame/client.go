package frame

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// Client is a connection to one session's socket. Send methods may be called
// from any goroutine; Next must be called from one goroutine at a time.
type Client struct {
	conn net.Conn
	r    *Reader
	wmu  sync.Mutex
}

// clientBuffer is a Client's read buffer.
const clientBuffer = 8 << 10

// ErrForeignPeer is returned by Dial when the socket's server runs as
// another user: someone who could write the socket's directory may have
// put their own in a session's place, and a client must not send it
// anything (an attach would hand it the user's terminal).
var ErrForeignPeer = errors.New("socket served by another user")

// checkPeer refuses conn unless its server runs as this process's user
// (SO_PEERCRED, recorded by the kernel when the server listened).
func checkPeer(conn net.Conn, path string) error {
	return checkPeerUID(conn, path, os.Geteuid())
}

func checkPeerUID(conn net.Conn, path string, uid int) error {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return fmt.Errorf("%s: not a socket", path)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("%s: peer credentials: %w", path, cerr)
	}
	if int(cred.Uid) != uid {
		return fmt.Errorf("%w: %s is served by uid %d (pid %d), not by you (uid %d); refusing to use it", ErrForeignPeer, path, cred.Uid, cred.Pid, uid)
	}
	return nil
}

// Dial connects to the session socket at path, refuses a server that runs
// as another user (ErrForeignPeer) before anything is sent, and
// checks the mode byte. timeout bounds the connect and the mode byte read
// (0 means no limit).
func Dial(path string, timeout time.Duration) (*Client, error) {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	if err := checkPeer(conn, path); err != nil {
		conn.Close()
		return nil, err
	}
	return NewClient(conn, timeout)
}

// NewClient is a Client over conn, a connection to a session made another
// way (a channel of wire/mux: the far end checked the socket's owner): it
// checks the mode byte, within timeout (0: no limit). It closes conn if
// that fails.
func NewClient(conn net.Conn, timeout time.Duration) (*Client, error) {
	if timeout > 0 {
		conn.SetReadDeadline(time.Now().Add(timeout))
	}
	if err := ReadMode(conn); err != nil {
		conn.Close()
		return nil, err
	}
	conn.SetReadDeadline(time.Time{})
	// The client keeps the default MaxPayload limit. Reader.Next allocates
	// the announced length before reading the payload, so a larger limit
	// would let a broken or foreign process on the socket make the client
	// allocate up to that much from one 5-byte header. Servers send OUTPUT
	// in chunks far below 1 MiB.
	// An 8 KiB buffer, not NewReader's 64 KiB: a client may hold a
	// connection per session for hours (the dashboard holds two), and
	// OUTPUT payloads larger than the buffer are read straight into place.
	return &Client{conn: conn, r: NewReaderSize(conn, clientBuffer)}, nil
}

// Conn returns the underlying connection (for deadlines).
func (c *Client) Conn() net.Conn { return c.conn }

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Send writes one frame.
func (c *Client) Send(t Type, payload []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return Write(c.conn, t, payload)
}

// Next reads the next frame from the server.
func (c *Client) Next() (Frame, error) { return c.r.Next() }

// NextShared reads the next frame into a buffer reused by the following
// call (see Reader.NextShared).
func (c *Client) NextShared() (Frame, error) { return c.r.NextShared() }

// Buffered returns how many received bytes wait in the client's read
// buffer (see Reader.Buffered): while it is 0, a caller may read the
// connection with a Reader of its own (attach's Socket does, with raw
// system calls).
func (c *Client) Buffered() int { return c.r.Buffered() }

// Input sends bytes for the session's pty.
func (c *Client) Input(p []byte) error { return c.Send(Input, p) }

// Resize asks the session to resize its pty.
func (c *Client) Resize(cols, rows uint16) error { return c.Send(Resize, ResizePayload(cols, rows)) }

// Kill asks the session to terminate its child.
func (c *Client) Kill() error { return c.Send(Kill, nil) }

// Hangup asks the session to hang up its child as a closing terminal does
// (HANGUP, an extension of this implementation; other servers ignore it).
func (c *Client) Hangup() error { return c.Send(Hangup, nil) }

// Subscribe switches the connection to subscriber mode; OUTPUT frames
// (scrollback first) and finally EXIT follow on Next.
func (c *Client) Subscribe() error { return c.Send(Subscribe, nil) }

// SubscribeScreen switches the connection to subscriber mode as Subscribe
// does, but the first OUTPUT frames draw the session's current screen (a
// repaint: written to a fresh terminal of the session's size they show the
// screen) and the OUTPUT after them continues from exactly there
// (SUBSCRIBE_SCREEN, an extension of this implementation). The repaint is
// the first frame the server sends after it. A server without the extension
// (hm, an older heimdall-tui) ignores it and sends nothing: send STATUS
// right after it, and if STATUS_RESP comes before any OUTPUT, Subscribe
// (see PROTOCOL.md).
func (c *Client) SubscribeScreen() error { return c.Send(SubscribeScreen, nil) }

// Status requests and returns the session's status. It must not be used on a
// subscribed connection, where OUTPUT frames interleave with the reply.
func (c *Client) Status() (StatusInfo, error) {
	var s StatusInfo
	return s, c.request(Status, nil, StatusResp, &s)
}

// request sends t and decodes the next frame of type reply into v, skipping
// other frames (a subscribed connection interleaves OUTPUT).
func (c *Client) request(t Type, payload []byte, reply Type, v encoding.BinaryUnmarshaler) error {
	if err := c.Send(t, payload); err != nil {
		return err
	}
	for {
		f, err := c.Next()
		if err != nil {
			return err
		}
		if f.Type == reply {
			return v.UnmarshalBinary(f.Payload)
		}
	}
}

// String describes the client for logs.
func (c *Client) String() string { return fmt.Sprintf("frame.Client(%s)", c.conn.RemoteAddr()) }

// Screen requests the session's screen (SCREEN, an extension of this
// implementation). A server without the extension never replies: set a
// deadline on Conn first. Like Status, not for subscribed connections.
func (c *Client) Screen(ansi bool) (ScreenInfo, error) {
	var flags []byte
	if ansi {
		flags = []byte{ScreenANSI}
	}
	var si ScreenInfo
	return si, c.request(Screen, flags, ScreenResp, &si)
}

// Answer asks the server to answer the dialog on the session's screen
// (ANSWER, an extension): the result says what it chose, or why it wrote
// nothing. A server without the extension never replies: set a deadline
// on Conn first. Not for subscribed connections.
func (c *Client) Answer(req AnswerRequest) (AnswerResult, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return AnswerResult{}, err
	}
	var res AnswerResult
	return res, c.request(Answer, b, AnswerResp, &res)
}

// Limit parks the session or schedules a continue after its usage limit
// (LIMIT, an extension; feature "limit").
func (c *Client) Limit(req LimitRequest) (LimitResult, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return LimitResult{}, err
	}
	var res LimitResult
	return res, c.request(Limit, b, LimitResp, &res)
}

// Say asks the server to type req's text into the agent as one prompt
// (SAY, an extension; feature "say").
func (c *Client) Say(req SayRequest) (SayResult, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return SayResult{}, err
	}
	var res SayResult
	return res, c.request(Say, b, SayResp, &res)
}

// Prompt asks for the dialog on the session's screen (PROMPT, an
// extension; see Answer).
func (c *Client) Prompt() (PromptInfo, error) {
	var p PromptInfo
	return p, c.request(Prompt, nil, PromptResp, &p)
}
