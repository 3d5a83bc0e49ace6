package vt

import ()

// screen is one of the two buffers (main, alternate). Every line is exactly
// cols cells long; scroll operations rotate line slices instead of
// allocating, so steady-state output reuses the same cell storage. Lines
// never written share the blank row (cell.go): write through row or
// fillRow.
type screen struct {
	lines [][]cell
	saved savedCursor // DECSC state, kept per screen like xterm
}

// savedCursor is what DECSC / CSI s save and DECRC / CSI u restore.
type savedCursor struct {
	x, y     int
	wrapNext bool
	style    Style
	origin   bool
	charsets [4]byte
	gl       int
	valid    bool
}

func newScreen(cols, rows int) *screen {
	s := &screen{lines: make([][]cell, rows)}
	for y := range s.lines {
		s.lines[y] = blankLine(cols)
	}
	return s
}

// resize truncates or extends the screen to cols x rows after dropping the
// first drop lines (which the caller has already saved if needed).
func (s *screen) resize(cols, rows, drop int) {
	lines := make([][]cell, 0, rows)
	lines = append(lines, s.lines[min(drop, len(s.lines)):]...)
	if len(lines) > rows {
		lines = lines[:rows]
	}
	for len(lines) < rows {
		lines = append(lines, nil)
	}
	for y, l := range lines {
		switch {
		case l == nil || isShared(l):
			l = blankLine(cols)
		case len(l) > cols:
			l = l[:cols:cols]
			if l[cols-1].width > 1 {
				l[cols-1] = emptyCell
			}
		case len(l) < cols:
			n := make([]cell, cols)
			copy(n, l)
			for x := len(l); x < cols; x++ {
				n[x] = emptyCell
			}
			l = n
		}
		lines[y] = l
	}
	s.lines = lines
}

// blank returns the cell erase operations fill with: a space carrying only
// the current background colour (xterm's background colour erase).
func (e *Emulator) blank() cell {
	if e.style.Bg == nil {
		return emptyCell
	}
	return cell{content: " ", width: 1, pen: e.penOf(Style{Bg: e.style.Bg}, Link{})}
}

// fill sets line[from:to] to c, first blanking the halves of wide
// characters cut by either boundary. line has cells of its own (screen.row).
func fill(line []cell, from, to int, c cell) {
	from, to = max(from, 0), min(to, len(line))
	if from >= to {
		return
	}
	if from > 0 && line[from].width == 0 {
		line[from-1] = c
	}
	if to < len(line) && line[to].width == 0 {
		line[to] = c
	}
	if c == emptyCell {
		if blank := sharedBlank(); to-from <= len(blank) {
			// One bulk copy beats a per-cell loop of write-barriered stores.
			copy(line[from:to], blank[:to-from])
			return
		}
	}
	for i := from; i < to; i++ {
		line[i] = c
	}
}

// normalize blanks orphaned wide-character halves after cells were shifted
// (ICH, DCH, insert mode).
func normalize(line []cell) {
	for i := range line {
		switch line[i].width {
		case 0:
			if i == 0 || line[i-1].width != 2 {
				line[i] = emptyCell
			}
		case 2:
			if i+1 >= len(line) || line[i+1].width != 0 {
				line[i] = emptyCell
			}
		}
	}
}

// scrollUp moves lines top..bottom up by n, filling the bottom with blank
// lines. Lines leaving the top of a full-screen region of the main screen
// go to scrollback.
func (e *Emulator) scrollUp(top, bottom, n int) {
	n = min(n, bottom-top+1)
	if n <= 0 {
		return
	}
	e.dirty = true
	if e.dry {
		return // every row present now scrolls away unseen (skip.go)
	}
	lines := e.scr.lines
	if e.scr == e.main && top == 0 && bottom == e.rows-1 {
		for i := 0; i < n; i++ {
			e.sb.push(lines[i])
		}
	}
	e.scratch = append(e.scratch[:0], lines[top:top+n]...)
	copy(lines[top:], lines[top+n:bottom+1])
	copy(lines[bottom+1-n:], e.scratch)
	b := e.blank()
	for y := bottom + 1 - n; y <= bottom; y++ {
		e.scr.fillRow(y, 0, e.cols, b)
	}
}

// scrollDown moves lines top..bottom down by n, filling the top with blank
// lines. Nothing goes to scrollback.
func (e *Emulator) scrollDown(top, bottom, n int) {
	n = min(n, bottom-top+1)
	if n <= 0 {
		return
	}
	e.dirty = true
	lines := e.scr.lines
	e.scratch = append(e.scratch[:0], lines[bottom+1-n:bottom+1]...)
	copy(lines[top+n:], lines[top:bottom+1-n])
	copy(lines[top:], e.scratch)
	b := e.blank()
	for y := top; y < top+n; y++ {
		e.scr.fillRow(y, 0, e.cols, b)
	}
}

// eraseDisplay implements ED.
func (e *Emulator) eraseDisplay(mode int) {
	e.dirty = true
	b := e.blank()
	s := e.scr
	switch mode {
	case 0:
		s.fillRow(e.y, e.x, e.cols, b)
		for y := e.y + 1; y < e.rows; y++ {
			s.fillRow(y, 0, e.cols, b)
		}
	case 1:
		for y := 0; y < e.y; y++ {
			s.fillRow(y, 0, e.cols, b)
		}
		s.fillRow(e.y, 0, e.x+1, b)
	case 2:
		for y := range s.lines {
			s.fillRow(y, 0, e.cols, b)
		}
	case 3:
		e.sb.clear()
	}
}

// eraseLine implements EL.
func (e *Emulator) eraseLine(mode int) {
	e.dirty = true
	if e.dry {
		return
	}
	s := e.scr
	switch mode {
	case 0:
		// With a wrap pending the cursor is past the last column, as tmux
		// keeps it: there is nothing to its right, so nothing is erased
		// (top draws its reverse header to the margin, then sends EL).
		if !e.wrapNext {
			s.fillRow(e.y, e.x, e.cols, e.blank())
		}
	case 1:
		s.fillRow(e.y, 0, e.x+1, e.blank())
	case 2:
		s.fillRow(e.y, 0, e.cols, e.blank())
	}
}

// insertChars implements ICH: n blanks at the cursor, shifting the rest of
// the line right; cells pushed past the margin are lost.
func (e *Emulator) insertChars(n int) {
	e.dirty = true
	line := e.scr.row(e.y)
	n = min(n, e.cols-e.x)
	copy(line[e.x+n:], line[e.x:])
	b := e.blank()
	for i := e.x; i < e.x+n; i++ {
		line[i] = b
	}
	normalize(line)
}

// deleteChars implements DCH: removes n cells at the cursor, shifting the
// rest left and filling the end with blanks.
func (e *Emulator) deleteChars(n int) {
	e.dirty = true
	line := e.scr.row(e.y)
	n = min(n, e.cols-e.x)
	copy(line[e.x:], line[e.x+n:])
	b := e.blank()
	for i := e.cols - n; i < e.cols; i++ {
		line[i] = b
	}
	normalize(line)
}
