package supervisor

import (
	"net"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/rawio"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// DefaultQueueBytes bounds the output a socket subscriber may have pending
// before further chunks are dropped for it. Memory is only used while a
// client is behind; 16 MiB rides out a full-speed burst on a 2-core machine
// where the client competes for CPU with the child and the emulator.
const DefaultQueueBytes = 16 << 20

// outq is a subscribed connection's outbound stream. Exactly one party owns
// the socket for writing at a time (busy):
//
//   - the pty reader, delivering a chunk as an OUTPUT frame with one
//     non-blocking writev when nothing is pending: the common case of a
//     client that keeps up costs no goroutine hand-off;
//   - otherwise the connection's writer goroutine, which flushes whatever is
//     pending with blocking writes.
//
// Whatever a non-blocking write leaves (EAGAIN, or part of a frame) is
// pending and goes out first, so frames never interleave. Output beyond
// limit pending bytes is dropped whole, chunk by chunk, for this connection
// only; control frames (STATUS_RESP, EXIT) are never dropped.
//
// A terminal handed over by attach (terminal.go) has an outq too, raw
// (no frame headers) and strict: output beyond the limit is not dropped
// (a terminal that missed bytes shows a wrong screen): the queue takes no
// more output and calls overflowed, once, which ends the hand-over.
type outq struct {
	raw syscall.RawConn // a socket's (nil: not a socket, or a terminal's outq)
	// try makes the one non-blocking attempt to write hdr and chunk and
	// says how much went (nil: none is made, everything is queued).
	try    func(hdr, chunk []byte) (int, error)
	limit  int
	framed bool // OUTPUT frames (a socket) or raw bytes (a terminal)
	strict bool // overflow ends the stream instead of dropping
	// overflowed is called once when a strict queue's bound is exceeded,
	// on the goroutine that delivered the chunk; it must not block.
	overflowed func()
	wake       chan struct{} // cap 1: pending data for the writer

	mu        sync.Mutex
	pending   net.Buffers
	n         int // pending bytes
	busy      bool
	replaying bool // the writer is sending the scrollback: queue everything
	dropped   uint64
	overflow  bool // strict: a chunk did not fit
}

func newOutq(nc net.Conn, limit int) *outq {
	q := &outq{limit: limit, framed: true, wake: make(chan struct{}, 1), replaying: true}
	if sc, ok := nc.(syscall.Conn); ok {
		q.raw, _ = sc.SyscallConn()
	}
	if q.raw != nil {
		q.try = q.trySocket
	}
	return q
}

// trySocket writes hdr and chunk to the socket with one writev that does
// not wait.
func (q *outq) trySocket(hdr, chunk []byte) (n int, err error) {
	q.raw.Write(func(fd uintptr) bool {
		n, err = rawio.Writev2(int(fd), hdr, chunk)
		return true // one attempt: never wait for the client
	})
	return n, err
}

// newTerminalOutq is a handed-over terminal's queue: raw bytes, written by
// try, strict.
func newTerminalOutq(try func(hdr, chunk []byte) (int, error), limit int, overflowed func()) *outq {
	return &outq{try: try, limit: limit, strict: true, overflowed: overflowed,
		wake: make(chan struct{}, 1), replaying: true}
}

func (q *outq) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// appendLocked queues segments; q.mu is held.
func (q *outq) appendLocked(segs ...[]byte) {
	for _, s := range segs {
		if len(s) > 0 {
			q.pending = append(q.pending, s)
			q.n += len(s)
		}
	}
}

// output delivers chunk as an OUTPUT frame. It runs on the pty reader's
// goroutine (for SUBSCRIBE_SCREEN's repaint, on the screen feeder's; never
// both at once) and never blocks on the client.
func (q *outq) output(chunk []byte) {
	var hdr []byte
	if q.framed {
		h := frame.Header(frame.Output, len(chunk))
		hdr = h[:]
	}
	q.mu.Lock()
	if q.overflow {
		q.mu.Unlock()
		return
	}
	if q.busy || q.replaying || len(q.pending) > 0 || q.try == nil {
		switch {
		case q.n+len(chunk) <= q.limit:
			q.appendLocked(hdr, chunk)
		case q.strict:
			q.overflow = true
			q.mu.Unlock()
			q.overflowed()
			return
		default:
			q.dropped++
		}
		q.mu.Unlock()
		q.signal()
		return
	}
	q.busy = true
	q.mu.Unlock()

	n, werr := q.try(hdr, chunk)
	if n < 0 {
		n = 0
	}
	q.mu.Lock()
	q.busy = false
	if total := len(hdr) + len(chunk); n < total && (werr == nil || werr == unix.EAGAIN || werr == unix.EINTR) {
		// The rest goes first, whatever the limit: a frame is never cut.
		if n < len(hdr) {
			q.appendLocked(hdr[n:], chunk)
		} else {
			q.appendLocked(chunk[n-len(hdr):])
		}
	}
	// Another error: the socket is broken; the read loop will see it too.
	more := len(q.pending) > 0
	q.mu.Unlock()
	if more {
		q.signal()
	}
}

// control queues a frame that must not be dropped.
func (q *outq) control(t frame.Type, payload []byte) {
	hdr := frame.Header(t, len(payload))
	q.mu.Lock()
	q.appendLocked(hdr[:], append([]byte(nil), payload...))
	q.mu.Unlock()
	q.signal()
}

// take hands the pending segments to the writer goroutine, or returns nil if
// there are none or the reader is writing.
func (q *outq) take() net.Buffers {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.busy || len(q.pending) == 0 {
		return nil
	}
	bufs := q.pending
	q.pending, q.n, q.busy = nil, 0, true
	return bufs
}

func (q *outq) release() {
	q.mu.Lock()
	q.busy = false
	q.mu.Unlock()
}

// replayDone lets the pty reader write directly from now on.
func (q *outq) replayDone() {
	q.mu.Lock()
	q.replaying = false
	q.mu.Unlock()
}

// Dropped returns how many chunks were dropped for this connection.
func (q *outq) Dropped() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped
}
