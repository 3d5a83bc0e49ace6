package vt

import (
	"strings"
	"sync/atomic"
)

// Snapshot returns a copy of the visible screen. It is safe to call
// concurrently with Write. Blank rows (only empty cells with the default
// pen: what a screen mostly holds while a shell or an agent waits) are
// slices of one read-only row shared by every snapshot of the process, so
// a dashboard that keeps the last snapshot of each session pays for the
// rows that show something (112 bytes a cell) and not for the rest.
func (e *Emulator) Snapshot() *Snapshot { return e.SnapshotInto(nil) }

// SnapshotInto is Snapshot written into dst's memory, when dst (an earlier
// snapshot of any emulator, or nil) has room enough: nothing may read or
// hold dst any more, as it is overwritten and returned. A caller that
// copies a screen many times a second (the dashboard, for every pane of a
// grid whose sessions flood) trades one spare copy for the garbage of one
// copy each time (~0.26 MB for a full 76×31 screen).
func (e *Emulator) SnapshotInto(dst *Snapshot) *Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	written := 0
	for _, l := range e.scr.lines {
		if !isBlankLine(l) {
			written++
		}
	}
	var rows [][]Cell
	var backing []Cell
	if dst != nil {
		rows, backing = dst.Cells[:0], dst.backing[:0]
	} else {
		dst = &Snapshot{}
	}
	if cap(rows) < e.rows {
		rows = make([][]Cell, e.rows)
	}
	if cap(backing) < e.cols*written {
		backing = make([]Cell, e.cols*written)
	}
	*dst = Snapshot{
		Cols:    e.cols,
		Rows:    e.rows,
		Cells:   rows[:e.rows],
		Cursor:  Cursor{X: e.x, Y: e.y, Visible: e.cursorShown},
		Title:   e.title,
		Modes:   e.modes,
		Seq:     e.seq.Load(),
		backing: backing[:e.cols*written],
	}
	backing = dst.backing
	var blank []Cell
	for y, l := range e.scr.lines {
		if isBlankLine(l) {
			if blank == nil {
				blank = sharedBlankCells(e.cols)
			}
			dst.Cells[y] = blank
			continue
		}
		row := backing[:e.cols:e.cols]
		backing = backing[e.cols:]
		for x := range l {
			row[x] = e.cellOf(&l[x])
		}
		dst.Cells[y] = row
	}
	return dst
}

// blankCells is the read-only row of empty Cells that blank rows of every
// Snapshot are slices of: as wide as the widest screen snapshotted so far
// (a wider one replaces it; snapshots keep the row they were given).
var blankCells atomic.Pointer[[]Cell]

// sharedBlankCells returns a row of cols empty Cells from blankCells.
func sharedBlankCells(cols int) []Cell {
	if r := blankCells.Load(); r != nil && len(*r) >= cols {
		return (*r)[:cols:cols]
	}
	r := make([]Cell, cols)
	for i := range r {
		r[i] = EmptyCell
	}
	blankCells.Store(&r)
	return r
}

// isBlankLine reports whether every cell of l is an empty cell with the
// default pen.
func isBlankLine(l []cell) bool {
	if isShared(l) {
		return true
	}
	for i := range l {
		if l[i] != emptyCell {
			return false
		}
	}
	return true
}

// Plain is the visible screen as text: what classifiers read. Taking it
// copies no cells, so it is much cheaper than a Snapshot.
type Plain struct {
	Lines  []string // each row, trailing spaces trimmed; a wide character once
	Title  string
	Cursor Cursor
	Seq    uint64
}

// Plain returns the visible screen as text. It is safe to call
// concurrently with Write.
func (e *Emulator) Plain() Plain {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := Plain{
		Lines:  make([]string, len(e.scr.lines)),
		Title:  e.title,
		Cursor: Cursor{X: e.x, Y: e.y, Visible: e.cursorShown},
		Seq:    e.seq.Load(),
	}
	var buf []byte
	for y, row := range e.scr.lines {
		buf = appendRowText(buf[:0], row)
		p.Lines[y] = string(buf)
	}
	return p
}

// Lines returns each row's text with trailing spaces trimmed; a wide
// character appears once.
func (s *Snapshot) Lines() []string {
	out := make([]string, len(s.Cells))
	var buf []byte
	for y, row := range s.Cells {
		buf = appendCellsText(buf[:0], row)
		out[y] = string(buf)
	}
	return out
}

// Text returns Lines joined with newlines, trailing empty lines dropped.
func (s *Snapshot) Text() string {
	lines := s.Lines()
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// ANSI returns the rows with SGR sequences, like `tmux capture-pane -p -e`:
// each style change resets and sets the full new style, each row ends in
// the default style, trailing unstyled blanks are trimmed.
func (s *Snapshot) ANSI() string {
	var b strings.Builder
	for y, row := range s.Cells {
		if y > 0 {
			b.WriteByte('\n')
		}
		last := len(row) - 1
		for last >= 0 && isPlainBlank(&row[last]) {
			last--
		}
		var prev Style
		for x := 0; x <= last; x++ {
			c := &row[x]
			if c.Width == 0 {
				continue
			}
			if !c.Style.Equal(&prev) {
				if !prev.IsZero() {
					b.WriteString("\x1b[0m")
				}
				if !c.Style.IsZero() {
					b.WriteString("\x1b[")
					var buf [64]byte
					b.Write(appendSGRParams(buf[:0], c.Style)[1:])
					b.WriteByte('m')
				}
				prev = c.Style
			}
			if c.Content == "" {
				b.WriteByte(' ')
			} else {
				b.WriteString(c.Content)
			}
		}
		if !prev.IsZero() {
			b.WriteString("\x1b[0m")
		}
	}
	return b.String()
}

func isPlainBlank(c *Cell) bool {
	return c.Width == 1 && c.Content == " " && c.Style.IsZero()
}
