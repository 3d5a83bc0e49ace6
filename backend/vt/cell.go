package vt

import (
	"image/color"
	"sync"
)

// Compact cells.
//
// An emulator lives as long as its session (one per supervisor, one per
// followed session in the dashboard), so its grid is most of what an idle
// session costs. A Cell is 112 bytes (a string, three color.Color
// interfaces, a hyperlink's two strings, an int); a cell here is 24: its
// content, its width, and the index of its pen — the style and hyperlink
// pair — in the emulator's pen table, where each pen in use is kept once.
// A 120×35 screen is ~100 KiB instead of ~460 KiB.
//
// Rows that were never written (and, after resizes, rows added blank) share
// one read-only row of empty cells (sharedBlank) until something is written
// to them: a session that printed a prompt holds one row, not a screen.
// Everything that writes a row goes through screen.row, which gives the row
// its own cells first; readers see the shared row as an ordinary blank one.

// cell is one grid cell. A wide character occupies its cell (width 2) and
// the next one (width 0, content ""). The zero pen is the default style
// without a hyperlink.
type cell struct {
	content string
	pen     uint32
	width   uint8
}

// emptyCell is a fresh screen's cell, EmptyCell's counterpart.
var emptyCell = cell{content: " ", width: 1}

// pen is a style and hyperlink pair, the unit cells share.
type pen struct {
	style Style
	link  Link
}

// pens is an emulator's pen table: index 0 is the zero pen; a pen is added
// when a cell is first written with it, and the table is compacted to the
// pens cells still use when it has grown past limit (a program cycling
// through 24-bit colours would otherwise grow it without bound).
type pens struct {
	list []pen // list[0] is the zero pen once the table is made
	// byKey indexes the pens keyOf encodes (every pen SGR makes, without a
	// hyperlink): a 16-byte key hashes several times faster than a pen's
	// interfaces and strings, and a colourful redraw looks a pen up per
	// character. index holds the others.
	byKey map[penKey]uint32
	index map[pen]uint32
	limit int
	// last caches the last pen looked up: a run of output is written with
	// one pen, and this spares a map lookup per character.
	last    pen
	lastIdx uint32
}

// minPenLimit is the table size that first triggers a compaction.
const minPenLimit = 256

var zeroPen pen

// at returns pen i.
func (t *pens) at(i uint32) *pen {
	if i == 0 {
		return &zeroPen
	}
	return &t.list[i]
}

// penOf returns the index of (st, lk) in the pen table, adding it if
// needed. Adding may compact the table, which renumbers the pens of cells:
// an index is to be stored before the next penOf.
func (e *Emulator) penOf(st Style, lk Link) uint32 {
	t := &e.pens
	p := pen{st, lk}
	if p == t.last {
		return t.lastIdx
	}
	k, fast := keyOf(&p)
	var i uint32
	var ok bool
	if fast {
		i, ok = t.byKey[k]
	} else {
		i, ok = t.index[p]
	}
	if !ok && p != zeroPen {
		if len(t.list) >= max(t.limit, minPenLimit) {
			e.compactPens()
		}
		if t.index == nil {
			t.byKey, t.index = make(map[penKey]uint32), make(map[pen]uint32)
			t.list = append(t.list[:0], zeroPen)
		}
		i = uint32(len(t.list))
		t.list = append(t.list, p)
		t.put(&p, i)
	}
	t.last, t.lastIdx = p, i
	return i
}

// put indexes pen p as number i.
func (t *pens) put(p *pen, i uint32) {
	if k, ok := keyOf(p); ok {
		t.byKey[k] = i
	} else {
		t.index[*p] = i
	}
}

// penKey is a pen without a hyperlink whose colours are those SGR sets,
// each encoded by penColorKey.
type penKey struct {
	fg, bg, ul uint32
	underline  Underline
	attrs      uint8
}

// keyOf returns p's penKey, or false if it has none (a hyperlink, or a
// colour of another type).
func keyOf(p *pen) (penKey, bool) {
	if p.link != (Link{}) {
		return penKey{}, false
	}
	fg, ok1 := penColorKey(p.style.Fg)
	bg, ok2 := penColorKey(p.style.Bg)
	ul, ok3 := penColorKey(p.style.UnderlineColor)
	return penKey{fg, bg, ul, p.style.Underline, p.style.Attrs}, ok1 && ok2 && ok3
}

// penColorKey encodes the colours sgr.go makes: a tag in bits 24–25 and the
// value below it; two colours have the same key only if they are equal.
func penColorKey(c color.Color) (uint32, bool) {
	switch c := c.(type) {
	case nil:
		return 0, true
	case BasicColor:
		return 1<<24 | uint32(c), true
	case IndexedColor:
		return 2<<24 | uint32(c), true
	case color.RGBA:
		if c.A == 0xff {
			return 3<<24 | uint32(c.R)<<16 | uint32(c.G)<<8 | uint32(c.B), true
		}
	}
	return 0, false
}

// curPen is the index of the emulator's current style and hyperlink.
func (e *Emulator) curPen() uint32 {
	if e.penStale {
		e.penIdx, e.penStale = e.penOf(e.style, e.link), false
	}
	return e.penIdx
}

// compactPens keeps only the pens that cells of either screen use,
// renumbering them in the cells, and sets the next limit to twice what is
// kept (so compaction is amortised over as many new pens as survive it).
func (e *Emulator) compactPens() {
	t := &e.pens
	remap := make(map[uint32]uint32)
	kept := []pen{zeroPen}
	t.byKey, t.index = make(map[penKey]uint32), make(map[pen]uint32)
	for _, s := range []*screen{e.main, e.alt} {
		if s == nil {
			continue
		}
		for _, line := range s.lines {
			if isShared(line) {
				continue // only zero pens
			}
			for x := range line {
				old := line[x].pen
				if old == 0 {
					continue
				}
				n, ok := remap[old]
				if !ok {
					n = uint32(len(kept))
					p := t.list[old]
					kept = append(kept, p)
					t.put(&p, n)
					remap[old] = n
				}
				line[x].pen = n
			}
		}
	}
	t.list = kept
	t.limit = max(minPenLimit, 2*len(kept))
	t.last, t.lastIdx = zeroPen, 0
	e.penStale = true
}

// cellOf returns c as a Cell.
func (e *Emulator) cellOf(c *cell) Cell {
	p := e.pens.at(c.pen)
	return Cell{Content: c.content, Width: int(c.width), Style: p.style, Link: p.link}
}

// sharedBlankCols is the width of the shared blank row: rows of wider
// screens get their own cells from the start.
const sharedBlankCols = 512

// sharedBlank is the read-only row of empty cells that unwritten rows of
// every emulator of the process are slices of (12 KiB, made on first use:
// package initialisation runs before every subcommand: docs/ARCHITECTURE.md,
// Invariants).
// Nothing may write to it; fill's bulk copies read it too.
var sharedBlank = sync.OnceValue(func() []cell {
	r := make([]cell, sharedBlankCols)
	for i := range r {
		r[i] = emptyCell
	}
	return r
})

// blankLine returns an unwritten row of cols cells: a slice of sharedBlank
// if it is wide enough, otherwise cells of its own.
func blankLine(cols int) []cell {
	if cols <= sharedBlankCols {
		return sharedBlank()[:cols:cols]
	}
	l := make([]cell, cols)
	for i := range l {
		l[i] = emptyCell
	}
	return l
}

// isShared reports whether line is (a prefix of) the shared blank row.
func isShared(line []cell) bool {
	return len(line) > 0 && &line[0] == &sharedBlank()[0]
}

// row returns row y of s for writing, first giving it cells of its own if
// it still shares the blank row.
func (s *screen) row(y int) []cell {
	l := s.lines[y]
	if isShared(l) {
		own := make([]cell, len(l))
		copy(own, l)
		s.lines[y] = own
		return own
	}
	return l
}

// fillRow sets cells from..to of row y to c (see fill). Filling an
// unwritten row with empty cells leaves it shared.
func (s *screen) fillRow(y, from, to int, c cell) {
	if c == emptyCell && isShared(s.lines[y]) {
		return
	}
	fill(s.row(y), from, to, c)
}
