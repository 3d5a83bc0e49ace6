package supervisor

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// screenPace bounds the output waiting for a session's emulator. While more
// is waiting, the pty reader waits before its next read: the session is
// paced by its own terminal emulator, as a program in a real terminal is
// paced by the terminal's renderer (its writes block on a full pty). The
// reader never waits for a subscriber; only for this.
//
// Pacing, rather than skipping ahead, keeps every screen exact, and it
// bounds the CPU a flood costs: a program writing as fast as it can runs
// only as fast as its output is emulated, instead of spinning a core on
// output nobody will see. A variable so tests can force the waiting path.
var screenPace = 1 << 20

// writeSlice bounds one emulator Write (≈0.1 ms at the emulator's speed):
// a reader of the screen (Snapshot: the dashboard, SCREEN requests) never
// waits long for the emulator's lock, and the feeder yields between slices
// so the dashboard's goroutines are not queued behind a long batch. With 16
// sessions flooding on 2 cores this halved the keypress→frame delay
// (heimdall-loadcheck, side by side: p50 30→19 ms, p99 150→70 ms).
const writeSlice = 16 << 10

// observeEvery bounds how often a session that writes without pause has its
// screen handed to the classifier and Config.OnScreen (the dashboard's
// Dirty events): often enough for a 60 fps display, cheap for a flood.
const observeEvery = 10 * time.Millisecond

// emuSlots bounds how many sessions' emulators run at once in this process:
// GOMAXPROCS-1 (at least 1). However many sessions flood their ptys, one
// core stays free for the pty readers, the socket writers and the
// dashboard's own goroutines (keys, rendering); the flooding sessions are
// paced (screenPace) by the share of emulation they get.
var emuSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))

// emuWaiting counts feeders waiting for an emuSlots slot.
var emuWaiting atomic.Int32

// floodRest is how long, relative to the time a slice took, a feeder rests
// (holding its slot) while other sessions wait for one: 0.5 keeps
// emulation at two thirds of a core. With several
// sessions flooding at once, emulation, and so the floods (paced by it), then
// take a fraction of a core instead of all of it, and the pty work the
// kernel does for them shrinks alike: the CPU that frees keeps the
// dashboard's keys and frames prompt. A single busy session never rests.
// Measured with heimdall-loadcheck (16 floods, 2 cores, side by side):
// keypress→frame p99 40–79 ms without, 33–40 ms with; frames 30 → 16 /s.
var floodRest = 0.5

// screen keeps a session's terminal emulator up to date on its own
// goroutine. The pty reader appends chunks to a list; the feeder drains it
// in batches, so a slow emulator makes batches bigger and, past screenPace,
// the reader wait.
type screen struct {
	s   *Session
	emu *vt.Emulator

	mu      sync.Mutex
	pending [][]byte
	n       int    // bytes in pending
	size    [2]int // a pending resize (cols, rows), applied by the feeder
	wake    chan struct{}
	room    chan struct{} // the feeder took a batch: a pacing reader may go on

	seen  atomic.Uint64          // the emulator Seq the classifier has last seen
	title atomic.Pointer[string] // the title as of seen (Session.Title)
}

func newScreen(s *Session, cols, rows int) *screen {
	sc := &screen{s: s, wake: make(chan struct{}, 1), room: make(chan struct{}, 1)}
	sc.emu = vt.New(cols, rows, vt.Options{Reply: sc.reply})
	return sc
}

// reply writes the emulator's answers to queries (DA1, CPR, ...) to the
// pty, unless an interactive terminal is attached and answers them itself.
// It runs inside the emulator's Write, on the feeder, holding an emuSlots
// slot: it must never wait, or a program that asks and does not read its
// input would stop every session's emulator. So the answer is written only
// if the pty takes it at once, and dropped otherwise (a program not
// reading its input is not waiting for it).
func (sc *screen) reply(p []byte) {
	if sc.s.terminals.Load() > 0 {
		return
	}
	if !sc.s.tryWrite(p) {
		sc.s.log.Debug("query reply dropped: the pty's input is full or busy", "bytes", len(p))
	}
}

// resize asks the feeder to resize the emulator (it owns it).
func (sc *screen) resize(cols, rows int) {
	sc.mu.Lock()
	sc.size = [2]int{cols, rows}
	sc.mu.Unlock()
	signal(sc.wake)
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// push is called on the pty reader's goroutine, in stream order.
func (sc *screen) push(chunk []byte) {
	sc.mu.Lock()
	sc.pending = append(sc.pending, chunk)
	sc.n += len(chunk)
	sc.mu.Unlock()
	signal(sc.wake)
}

// pace is called by the pty reader before each read: it waits while more
// than screenPace bytes wait for the emulator.
func (sc *screen) pace() {
	for {
		sc.mu.Lock()
		behind := sc.n
		sc.mu.Unlock()
		if behind <= screenPace {
			return
		}
		<-sc.room
	}
}

// run feeds the emulator until the session is done and every chunk is in.
func (sc *screen) run() {
	var seq uint64
	for {
		select {
		case <-sc.wake:
		case <-sc.s.readerDone:
			// The reader is gone: one last drain, then stop.
			sc.drain(&seq)
			return
		}
		sc.drain(&seq)
	}
}

// drain applies what is pending, a batch at a time, and observes the screen
// after a batch when observeEvery has passed or nothing more is pending: a
// session that never stops writing is still observed while it writes.
func (sc *screen) drain(seq *uint64) {
	var last time.Time
	for {
		sc.mu.Lock()
		batch, size := sc.pending, sc.size
		sc.pending, sc.n, sc.size = nil, 0, [2]int{}
		sc.mu.Unlock()
		signal(sc.room)
		if len(batch) == 0 && size[0] == 0 {
			sc.observe(seq)
			return
		}
		select {
		case emuSlots <- struct{}{}:
		default: // all taken: count as waiting (others then rest, see floodRest)
			emuWaiting.Add(1)
			emuSlots <- struct{}{}
			emuWaiting.Add(-1)
		}
		if size[0] > 0 {
			sc.emu.Resize(size[0], size[1])
		}
		for _, b := range batch {
			for len(b) > 0 {
				n := min(len(b), writeSlice)
				start := time.Now()
				sc.emu.Write(b[:n])
				b = b[n:]
				if emuWaiting.Load() > 0 {
					// Contention: several sessions flood at once. Pause,
					// holding the slot, for a share of the time the slice
					// took (see floodRest).
					time.Sleep(time.Duration(float64(time.Since(start)) * floodRest))
				}
				// Let waiting goroutines (keys, rendering) run between
				// slices rather than after the scheduler's 10 ms slice.
				runtime.Gosched()
			}
		}
		<-emuSlots
		if now := time.Now(); now.Sub(last) >= observeEvery {
			last = now
			sc.observe(seq)
		}
	}
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
