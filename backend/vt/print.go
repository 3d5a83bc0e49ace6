package vt

import (
	"sync"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// widthCond measures runes with East Asian ambiguous characters as narrow,
// independent of the process locale, so every emulator agrees.
var widthCond = &runewidth.Condition{EastAsianWidth: false}

// asciiBytes is the 128 ASCII characters in order. Printing ASCII takes a
// one-byte slice of it, so it never allocates, and, being a constant, it
// costs nothing before main (docs/ARCHITECTURE.md, Invariants).
const asciiBytes = "" +
	"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f" +
	"\x20\x21\x22\x23\x24\x25\x26\x27\x28\x29\x2a\x2b\x2c\x2d\x2e\x2f\x30\x31\x32\x33\x34\x35\x36\x37\x38\x39\x3a\x3b\x3c\x3d\x3e\x3f" +
	"\x40\x41\x42\x43\x44\x45\x46\x47\x48\x49\x4a\x4b\x4c\x4d\x4e\x4f\x50\x51\x52\x53\x54\x55\x56\x57\x58\x59\x5a\x5b\x5c\x5d\x5e\x5f" +
	"\x60\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x6b\x6c\x6d\x6e\x6f\x70\x71\x72\x73\x74\x75\x76\x77\x78\x79\x7a\x7b\x7c\x7d\x7e\x7f"

// asciiStr returns the one-character string of ASCII byte b (b < 0x80).
func asciiStr(b byte) string { return asciiBytes[b : b+1] }

// Runes from U+0080 to U+07FF (Latin, Greek, Cyrillic, ...) are two bytes
// in UTF-8, and those agents' interfaces draw with from U+2000 to U+2BFF
// (punctuation, arrows, technical and geometric symbols, box drawing,
// dingbats, braille spinners) three: one string holds each range, and a
// glyph from them is a slice of it, so printing them never allocates. The
// strings are built on first use (ASCII-only programs never pay for them).
var glyphRanges = [...]struct {
	lo, hi rune
	size   int
	once   sync.Once
	all    string
}{
	{lo: 0x80, hi: 0x7ff, size: 2},
	{lo: 0x2000, hi: 0x2bff, size: 3},
}

// glyph returns r as a string, without allocating for the common ranges.
func glyph(r rune) string {
	for i := range glyphRanges {
		g := &glyphRanges[i]
		if r < g.lo || r > g.hi {
			continue
		}
		g.once.Do(func() {
			b := make([]byte, 0, g.size*int(g.hi-g.lo+1))
			for c := g.lo; c <= g.hi; c++ {
				b = utf8.AppendRune(b, c)
			}
			g.all = string(b)
		})
		k := g.size * int(r-g.lo)
		return g.all[k : k+g.size]
	}
	return string(r)
}

// decGraphics maps 0x5f..0x7e to the DEC special graphics (line drawing)
// set selected by ESC ( 0. An array of constants: laid out by the linker,
// nothing to build at start.
var decGraphics = [32]string{"\u00a0", "◆", "▒", "␉", "␌", "␍", "␊", "°", "±", "␤", "␋", "┘", "┐", "┌", "└", "┼", "⎺", "⎻", "─", "⎼", "⎽", "├", "┤", "┴", "┬", "│", "≤", "≥", "π", "≠", "£", "·"}

// printASCII writes a run of printable ASCII bytes (charset ASCII) straight
// into the cells: the hot path for log output.
func (e *Emulator) printASCII(run []byte) {
	e.dirty = true
	for k := 0; k < len(run); {
		if e.wrapNext {
			e.wrapNext = false
			if e.modes.Autowrap {
				e.carriageReturn()
				e.index()
			}
		}
		if e.modes.Insert && !e.dry {
			e.putGlyph(asciiStr(run[k]), 1)
			k++
			continue
		}
		x := e.x
		n := min(len(run)-k, e.cols-x)
		if !e.dry {
			e.writeASCII(e.scr.row(e.y), x, run[k:k+n])
		}
		k += n
		e.x = x + n
		if e.x >= e.cols {
			e.x = e.cols - 1
			e.wrapNext = e.modes.Autowrap
		}
		e.lastContent, e.lastWidth = asciiStr(run[k-1]), 1
	}
}

// writeASCII writes run into line from column x (the run fits).
func (e *Emulator) writeASCII(line []cell, x int, run []byte) {
	n := len(run)
	if x > 0 && line[x].width == 0 {
		line[x-1] = e.blank()
	}
	if end := x + n; end < e.cols && line[end].width == 0 {
		line[end] = e.blank()
	}
	pen := e.curPen()
	seg := line[x : x+n]
	for t, ch := range run {
		seg[t] = cell{content: asciiStr(ch & 0x7f), pen: pen, width: 1}
	}
}

// print handles a printable rune from the parser (non-ASCII, or ASCII
// outside the fast path).
func (e *Emulator) print(r rune) {
	e.dirty = true
	if r >= 0x5f && r <= 0x7e && e.charsets[e.gl] == '0' {
		e.putGlyph(decGraphics[r-0x5f], 1)
		return
	}
	if r < 0x80 {
		e.putGlyph(asciiStr(byte(r)), 1)
		return
	}
	w := widthCond.RuneWidth(r)
	if w == 0 {
		e.combine(r)
		return
	}
	e.putGlyph(glyph(r), min(w, 2))
}

// combine appends a zero-width rune (combining mark, ZWJ, variation
// selector) to the character before the cursor.
func (e *Emulator) combine(r rune) {
	if e.dry {
		return // only a cell's content changes
	}
	x := e.x - 1
	if e.wrapNext {
		x = e.x
	}
	line := e.scr.lines[e.y]
	if x >= 0 && line[x].width == 0 && x > 0 {
		x--
	}
	if x < 0 || line[x].width == 0 {
		return
	}
	line = e.scr.row(e.y)
	line[x].content += string(r)
}

// putGlyph writes one character of width w (1 or 2) at the cursor with
// pending-wrap, insert mode and wide-character bookkeeping.
func (e *Emulator) putGlyph(content string, w int) {
	if w > e.cols {
		return // a wide char cannot fit a 1-column screen
	}
	if e.wrapNext {
		e.wrapNext = false
		if e.modes.Autowrap {
			e.carriageReturn()
			e.index()
		}
	}
	if e.x+w > e.cols {
		// A wide character does not fit in the last column.
		if e.modes.Autowrap {
			if !e.dry {
				e.scr.fillRow(e.y, e.x, e.cols, e.blank())
			}
			e.carriageReturn()
			e.index()
		} else {
			e.x = e.cols - w
		}
	}
	if !e.dry {
		e.writeGlyph(e.scr.row(e.y), content, w)
	}
	e.x += w
	if e.x >= e.cols {
		e.x = e.cols - 1
		e.wrapNext = e.modes.Autowrap
	}
	e.lastContent, e.lastWidth = content, w
}

// writeGlyph writes a character of width w at the cursor (it fits).
func (e *Emulator) writeGlyph(line []cell, content string, w int) {
	if e.modes.Insert {
		copy(line[e.x+w:], line[e.x:])
	}
	fill(line, e.x, e.x+w, e.blank())
	pen := e.curPen()
	line[e.x] = cell{content: content, pen: pen, width: uint8(w)}
	if w == 2 {
		line[e.x+1] = cell{pen: pen}
	}
	if e.modes.Insert {
		normalize(line)
	}
}

// repeat implements REP: the last graphic character n more times.
func (e *Emulator) repeat(n int) {
	if e.lastWidth == 0 {
		return
	}
	e.dirty = true
	n = min(n, e.cols*e.rows)
	for range n {
		e.putGlyph(e.lastContent, e.lastWidth)
	}
}
