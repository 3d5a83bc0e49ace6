package supervisor

import (
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
}

func newScreen(s *Session, cols, rows int) *screen {
	sc := &screen{s: s}
	// No scrollback (vt's default): the session's byte ring serves replays.
	emu := vt.New(cols, rows, vt.Options{Reply: sc.reply})
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
	sc.s.checkAttention(now, true)
	if old := sc.title.Load(); old == nil || *old != p.Title {
		t := p.Title
		sc.title.Store(&t)
	}
	if fn := sc.s.cfg.OnScreen; fn != nil {
		fn(p.Seq)
	}
}
