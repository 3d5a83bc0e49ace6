package fleet

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// followed is a pty session whose supervisor says HELLO with the state
// view and the screen pull, followed on one connection, by push: after
// WATCH_STATE the supervisor pushes a STATE whenever what the dashboard
// shows changes (state, needs input and why, title, size, idle time), and
// the screen comes as PAINTs, each asked for (WATCH_SCREEN) once the last
// has been drawn (ScreenInto), so a flood costs the dashboard a repaint
// per frame it draws. Nothing is polled and no timer runs: a session that
// does nothing costs nothing on either side.
//
// Its reader goroutine takes PAINT, STATE and EXIT; what it sends (INPUT,
// RESIZE, KILL, HANGUP, SEEN and the WATCH_SCREEN asks) goes through w,
// the connection's writer, so no caller (the dashboard's event loop among
// them) waits on the socket.
type followed struct {
	*sockBase
	c *frame.Client
	w *connWriter

	pmu   sync.Mutex // guards paint and asked
	paint painting   // the last PAINT
	asked bool       // a WATCH_SCREEN waits for its PAINT
}

// errNoHello is dialFollowed's answer for a supervisor that does not serve
// the state view and the screen pull: it is followed as a legacy session.
var errNoHello = errors.New("the supervisor does not say HELLO with the state view and the screen pull")

// errTranscript is dialFollowed's answer for a supervisor of a transcript
// session (an ACP agent's): followed as one (transcript.go).
var errTranscript = errors.New("a transcript session")

// helloID is the request id of the HELLO a follower sends first.
const helloID = 1

// dialFollowed connects, says HELLO and, if the supervisor serves what a
// follower needs, watches the state and asks for the screen, returning
// once the first STATE and PAINT are in (its reader is not started yet:
// start). Otherwise it disconnects and returns errNoHello.
func dialFollowed(d Dialer, r Reporter) (*followed, error) {
	c, err := d.Dial(dialTimeout)
	if err != nil {
		return nil, err
	}
	x := &followed{sockBase: newSockBase(d, r), c: c}
	if err := x.handshake(); err != nil {
		c.Close()
		return nil, err
	}
	x.w = newConnWriter(c)
	return x, nil
}

// handshake is dialFollowed's exchange, within dialTimeout.
func (x *followed) handshake() error {
	c := x.c
	c.Conn().SetDeadline(time.Now().Add(dialTimeout))
	defer c.Conn().SetDeadline(time.Time{})
	if err := c.Send(frame.Hello, frame.HelloPayload(helloID)); err != nil {
		return err
	}
	if err := c.Send(frame.Status, nil); err != nil {
		return err
	}
	fr, err := c.Next()
	if err != nil {
		return err
	}
	if fr.Type != frame.HelloResp {
		return errNoHello // STATUS_RESP first: HELLO was ignored
	}
	var h frame.HelloInfo
	if err := h.UnmarshalBinary(fr.Payload); err != nil {
		return err
	}
	if h.Request == helloID && h.Has(frame.FeatureTranscript) {
		c.Next() // STATUS_RESP
		return errTranscript
	}
	if h.Request != helloID || !h.Has(frame.FeatureWatchState) || !h.Has(frame.FeatureStateView) || !h.Has(frame.FeatureWatchScreen) {
		return errNoHello
	}
	if err := c.Send(frame.WatchState, nil); err != nil {
		return err
	}
	if err := c.Send(frame.WatchScreen, nil); err != nil {
		return err
	}
	var pr paintReader
	gotState, gotPaint := false, false
	for !gotState || !gotPaint {
		fr, err := c.Next() // its payload is ours: the painting keeps it
		if err != nil {
			return err
		}
		switch fr.Type {
		case frame.StateEvent:
			if err := x.apply(fr.Payload, time.Now()); err != nil {
				return err
			}
			gotState = true
		case frame.Paint:
			p, done, err := pr.add(fr.Payload)
			if err != nil {
				return err
			}
			if done {
				x.paint, gotPaint = p, true
			}
		case frame.Exit:
			return errors.New("follow: the session ended")
		}
	}
	x.info.Kind, x.info.Alive = session.KindPty, true
	return nil
}

// apply takes a pushed STATE into info and reports whether anything the
// dashboard shows changed.
func (x *followed) apply(p []byte, now time.Time) error {
	var si frame.StateInfo
	if err := si.UnmarshalBinary(p); err != nil {
		return err
	}
	st, ok := session.ParseState(si.State)
	if !ok {
		return fmt.Errorf("STATE: unknown state %q", si.State)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	in := &x.info
	since := now.Add(-time.Duration(si.StateMs) * time.Millisecond)
	if in.State != st {
		in.StateSince = since
	} else if in.NeedsInput != si.NeedsInput {
		in.StateSince = now
	}
	in.State, in.NeedsInput, in.Attention = st, si.NeedsInput, si.Attention
	in.PID, in.Title, in.Viewed = si.PID, si.Title, si.Viewed
	if si.Cols > 0 && si.Rows > 0 {
		in.Cols, in.Rows = si.Cols, si.Rows
	}
	in.LastOutput = now.Add(-time.Duration(si.IdleMs) * time.Millisecond)
	supervisor.ApplyAgentState(in, si.AgentState)
	return nil
}

// start starts the reader and the writer.
func (x *followed) start() {
	go x.w.run()
	go x.read()
}

// read takes PAINTs, STATEs and EXIT until EXIT (the session is then Dead)
// or until the connection ends without one (the session vanished, Hangup
// disconnected it, or a bad frame showed its server broken and read
// disconnected it: Done closes without Exited, and the fleet drops the
// session). Exited is reported once the final screen is in (the
// supervisor sends it before EXIT).
func (x *followed) read() {
	exited, code := false, 0
	var pr paintReader
read:
	for {
		fr, err := x.c.Next() // its payload is ours: the painting keeps it
		if err != nil {
			x.log.Info("followed session disconnected", "sock", x.sock, "err", err)
			break
		}
		switch fr.Type {
		case frame.Paint:
			p, done, err := pr.add(fr.Payload)
			if err != nil {
				x.log.Warn("bad PAINT: disconnecting from the session", "sock", x.sock, "err", err)
				break read
			}
			if done {
				x.painted(p)
			}
		case frame.StateEvent:
			if err := x.apply(fr.Payload, time.Now()); err != nil {
				x.log.Debug("bad STATE", "sock", x.sock, "err", err)
				continue
			}
			x.r.Changed()
		case frame.Exit:
			c, _ := frame.ParseExit(fr.Payload)
			exited, code = true, int(c)
			break read
		}
	}
	now := time.Now()
	x.mu.Lock()
	x.ended = true
	if exited {
		x.info.Alive, x.info.ExitCode = false, code
		x.info.State, x.info.StateSince, x.info.NeedsInput = session.Dead, now, false
	}
	x.mu.Unlock()
	x.w.close()
	x.c.Close()
	if exited {
		x.r.Exited(code)
	}
	close(x.done)
}

// painted takes a complete PAINT (on the reader's goroutine).
func (x *followed) painted(p painting) {
	x.pmu.Lock()
	x.paint, x.asked = p, false
	x.pmu.Unlock()
	x.r.Dirty(p.h.Seq)
}

// ask asks for the next PAINT unless one is asked for already: the
// supervisor sends it once the screen differs from the last one.
func (x *followed) ask() {
	x.pmu.Lock()
	if x.asked {
		x.pmu.Unlock()
		return
	}
	x.asked = true
	x.pmu.Unlock()
	if err := x.w.send(frame.WatchScreen, nil); err != nil {
		x.log.Debug("watch screen", "sock", x.sock, "err", err)
	}
}

func (x *followed) Screen() *vt.Snapshot { return x.ScreenInto(nil) }

// ScreenInto draws the last PAINT and asks for the next.
func (x *followed) ScreenInto(dst *vt.Snapshot) *vt.Snapshot {
	x.pmu.Lock()
	p := x.paint
	x.pmu.Unlock()
	dst = p.draw(dst)
	x.ask() // drawn: the next, once the screen changes
	return dst
}

func (x *followed) Send(in session.Input) error { return x.w.send(frame.Input, in.Data) }

// Stop sends KILL (the session's own supervisor applies its grace), or
// with force SIGKILLs the session's process group itself.
func (x *followed) Stop(force bool) error {
	kill := func() error { return x.w.send(frame.Kill, nil) }
	if force {
		return x.killGroup(kill)
	}
	return kill()
}

// Hangup disconnects: the session belongs to another process and keeps
// running.
func (x *followed) Hangup() {
	x.w.close()
	x.c.Close()
}

// HangupTerminal asks the session's supervisor to hang it up (HANGUP).
func (x *followed) HangupTerminal() error { return x.w.send(frame.Hangup, nil) }

// Seen tells the session a user has seen it (SEEN): it is no longer Done.
func (x *followed) Seen() error { return x.w.send(frame.Seen, nil) }

// View implements Viewer.
func (x *followed) View(on bool) error {
	b := byte(0)
	if on {
		b = 1
	}
	return x.w.send(frame.View, []byte{b})
}

// Interrupt types the agent's interrupt key (see interruptKey).
func (x *followed) Interrupt() error {
	x.mu.Lock()
	cls := x.info.Classifier
	x.mu.Unlock()
	return x.w.send(frame.Input, interruptKey(cls))
}

// Resize sends RESIZE; the supervisor's STATE and PAINT show the new size.
// Info has it at once, and the screen at its new size is asked for.
func (x *followed) Resize(cols, rows uint16) error {
	if err := x.w.send(frame.Resize, frame.ResizePayload(cols, rows)); err != nil {
		return err
	}
	x.mu.Lock()
	ch := x.info.Cols != int(cols) || x.info.Rows != int(rows)
	x.info.Cols, x.info.Rows = int(cols), int(rows)
	x.mu.Unlock()
	x.ask()
	if ch {
		x.r.Changed()
	}
	return nil
}
