package supervisor

import (
	"iter"
	"net"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/rawio"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// DefaultQueueBytes bounds the output a socket subscriber may have pending
// before further chunks are dropped for it. Memory is only used while a
// client is behind; 16 MiB rides out a full-speed burst on a 2-core machine
// where the client competes for CPU with the child and the emulator.
const DefaultQueueBytes = 16 << 20

// DefaultQueueBudget bounds the output all socket subscribers of one
// session may have pending together: past it, output is dropped for each
// subscriber that has more than its share of the budget pending (one that
// keeps up still gets it), so no number of clients that stop reading can
// take the supervisor's memory: they hold at most twice the budget (each
// may reach its share past it).
const DefaultQueueBudget = 64 << 20

// queueBudget is what the outqs sharing it may have pending together.
type queueBudget struct {
	limit  int64
	used   atomic.Int64
	queues atomic.Int64 // sharing it
}

// outq is a subscribed connection's outbound stream: a FIFO of pending
// segments (frame headers and chunks) that whoever delivers to the queue
// or flushes it writes out with non-blocking writevs. Exactly one party
// writes at a time (busy), and only while it is in that write:
//
//   - the pty reader, after queueing a chunk as an OUTPUT frame, writes
//     what is pending, the chunk included, with one non-blocking writev:
//     a client that keeps up costs no goroutine hand-off, and one that
//     fell behind is refilled at the pace the reader reads, as soon as its
//     socket has room;
//   - the connection's writer goroutine (flush) writes what the reader
//     left (EAGAIN, or part of a frame) and control frames, and waits in
//     the netpoller for room meanwhile, without holding busy.
//
// Why the reader refills: a supervisor runs on one P, and its runtime asks
// the netpoller who is ready only when no goroutine is runnable (or every
// 10 ms, from sysmon); while the screen feeder emulates, a writer that
// waits for room wakes late, and a Unix socket reports room only once it
// has drained to a quarter of its buffer (~50 KiB, less than a flood's
// chunk). A subscriber fed by the writer alone then starved between its
// wake-ups and fell behind the reader, which does not wait for it, until
// its queue overflowed and it lost output (BenchmarkRunThroughput failed
// so ~2 runs in 9).
//
// Frames never interleave: segments go out in order, a partly written one
// first. Output beyond limit pending bytes is dropped whole, chunk by
// chunk, for this connection only; control frames (STATUS_RESP, EXIT) are
// never dropped.
//
// A terminal handed over by attach (terminal.go) has an outq too, raw
// (no frame headers) and strict: output beyond the limit is not dropped
// (a terminal that missed bytes shows a wrong screen): the queue takes no
// more output and calls overflowed, once, which ends the hand-over.
type outq struct {
	// try makes one non-blocking attempt to write the first segments of
	// bufs and says how much went; it may run while wait waits.
	try func(bufs [][]byte) (int, error)
	// wait calls f until it returns true, waiting for room in the
	// destination each time it returns false.
	wait     func(f func() bool) error
	blocking bool // try waits: only the writer goroutine calls it
	limit    int
	budget   *queueBudget // shared with the server's other subscribers (nil: none)
	framed   bool         // OUTPUT frames (a socket) or raw bytes (a terminal)
	strict   bool         // overflow ends the stream instead of dropping
	// overflowed is called once when a strict queue's bound is exceeded,
	// on the goroutine that delivered the chunk; it must not block.
	overflowed func()
	wake       chan struct{} // cap 1: pending data for the writer

	mu        sync.Mutex
	pending   [][]byte
	n         int // pending bytes
	busy      bool
	replaying bool // the writer is sending the scrollback: queue everything
	dropped   uint64
	overflow  bool // strict: a chunk did not fit
	released  bool // the connection has ended: nothing is queued any more
}

// newOutq is a socket's queue; nc must be a non-blocking socket (a
// net.UnixConn) or everything waits for the writer goroutine.
func newOutq(nc net.Conn, limit int, budget *queueBudget) *outq {
	q := &outq{limit: limit, budget: budget, framed: true, wake: make(chan struct{}, 1), replaying: true}
	if budget != nil {
		budget.queues.Add(1)
	}
	if c, ok := rawio.Of(nc); ok {
		q.try = func(bufs [][]byte) (n int, err error) {
			// Control, not Write: it does not wait for the writer
			// goroutine, which holds the descriptor's write lock
			// while it waits for room.
			if e := c.RC.Control(func(fd uintptr) { n, err = rawio.Writev(int(fd), bufs) }); e != nil {
				return 0, e
			}
			return n, err
		}
		q.wait = func(f func() bool) error {
			return c.RC.Write(func(uintptr) bool { return f() })
		}
	} else { // only the writer goroutine writes, blocking
		q.try = func(bufs [][]byte) (int, error) {
			bufs = slices.Clone(bufs) // WriteTo consumes its own
			n, err := (*net.Buffers)(&bufs).WriteTo(nc)
			return int(n), err
		}
		q.blocking = true
		q.wait = func(f func() bool) error { f(); return nil }
	}
	return q
}

// newTerminalOutq is a handed-over terminal's queue: raw bytes, written to
// the terminal's output through its Poller, strict.
func newTerminalOutq(wr *rawio.Poller, limit int, overflowed func()) *outq {
	return &outq{
		try: func(bufs [][]byte) (n int, err error) {
			if e := wr.Do(func(fd int) { n, err = rawio.Writev(fd, bufs) }); e != nil {
				return 0, e
			}
			return n, err
		},
		wait:  func(f func() bool) error { return wr.WaitWrite(func(int) bool { return f() }) },
		limit: limit, strict: true, overflowed: overflowed,
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
	if q.released {
		return
	}
	for _, s := range segs {
		if len(s) > 0 {
			q.pending = append(q.pending, s)
			q.n += len(s)
			if q.budget != nil {
				q.budget.used.Add(int64(len(s)))
			}
		}
	}
}

// overBudget reports whether n more bytes would take the subscribers over
// their budget while this one has more than its share pending; q.mu is
// held.
func (q *outq) overBudget(n int) bool {
	b := q.budget
	if b == nil || b.used.Load()+int64(n) <= b.limit {
		return false
	}
	return int64(q.n+n) > b.limit/max(b.queues.Load(), 1)
}

// release drops what is pending and gives it back to the budget, once the
// connection has ended: nothing is queued after.
func (q *outq) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.released {
		return
	}
	if q.budget != nil {
		q.budget.used.Add(-int64(q.n))
		q.budget.queues.Add(-1)
	}
	q.pending, q.n, q.released = nil, 0, true
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
	// A chunk is always taken when nothing is pending (it goes out at
	// once, or its rest first); behind pending output, within the limit
	// and the budget.
	if len(q.pending) > 0 && (q.n+len(chunk) > q.limit || q.overBudget(len(chunk))) {
		if q.strict {
			q.overflow = true
			q.mu.Unlock()
			q.overflowed()
			return
		}
		q.dropped++
		q.mu.Unlock()
		return
	}
	q.appendLocked(hdr, chunk)
	if q.replaying || q.blocking {
		q.mu.Unlock()
		q.signal()
		return
	}
	q.mu.Unlock()
	if err := q.send(); err != unix.EAGAIN && err != nil {
		return // the connection is broken; its read loop sees it too
	}
	q.mu.Lock()
	more := len(q.pending) > 0
	q.mu.Unlock()
	if more {
		q.signal()
	}
}

// send writes what is pending with non-blocking writes until none is left
// (nil), the destination is full (EAGAIN) or another party is writing
// (nil: it goes on with what is left), or a write fails.
func (q *outq) send() error {
	for {
		q.mu.Lock()
		if q.busy || len(q.pending) == 0 || q.replaying {
			q.mu.Unlock()
			return nil
		}
		q.busy = true
		bufs := q.pending
		q.mu.Unlock()
		n, err := q.try(bufs)
		q.mu.Lock()
		q.busy = false
		if n > 0 && !q.released { // released meanwhile: nothing is pending any more
			q.consumeLocked(n)
		}
		q.mu.Unlock()
		if err != nil && err != unix.EINTR {
			return err
		}
	}
}

// consumeLocked removes the first n pending bytes; q.mu is held.
func (q *outq) consumeLocked(n int) {
	q.n -= n
	if q.budget != nil {
		q.budget.used.Add(-int64(n))
	}
	k := 0
	for ; n > 0 && k < len(q.pending) && n >= len(q.pending[k]); k++ {
		n -= len(q.pending[k])
		q.pending[k] = nil // not kept alive by the array
	}
	q.pending = q.pending[k:]
	if n > 0 && len(q.pending) > 0 {
		q.pending[0] = q.pending[0][n:]
	}
	if len(q.pending) == 0 {
		q.pending = nil
	}
}

// flush writes the pending segments, waiting for room as long as the
// destination is full, until none are left or another party (the pty
// reader) is writing: it signals when it leaves some. It reports false on
// a write error.
func (q *outq) flush() bool {
	var werr error
	err := q.wait(func() bool {
		err := q.send()
		if err == unix.EAGAIN {
			return false
		}
		werr = err
		return true
	})
	return err == nil && werr == nil
}

// control queues a frame that must not be dropped.
func (q *outq) control(t frame.Type, payload []byte) {
	q.controlOwned(t, append([]byte(nil), payload...))
}

// controlOwned is control for a payload the queue may keep (the caller
// never modifies it).
func (q *outq) controlOwned(t frame.Type, payload []byte) {
	hdr := frame.Header(t, len(payload))
	q.controlSegs(hdr[:], payload)
}

// controlSegs queues frames that must not be dropped, given as segments
// (headers and payloads, or pieces of them) the queue may keep, all at
// once: no other frame comes between them.
func (q *outq) controlSegs(segs ...[]byte) {
	q.mu.Lock()
	q.appendLocked(segs...)
	q.mu.Unlock()
	q.signal()
}

// pieces yields b in order in pieces of at most maxChunk bytes, each with
// whether another follows; an empty b is one empty piece. A repaint longer
// than a pty chunk goes out so (SUBSCRIBE_SCREEN's OUTPUT, PAINT).
func pieces(b []byte) iter.Seq2[[]byte, bool] {
	return func(yield func([]byte, bool) bool) {
		for {
			n := min(len(b), maxChunk)
			if !yield(b[:n], n < len(b)) || n == len(b) {
				return
			}
			b = b[n:]
		}
	}
}

// queued returns the bytes waiting to be written.
func (q *outq) queued() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n
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
