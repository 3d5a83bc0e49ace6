package attach

import (
	"net"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/rawio"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// Socket is an Endpoint over a session's Unix socket.
type Socket struct {
	c *frame.Client
	// With raw (a socket the netpoller watches, nothing read ahead by
	// c): frames are read through r and written under wmu, with raw
	// system calls (rawio); otherwise through c.
	raw rawio.Conn
	r   *frame.Reader
	wmu sync.Mutex

	subOnce sync.Once
	subErr  error
}

// Dial connects to the session socket at path.
func Dial(path string) (*Socket, error) {
	c, err := frame.Dial(path, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return NewSocket(c)
}

// NewSocket returns c as an Endpoint. Run first offers the server the
// terminal itself (TERMINAL); when the server does not take it, and on
// the first Recv outside Run, the Socket subscribes and says it is an
// interactive terminal (the ATTACH extension: the session's emulator then
// leaves queries to this terminal; servers without it ignore the frame).
func NewSocket(c *frame.Client) (*Socket, error) {
	s := &Socket{c: c}
	if raw, ok := rawio.Of(c.Conn()); ok && c.Buffered() == 0 {
		s.raw, s.r = raw, frame.NewReaderSize(raw, 8<<10)
	}
	return s, nil
}

// subscribe sends SUBSCRIBE and ATTACH, once.
func (s *Socket) subscribe() error {
	s.subOnce.Do(func() {
		if s.subErr = s.send(frame.Subscribe, nil); s.subErr == nil {
			s.subErr = s.send(frame.Attach, nil)
		}
	})
	return s.subErr
}

func (s *Socket) send(t frame.Type, p []byte) error {
	if s.r == nil {
		return s.c.Send(t, p)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.raw.Write(frame.AppendFrame(nil, t, p))
	return err
}

func (s *Socket) next() (frame.Frame, error) {
	if s.r != nil {
		return s.r.NextShared()
	}
	return s.c.NextShared()
}

func (s *Socket) Input(p []byte) error { return s.send(frame.Input, p) }
func (s *Socket) Resize(cols, rows uint16) error {
	return s.send(frame.Resize, frame.ResizePayload(cols, rows))
}
func (s *Socket) Close() error { return s.c.Close() }

// Recv implements Endpoint. A connection that ends without EXIT is an error.
func (s *Socket) Recv() ([]byte, bool, int, error) {
	if err := s.subscribe(); err != nil {
		return nil, false, 0, err
	}
	for {
		f, err := s.next()
		if err != nil {
			return nil, false, 0, err
		}
		switch f.Type {
		case frame.Output:
			return f.Payload, false, 0, nil
		case frame.Exit:
			code, err := frame.ParseExit(f.Payload)
			return nil, err == nil, int(code), err
		}
	}
}

// handOver offers the server the terminal (TERMINAL with the descriptors
// in and out, then STATUS) and reports whether it took it: a server
// without the extension (hm, an older heimdall-tui) ignores TERMINAL, and
// its STATUS_RESP comes first. It must come before any Recv.
func (s *Socket) handOver(in, out int, detach byte) (bool, error) {
	uc, ok := s.c.Conn().(*net.UnixConn)
	if !ok {
		return false, nil
	}
	fds := []int{in, out}
	s.wmu.Lock()
	_, _, err := uc.WriteMsgUnix(frame.AppendFrame(nil, frame.Terminal, []byte{detach}), unix.UnixRights(fds...), nil)
	s.wmu.Unlock()
	if err != nil {
		return false, err
	}
	if err := s.send(frame.Status, nil); err != nil {
		return false, err
	}
	for {
		f, err := s.next()
		if err != nil {
			return false, err
		}
		switch f.Type {
		case frame.StatusResp:
			return false, nil
		case frame.TerminalState:
			return len(f.Payload) == 1 && f.Payload[0] == frame.TerminalTaken, nil
		}
	}
}

// waitTerminal waits while the server has the terminal, until it hands it
// back (the TERMINAL_STATE reason) or the session's EXIT.
func (s *Socket) waitTerminal() (reason byte, exited bool, code int, err error) {
	for {
		f, err := s.next()
		if err != nil {
			return 0, false, 0, err
		}
		switch f.Type {
		case frame.TerminalState:
			if len(f.Payload) == 1 {
				return f.Payload[0], false, 0, nil
			}
		case frame.Exit:
			code, err := frame.ParseExit(f.Payload)
			return 0, err == nil, int(code), err
		}
	}
}

// Local is an Endpoint on a session in this process: no socket, no extra
// copy; output comes straight from the session's subscription.
type Local struct {
	s      *supervisor.Session
	sub    *supervisor.Subscription
	replay []byte
	detach func()
	once   sync.Once
	closed chan struct{}
}

// NewLocal subscribes to s; the scrollback is delivered first.
func NewLocal(s *supervisor.Session) *Local {
	replay, sub := s.Subscribe(0)
	return &Local{s: s, sub: sub, replay: replay, detach: s.TerminalAttached(), closed: make(chan struct{})}
}

func (l *Local) Input(p []byte) error {
	_, err := l.s.Write(p)
	return err
}

func (l *Local) Resize(cols, rows uint16) error { return l.s.Resize(cols, rows) }

func (l *Local) Close() error {
	l.once.Do(func() {
		close(l.closed)
		l.sub.Close()
		l.detach()
	})
	return nil
}

// Recv implements Endpoint.
func (l *Local) Recv() ([]byte, bool, int, error) {
	if r := l.replay; r != nil {
		l.replay = nil
		if len(r) > 0 {
			return r, false, 0, nil
		}
	}
	select {
	case <-l.closed:
		return nil, false, 0, ErrClosed
	default:
	}
	select {
	case p := <-l.sub.C():
		return p, false, 0, nil
	case <-l.s.Done():
		// Done comes after the last chunk was queued: drain before EXIT.
		select {
		case p := <-l.sub.C():
			return p, false, 0, nil
		default:
			return nil, true, l.s.ExitCode(), nil
		}
	case <-l.closed:
		return nil, false, 0, ErrClosed
	}
}
