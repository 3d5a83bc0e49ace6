package mux

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// channel is one connection carried by a stream. On the server it joins
// the stream to local, the session's socket: out sends what local says,
// and what the peer sent is written to local (by the stream's reader when
// local takes it at once, else queued for in). On the client the channel
// is itself the net.Conn Dial returns: Write sends on the stream from the
// caller's goroutine and Read takes what the stream's reader queued, so a
// keystroke and its echo cross no goroutine of the channel's own.
type channel struct {
	c  *Conn
	id uint32

	openc    chan struct{} // client: closed once OPENED or CLOSE came
	outDone  chan struct{} // server: closed when out has sent all local wrote (or gave up)
	inDone   chan struct{} // server: closed when in has written all the peer sent (or gave up)
	openOnce sync.Once
	openErr  error
	wmu      sync.Mutex // client: one Write's frames together

	mu         sync.Mutex
	cond       *sync.Cond
	local      net.Conn        // server
	raw        syscall.RawConn // server: local's descriptor, for writes that must not wait
	writing    bool            // server: in is writing a piece to local
	avail      int64           // bytes this side may still send
	inq        [][]byte        // the peer's data, not yet written to local or read
	inBytes    int
	unacked    int  // the peer's data consumed, not yet credited back
	remoteDone bool // the peer closed the channel
	ended      bool // this side is done with it
	closed     bool // client: the caller closed it
	rdl, wdl   time.Time
	rt, wt     *time.Timer
}

func newChannel(c *Conn, id uint32) *channel {
	ch := &channel{c: c, id: id, openc: make(chan struct{}), outDone: make(chan struct{}), inDone: make(chan struct{}), avail: Window}
	ch.cond = sync.NewCond(&ch.mu)
	return ch
}

// opened records the answer to the client's OPEN.
func (ch *channel) opened(err error) {
	ch.openOnce.Do(func() {
		ch.openErr = err
		close(ch.openc)
	})
}

// attach connects the channel to local (server) and starts its pumps.
func (ch *channel) attach(local net.Conn) {
	var raw syscall.RawConn
	if sc, ok := local.(syscall.Conn); ok {
		raw, _ = sc.SyscallConn()
	}
	ch.mu.Lock()
	ch.local, ch.raw = local, raw
	ended := ch.ended
	ch.mu.Unlock()
	if ended {
		local.Close()
		return
	}
	go ch.out()
	go ch.in()
}

// out reads local and sends it as DATA, within the credit the peer gives.
func (ch *channel) out() {
	defer close(ch.outDone)
	buf := make([]byte, MaxPayload)
	for {
		n, err := ch.local.Read(buf)
		if ch.send(buf[:n], time.Time{}) != nil {
			return
		}
		if err != nil {
			ch.mu.Lock()
			tell := !ch.remoteDone && !ch.ended
			ch.mu.Unlock()
			if tell {
				ch.c.write(tClose, ch.id, nil)
			}
			ch.finish()
			return
		}
	}
}

// send sends p as DATA within the credit the peer gives, waiting for
// credit until deadline (zero: no deadline).
func (ch *channel) send(p []byte, deadline time.Time) error {
	for len(p) > 0 {
		ch.mu.Lock()
		for ch.avail <= 0 && !ch.ended && !ch.remoteDone && !passed(deadline) {
			ch.cond.Wait()
		}
		switch {
		case ch.ended || ch.remoteDone:
			ch.mu.Unlock()
			return net.ErrClosed
		case ch.avail <= 0:
			ch.mu.Unlock()
			return os.ErrDeadlineExceeded
		}
		k := min(int64(len(p)), ch.avail, MaxPayload)
		ch.avail -= k
		ch.mu.Unlock()
		if err := ch.c.write(tData, ch.id, p[:k]); err != nil {
			return err
		}
		p = p[k:]
	}
	return nil
}

// in writes to local what the stream's reader queued, in order.
func (ch *channel) in() {
	defer close(ch.inDone)
	ch.mu.Lock()
	for {
		for len(ch.inq) == 0 && !ch.remoteDone && !ch.ended {
			ch.cond.Wait()
		}
		if ch.ended || len(ch.inq) == 0 { // ended, or the peer closed and all is written
			ch.mu.Unlock()
			ch.finish()
			return
		}
		p := ch.inq[0]
		ch.inq = ch.inq[1:]
		ch.writing = true
		ch.mu.Unlock()
		_, err := ch.local.Write(p)
		ch.mu.Lock()
		ch.writing = false
		if err != nil {
			ch.mu.Unlock()
			ch.c.write(tClose, ch.id, []byte(err.Error()))
			ch.finish()
			return
		}
		ch.consumed(len(p))
	}
}

// consumed counts n bytes of the peer's data written or read, and gives
// the credit back in batches of half the window: a keystroke's echo then
// crosses ssh as one frame, not two, and a sender that has spent its
// window always gets it back (all it sent is taken by then, at least half
// of it unacknowledged). ch.mu is held; it is released while the WINDOW
// is written and taken again.
func (ch *channel) consumed(n int) {
	ch.inBytes -= n
	if ch.unacked += n; ch.unacked < Window/2 {
		return
	}
	credit := ch.unacked
	ch.unacked = 0
	ch.mu.Unlock()
	var w [4]byte
	binary.BigEndian.PutUint32(w[:], uint32(credit))
	ch.c.write(tWindow, ch.id, w[:])
	ch.mu.Lock()
}

// take gives the channel the peer's data, on the stream's reader. On the
// server, with nothing queued, it is written to local at once as far as
// local takes it without waiting; the rest is queued (a copy: the reader
// reuses its buffer) for in, or for Read on the client. More than Window
// unacknowledged is the peer breaking the protocol.
func (ch *channel) take(p []byte) error {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.inBytes+len(p) > Window {
		return fmt.Errorf("mux: channel %d: more data than its window", ch.id)
	}
	ch.inBytes += len(p)
	if ch.raw != nil && len(ch.inq) == 0 && !ch.writing && !ch.ended {
		n := 0
		ch.raw.Write(func(fd uintptr) bool {
			n, _ = unix.Write(int(fd), p)
			return true // never wait: a session slow to read holds only its queue
		})
		if n > 0 {
			p = p[n:]
			ch.consumed(n)
		}
		if len(p) == 0 {
			return nil
		}
	}
	ch.inq = append(ch.inq, append([]byte(nil), p...))
	ch.cond.Broadcast()
	return nil
}

// credit adds to what this side may send.
func (ch *channel) credit(n int64) {
	ch.mu.Lock()
	ch.avail += n
	ch.cond.Broadcast()
	ch.mu.Unlock()
}

// remoteClosed: the peer closed the channel; what it sent before is still
// written to local (then local is closed), or read on the client.
func (ch *channel) remoteClosed() {
	ch.mu.Lock()
	ch.remoteDone = true
	server, local := ch.c.server, ch.local
	ch.cond.Broadcast()
	ch.mu.Unlock()
	if server && local == nil { // never attached (a refused OPEN)
		ch.finish()
	}
}

// end ends the channel at once (the stream has ended).
func (ch *channel) end() {
	ch.opened(ErrClosed)
	ch.finish()
}

// finish closes local and forgets the channel.
func (ch *channel) finish() {
	ch.mu.Lock()
	ch.ended = true
	local := ch.local
	ch.cond.Broadcast()
	ch.mu.Unlock()
	if local != nil {
		local.Close()
	}
	ch.c.forget(ch)
}

// The client's net.Conn.

// Read reads what the peer sent; after the peer closed the channel (or
// the stream ended), what was queued, then io.EOF.
func (ch *channel) Read(p []byte) (int, error) {
	ch.mu.Lock()
	for len(ch.inq) == 0 && !ch.remoteDone && !ch.ended && !passed(ch.rdl) {
		ch.cond.Wait()
	}
	switch {
	case ch.closed:
		ch.mu.Unlock()
		return 0, net.ErrClosed
	case len(ch.inq) == 0 && (ch.remoteDone || ch.ended):
		ch.mu.Unlock()
		return 0, io.EOF
	case len(ch.inq) == 0:
		ch.mu.Unlock()
		return 0, os.ErrDeadlineExceeded
	}
	n := copy(p, ch.inq[0])
	if n == len(ch.inq[0]) {
		ch.inq[0] = nil
		ch.inq = ch.inq[1:]
	} else {
		ch.inq[0] = ch.inq[0][n:]
	}
	ch.consumed(n)
	ch.mu.Unlock()
	return n, nil
}

// Write sends p on the stream, waiting for the peer's credit as needed;
// once it returns, p is on the stream.
func (ch *channel) Write(p []byte) (int, error) {
	ch.wmu.Lock()
	defer ch.wmu.Unlock()
	ch.mu.Lock()
	dl := ch.wdl
	ch.mu.Unlock()
	if err := ch.send(p, dl); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close closes the channel: the peer is told, and closes the session's
// connection once it has written what this side sent.
func (ch *channel) Close() error {
	ch.mu.Lock()
	if ch.closed {
		ch.mu.Unlock()
		return net.ErrClosed
	}
	ch.closed = true
	tell := !ch.ended && !ch.remoteDone
	ch.mu.Unlock()
	if tell {
		ch.c.write(tClose, ch.id, nil)
	}
	ch.finish()
	return nil
}

func (ch *channel) LocalAddr() net.Addr  { return addr("mux") }
func (ch *channel) RemoteAddr() net.Addr { return addr(fmt.Sprintf("mux channel %d", ch.id)) }

func (ch *channel) SetDeadline(t time.Time) error {
	ch.SetReadDeadline(t)
	return ch.SetWriteDeadline(t)
}

func (ch *channel) SetReadDeadline(t time.Time) error {
	ch.setDeadline(&ch.rdl, &ch.rt, t)
	return nil
}

func (ch *channel) SetWriteDeadline(t time.Time) error {
	ch.setDeadline(&ch.wdl, &ch.wt, t)
	return nil
}

// setDeadline sets a deadline; a timer wakes the waiters when it passes.
func (ch *channel) setDeadline(dl *time.Time, timer **time.Timer, t time.Time) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	*dl = t
	if *timer != nil {
		(*timer).Stop()
		*timer = nil
	}
	if !t.IsZero() {
		*timer = time.AfterFunc(time.Until(t), func() {
			ch.mu.Lock()
			ch.cond.Broadcast()
			ch.mu.Unlock()
		})
	}
	ch.cond.Broadcast()
}

func passed(t time.Time) bool { return !t.IsZero() && !time.Now().Before(t) }

type addr string

func (a addr) Network() string { return "mux" }
func (a addr) String() string  { return string(a) }

var _ net.Conn = (*channel)(nil)
