package supervisor

import (
	"sync"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// screenWatch is WATCH_SCREEN on one connection: the client pulls the
// session's screen, one PAINT per WATCH_SCREEN, instead of following its
// output. A PAINT asked for goes out at once if the screen differs from the
// last one sent on the connection (or none was sent), else at the screen's
// next change; nothing goes out while none is asked for, so a client that
// asks only for what it shows, and only as often as it draws, costs the
// session a repaint per frame it draws and nothing for a session it does
// not show, however fast the program writes.
type screenWatch struct {
	c      *conn
	remove func() // ends Session.WatchScreen

	mu    sync.Mutex
	asked bool   // a WATCH_SCREEN waits for its PAINT
	sent  bool   // a PAINT went out
	seq   uint64 // the Seq of the screen it showed
}

// watchScreen (WATCH_SCREEN) asks for a PAINT. The first one makes a
// connection that is not subscribed a subscriber without output: it gets
// PAINTs, replies and STATEs, and EXIT when the session ends (after a last
// PAINT of the final screen, if it changed since the last one sent). A
// connection that has handed its terminal over ignores it.
func (c *conn) watchScreen() {
	w := c.paints.Load()
	if w == nil {
		q := c.outq()
		if q == nil && c.subscribed() {
			c.log.Warn("WATCH_SCREEN ignored: the connection has handed its terminal over")
			return
		}
		// Stored before the writer starts: one that finds the session
		// ended sends its final screen before EXIT.
		w = &screenWatch{c: c}
		c.paints.Store(w)
		if q == nil {
			c.subscribe(subPaints)
		}
		w.remove = c.srv.Session.WatchScreen(w.try)
	}
	w.ask()
}

// ask notes a WATCH_SCREEN and answers it if it can.
func (w *screenWatch) ask() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.asked = true
	w.sendLocked(false)
}

// final sends the final screen, asked for or not, unless the client has it
// already. The subscriber's writer calls it before EXIT.
func (w *screenWatch) final() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sendLocked(true)
}

// paintBacklog bounds what a client that asks and does not read makes the
// server hold: no PAINT is queued while more than this waits to be written
// on its connection; the writer checks again once it has written it all
// (try).
const paintBacklog = 256 << 10

// sendLocked queues a PAINT if one is asked for (or force) and the screen
// differs from the last one sent, unless the connection is behind
// (paintBacklog; force, for the final screen, queues it anyway).
func (w *screenWatch) sendLocked(force bool) {
	if !w.asked && !force {
		return
	}
	sess, q := w.c.srv.Session, w.c.outq()
	if w.sent && sess.scr.emu.Seq() == w.seq || !force && q.queued() > paintBacklog {
		return
	}
	p := sess.Painting()
	w.asked, w.sent, w.seq = false, true, p.Seq
	queuePaint(q, p)
}

// try sends the PAINT asked for if it can go now: it is the session's
// screen watcher (the screen changed), and the writer's once it has
// written everything queued (a PAINT held back by paintBacklog may go).
func (w *screenWatch) try() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sendLocked(false)
}

// queuePaint queues p as PAINT frames of at most maxChunk bytes of repaint
// each, all but the last marked More, all at once: nothing comes between
// them (PROTOCOL.md). The pieces are p.Bytes itself, which the queue keeps;
// their headers share one buffer.
func queuePaint(q *outq, p vt.Painting) {
	const hlen = frame.HeaderSize + frame.PaintHeaderLen
	n := max(1, (len(p.Bytes)+maxChunk-1)/maxChunk)
	hdrs := make([]byte, 0, n*hlen) // never grown: segs point into it
	segs := make([][]byte, 0, 2*n)
	h := frame.PaintHeader{Cols: uint16(p.Cols), Rows: uint16(p.Rows), Seq: p.Seq}
	for piece, more := range pieces(p.Bytes) {
		h.More = more
		fh := frame.Header(frame.Paint, frame.PaintHeaderLen+len(piece))
		at := len(hdrs)
		hdrs = frame.AppendPaint(append(hdrs, fh[:]...), h, nil)
		segs = append(segs, hdrs[at:], piece)
	}
	q.controlSegs(segs...)
}
