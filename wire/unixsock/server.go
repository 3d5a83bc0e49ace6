// Package unixsock is the plumbing every Unix-socket server needs, whatever
// it speaks: a Server shaped like net/http.Server (Serve, Shutdown, Close,
// ErrServerClosed) that accepts with backoff, tracks connections and hands
// each to a Handler; the socket-directory hygiene of a private socket (dir
// 0700 and ours, socket 0600, a stale socket replaced, anything else
// refused: dir.go); and the peer's credentials (SO_PEERCRED).
//
// It knows no protocol: the Heimdall frame server (backend/supervisor) and
// the JSON servers are Handlers. It imports only the standard library and
// x/sys.
package unixsock

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ErrServerClosed is returned by Serve after Shutdown or Close.
var ErrServerClosed = errors.New("unixsock: server closed")

// Handler serves one connection. ServeConn runs on a goroutine of its own;
// the connection is closed when it returns.
//
// ctx is done once Shutdown or Close is called: a handler that is between
// requests should then return (close c, or stop reading it) and one that
// is busy should finish and return. Close also closes c, which ends any
// read or write on it. ConnLogger(ctx) is the connection's logger.
type Handler interface {
	ServeConn(ctx context.Context, c net.Conn)
}

// HandlerFunc adapts a function to a Handler.
type HandlerFunc func(ctx context.Context, c net.Conn)

// ServeConn calls f(ctx, c).
func (f HandlerFunc) ServeConn(ctx context.Context, c net.Conn) { f(ctx, c) }

// Server accepts connections on listeners and serves each with Handler. Set
// its fields before Serve; its zero value with a Handler is ready to use.
type Server struct {
	Handler Handler
	// Logger receives accept errors and a "client connected" line with the
	// peer's uid and pid (SO_PEERCRED) for each connection; ConnLogger
	// gives handlers that logger. Nil: nothing is logged.
	Logger *slog.Logger

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[net.Conn]struct{}
	closed    bool
	ctx       context.Context // done at Shutdown or Close
	cancel    context.CancelFunc
	wg        sync.WaitGroup // running handlers
}

// connSeq numbers connections (process-wide) for the logs.
var connSeq atomic.Uint64

type (
	loggerKey   struct{}
	acceptedKey struct{}
)

// ConnLogger returns the logger of the connection a Handler was given ctx
// for: Server.Logger with the connection's number and its peer's uid and
// pid. It never returns nil.
func ConnLogger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.New(slog.DiscardHandler)
}

// Accepted returns when the connection a Handler was given ctx for was
// accepted (zero if ctx is not a connection's). Connections are accepted
// in the order their clients connected, and a handler may start later than
// another accepted after it: what clients that connect once each report
// (an agent's hook events) is ordered by this, not by when it is handled.
func Accepted(ctx context.Context) time.Time {
	t, _ := ctx.Value(acceptedKey{}).(time.Time)
	return t
}

func (srv *Server) logger() *slog.Logger {
	if srv.Logger != nil {
		return srv.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// initLocked sets up the maps and the base context; srv.mu is held.
func (srv *Server) initLocked() {
	if srv.listeners == nil {
		srv.listeners = make(map[net.Listener]struct{})
		srv.conns = make(map[net.Conn]struct{})
		srv.ctx, srv.cancel = context.WithCancel(context.Background())
	}
}

// Serve accepts connections on l until Shutdown or Close, serving each on a
// goroutine of its own. Temporary accept errors (a timeout, too many open
// files) are retried after a growing pause (5 ms up to 1 s). It always
// returns a non-nil error; after Shutdown or Close, ErrServerClosed. l is
// closed when Serve returns.
func (srv *Server) Serve(l net.Listener) error {
	srv.mu.Lock()
	srv.initLocked()
	if srv.closed {
		srv.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	srv.listeners[l] = struct{}{}
	srv.mu.Unlock()
	defer func() {
		srv.mu.Lock()
		delete(srv.listeners, l)
		srv.mu.Unlock()
		l.Close()
	}()
	var tempDelay time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if srv.isClosed() {
				return ErrServerClosed
			}
			if !temporary(err) {
				return err
			}
			tempDelay = min(max(2*tempDelay, 5*time.Millisecond), time.Second)
			srv.logger().Warn("accept", "err", err, "retry_in", tempDelay)
			time.Sleep(tempDelay)
			continue
		}
		tempDelay = 0
		accepted := time.Now()
		if !srv.track(nc) {
			nc.Close()
			return ErrServerClosed
		}
		go srv.serveConn(nc, accepted)
	}
}

// temporary reports whether an accept error may go away by itself.
func temporary(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() ||
		errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EINTR)
}

func (srv *Server) isClosed() bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.closed
}

// track registers nc unless the server is closed.
func (srv *Server) track(nc net.Conn) bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.closed {
		return false
	}
	srv.conns[nc] = struct{}{}
	srv.wg.Add(1)
	return true
}

func (srv *Server) serveConn(nc net.Conn, accepted time.Time) {
	defer func() {
		nc.Close()
		srv.mu.Lock()
		delete(srv.conns, nc)
		srv.mu.Unlock()
		srv.wg.Done()
	}()
	log := srv.logger().With("conn", connSeq.Add(1))
	if cred, err := PeerCred(nc); err == nil {
		log = log.With("peer_uid", cred.UID, "peer_pid", cred.PID)
	}
	log.Info("client connected")
	ctx := context.WithValue(context.WithValue(srv.ctx, loggerKey{}, log), acceptedKey{}, accepted)
	srv.Handler.ServeConn(ctx, nc)
}

// closeLocked stops accepting and tells handlers (their ctx); srv.mu is
// held.
func (srv *Server) closeLocked() {
	srv.initLocked()
	srv.closed = true
	srv.cancel()
	for l := range srv.listeners {
		l.Close()
	}
}

// Shutdown stops accepting, tells every handler (its ctx is done) and waits
// for them to return. If ctx ends first, it closes the connections left
// (as Close) and returns ctx's error at once, as net/http does: a handler
// blocked in something other than its connection may still be running.
func (srv *Server) Shutdown(ctx context.Context) error {
	srv.mu.Lock()
	srv.closeLocked()
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

// Close stops accepting and closes every connection at once; it does not
// wait for the handlers to return.
func (srv *Server) Close() error {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	srv.closeLocked()
	for c := range srv.conns {
		c.Close()
	}
	return nil
}
