package mux

import (
	"encoding/binary"
	"fmt"
	"net"
	"sync"
)

// channel is one connection carried by a stream: its local end (the
// session's socket on the server, the pipe handed to Dial's caller on the
// client), what the peer sent that local has not taken yet, and the
// credit for sending.
type channel struct {
	c  *Conn
	id uint32

	openc    chan struct{} // client: closed once OPENED or CLOSE came
	outDone  chan struct{} // closed when out has sent all local wrote (or gave up)
	inDone   chan struct{} // closed when in has written all the peer sent (or gave up)
	openOnce sync.Once
	openErr  error

	mu         sync.Mutex
	cond       *sync.Cond
	local      net.Conn
	avail      int64    // bytes this side may still send
	inq        [][]byte // the peer's data, not yet written to local
	inBytes    int
	remoteDone bool // the peer closed the channel
	ended      bool // this side is done with it
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

// attach connects the channel to local and starts its two pumps.
func (ch *channel) attach(local net.Conn) {
	ch.mu.Lock()
	ch.local = local
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
		for off := 0; off < n; {
			ch.mu.Lock()
			for ch.avail <= 0 && !ch.ended {
				ch.cond.Wait()
			}
			if ch.ended {
				ch.mu.Unlock()
				return
			}
			k := min(int64(n-off), ch.avail)
			ch.avail -= k
			ch.mu.Unlock()
			if ch.c.write(tData, ch.id, buf[off:off+int(k)]) != nil {
				return
			}
			off += int(k)
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

// in writes what the peer sent to local, acknowledging each piece once
// written (the peer's credit).
func (ch *channel) in() {
	defer close(ch.inDone)
	for {
		ch.mu.Lock()
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
		ch.inBytes -= len(p)
		ch.mu.Unlock()
		if _, err := ch.local.Write(p); err != nil {
			ch.c.write(tClose, ch.id, []byte(err.Error()))
			ch.finish()
			return
		}
		var w [4]byte
		binary.BigEndian.PutUint32(w[:], uint32(len(p)))
		if ch.c.write(tWindow, ch.id, w[:]) != nil {
			return
		}
	}
}

// take queues the peer's data (a copy: the reader reuses its buffer). More
// than Window unacknowledged is the peer breaking the protocol.
func (ch *channel) take(p []byte) error {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.inBytes+len(p) > Window {
		return fmt.Errorf("mux: channel %d: more data than its window", ch.id)
	}
	ch.inq = append(ch.inq, append([]byte(nil), p...))
	ch.inBytes += len(p)
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
// written to local, then local is closed.
func (ch *channel) remoteClosed() {
	ch.mu.Lock()
	ch.remoteDone = true
	local := ch.local
	ch.cond.Broadcast()
	ch.mu.Unlock()
	if local == nil { // never attached (a refused OPEN)
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
