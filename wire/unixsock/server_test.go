package unixsock

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// shortDir is a temp dir short enough for socket paths (< 108 bytes).
func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "x")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// serve listens in a temp dir and serves h there; the server is closed and
// Serve's return awaited at cleanup. It returns the server, the socket's
// path and Serve's result.
func serve(t *testing.T, srv *Server) (string, <-chan error) {
	t.Helper()
	sock := filepath.Join(shortDir(t), "s.sock")
	l, err := Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	return sock, errc
}

func dial(t *testing.T, sock string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func within[T any](t *testing.T, what string, c <-chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// echo echoes lines until the client or the server closes the connection.
var echo = HandlerFunc(func(ctx context.Context, c net.Conn) { io.Copy(c, c) })

func TestServeEchoAndClose(t *testing.T) {
	srv := &Server{Handler: echo}
	sock, errc := serve(t, srv)
	c := dial(t, sock)
	if _, err := c.Write([]byte("hi")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "hi" {
		t.Fatalf("echo: %q, %v", buf, err)
	}
	srv.Close()
	if err := within(t, "Serve to return", errc); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve after Close: %v, want ErrServerClosed", err)
	}
	// Close closed the tracked connection: the client sees EOF.
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := c.Read(buf); err != io.EOF {
		t.Fatalf("read after Close: %d, %v; want EOF", n, err)
	}
	// A closed server refuses new listeners and closes them.
	l, err := net.Listen("unix", filepath.Join(shortDir(t), "t.sock"))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Serve(l); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve on a closed server: %v", err)
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("the listener given to a closed server is open: %v", err)
	}
}

// Shutdown tells handlers (ctx) and waits for them to return.
func TestShutdownWaitsForHandlers(t *testing.T) {
	var returned atomic.Bool
	started := make(chan struct{}, 1)
	srv := &Server{Handler: HandlerFunc(func(ctx context.Context, c net.Conn) {
		started <- struct{}{}
		<-ctx.Done()
		time.Sleep(200 * time.Millisecond) // finishing a request
		c.Write([]byte("bye"))
		returned.Store(true)
	})}
	sock, errc := serve(t, srv)
	c := dial(t, sock)
	within(t, "the handler", started)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if !returned.Load() {
		t.Fatal("Shutdown returned before the handler")
	}
	if err := within(t, "Serve to return", errc); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve after Shutdown: %v", err)
	}
	b, _ := io.ReadAll(c)
	if string(b) != "bye" {
		t.Fatalf("client got %q, want the handler's last word", b)
	}
	if _, err := net.Dial("unix", sock); err == nil {
		t.Fatal("still accepting after Shutdown")
	}
}

// A handler that does not return by ctx's end: Shutdown closes its
// connection and returns ctx's error.
func TestShutdownContextExpires(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{}, 1)
	srv := &Server{Handler: HandlerFunc(func(ctx context.Context, c net.Conn) {
		started <- struct{}{}
		<-release
	})}
	sock, _ := serve(t, srv)
	c := dial(t, sock)
	within(t, "the handler", started)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v, want DeadlineExceeded", err)
	}
	if took := time.Since(start); took < 100*time.Millisecond || took > 5*time.Second {
		t.Fatalf("Shutdown took %v, want about the context's 100ms", took)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("read after the expired Shutdown: %v; want EOF (closed)", err)
	}
}

// tempErr is a temporary accept error (a timeout).
type tempErr struct{}

func (tempErr) Error() string   { return "temporary" }
func (tempErr) Timeout() bool   { return true }
func (tempErr) Temporary() bool { return true }

// fakeListener fails Accept with errs in turn, then hands out conn, then
// blocks until closed.
type fakeListener struct {
	mu     sync.Mutex
	errs   []error
	conn   net.Conn
	times  []time.Time
	closed chan struct{}
	once   sync.Once
}

func (l *fakeListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	l.times = append(l.times, time.Now())
	if len(l.errs) > 0 {
		err := l.errs[0]
		l.errs = l.errs[1:]
		l.mu.Unlock()
		return nil, err
	}
	c := l.conn
	l.conn = nil
	l.mu.Unlock()
	if c != nil {
		return c, nil
	}
	<-l.closed
	return nil, net.ErrClosed
}

func (l *fakeListener) Close() error   { l.once.Do(func() { close(l.closed) }); return nil }
func (l *fakeListener) Addr() net.Addr { return &net.UnixAddr{Name: "fake", Net: "unix"} }

func TestAcceptBackoff(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	l := &fakeListener{errs: []error{tempErr{}, tempErr{}, tempErr{}}, conn: a, closed: make(chan struct{})}
	got := make(chan net.Conn, 1)
	var logs bytes.Buffer
	var logMu sync.Mutex
	srv := &Server{
		Handler: HandlerFunc(func(ctx context.Context, c net.Conn) { got <- c; <-ctx.Done() }),
		Logger:  slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil)),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	if c := within(t, "the conn after the temporary errors", got); c != a {
		t.Fatalf("handler got %v, want the listener's conn", c)
	}
	l.mu.Lock()
	times := append([]time.Time(nil), l.times...)
	l.mu.Unlock()
	// Pauses of 5, 10 and 20 ms after the three errors.
	for i, want := range []time.Duration{5, 10, 20} {
		if d := times[i+1].Sub(times[i]); d < want*time.Millisecond {
			t.Errorf("pause %d after a temporary error: %v, want ≥ %v ms", i, d, want)
		}
	}
	srv.Close()
	if err := within(t, "Serve", errc); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve: %v", err)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if n := strings.Count(logs.String(), "retry_in"); n != 3 {
		t.Errorf("%d accept retries logged, want 3:\n%s", n, logs.String())
	}
}

// A permanent accept error ends Serve with it.
func TestAcceptPermanentError(t *testing.T) {
	boom := errors.New("boom")
	l := &fakeListener{errs: []error{boom}, closed: make(chan struct{})}
	srv := &Server{Handler: echo}
	defer srv.Close()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	if err := within(t, "Serve to return", errc); !errors.Is(err, boom) {
		t.Fatalf("Serve: %v, want boom", err)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// The peer's credentials are ours (the test dials itself), and the server
// logs them on every connection's logger.
func TestPeerCred(t *testing.T) {
	var logs bytes.Buffer
	var logMu sync.Mutex
	logged := make(chan struct{}, 1)
	srv := &Server{
		Handler: HandlerFunc(func(ctx context.Context, c net.Conn) {
			cred, err := PeerCred(c)
			if err != nil || int(cred.PID) != os.Getpid() || int(cred.UID) != os.Geteuid() || int(cred.GID) != os.Getegid() {
				t.Errorf("PeerCred = %+v, %v; want pid %d uid %d gid %d", cred, err, os.Getpid(), os.Geteuid(), os.Getegid())
			}
			ConnLogger(ctx).Info("hello")
			logged <- struct{}{}
		}),
		Logger: slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil)),
	}
	sock, _ := serve(t, srv)
	dial(t, sock)
	within(t, "the handler", logged)
	logMu.Lock()
	defer logMu.Unlock()
	want := "peer_uid=" + strconv.Itoa(os.Geteuid()) + " peer_pid=" + strconv.Itoa(os.Getpid())
	for _, line := range []string{"client connected", "hello"} {
		if !strings.Contains(logs.String(), "msg=\""+line+"\"") && !strings.Contains(logs.String(), "msg="+line) {
			t.Errorf("no %q line logged:\n%s", line, logs.String())
		}
	}
	if strings.Count(logs.String(), want) != 2 {
		t.Errorf("want both lines with %q:\n%s", want, logs.String())
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if _, err := PeerCred(a); err == nil {
		t.Error("PeerCred of a pipe did not fail")
	}
}

// Accepted gives each handler when its connection was accepted, in the
// order the clients connected, whatever order the handlers run in.
func TestAcceptedOrdersConnections(t *testing.T) {
	got := make(chan [2]any, 2)
	srv := &Server{Handler: HandlerFunc(func(ctx context.Context, c net.Conn) {
		b := make([]byte, 1)
		io.ReadFull(c, b)
		got <- [2]any{b[0], Accepted(ctx)}
	})}
	sock, _ := serve(t, srv)
	before := time.Now()
	a := dial(t, sock)
	time.Sleep(time.Millisecond)
	b := dial(t, sock)
	b.Write([]byte{'b'}) // b's handler reports first
	first := within(t, "b's handler", got)
	a.Write([]byte{'a'})
	second := within(t, "a's handler", got)
	if first[0] != byte('b') || second[0] != byte('a') {
		t.Fatalf("handlers reported %v then %v", first[0], second[0])
	}
	ta, tb := second[1].(time.Time), first[1].(time.Time)
	if ta.Before(before) || !ta.Before(tb) {
		t.Fatalf("accepted: a %v, b %v (dialled after %v); want a before b", ta, tb, before)
	}
	if !Accepted(context.Background()).IsZero() {
		t.Fatal("Accepted outside a connection is not zero")
	}
}
