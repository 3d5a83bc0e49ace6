package vt

import (
	"encoding/binary"
	"unicode/utf8"
)

// Skipping cells that scroll away unseen.
//
// A program that floods its terminal (a build log, cat of a big file)
// writes thousands of lines per Write, and all but the last screenful
// scroll off the top before anyone can look: without scrollback they are
// gone. Writing their cells is most of an emulator's cost (a cell is ~100
// bytes of Go memory per byte of input), so a Write (WriteSome) call leaves
// them unwritten — without changing anything a reader can observe after
// the call.
//
// Within a "plain run" of bytes that can only print, move the cursor
// right/left/down, scroll the whole screen up and change the pen (see
// plainLen), every row that exists at a point Q is scrolled off by the end
// of the run if at least 2·rows−1−y line feeds follow Q (y: the cursor row
// when the run starts): at most rows−1−y of them move the cursor down
// (it never moves up in a plain run), the rest each scroll one row away,
// and rows scrolls remove every row present at Q. Autowrap only adds more
// line feeds. So the bytes before Q are applied "dry" (Emulator.dry): the
// cursor, pending wrap, pen, REP's last character and the parser's state
// advance exactly as usual, but no cell is written and rows are not
// rotated. The cells left stale by that belong only to rows present at Q,
// which the rest of the run scrolls away, and no state outside the cells
// ever depends on a cell's content. After the call the screen, cursor,
// modes, title and pen are exactly what applying every byte would give
// (TestDrySkipExact and FuzzDrySkip compare the two after every call).
//
// The skip needs the whole screen as the scroll region (a region would
// leave rows outside it that the run writes and never scrolls) and no
// scrollback (scrolled rows would be kept).

// canSkip reports whether the emulator is in a state where a plain run's
// scrolled-off rows are lost for good: ground state, not in an OSC, full
// scroll region, no scrollback.
func (e *Emulator) canSkip() bool {
	return e.sb.max == 0 && e.top == 0 && e.bottom == e.rows-1 && !e.osc.on
}

// dryLen returns how many leading bytes of p (a Write's input from the
// ground state) may be applied dry, and the length of the plain run at
// the start of p (the caller need not look again before its end).
func (e *Emulator) dryLen(p []byte) (dry, run int) {
	run, feeds := plainLen(p)
	need := 2*e.rows - 1 - e.y
	if feeds <= need {
		return 0, run
	}
	// Q is just after the line feed that leaves need line feeds behind it
	// in the run (a byte boundary outside any sequence). Looking for it
	// from the end reads only the last screenful or two of the run.
	left := need
	for i := run - 1; i >= 0; i-- {
		if isFeed(p[i]) {
			if left == 0 {
				return i + 1, run
			}
			left--
		}
	}
	return 0, run // not reached: feeds counted the same bytes
}

func isFeed(b byte) bool { return b == '\n' || b == '\v' || b == '\f' }

// plainLen returns the length of the plain run at the start of p and the
// line feeds (LF, VT, FF) in it. Plain bytes are: printable ASCII,
// complete UTF-8 characters from U+00A0 up (printed, or combined into the
// previous cell), CR, LF, VT, FF, TAB and BS (not BEL: the emulator tells
// its Alert of each), and complete SGR (CSI
// digits/;/: m) and EL (CSI 0/1/2 K) sequences. None of them reads a
// cell's content to move the cursor, changes the scroll region, modes,
// charsets or active screen, or moves the cursor up. A sequence cut off
// by the end of p ends the run before it.
func plainLen(p []byte) (n, feeds int) {
	i := 0
	for i < len(p) {
		i += printableRun(p[i:])
		if i == len(p) {
			break
		}
		b := p[i]
		switch {
		case isFeed(b):
			feeds++
			i++
			continue
		case b == '\r' || b == '\t' || b == '\b':
			i++
			continue
		case b == 0x1b:
			k := csiPlainLen(p[i:])
			if k == 0 {
				return i, feeds
			}
			i += k
			continue
		case b >= 0xc2:
			r, k := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError || r < 0xa0 {
				return i, feeds
			}
			i += k
			continue
		}
		return i, feeds
	}
	return i, feeds
}

// csiPlainLen returns the length of a complete SGR or EL sequence at the
// start of p, or 0.
func csiPlainLen(p []byte) int {
	if len(p) < 3 || p[1] != '[' {
		return 0
	}
	for i := 2; i < len(p) && i < 64; i++ {
		switch c := p[i]; {
		case c >= '0' && c <= '9' || c == ';' || c == ':':
		case c == 'm':
			return i + 1
		case c == 'K':
			// EL's only parameters are 0, 1, 2 (or none).
			if i == 2 || i == 3 && p[2] >= '0' && p[2] <= '2' {
				return i + 1
			}
			return 0
		default:
			return 0
		}
	}
	return 0
}

// printableRun returns the length of the run of printable ASCII (0x20–0x7e)
// at the start of p, eight bytes at a time while it can.
func printableRun(p []byte) int {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		x := binary.LittleEndian.Uint64(p[i:])
		// A byte below 0x20 sets its high bit when 0x20 is subtracted,
		// one of 0x7f when 1 is added, one above it has it set. With
		// every byte printable nothing borrows or carries across bytes;
		// otherwise the bytes are looked at one by one below.
		if ((x-0x2020202020202020)|(x+0x0101010101010101)|x)&0x8080808080808080 != 0 {
			break
		}
	}
	for i < len(p) && p[i]-0x20 < 0x5f {
		i++
	}
	return i
}
