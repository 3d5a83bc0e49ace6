package fleet

import (
	"cmp"
	"fmt"
	"sync"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// A followed session (external.go) is shown from its screen, pulled,
// rather than from its output: the dashboard asks for a PAINT (the
// supervisor's repaint of its screen) when it has drawn the last one, so a
// flood costs the dashboard a repaint per frame it draws of that session
// instead of emulating every byte, and a session it does not show costs it
// nothing. Between pulls the dashboard keeps only the last repaint's bytes
// (a prompt's are a few hundred); a snapshot is drawn from them when asked
// for (ScreenInto), on an emulator borrowed from paintEmus.

// painting is a complete PAINT: the repaint and what its header said.
type painting struct {
	h frame.PaintHeader
	b []byte
}

// paintEmus are the emulators snapshots are drawn on: a repaint begins
// with RIS, so one emulator serves every session in turn.
var paintEmus sync.Pool

// draw returns the screen p draws, in dst's memory when it can.
func (p painting) draw(dst *vt.Snapshot) *vt.Snapshot {
	cols, rows := max(int(p.h.Cols), 1), max(int(p.h.Rows), 1)
	emu, _ := paintEmus.Get().(*vt.Emulator)
	if emu == nil {
		emu = vt.New(cols, rows, vt.Options{})
	} else {
		emu.Resize(cols, rows)
	}
	emu.Write(p.b)
	dst = emu.SnapshotInto(dst)
	paintEmus.Put(emu)
	dst.Seq = p.h.Seq // the session's: equal numbers, identical screens
	return dst
}

// maxPaint bounds the repaint a paintReader joins from PAINT pieces:
// thousands of times a full 120x35 agent screen's (7.4 KB), more than a
// 250x80 screen whose every cell has a 1.6 KB hyperlink of its own. A
// supervisor that sends more is broken; its connection is closed.
const maxPaint = 32 << 20

// paintReader joins a PAINT's pieces, at most max bytes of them (maxPaint
// if 0).
type paintReader struct {
	buf     []byte
	joining bool              // pieces marked More came: buf holds them
	h       frame.PaintHeader // the first piece's
	max     int
}

// add takes a PAINT frame (whose payload the caller gives up) and returns
// the complete painting once its last piece has come. An error (a payload
// shorter than the header, a piece of another screen than the one before,
// a repaint longer than the bound) is the server's: the connection is no
// longer to be trusted.
func (r *paintReader) add(payload []byte) (painting, bool, error) {
	h, piece, err := frame.ParsePaint(payload)
	switch {
	case err != nil:
	case r.joining && (h.Cols != r.h.Cols || h.Rows != r.h.Rows || h.Seq != r.h.Seq):
		err = fmt.Errorf("a PAINT piece of %dx%d screen %d after pieces of %dx%d screen %d",
			h.Cols, h.Rows, h.Seq, r.h.Cols, r.h.Rows, r.h.Seq)
	case len(r.buf)+len(piece) > cmp.Or(r.max, maxPaint):
		err = fmt.Errorf("a PAINT of more than %d bytes", cmp.Or(r.max, maxPaint))
	}
	if err != nil {
		r.buf, r.joining = nil, false
		return painting{}, false, err
	}
	if h.More {
		if !r.joining {
			r.joining, r.h = true, h
		}
		r.buf = append(r.buf, piece...)
		return painting{}, false, nil
	}
	if r.joining {
		piece = append(r.buf, piece...)
		r.buf, r.joining = nil, false
	}
	return painting{h: h, b: piece}, true, nil
}
