package fleet

import (
	"errors"
	"sync"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// maxQueued bounds what a connWriter holds unwritten: a supervisor that
// stops reading makes further sends fail rather than grow the dashboard.
const maxQueued = 4 << 20

// errWriterClosed is send's error once the connection has ended.
var errWriterClosed = errors.New("the session's connection has ended")

// errWriterFull is send's error while maxQueued bytes wait.
var errWriterFull = errors.New("the session does not take what is sent to it")

// connWriter writes one connection's frames, in the order sent, on a
// goroutine of its own (run): send never waits on the socket, so the
// dashboard's event loop may send. A write that fails closes the
// connection (its reader then ends) and every later send fails.
type connWriter struct {
	c    *frame.Client
	wake chan struct{} // cap 1: frames wait
	done chan struct{} // closed by close

	mu     sync.Mutex
	queue  []frame.Frame
	n      int // payload bytes queued
	closed bool
}

func newConnWriter(c *frame.Client) *connWriter {
	return &connWriter{c: c, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// send queues a frame; p is not modified afterwards.
func (w *connWriter) send(t frame.Type, p []byte) error {
	w.mu.Lock()
	switch {
	case w.closed:
		w.mu.Unlock()
		return errWriterClosed
	case w.n+len(p) > maxQueued:
		w.mu.Unlock()
		return errWriterFull
	}
	w.queue = append(w.queue, frame.Frame{Type: t, Payload: p})
	w.n += len(p)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return nil
}

// run writes what is queued until close.
func (w *connWriter) run() {
	for {
		select {
		case <-w.wake:
		case <-w.done:
			return
		}
		w.mu.Lock()
		q, closed := w.queue, w.closed
		w.queue, w.n = nil, 0
		w.mu.Unlock()
		if closed {
			return
		}
		for _, f := range q {
			if err := w.c.Send(f.Type, f.Payload); err != nil {
				w.close()
				w.c.Close()
				return
			}
		}
	}
}

// close makes later sends fail and ends run (what is queued is dropped).
func (w *connWriter) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.closed, w.queue, w.n = true, nil, 0
	close(w.done)
}
