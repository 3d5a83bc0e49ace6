package fleet

import (
	"errors"
	"fmt"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// Output is one pty session's output, followed over a connection of its
// own to the session's supervisor (SUBSCRIBE_SCREEN): first Repaint, the
// bytes that draw the session's screen as it was when the stream began,
// then, from Next, the pty's output from exactly there — none missing, none
// repeated — until the program exits. Each follower has its own stream, so
// one that reads slowly delays nobody: the supervisor drops what its queue
// cannot hold for that connection only (wire/frame/PROTOCOL.md).
//
// Next must be called from one goroutine at a time; Close may be called
// from any, and makes a blocked Next return.
type Output struct {
	c          *frame.Client
	repaint    []byte
	cols, rows int
	exit       *ExitError // EXIT came with the repaint
}

// ExitError is Output.Next's error once the session's program has exited:
// Code is its exit code (128+signal if a signal killed it).
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("session exited with code %d", e.Code) }

// socketed is a member served on a socket that others may dial too: a
// followed pty session.
type socketed interface {
	dial(timeout time.Duration) (*frame.Client, error)
}

// Output opens a stream of session id's output (see Output). With
// interactive, the connection says it is an interactive terminal (ATTACH):
// while it is open the session's emulator leaves the replies to terminal
// queries (DA, cursor position) to it, as it does for `heimdall-tui
// attach`. A session that has exited, or is not a pty session this fleet
// follows, is an error.
func (f *Fleet) Output(id string, interactive bool) (*Output, error) {
	e, err := f.getAlive("output of", id)
	if err != nil {
		return nil, err
	}
	s, ok := e.m.(socketed)
	if !ok {
		return nil, capError("output of", e, session.CapScreen)
	}
	c, err := s.dial(dialTimeout)
	if err != nil {
		return nil, fmt.Errorf("output of %s: %w", id, err)
	}
	o, err := subscribeOutput(c, interactive)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("output of %s: %w", id, err)
	}
	return o, nil
}

// subscribeOutput subscribes c and reads the repaint: every OUTPUT before
// the reply to a STATUS sent after SUBSCRIBE_SCREEN (the repaint comes
// first, and output that followed it before the reply belongs with it:
// written after it to a fresh terminal, it draws the screen of that
// moment). A SCREEN sent in between tells the size. A server whose first
// frame is not OUTPUT ignored SUBSCRIBE_SCREEN (hm, an older release): it
// gets SUBSCRIBE, and the repaint is empty (its scrollback replay comes
// from Next). EXIT in the repaint (the session has just ended) ends it.
func subscribeOutput(c *frame.Client, interactive bool) (*Output, error) {
	ts := []frame.Type{frame.SubscribeScreen}
	if interactive {
		ts = append(ts, frame.Attach)
	}
	o := &Output{c: c}
	err := exchange(c, append(ts, frame.Screen), func(fr frame.Frame, first bool) (bool, error) {
		if first && fr.Type != frame.Output {
			if err := c.Subscribe(); err != nil {
				return true, err
			}
		}
		switch fr.Type {
		case frame.Output:
			o.repaint = append(o.repaint, fr.Payload...)
		case frame.ScreenResp:
			var si frame.ScreenInfo
			if err := si.UnmarshalBinary(fr.Payload); err == nil {
				o.cols, o.rows = si.Cols, si.Rows
			}
		case frame.Exit:
			code, _ := frame.ParseExit(fr.Payload)
			o.exit = &ExitError{Code: int(code)}
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// Repaint returns the bytes that draw the session's screen as the stream
// began (RIS first; empty if the server does not know SUBSCRIBE_SCREEN).
func (o *Output) Repaint() []byte { return o.repaint }

// Size is the session's size when the stream began (0, 0 if its server
// did not say).
func (o *Output) Size() (cols, rows int) { return o.cols, o.rows }

// Next returns the next piece of the session's output (the caller may keep
// it). Once the program has exited it returns an *ExitError, after all
// its output; any other error means the stream ended without an exit (the
// supervisor went away, or Close).
func (o *Output) Next() ([]byte, error) {
	if o.exit != nil {
		return nil, o.exit
	}
	for {
		fr, err := o.c.Next()
		if err != nil {
			return nil, err
		}
		switch fr.Type {
		case frame.Output:
			return fr.Payload, nil
		case frame.Exit:
			code, err := frame.ParseExit(fr.Payload)
			if err != nil {
				return nil, errors.Join(errors.New("bad EXIT frame"), err)
			}
			o.exit = &ExitError{Code: int(code)}
			return nil, o.exit
		}
	}
}

// Close ends the stream.
func (o *Output) Close() error { return o.c.Close() }
