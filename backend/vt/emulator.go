package vt

import (
	"image/color"
	"sync"
	"sync/atomic"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// Emulator is a virtual terminal. Write must be called from a single
// goroutine; Snapshot, Seq and Scrollback may be called from any goroutine.
//
// All mutable state below mu is guarded by mu. Write holds mu for a whole
// call so a Snapshot never observes half of a Write.
type Emulator struct {
	mu  sync.Mutex
	seq atomic.Uint64
	// dirty records that the current Write changed visible state; Write
	// turns it into one seq increment at the end.
	dirty bool
	// dry is set while a Write (WriteSome) call applies bytes whose cells
	// are certain to scroll away before the call returns: everything but
	// the cells is updated (see skip.go).
	dry bool

	parser *ansi.Parser
	osc    oscState // an OSC string being collected (see osc.go)
	// unsettled holds the bytes of the sequence (escape sequence, UTF-8
	// character, OSC or DCS string) being read, since the parser was last
	// settled: a Repaint taken now ends with them, so the emulator it is
	// written to reads the sequence's rest as e does. unsettledLost: the
	// sequence outgrew maxUnsettled, or a control was executed inside it,
	// and such a Repaint cannot be exact.
	unsettled     []byte
	unsettledLost bool
	reply         func([]byte)
	replies       [][]byte // queued replies, delivered after mu is released
	alert         func(Alert)
	alerts        []Alert // queued alerts, delivered after mu is released

	cols, rows int
	main, alt  *screen
	scr        *screen // the active screen: main or alt

	x, y int
	// wrapNext is DECAWM's pending-wrap flag: the last column was just
	// written and the next printable character wraps first.
	wrapNext bool
	// style and link are the pen printing uses; whatever changes either
	// sets penStale, so that curPen looks the pair up again.
	style Style
	link  Link

	top, bottom int // scroll region, inclusive, 0-based
	tabs        []bool
	modes       Modes
	cursorShown bool
	title       string

	charsets [4]byte // G0..G3 designations: 'B' ASCII, '0' DEC special graphics
	gl       int     // which of G0/G1 is invoked into GL (SI/SO)

	// lastContent/lastWidth is the last graphic character printed, for REP.
	lastContent string
	lastWidth   int

	sb      scrollback
	scratch [][]cell // reused by scroll operations
	pens    pens     // the pens cells are written with (cell.go)
	// penIdx is the index of (style, link) in pens unless penStale.
	penIdx   uint32
	penStale bool
	rgb      [256]rgbEntry
}

type rgbEntry struct {
	key uint32
	c   color.Color
}

// New returns an emulator with a cols x rows screen (each at least 1).
func New(cols, rows int, opts Options) *Emulator {
	cols, rows = max(cols, 1), max(rows, 1)
	e := &Emulator{reply: opts.Reply, alert: opts.Alert}
	e.sb.max = max(opts.ScrollbackLines, 0)
	// NewParser's payload buffer (64 KiB) would be per emulator, i.e. per
	// session, allocated only to be replaced. OSC strings are collected by
	// osc.go, not by the parser, and no DCS/APC payload we act on is long:
	// 4 KiB is plenty (longer ones, e.g. sixel images, are cut, and we do
	// not draw them anyway).
	e.parser = new(ansi.Parser)
	e.parser.SetParamsSize(parser.MaxParamsSize)
	e.parser.SetDataSize(4 << 10)
	e.parser.SetHandler(ansi.Handler{
		Print:     e.print,
		Execute:   e.execute,
		HandleCsi: e.handleCSI,
		HandleEsc: e.handleESC,
		HandleOsc: e.handleOSC,
		HandleDcs: e.handleDCS,
	})
	e.cols, e.rows = cols, rows
	e.reset()
	return e
}

// reset puts the terminal in its power-on state (RIS). Scrollback is kept,
// like xterm.
func (e *Emulator) reset() {
	e.main = newScreen(e.cols, e.rows)
	e.alt = nil // allocated when a program first switches to it
	e.scr = e.main
	e.x, e.y, e.wrapNext = 0, 0, false
	e.style, e.link, e.penStale = Style{}, Link{}, true
	e.top, e.bottom = 0, e.rows-1
	e.tabs = make([]bool, e.cols)
	for i := 8; i < e.cols; i += 8 {
		e.tabs[i] = true
	}
	e.modes = Modes{Autowrap: true}
	e.cursorShown = true
	e.title = ""
	e.charsets = [4]byte{'B', 'B', 'B', 'B'}
	e.gl = 0
	e.lastContent, e.lastWidth = "", 0
	e.dirty = true
}

// Write feeds pty output to the emulator. It always consumes all of p;
// sequences split across calls are resumed on the next call.
func (e *Emulator) Write(p []byte) (int, error) {
	return e.WriteSome(p, len(p)), nil
}

// dryWeight is how many bytes applied dry (skip.go) cost as much as one
// whose cells are written, for WriteSome's budget.
const dryWeight = 16

// WriteSome feeds a prefix of p to the emulator and returns its length:
// all of p, or once about budget bytes' worth of work is done (bytes applied
// dry count 1/dryWeight), less, but at least one byte. It holds the
// emulator's lock for the call: a caller feeding a long stream bounds how
// long a Snapshot waits by the budget, not by the bytes, so a flood's lines
// that scroll away unseen (cheap) come in big calls and the others in small
// ones. Sequences split across calls are resumed on the next call.
func (e *Emulator) WriteSome(p []byte, budget int) int {
	e.mu.Lock()
	n := e.apply(p, budget*dryWeight)
	if e.dirty {
		e.dirty = false
		e.seq.Add(1)
	}
	replies, alerts := e.replies, e.alerts
	e.replies, e.alerts = nil, nil
	e.mu.Unlock()
	if e.reply != nil {
		for _, r := range replies {
			e.reply(r)
		}
	}
	for _, a := range alerts {
		e.alert(a)
	}
	return n
}

// queueAlert schedules an Alert for delivery once Write releases mu.
func (e *Emulator) queueAlert(a Alert) {
	if e.alert != nil && len(e.alerts) < 16 { // a flood of bells is one bell's news
		e.alerts = append(e.alerts, a)
	}
}

// apply is WriteSome's work, with mu held and the budget in units of a dry
// byte. It looks ahead for a skip no further than the budget left, and
// once it has applied bytes dry it does not stop before the end of the
// plain run it planned on: only there have the rows it left stale
// scrolled away, so every call ends on an exact screen.
func (e *Emulator) apply(p []byte, budget int) int {
	// p[:dryEnd] is applied dry; p[:planned] has been looked at for it;
	// the call goes on at least to mustReach.
	dryEnd, planned, mustReach := 0, 0, 0
	cost := 0
	i := 0
	for i < len(p) && (i == 0 || cost < budget || i < mustReach) {
		b := p[i]
		if e.osc.on {
			if e.oscByte(b) {
				i++
				cost += dryWeight
				if e.osc.on {
					e.unsettledByte(b)
				} else {
					e.unsettledEnd()
				}
			} else {
				// The string ended and its ESC was handed to the parser:
				// a sequence begins with it.
				e.unsettledStart(0x1b)
			}
			continue
		}
		// Fast path: in the ground state, runs of printable ASCII and
		// CR/LF bypass the generic per-byte parser.
		if e.parser.State() == parser.GroundState {
			if i >= planned && e.canSkip() {
				ahead := min(len(p), i+max(budget-cost, 1))
				dry, run := e.dryLen(p[i:ahead])
				dryEnd, planned = i+dry, i+max(run, 1)
				if dry > 0 {
					mustReach = planned
				}
			}
			e.dry = i < dryEnd
			weight := dryWeight
			if e.dry {
				weight = 1
			}
			switch {
			case b >= 0x20 && b < 0x7f && e.charsets[e.gl] == 'B':
				end := len(p)
				if e.dry {
					end = dryEnd
				} else if i >= mustReach {
					end = min(end, i+1+(budget-cost)/dryWeight)
				}
				j := i + 1 + printableRun(p[i+1:end])
				e.printASCII(p[i:j])
				cost += (j - i) * weight
				i = j
				continue
			case b == '\n':
				e.index()
				i++
				cost += weight
				continue
			case b == '\r':
				e.carriageReturn()
				i++
				cost += weight
				continue
			}
			cost += weight
		} else {
			cost += dryWeight
		}
		wasGround := e.parser.State() == parser.GroundState
		e.parser.Advance(b)
		st := e.parser.State()
		if st == parser.OscStringState {
			e.beginOSC()
		}
		switch {
		case e.settled():
			e.unsettledEnd()
		case wasGround || (b == 0x1b && st == parser.EscapeState):
			// A sequence begins (an ESC also ends a DCS string,
			// dispatching it, or cancels what came before).
			e.unsettledStart(b)
		case b < 0x20 && st != parser.DcsStringState && st != parser.Utf8State:
			// A control inside a sequence is executed at once (or
			// ignored) and the parser may keep more than the bytes
			// show: such a sequence cannot be carried over.
			e.unsettled, e.unsettledLost = e.unsettled[:0], true
		default:
			e.unsettledByte(b)
		}
		i++
	}
	e.dry = false
	return i
}

// maxUnsettled bounds the sequence Repaint carries over (see unsettled).
const maxUnsettled = 64 << 10

// unsettledStart records b as the first byte of a sequence.
func (e *Emulator) unsettledStart(b byte) {
	e.unsettled, e.unsettledLost = append(e.unsettled[:0], b), false
}

// unsettledByte records b as part of the sequence being read.
func (e *Emulator) unsettledByte(b byte) {
	if len(e.unsettled) >= maxUnsettled {
		e.unsettled, e.unsettledLost = e.unsettled[:0], true
	}
	if !e.unsettledLost {
		e.unsettled = append(e.unsettled, b)
	}
}

// unsettledEnd records that no sequence is being read.
func (e *Emulator) unsettledEnd() { e.unsettled, e.unsettledLost = e.unsettled[:0], false }

// queueReply schedules a query answer for delivery once Write releases mu,
// so a Reply callback may safely call Snapshot.
func (e *Emulator) queueReply(b []byte) {
	if e.reply != nil {
		e.replies = append(e.replies, b)
	}
}

// Seq returns the damage counter: it increases whenever cells, cursor,
// title or modes change.
func (e *Emulator) Seq() uint64 { return e.seq.Load() }

// Scrollback returns the plain-text lines that scrolled off the top of the
// main screen, oldest first.
func (e *Emulator) Scrollback() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sb.strings()
}

// Resize changes the screen size (each dimension at least 1). Content is
// not reflowed: rows and columns are truncated or extended. When the main
// screen loses rows below the cursor's row, top rows go to scrollback so
// the cursor's line stays visible.
func (e *Emulator) Resize(cols, rows int) {
	cols, rows = max(cols, 1), max(rows, 1)
	e.mu.Lock()
	defer e.mu.Unlock()
	if cols == e.cols && rows == e.rows {
		return
	}
	drop := 0
	if e.y >= rows {
		drop = e.y - rows + 1
	}
	for _, s := range []*screen{e.main, e.alt} {
		if s == nil {
			continue
		}
		d := 0
		if s == e.scr {
			d = drop
		}
		if s == e.main {
			for i := 0; i < d; i++ {
				e.sb.push(s.lines[i])
			}
		}
		s.resize(cols, rows, d)
		s.saved.x = min(s.saved.x, cols-1)
		s.saved.y = min(s.saved.y, rows-1)
		// A pending wrap belongs to the right margin the resize moves:
		// it ends for the saved cursor as for the live one (below), so a
		// restored cursor never has one away from the margin.
		s.saved.wrapNext = false
	}
	e.y -= drop
	old := e.tabs
	e.tabs = make([]bool, cols)
	copy(e.tabs, old)
	for i := (len(old) + 7) / 8 * 8; i < cols; i += 8 {
		if i > 0 {
			e.tabs[i] = true
		}
	}
	e.cols, e.rows = cols, rows
	e.top, e.bottom = 0, rows-1
	e.x = min(e.x, cols-1)
	e.y = min(max(e.y, 0), rows-1)
	e.wrapNext = false
	e.seq.Add(1)
}
