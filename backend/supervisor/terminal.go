package supervisor

import (
	"errors"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/detachkey"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/rawio"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// A terminal is the user's terminal handed over by attach (TERMINAL, see
// PROTOCOL.md): the supervisor reads its keys and writes them to the pty,
// and writes the pty's output to it, so a keystroke crosses one process
// each way instead of attach, a socket and the supervisor. Its output side
// is a subscriber whose sink is the terminal (raw bytes): the pty reader
// writes each chunk straight to it when its queue is empty, and the
// terminal's writer goroutine writes the scrollback first and then what a
// full terminal left queued. Its input side is a goroutine that reads the
// terminal until the detach key.
//
// Nothing here ever blocks the pty reader: the descriptors are attach's
// non-blocking descriptions, read and written with raw system calls and
// waited for in the netpoller through rawio.Pollers (input only for the
// reads, output only while a write waits: the user's terminal reading each
// echo does not wake the supervisor). The hand-over ends (end) on the
// detach key, a terminal that falls behind by more than the queue bound or
// fails, the session's exit, or the connection's end (attach gone): then
// the descriptors are closed, after which nothing of ours writes to the
// terminal again (the Pollers' Close waits for the writes in progress), and
// attach is told why over the socket (TERMINAL_STATE) unless it is gone or
// the session's EXIT says it.
type terminal struct {
	c        *conn
	in, out  int           // the descriptors (may be one)
	rd, wr   *rawio.Poller // in's reads, out's writes: see rawio.Poller
	q        *outq
	unlisten func()
	release  func() // TerminalAttached's

	once  sync.Once
	ended chan struct{} // closed by end
}

// errNotTerminal refuses descriptors that cannot be used as a terminal.
var errNotTerminal = errors.New("not a non-blocking terminal")

// takeTerminal (TERMINAL) takes the descriptors that came with the frame
// and answers TERMINAL_STATE: TerminalTaken, or TerminalRefused (the
// descriptors closed) when they are not one or two non-blocking terminals
// (input, then output), the peer is another user, the connection is
// subscribed, or it already has a terminal. It reports false when the
// answer could not be written.
func (c *conn) takeTerminal(payload []byte, fds []int) bool {
	t, err := c.newTerminal(payload, fds)
	if err != nil {
		c.log.Info("terminal refused", "err", err)
		return c.write(frame.TerminalState, []byte{frame.TerminalRefused}) == nil
	}
	if err := c.write(frame.TerminalState, []byte{frame.TerminalTaken}); err != nil {
		t.closeFiles()
		return false
	}
	c.smu.Lock()
	c.term = t
	c.smu.Unlock()
	c.log.Info("terminal taken")
	t.start(payload[0])
	return true
}

// newTerminal makes a terminal of fds, or closes them and says why not.
func (c *conn) newTerminal(payload []byte, fds []int) (t *terminal, err error) {
	defer func() {
		if err != nil {
			for _, fd := range fds {
				unix.Close(fd)
			}
		}
	}()
	switch {
	case len(payload) != 1 || len(fds) < 1 || len(fds) > 2:
		return nil, errors.New("TERMINAL needs a detach key byte and one or two descriptors")
	case c.subscribed():
		return nil, errors.New("connection already subscribed or has a terminal")
	}
	// The descriptors give the peer's terminal to this process: only its
	// owner may hand it over. The socket dir's 0700 keeps other users out
	// of the default one, but a Server serves whatever listener it is
	// given, so the peer is checked itself (SO_PEERCRED, once per
	// hand-over).
	cred, err := unixsock.PeerCred(c.nc)
	if err != nil {
		return nil, err
	}
	if int(cred.UID) != os.Geteuid() {
		return nil, errors.New("TERMINAL from another user")
	}
	// Only non-blocking descriptions: a raw call on them never blocks a
	// thread.
	for _, fd := range fds {
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
			return nil, errNotTerminal
		}
		if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK == 0 {
			return nil, errNotTerminal
		}
	}
	limit := c.srv.QueueBytes
	if limit <= 0 {
		limit = DefaultQueueBytes
	}
	t = &terminal{c: c, ended: make(chan struct{}), in: fds[0], out: fds[len(fds)-1]}
	if t.rd, err = rawio.NewReadPoller(t.in); err != nil {
		return nil, err
	}
	if t.wr, err = rawio.NewWritePoller(t.out); err != nil {
		t.rd.Close()
		return nil, err
	}
	fds = nil // the terminal owns them now
	t.q = newTerminalOutq(t.wr, limit, func() {
		// Not on the pty reader: end waits for the terminal's writer.
		go func() {
			t.c.log.Info("terminal fell behind the output; handing it back")
			t.end(frame.TerminalSlow)
		}()
	})
	return t, nil
}

// start connects the terminal to the session: the scrollback and then the
// output to the terminal (as SUBSCRIBE's replay and stream), its keys to
// the pty.
func (t *terminal) start(detach byte) {
	sess := t.c.srv.Session
	t.release = sess.TerminalAttached()
	replay, unlisten := sess.Listen(t.q.output)
	t.unlisten = unlisten
	t.c.writer.Add(2)
	go func() {
		defer t.c.writer.Done()
		t.writer(replay)
	}()
	go func() {
		defer t.c.writer.Done()
		t.keys(detach)
	}()
}

// keys writes the terminal's keys to the pty until the detach key (the
// hand-over ends: TerminalDetached), or the terminal fails or ends
// (TerminalFailed). Keys typed after the session exited are dropped, as
// INPUT's are.
func (t *terminal) keys(detach byte) {
	sess := t.c.srv.Session
	detached := detachkey.Forward(t.rd, func(p []byte) error {
		if _, err := sess.Write(p); err != nil {
			t.c.log.Debug("input", "err", err)
		}
		return nil
	}, detach)
	if detached {
		t.end(frame.TerminalDetached)
	} else {
		t.end(frame.TerminalFailed) // a no-op after another end closed the terminal
	}
}

// writer writes the scrollback, then whatever the pty reader left queued,
// until the hand-over ends; when the session is done it writes the rest,
// ends the hand-over and sends EXIT on the connection.
func (t *terminal) writer(replay []byte) {
	outC, sess := t.wr, t.c.srv.Session
	if _, err := outC.Write(replay); err != nil {
		t.end(frame.TerminalFailed)
		return
	}
	t.q.replayDone()
	for {
		if !t.q.flush() {
			t.end(frame.TerminalFailed)
			return
		}
		select {
		case <-t.q.wake:
		case <-sess.Done():
			// As subscriber: the pty reader has finished. EXIT goes
			// before the hand-over ends: once it has ended the
			// connection no longer counts as subscribed, and a Shutdown
			// under way closes it at once (attach then saw EOF, not the
			// exit code).
			t.q.flush()
			t.c.write(frame.Exit, frame.ExitPayload(int32(sess.ExitCode())))
			t.end(0)
			t.c.nc.Close()
			return
		case <-t.ended:
			return
		}
	}
}

// end ends the hand-over once: no more output reaches the queue, the
// descriptors are closed (waiting for a write in progress), the session
// no longer counts the terminal, and attach is told why (reason; 0: the
// session's EXIT or the connection's end tells it).
func (t *terminal) end(reason byte) {
	t.once.Do(func() {
		close(t.ended)
		t.unlisten()
		t.closeFiles()
		t.release()
		t.c.log.Info("terminal released", "reason", reason)
		if reason != 0 {
			if err := t.c.write(frame.TerminalState, []byte{reason}); err != nil {
				t.c.nc.Close()
			}
		}
	})
}

// closeFiles closes the descriptors, once no read, write or attempt of
// ours on them is in progress (the Pollers' Close waits for those): nothing
// of ours reaches the terminal after it.
func (t *terminal) closeFiles() {
	t.rd.Close()
	t.wr.Close()
	unix.Close(t.in)
	if t.out != t.in {
		unix.Close(t.out)
	}
}

// active reports whether the hand-over is on.
func (t *terminal) active() bool {
	select {
	case <-t.ended:
		return false
	default:
		return true
	}
}
