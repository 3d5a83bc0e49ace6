package attach

import (
	"sync"
	"time"

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
}

// Dial connects to the session socket at path and subscribes.
func Dial(path string) (*Socket, error) {
	c, err := frame.Dial(path, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return NewSocket(c)
}

// NewSocket subscribes on c, says it is an interactive terminal (the ATTACH
// extension: the session's emulator then leaves queries to this terminal;
// servers without it ignore the frame) and returns it as an Endpoint.
func NewSocket(c *frame.Client) (*Socket, error) {
	if err := c.Subscribe(); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.Send(frame.Attach, nil); err != nil {
		c.Close()
		return nil, err
	}
	s := &Socket{c: c}
	if raw, ok := rawio.Of(c.Conn()); ok && c.Buffered() == 0 {
		s.raw, s.r = raw, frame.NewReaderSize(raw, 8<<10)
	}
	return s, nil
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

func (s *Socket) Input(p []byte) error { return s.send(frame.Input, p) }
func (s *Socket) Resize(cols, rows uint16) error {
	return s.send(frame.Resize, frame.ResizePayload(cols, rows))
}
func (s *Socket) Close() error { return s.c.Close() }

// Recv implements Endpoint. A connection that ends without EXIT is an error.
func (s *Socket) Recv() ([]byte, bool, int, error) {
	next := s.c.NextShared
	if s.r != nil {
		next = s.r.NextShared
	}
	for {
		f, err := next()
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
