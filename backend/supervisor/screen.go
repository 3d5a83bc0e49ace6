package supervisor

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// screen is a session's terminal emulator, kept up to date by a Feeder
// from the pty reader's chunks, and what the session learns from it.
type screen struct {
	s *Session
	*Feeder

	title atomic.Pointer[string] // the title as of the last observe (Session.Title)

	wmu      sync.Mutex
	watchers map[int]func() // WatchScreen's
	nextW    int
}

func newScreen(s *Session, cols, rows int) *screen {
	sc := &screen{s: s}
	// No scrollback (vt's default): the session's byte ring serves replays.
	emu := vt.New(cols, rows, vt.Options{Reply: sc.reply, Alert: s.alerted})
	sc.Feeder = NewFeeder(emu, sc.observe)
	return sc
}

// reply writes the emulator's answers to queries (DA1, CPR, ...) to the
// pty, unless an interactive terminal is attached and answers them itself.
// It runs inside the emulator's Write, on the feeder, holding an emuSlots
// slot: it must never wait, or a program that asks and does not read its
// input would stop every session's emulator. So the answer is written only
// if the pty takes it at once, and dropped otherwise (a program not
// reading its input is not waiting for it).
//
// Once the child is reaped nobody is left to read an answer: the backlog
// the feeder still applies (up to screenPace, and Done waits for it) is
// then emulated without a write per query.
func (sc *screen) reply(p []byte) {
	if sc.s.terminals.Load() > 0 || sc.s.reaped.Load() {
		return
	}
	if !sc.s.tryWrite(p) {
		sc.s.log.Debug("query reply dropped: the pty's input is full or busy", "bytes", len(p))
	}
}

// observe hands a changed screen to the classifier, as text (a full
// Snapshot (cells) is only taken when someone asks for one), then tells
// Config.OnScreen: after the classifier, so that Status and NeedsInput
// called from the hook already see this screen. The feeder observes at
// most every 10 ms while output flows (a rule classifier reads a flood's
// screen in ~20–30 µs, under the session's lock), and once it pauses.
func (sc *screen) observe(uint64) {
	p := sc.emu.Plain()
	now := time.Now()
	sc.s.mu.Lock()
	sc.s.cls.Screen(now, classify.Screen{Lines: p.Lines, Title: p.Title, CursorY: p.Cursor.Y})
	sc.s.mu.Unlock()
	if old := sc.title.Load(); old == nil || *old != p.Title {
		t := p.Title
		sc.title.Store(&t) // before the state is published: it carries the title
	}
	sc.s.checkAttention(now, true)
	sc.s.signalled()
	if fn := sc.s.cfg.OnScreen; fn != nil {
		fn(p.Seq)
	}
	sc.wmu.Lock()
	for _, fn := range sc.watchers {
		fn()
	}
	sc.wmu.Unlock()
}

// WatchScreen registers fn to be called, on the screen feeder's goroutine,
// each time the session's screen has changed, as Config.OnScreen is (at
// most every 10 ms while output flows, and once it pauses; the last call
// shows the final screen). fn must return quickly and must not call
// WatchScreen or its remove. The returned func removes it.
func (s *Session) WatchScreen(fn func()) (remove func()) {
	sc := s.scr
	sc.wmu.Lock()
	defer sc.wmu.Unlock()
	if sc.watchers == nil {
		sc.watchers = map[int]func(){}
	}
	id := sc.nextW
	sc.nextW++
	sc.watchers[id] = fn
	return func() {
		sc.wmu.Lock()
		defer sc.wmu.Unlock()
		delete(sc.watchers, id)
	}
}

// Painting returns the session's screen as a repaint, with the size it is
// drawn at and the emulator's Seq (vt.Emulator.Painting).
func (s *Session) Painting() vt.Painting { return s.scr.emu.Painting() }

// screenListener is one ListenScreen's listener: the chunks read after its
// repaint's point wait in held until the feeder takes the repaint.
type screenListener struct {
	fn func([]byte)

	mu      sync.Mutex // serialises fn's calls (feeder and reader)
	ready   bool       // the repaint went to fn: chunks go straight on
	removed bool
	held    [][]byte // chunks read after the point, before the repaint
	skip    int      // chunks still to drop: the repaint already shows them
}

// output takes a chunk from the pty reader.
func (l *screenListener) output(chunk []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.removed:
	case !l.ready:
		l.held = append(l.held, chunk)
	case l.skip > 0:
		l.skip--
	default:
		l.fn(chunk)
	}
}

// repaint takes the repaint from the feeder (Feeder.Repaint): fn gets it,
// then the held chunks but the first skipped, which it shows already. The
// reader publishes a chunk to the listeners after pushing it to the
// feeder, so some of those may not have come yet: they are dropped as
// they come.
func (l *screenListener) repaint(b []byte, skipped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.removed {
		return
	}
	l.fn(b)
	drop := min(skipped, len(l.held))
	for _, c := range l.held[drop:] {
		l.fn(c)
	}
	l.held, l.ready, l.skip = nil, true, skipped-drop
}

func (l *screenListener) remove() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.removed, l.held = true, nil
}
