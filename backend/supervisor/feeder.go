package supervisor

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// screenPace bounds the output waiting for an emulator. While more is
// waiting, Feeder.Pace waits: the producer (a session's pty reader, the
// dashboard's reader of a remote session's socket) is paced by the
// emulator, as a program in a real terminal is paced by the terminal's
// renderer (its writes block on a full pty). A session's reader never
// waits for a subscriber; only for this.
//
// Pacing, rather than skipping ahead, keeps every screen exact, and it
// bounds the CPU a flood costs: a program writing as fast as it can runs
// only as fast as its output is emulated, instead of spinning a core on
// output nobody will see. A variable so tests can force the waiting path.
var screenPace = 1 << 20

// writeSlice bounds the work of one emulator call (WriteSome's budget:
// ≈0.1 ms at the emulator's speed; lines a flood scrolls away unseen cost
// a sixteenth): a reader of the screen (Snapshot: the dashboard, SCREEN
// requests) never waits long for the emulator's lock, and the feeder
// yields between slices so the dashboard's goroutines are not queued
// behind a long batch. With 16 sessions flooding on 2 cores this halved the
// keypress→frame delay (heimdall-loadcheck, side by side: p50 30→19 ms, p99
// 150→70 ms).
const writeSlice = 16 << 10

// joinBufs hold a batch's chunks joined, so the emulator sees a flood as
// one stream and leaves all but its last screenful unwritten (vt/skip.go
// plans within one call's input). Pooled: an idle session holds none.
var joinBufs = sync.Pool{New: func() any { return new([]byte) }}

// joined returns the batch as one slice: the chunk itself if there is one,
// else the chunks copied into buf (grown as needed).
func joined(batch [][]byte, buf *[]byte) []byte {
	if len(batch) == 1 {
		return batch[0]
	}
	b := (*buf)[:0]
	for _, c := range batch {
		b = append(b, c...)
	}
	*buf = b
	return b
}

// observeEvery bounds how often a stream that never pauses is observed
// (see NewFeeder): often enough for a 60 fps display, cheap for a flood.
const observeEvery = 10 * time.Millisecond

// batchWindow and batchBytes make a flood a few big batches, and tell a
// pause from a flood. Output after a quiet spell is applied at once, so an
// echo, a keystroke's effect or a spinner frame reaches the screen without
// delay. After applying output the feeder waits batchWindow (or until
// batchBytes are pending): what came meanwhile is the next batch; if
// nothing came, the stream has paused and the screen is observed. Each
// batch costs a wake-up, a slot and maybe an observe, and the emulator
// leaves unwritten the cells of lines a batch scrolls away unseen
// (vt/skip.go), which a pty read's 4 KiB cannot do for much: small batches
// cost a flood's emulation ~4× the CPU. During a flood the screen lags the
// pty by at most batchWindow more.
const (
	batchWindow = 4 * time.Millisecond
	batchBytes  = 256 << 10
)

// emuSlots bounds how many emulators run at once in this process, over all
// Feeders: GOMAXPROCS-1 (at least 1). However many sessions flood, one core
// stays free for the pty readers, the socket writers and the dashboard's
// own goroutines (keys, rendering); the flooding sessions are paced
// (screenPace) by the share of emulation they get.
var emuSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))

// emuWaiting counts feeders waiting for an emuSlots slot.
var emuWaiting atomic.Int32

// floodRest is how long, relative to the time a slice took, a feeder rests
// (holding its slot) while other feeders wait for one: 0.5 keeps
// emulation at two thirds of a core. With several sessions flooding at
// once, emulation, and so the floods (paced by it), then take a fraction
// of a core instead of all of it, and the pty work the kernel does for
// them shrinks alike: the CPU that frees keeps the dashboard's keys and
// frames prompt. A single busy session never rests. Measured with
// heimdall-loadcheck (16 floods, 2 cores, side by side): keypress→frame
// p99 40–79 ms without, 33–40 ms with; frames 30 → 16 /s.
var floodRest = 0.5

// A Feeder applies an output stream to a terminal emulator on its own
// goroutine (Start), sharing the process's cores with every other Feeder
// (emuSlots, floodRest). Every Session has one; the dashboard uses one per
// session it follows over a socket, so all emulation in the process obeys
// the same limits.
//
// Start runs it on its own goroutine. The producer calls Pace before
// reading more and Push with what it read, from one goroutine, in stream
// order, and Close once it pushes no more. Resize and Repaint may be called
// from any goroutine. The emulator is written only by the Feeder once
// started; reading it (Snapshot, Seq, Plain) is safe at any time.
type Feeder struct {
	emu     *vt.Emulator
	observe func(seq uint64)
	// ahead, if set (YieldTo), says the producer has input waiting that
	// it has not read: the Feeder lets it go first.
	ahead func() bool
	done  chan struct{} // closed by Close: no more pushes
	ran   chan struct{} // closed when run has applied everything
	full  chan struct{} // batchBytes are pending: a batch wait ends

	mu       sync.Mutex
	queue    [][]byte
	n        int    // bytes in queue
	marks    []mark // repaints asked for, at positions in queue
	size     [2]int // a pending resize (cols, rows), applied by run
	finished bool   // run has applied everything after Close: Repaint answers at once
	wake     chan struct{}
	room     chan struct{} // run took a batch: a pacing producer may go on
	// The goroutine's own:
	observed   uint64     // the Seq observe was last called for
	observedAt time.Time  // when
	waiting    []*waiting // repaints whose position was passed mid-sequence
}

// mark is a Repaint's position: after the first at chunks of the queue.
type mark struct {
	at int
	fn func(repaint []byte, skipped int)
}

// waiting is a Repaint whose position the emulator passed while in the
// middle of an escape sequence; it is taken once the parser settles.
type waiting struct {
	fn      func(repaint []byte, skipped int)
	skipped int // chunks applied since the position
	bytes   int // their bytes
}

// A Repaint waiting for the parser to settle is taken anyway, mid-sequence,
// after settleMax bytes or once the stream has paused for settleWait: a
// program that never ends its sequence (a binary blob's unterminated DCS)
// or stops in the middle of one must not keep a subscriber from its
// screen. Ordinary output settles within a chunk.
const (
	settleMax  = 1 << 20
	settleWait = 50 * time.Millisecond
)

// NewFeeder returns a Feeder for emu. observe, if not nil, is called on
// the Feeder's goroutine with the emulator's Seq after a batch (or resize)
// changed the screen, at most every observeEvery while the stream does
// not pause, and when it pauses (nothing came for batchWindow): the
// screen it then reads is exactly what was applied, and the last call
// shows the screen the stream ends on. It must return quickly; nothing is
// applied while it runs.
func NewFeeder(emu *vt.Emulator, observe func(seq uint64)) *Feeder {
	if observe == nil {
		observe = func(uint64) {}
	}
	return &Feeder{emu: emu, observe: observe, wake: make(chan struct{}, 1), room: make(chan struct{}, 1),
		full: make(chan struct{}, 1), done: make(chan struct{}), ran: make(chan struct{})}
}

// YieldTo makes the Feeder, before each slice of emulation, let the
// producer go first while ahead reports input it has not read yet: it
// waits for the producer's next Push (or Close). Call it before Start;
// ahead must not block, and must report false once the producer has
// stopped pushing, or the Feeder waits until Close.
//
// A session's reader uses it. A supervisor runs on one P, and the pty
// reader holds it while it reads: the feeder emulates when the reader
// waits for the pty. Once the pty has output again, the runtime would run
// the feeder's slices first (a woken goroutine that yields, as the feeder
// does between slices, is picked before the netpoller is asked who else
// is ready): the reader then waits a batch (~0.1–0.3 ms), while a pty
// holds only ~12–19 KiB of output (~0.2 ms of a flood) before the program
// blocks. Yielding keeps the pty drained, as a raw reader keeps it.
func (f *Feeder) YieldTo(ahead func() bool) { f.ahead = ahead }

// yield waits for the producer's next Push while it has input waiting
// (see YieldTo), unless the producer may be waiting in Pace for this
// Feeder (more than screenPace queued): then it must not wait for the
// producer. Below that, the producer's Pace does not wait until it has
// pushed again, and every Push wakes yield. A wake-up yield takes is not
// lost: run checks pending after each batch.
func (f *Feeder) yield() {
	if f.ahead == nil {
		return
	}
	f.mu.Lock()
	paced := f.n > screenPace
	f.mu.Unlock()
	if paced || !f.ahead() {
		return
	}
	select {
	case <-f.wake:
	case <-f.done:
	}
}

// Emulator returns the emulator the Feeder writes.
func (f *Feeder) Emulator() *vt.Emulator { return f.emu }

// Push queues chunk, which must not be modified afterwards.
func (f *Feeder) Push(chunk []byte) {
	f.enqueue(chunk)
	f.kick()
}

// enqueue is Push without waking the Feeder's goroutine: the chunk takes
// its place in the stream (for Pace, Repaint's marks and the order of
// later pushes) at once, and is applied after the next kick. A session's
// reader enqueues under its lock and kicks after it has written the chunk
// to its subscribers, so the wake-up (and the emulation it starts on
// another core) never delays an echo on its way to the client.
func (f *Feeder) enqueue(chunk []byte) {
	f.mu.Lock()
	f.queue = append(f.queue, chunk)
	f.n += len(chunk)
	f.mu.Unlock()
}

// kick wakes the Feeder's goroutine for what enqueue left.
func (f *Feeder) kick() {
	f.mu.Lock()
	full := f.n >= batchBytes
	f.mu.Unlock()
	signal(f.wake)
	if full {
		signal(f.full)
	}
}

// Pace waits while more than screenPace bytes wait for the emulator. It
// must not be called after Close.
func (f *Feeder) Pace() {
	for {
		f.mu.Lock()
		behind := f.n
		f.mu.Unlock()
		if behind <= screenPace {
			return
		}
		<-f.room
	}
}

// Resize resizes the emulator, in order with the output pushed before it.
func (f *Feeder) Resize(cols, rows int) {
	f.mu.Lock()
	f.size = [2]int{cols, rows}
	f.mu.Unlock()
	signal(f.wake)
}

// Repaint asks for the emulator's screen at the current end of the pushed
// stream, as vt.Emulator.Repaint draws it: once everything pushed before
// the call is applied, fn is called with the repaint and skipped, the
// number of chunks pushed after the call that were applied before it was
// taken. That is 0 unless the stream was then in the middle of an escape
// sequence (a repaint there cannot be exact): the Feeder then applies whole
// chunks until the parser is settled (at most settleMax bytes, or until the
// stream pauses for settleWait, after which the repaint is taken as it
// stands). Chunks pushed after the call, less the first skipped, draw the
// rest of the stream on an emulator the repaint was written to.
//
// The call's position in the stream is after the Pushes that returned
// before it: a caller that needs it exact orders them, as Session does by
// calling both under its lock. A pending resize may be applied before the
// repaint is taken. fn runs on the Feeder's goroutine and must not block;
// after Close, once everything is applied, it runs at once on the caller's.
// repaint must not be modified.
func (f *Feeder) Repaint(fn func(repaint []byte, skipped int)) {
	f.mu.Lock()
	if f.finished {
		f.mu.Unlock()
		fn(f.emu.Repaint(), 0)
		return
	}
	f.marks = append(f.marks, mark{at: len(f.queue), fn: fn})
	f.mu.Unlock()
	signal(f.wake)
}

// Start applies what is pushed, on a goroutine of its own, until Close.
func (f *Feeder) Start() { go f.run() }

// Close tells the Feeder nothing more is pushed and returns once all of it
// is applied (and observed). Call it once, from the producer, after Start.
func (f *Feeder) Close() {
	close(f.done)
	<-f.ran
}

func (f *Feeder) run() {
	defer close(f.ran)
	var window *time.Timer // made on the first output: a session that never writes has none
	for {
		select {
		case <-f.wake:
		case <-f.giveUp():
			f.settle(true) // the stream paused mid-sequence
			continue
		case <-f.done:
			f.finish()
			return
		}
		// Apply what came at once; then, while more comes within
		// batchWindow, a batch per window (see batchWindow).
		for {
			f.drain()
			if window == nil {
				window = time.NewTimer(batchWindow)
			} else {
				window.Reset(batchWindow)
			}
			select {
			case <-window.C:
			case <-f.full:
				window.Stop()
			case <-f.done:
				window.Stop()
			}
			// A wake for pushes this loop applies next is spent; one
			// after the check below is not lost (Push signals after
			// appending).
			select {
			case <-f.wake:
			default:
			}
			if !f.pending() {
				break
			}
		}
		f.changed() // the stream paused
	}
}

// pending reports whether output, a resize or a repaint waits.
func (f *Feeder) pending() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n > 0 || f.size[0] > 0 || len(f.marks) > 0
}

// giveUp returns a channel that fires settleWait from now if a repaint
// waits for the parser to settle (nil, which never fires, if none does).
func (f *Feeder) giveUp() <-chan time.Time {
	if len(f.waiting) == 0 {
		return nil
	}
	return time.After(settleWait)
}

// finish applies what is left after Close, marks the Feeder finished (so
// a later Repaint is answered at once, rather than queued for a goroutine
// that is gone) and takes the repaints still waiting, as they stand.
func (f *Feeder) finish() {
	for {
		f.drain()
		f.mu.Lock()
		f.finished = len(f.queue) == 0 && len(f.marks) == 0 && f.size[0] == 0
		done := f.finished
		f.mu.Unlock()
		if done {
			break
		}
	}
	f.settle(true)
	f.changed()
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// drain applies what is pending, a batch at a time, and observes the screen
// after a batch when observeEvery has passed since the last observe: the
// first output after a quiet spell is observed at once, and a stream that
// never pauses is observed while it flows. A batch is split at the
// repaints asked for in it.
func (f *Feeder) drain() {
	for {
		f.mu.Lock()
		batch, marks, size := f.queue, f.marks, f.size
		f.queue, f.marks, f.n, f.size = nil, nil, 0, [2]int{}
		f.mu.Unlock()
		signal(f.room)
		if len(batch) == 0 && len(marks) == 0 && size[0] == 0 {
			return
		}
		acquireSlot()
		if size[0] > 0 {
			f.emu.Resize(size[0], size[1])
		}
		from := 0
		for _, m := range marks {
			f.apply(batch[from:m.at])
			from = m.at
			f.waiting = append(f.waiting, &waiting{fn: m.fn})
			f.settle(false)
		}
		f.apply(batch[from:])
		<-emuSlots
		if time.Since(f.observedAt) >= observeEvery {
			f.changed()
		}
	}
}

// apply feeds chunks to the emulator: joined into one stream (see
// joinBufs), or, while repaints wait for the parser to settle, one at a
// time, trying to take them after each.
func (f *Feeder) apply(chunks [][]byte) {
	for len(f.waiting) > 0 && len(chunks) > 0 {
		f.write(chunks[0])
		for _, w := range f.waiting {
			w.skipped++
			w.bytes += len(chunks[0])
		}
		chunks = chunks[1:]
		f.settle(false)
	}
	if len(chunks) == 0 {
		return
	}
	buf := joinBufs.Get().(*[]byte)
	f.write(joined(chunks, buf))
	joinBufs.Put(buf)
}

// write feeds b to the emulator a slice (writeSlice) at a time, holding
// an emuSlots slot. Each WriteSome call ends on an exact screen (vt's dry
// skip only leaves unwritten the cells of lines scrolled away within the
// call), so a repaint between two is exact.
func (f *Feeder) write(b []byte) {
	for len(b) > 0 {
		f.yield()
		start := time.Now()
		b = b[f.emu.WriteSome(b, writeSlice):]
		if emuWaiting.Load() > 0 {
			// Contention: several sessions flood at once. Pause,
			// holding the slot, for a share of the time the slice
			// took (see floodRest), then give the slot to a waiting
			// feeder and queue for it again: feeders take turns a
			// slice at a time, not a batch (up to screenPace) at a
			// time.
			time.Sleep(time.Duration(float64(time.Since(start)) * floodRest))
			<-emuSlots
			acquireSlot()
		} else {
			// Let waiting goroutines (keys, rendering) run between
			// slices rather than after the scheduler's 10 ms slice.
			runtime.Gosched()
		}
	}
}

// settle takes the repaints waiting for the parser to settle if it is, if
// the first has waited settleMax bytes, or if force.
func (f *Feeder) settle(force bool) {
	if len(f.waiting) == 0 {
		return
	}
	if !force && f.waiting[0].bytes < settleMax && !f.emu.Settled() {
		return
	}
	r := f.emu.Repaint()
	for _, w := range f.waiting {
		w.fn(r, w.skipped)
	}
	f.waiting = nil
}

// acquireSlot takes an emuSlots slot, counting as waiting while none is
// free (others then rest and take turns, see floodRest).
func acquireSlot() {
	select {
	case emuSlots <- struct{}{}:
	default:
		emuWaiting.Add(1)
		emuSlots <- struct{}{}
		emuWaiting.Add(-1)
	}
}

// changed calls observe if the screen changed since it was last called.
func (f *Feeder) changed() {
	if seq := f.emu.Seq(); seq != f.observed {
		f.observed, f.observedAt = seq, time.Now()
		f.observe(seq)
	}
}
