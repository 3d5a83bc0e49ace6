package supervisor

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// ErrServerClosed is returned by Serve after Shutdown or Close.
var ErrServerClosed = errors.New("supervisor: server closed")

// replayChunk bounds the size of the OUTPUT frames that replay scrollback.
const replayChunk = 16 << 10

// Server serves one Session over the Heimdall frame protocol. Its zero value
// plus Session is ready to use; it is shaped like net/http.Server.
type Server struct {
	Session *Session
	Logger  *slog.Logger
	// QueueLen overrides the session's subscriber queue length (chunks).
	QueueLen int

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	closed    bool
	wg        sync.WaitGroup
}

func (srv *Server) logger() *slog.Logger {
	if srv.Logger != nil {
		return srv.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// Serve accepts connections on l until Shutdown or Close, serving each on
// its own goroutine. It always returns a non-nil error; after Shutdown or
// Close, ErrServerClosed.
func (srv *Server) Serve(l net.Listener) error {
	srv.mu.Lock()
	if srv.closed {
		srv.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	if srv.listeners == nil {
		srv.listeners = make(map[net.Listener]struct{})
		srv.conns = make(map[*conn]struct{})
	}
	srv.listeners[l] = struct{}{}
	srv.mu.Unlock()
	var tempDelay time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			srv.mu.Lock()
			closed := srv.closed
			srv.mu.Unlock()
			if closed {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENFILE) {
				tempDelay = min(max(2*tempDelay, 5*time.Millisecond), time.Second)
				srv.logger().Warn("accept", "err", err, "retry_in", tempDelay)
				time.Sleep(tempDelay)
				continue
			}
			return err
		}
		tempDelay = 0
		c := &conn{srv: srv, nc: nc, done: make(chan struct{})}
		srv.mu.Lock()
		if srv.closed {
			srv.mu.Unlock()
			nc.Close()
			return ErrServerClosed
		}
		srv.conns[c] = struct{}{}
		srv.wg.Add(1)
		srv.mu.Unlock()
		go c.serve()
	}
}

func (srv *Server) closeListeners() {
	srv.closed = true
	for l := range srv.listeners {
		l.Close()
	}
}

// Shutdown stops accepting, closes connections that are not subscribed, and
// waits for subscribers to finish: they end after the session's EXIT frame
// has been written to them. If ctx ends first the rest are closed and
// ctx's error is returned at once, as net/http does: a connection blocked in
// a pty write (INPUT to a raw-mode child that does not read) ends only when
// the child reads or exits, and Shutdown does not wait for it. Call it once
// the session is Done to deliver EXIT to everyone before the process goes
// away.
func (srv *Server) Shutdown(ctx context.Context) error {
	srv.mu.Lock()
	srv.closeListeners()
	for c := range srv.conns {
		if !c.subscribed() {
			c.nc.Close()
		}
	}
	srv.mu.Unlock()
	finished := make(chan struct{})
	go func() { srv.wg.Wait(); close(finished) }()
	select {
	case <-finished:
		return nil
	case <-ctx.Done():
		srv.Close()
		return ctx.Err()
	}
}

// Close stops accepting and closes every connection at once.
func (srv *Server) Close() error {
	srv.mu.Lock()
	srv.closeListeners()
	for c := range srv.conns {
		c.nc.Close()
	}
	srv.mu.Unlock()
	return nil
}

// conn is one client connection.
type conn struct {
	srv  *Server
	nc   net.Conn
	log  *slog.Logger
	wmu  sync.Mutex // serialises frame writes (replies and the subscriber writer)
	sub  *Subscription
	done chan struct{} // closed when the read loop ends
	smu  sync.Mutex
}

func (c *conn) subscribed() bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.sub != nil
}

func (c *conn) serve() {
	srv, sess := c.srv, c.srv.Session
	c.log = srv.logger().With("conn", connID())
	var writer sync.WaitGroup
	defer func() {
		close(c.done)
		c.nc.Close()
		writer.Wait()
		if c.sub != nil {
			c.sub.Close()
		}
		srv.mu.Lock()
		delete(srv.conns, c)
		srv.mu.Unlock()
		srv.wg.Done()
	}()
	if uc, ok := c.nc.(*net.UnixConn); ok {
		if cred, err := peerCred(uc); err == nil {
			c.log = c.log.With("peer_uid", cred.Uid, "peer_pid", cred.Pid)
		}
	}
	c.log.Info("client connected")
	if _, err := c.nc.Write([]byte{frame.ModeBinary}); err != nil {
		return
	}
	r := frame.NewReaderSize(c.nc, 4<<10)
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
		switch f.Type {
		case frame.Input:
			if _, err := sess.Write(f.Payload); err != nil {
				c.log.Debug("input", "err", err)
			}
		case frame.Subscribe:
			c.smu.Lock()
			already := c.sub != nil
			if !already {
				var replay []byte
				replay, c.sub = sess.Subscribe(srv.QueueLen)
				writer.Add(1)
				go func(sub *Subscription) {
					defer writer.Done()
					c.subscriber(replay, sub)
				}(c.sub)
			}
			c.smu.Unlock()
		case frame.Status:
			if len(f.Payload) != 0 {
				c.log.Warn("STATUS with a payload ignored", "len", len(f.Payload))
				continue
			}
			b, _ := sess.Status().MarshalBinary()
			if err := c.write(frame.StatusResp, b); err != nil {
				return
			}
		case frame.Resize:
			cols, rows, err := frame.ParseResize(f.Payload)
			if err == nil {
				err = sess.Resize(cols, rows)
			}
			if err != nil {
				c.log.Warn("resize ignored", "err", err)
			}
		case frame.Kill:
			if len(f.Payload) != 0 {
				c.log.Warn("KILL with a payload ignored", "len", len(f.Payload))
				continue
			}
			c.log.Info("kill requested")
			if err := sess.Kill(); err != nil {
				c.log.Warn("kill", "err", err)
			}
		default:
			c.log.Warn("unexpected frame type ignored", "type", f.Type.String(), "len", len(f.Payload))
		}
	}
}

func (c *conn) write(t frame.Type, p []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return frame.Write(c.nc, t, p)
}

// writeChunks writes one OUTPUT frame per chunk with a single writev.
func (c *conn) writeChunks(chunks [][]byte) error {
	bufs := make(net.Buffers, 0, 2*len(chunks))
	hdrs := make([]byte, frame.HeaderSize*len(chunks))
	for i, p := range chunks {
		h := frame.Header(frame.Output, len(p))
		hb := hdrs[i*frame.HeaderSize : (i+1)*frame.HeaderSize]
		copy(hb, h[:])
		bufs = append(bufs, hb, p)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := bufs.WriteTo(c.nc)
	return err
}

// subscriber replays the scrollback, streams live chunks and finally writes
// EXIT, then closes the connection. It batches whatever is queued into one
// writev so a fast child costs few syscalls.
func (c *conn) subscriber(replay []byte, sub *Subscription) {
	sess := c.srv.Session
	for len(replay) > 0 {
		n := min(len(replay), replayChunk)
		if err := c.write(frame.Output, replay[:n]); err != nil {
			return
		}
		replay = replay[n:]
	}
	const maxBatch = 64
	batch := make([][]byte, 0, maxBatch)
	for {
		select {
		case p := <-sub.C():
			batch = append(batch[:0], p)
		fill:
			for len(batch) < maxBatch {
				select {
				case p := <-sub.C():
					batch = append(batch, p)
				default:
					break fill
				}
			}
			if err := c.writeChunks(batch); err != nil {
				return
			}
		case <-sess.Done():
			// No chunk arrives after Done: drain what is queued, then EXIT.
			for {
				batch = batch[:0]
			drain:
				for len(batch) < maxBatch {
					select {
					case p := <-sub.C():
						batch = append(batch, p)
					default:
						break drain
					}
				}
				if len(batch) == 0 {
					break
				}
				if err := c.writeChunks(batch); err != nil {
					return
				}
			}
			if d := sub.Dropped(); d > 0 {
				c.log.Info("slow subscriber missed output", "chunks", d)
			}
			c.write(frame.Exit, frame.ExitPayload(int32(sess.ExitCode())))
			c.nc.Close()
			return
		case <-c.done:
			return
		}
	}
}
