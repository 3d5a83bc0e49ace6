package tea

import (
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"
)

// WithFrameTrace writes a line to w for every message the event loop
// handles and every frame the renderer loop draws, with wall-clock times
// in nanoseconds (comparable with another process's on the same machine):
//
//	msg KIND RECEIVED UPDATED VIEWED GCS
//	draw START WRITTEN INPUT GCS
//
// KIND is "key" for the user's input (isInput), else the message's Go type;
// INPUT is 1 when the draw showed input handled since the last one; GCS is
// the number of garbage collections finished so far (debug.ReadGCStats). It is for finding where
// the time between a keypress and the frame that shows it goes; nothing is
// measured when it is not set.
//
// heimdall-tui patch (not in upstream v2.0.10).
func WithFrameTrace(w io.Writer) ProgramOption {
	return func(p *Program) {
		p.trace = &frameTracer{w: w}
	}
}

// frameTracer writes WithFrameTrace's lines; the event loop and the
// renderer loop share it.
type frameTracer struct {
	mu sync.Mutex
	w  io.Writer
	// gc is reused by every line. runtime/debug, not runtime/metrics:
	// heimdall-tui does not link the latter (its init costs every
	// process of the binary a table).
	gc debug.GCStats
}

// now is the wall clock in nanoseconds.
func (t *frameTracer) now() int64 { return time.Now().UnixNano() }

func (t *frameTracer) msg(msg Msg, received, updated, viewed int64) {
	kind := "key"
	if !isInput(msg) {
		kind = fmt.Sprintf("%T", msg)
	}
	t.line("msg %s %d %d %d", kind, received, updated, viewed)
}

func (t *frameTracer) draw(start, written int64, input bool) {
	in := 0
	if input {
		in = 1
	}
	t.line("draw %d %d %d", start, written, in)
}

func (t *frameTracer) line(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	debug.ReadGCStats(&t.gc)
	fmt.Fprintf(t.w, format+" %d\n", append(args, t.gc.NumGC)...)
}
