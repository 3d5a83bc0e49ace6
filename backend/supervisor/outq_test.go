package supervisor

import (
	"bytes"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// unixPair returns the two ends of a connected Unix stream socket pair as
// net.Conns (non-blocking, as a served connection is).
func unixPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	var conns [2]net.Conn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "pair")
		c, err := net.FileConn(f) // dups fd
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		conns[i] = c
	}
	return conns[0], conns[1]
}

// Output that a full socket left pending goes out with the next chunk the
// pty reader delivers, once the client has made room, without the
// connection's writer goroutine (not running here): on a supervisor's one
// P that goroutine wakes late while the feeder emulates, and a subscriber
// fed by it alone fell behind the reader until it lost output.
func TestOutqReaderRefillsAfterRoom(t *testing.T) {
	srv, cli := unixPair(t)
	q := newOutq(srv, 64<<20, nil)
	q.replayDone()
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	var sent int
	for q.pendingBytes() == 0 { // fill the socket until a chunk is left pending
		q.output(chunk)
		sent += frame.HeaderSize + len(chunk)
		if sent > 64<<20 {
			t.Fatal("the socket never filled")
		}
	}
	// The client reads everything the socket holds: room, and nothing
	// more comes until someone writes the pending bytes.
	cli.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 1<<20)
	got := 0
	left := q.pendingBytes()
	for left+got < sent {
		n, err := cli.Read(buf)
		if err != nil {
			t.Fatalf("read %d of %d bytes: %v", got, sent-left, err)
		}
		got += n
	}
	last := []byte("last")
	q.output(last)
	sent += frame.HeaderSize + len(last)
	if n := q.pendingBytes(); n > 0 {
		t.Fatalf("%d bytes still pending after the client made room", n)
	}
	for got < sent {
		n, err := cli.Read(buf)
		if err != nil {
			t.Fatalf("read %d of %d bytes: %v (pending output not written by the reader)", got, sent, err)
		}
		got += n
	}
	if got != sent {
		t.Fatalf("got %d bytes, want %d", got, sent)
	}
}

func (q *outq) pendingBytes() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n
}

// Queues sharing a budget: past it, a queue with more than its share
// pending drops; one that keeps up still takes every chunk; a released
// queue gives back what it held and its share.
func TestOutqBudget(t *testing.T) {
	const limit = 1 << 20
	b := &queueBudget{limit: limit}
	srv1, _ := unixPair(t) // never read
	srv2, _ := unixPair(t) // never read
	stalled1, stalled2 := newOutq(srv1, 64<<20, b), newOutq(srv2, 64<<20, b)
	srv3, cli3 := unixPair(t)
	reader := newOutq(srv3, 64<<20, b)
	for _, q := range []*outq{stalled1, stalled2, reader} {
		q.replayDone()
	}
	chunk := bytes.Repeat([]byte("x"), 16<<10)
	frameBuf := make([]byte, frame.HeaderSize+len(chunk))
	cli3.SetReadDeadline(time.Now().Add(10 * time.Second))
	for range 4 * limit / len(chunk) {
		stalled1.output(chunk)
		stalled2.output(chunk)
		reader.output(chunk)
		// The reader keeps up: it reads each frame before the next.
		if _, err := io.ReadFull(cli3, frameBuf); err != nil {
			t.Fatal(err)
		}
	}
	if stalled1.Dropped() == 0 || stalled2.Dropped() == 0 {
		t.Fatalf("the stalled queues dropped %d and %d chunks", stalled1.Dropped(), stalled2.Dropped())
	}
	// Each queue may reach its share past the budget: at most twice it.
	if used := b.used.Load(); used > 2*limit {
		t.Fatalf("%d bytes pending, budget %d", used, limit)
	}
	if reader.Dropped() != 0 {
		t.Fatalf("the queue that keeps up dropped %d chunks", reader.Dropped())
	}
	for _, q := range []*outq{stalled1, stalled2, reader} {
		q.release()
		q.release() // once
	}
	if b.used.Load() != 0 || b.queues.Load() != 0 {
		t.Fatalf("after release: %d bytes, %d queues", b.used.Load(), b.queues.Load())
	}
	stalled1.output(chunk) // after release: nothing queued
	if b.used.Load() != 0 {
		t.Fatalf("queued after release: %d", b.used.Load())
	}
}

// A connection that ends (release) while the pty reader's write to it is
// under way: the bytes written are not taken off a queue that is empty
// by then (CI saw `index out of range` in consumeLocked).
func TestOutqReleasedDuringWrite(t *testing.T) {
	q := &outq{limit: 1 << 20, framed: true, wake: make(chan struct{}, 1)}
	q.try = func(bufs [][]byte) (int, error) {
		n := 0
		for _, b := range bufs {
			n += len(b)
		}
		q.release() // the connection ends as the write returns
		return n, nil
	}
	q.wait = func(f func() bool) error { f(); return nil }
	q.output([]byte("hello"))
	if q.n != 0 || len(q.pending) != 0 || !q.released {
		t.Fatalf("after release: n %d, pending %d, released %v", q.n, len(q.pending), q.released)
	}
	q.output([]byte("more")) // queues nothing once released
	if q.n != 0 {
		t.Fatalf("queued %d bytes after release", q.n)
	}
}
