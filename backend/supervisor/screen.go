package supervisor

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// screenBacklog bounds the output waiting for the emulator. Past it the
// emulator is reset and fed the scrollback ring instead (counted and
// logged): bytes are never dropped silently, and the pty reader never waits.
// A variable so tests can force the rebuild path.
var screenBacklog = 16 << 20

// screen keeps a session's terminal emulator up to date on its own
// goroutine. The pty reader only appends chunks (with their offset in the
// output stream) to a list; the feeder drains it in batches, so a slow
// emulator makes batches bigger, never the reader slower.
type screen struct {
	s   *Session
	emu *vt.Emulator

	mu      sync.Mutex
	pending []offChunk
	n       int
	reset   bool // the backlog overflowed: rebuild from the ring
	resets  uint64
	size    [2]int // a pending resize (cols, rows), applied by the feeder
	wake    chan struct{}

	seen  atomic.Uint64          // the emulator Seq the classifier has last seen
	title atomic.Pointer[string] // the title as of seen (Session.Title)
}

type offChunk struct {
	off int64 // stream offset of chunk[0]
	b   []byte
}

func newScreen(s *Session, cols, rows int) *screen {
	sc := &screen{s: s, wake: make(chan struct{}, 1)}
	sc.emu = vt.New(cols, rows, vt.Options{Reply: sc.reply})
	return sc
}

// reply writes the emulator's answers to queries (DA1, CPR, ...) to the
// pty, unless an interactive terminal is attached and answers them itself.
func (sc *screen) reply(p []byte) {
	if sc.s.terminals.Load() > 0 {
		return
	}
	sc.s.Write(append([]byte(nil), p...))
}

// resize asks the feeder to resize the emulator (it owns it).
func (sc *screen) resize(cols, rows int) {
	sc.mu.Lock()
	sc.size = [2]int{cols, rows}
	sc.mu.Unlock()
	sc.signal()
}

func (sc *screen) signal() {
	select {
	case sc.wake <- struct{}{}:
	default:
	}
}

// push is called on the pty reader's goroutine, in stream order.
func (sc *screen) push(off int64, chunk []byte) {
	sc.mu.Lock()
	if !sc.reset {
		if sc.n+len(chunk) > screenBacklog {
			sc.pending, sc.n, sc.reset = nil, 0, true
		} else {
			sc.pending = append(sc.pending, offChunk{off, chunk})
			sc.n += len(chunk)
		}
	}
	sc.mu.Unlock()
	sc.signal()
}

// run feeds the emulator until the session is done and every chunk is in.
func (sc *screen) run() {
	var seq uint64
	var skipTo int64 // chunks before this offset are already in (after a reset)
	for {
		select {
		case <-sc.wake:
		case <-sc.s.readerDone:
			// The reader is gone: one last drain below, then stop.
			sc.drain(&skipTo)
			sc.observe(&seq)
			return
		}
		sc.drain(&skipTo)
		sc.observe(&seq)
	}
}

func (sc *screen) drain(skipTo *int64) {
	for {
		sc.mu.Lock()
		batch, reset, size := sc.pending, sc.reset, sc.size
		sc.pending, sc.n, sc.size = nil, 0, [2]int{}
		sc.mu.Unlock()
		if size[0] > 0 {
			sc.emu.Resize(size[0], size[1])
		}
		if reset {
			sc.rebuild(skipTo)
			continue
		}
		if len(batch) == 0 && size[0] == 0 {
			return
		}
		for _, c := range batch {
			b := c.b
			if end := c.off + int64(len(b)); end <= *skipTo {
				continue
			} else if c.off < *skipTo {
				b = b[*skipTo-c.off:]
			}
			sc.emu.Write(b)
		}
	}
}

// rebuild resets the emulator from the ring: its bytes end at the stream
// offset recorded with them, so chunks queued meanwhile are not doubled.
func (sc *screen) rebuild(skipTo *int64) {
	s := sc.s
	s.mu.Lock()
	tail, end := s.ring.Bytes(), s.total
	s.mu.Unlock()
	sc.mu.Lock()
	sc.reset = false
	sc.resets++
	n := sc.resets
	sc.mu.Unlock()
	s.log.Warn("screen fell behind; rebuilt from scrollback", "resets", n)
	// Modes and title set before the ring's window are lost: the rebuilt
	// screen is what those bytes draw on a fresh terminal.
	sc.emu.Reset()
	sc.emu.Write(tail)
	*skipTo = end
}

// observe hands a changed screen to the classifier, as text (a full
// Snapshot (cells) is only taken when someone asks for one), then tells
// Config.OnScreen: after the classifier, so that Status and NeedsInput
// called from the hook already see this screen.
func (sc *screen) observe(seq *uint64) {
	if sc.emu.Seq() == *seq {
		return
	}
	p := sc.emu.Plain()
	*seq = p.Seq
	now := time.Now()
	sc.s.mu.Lock()
	sc.s.cls.Screen(now, classify.Screen{Lines: p.Lines, Title: p.Title, CursorY: p.Cursor.Y})
	sc.s.mu.Unlock()
	if old := sc.title.Load(); old == nil || *old != p.Title {
		t := p.Title
		sc.title.Store(&t)
	}
	sc.seen.Store(p.Seq)
	if fn := sc.s.cfg.OnScreen; fn != nil {
		fn(p.Seq)
	}
}

// Resets returns how many times the emulator fell behind and was rebuilt.
func (sc *screen) Resets() uint64 {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.resets
}
