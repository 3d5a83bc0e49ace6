// Package pane renders a session's screen for the dashboard: Render turns
// an emulator snapshot into exactly w×h cells of (optionally coloured)
// text, cropping around the cursor when the screen is bigger than the
// pane; Frame puts a titled border around it.
//
// Both are pure. Render is on the hot path (a grid of sixteen panes at
// 60 fps), so it writes SGR sequences straight into one strings.Builder,
// only where the style changes, and builds no lipgloss styles per cell.
package pane

import (
	"image/color"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
)

// Options control Render.
type Options struct {
	// Color keeps the screen's colours. Without it (NO_COLOR) colours are
	// dropped; emphasis (bold, italic, underline, reverse, ...) is kept,
	// as the monochrome theme keeps it.
	Color bool
	// Cursor draws the cursor cell in reverse video (for the focused pane),
	// when the program has not hidden the cursor.
	Cursor bool
	// ANSI, when set, remaps the 16 basic colours (SGR 30–37, 90–97 and
	// their backgrounds) to the theme's; nil entries keep the terminal's.
	ANSI *[16]color.Color
}

// Render returns the part of snap that fits in w×h: exactly h lines joined
// by "\n", each exactly w cells wide (short screens are padded with
// spaces; a nil snapshot is blank). Every line ends in the default style.
//
// When the screen is larger than the pane, cropped is true and Render
// shows the region around the cursor: vertically the lowest h rows that
// include the cursor row and end no lower than the content (the cursor
// row or the last non-blank row; agents draw their prompt at the bottom,
// a fresh shell's prompt is near the top), horizontally the leftmost w
// columns that include the cursor column. A
// wide character cut by either edge of the region is drawn as a space.
func Render(snap *vt.Snapshot, w, h int, opt Options) (body string, cropped bool) {
	if w <= 0 || h <= 0 {
		return strings.Repeat("\n", max(h-1, 0)), snap != nil && len(snap.Cells) > 0
	}
	var b strings.Builder
	if snap == nil || len(snap.Cells) == 0 {
		b.Grow(h * (w + 1))
		for y := range h {
			if y > 0 {
				b.WriteByte('\n')
			}
			cellwidth.WriteSpaces(&b, w)
		}
		return b.String(), false
	}
	rows, cols := len(snap.Cells), snap.Cols
	for _, r := range snap.Cells {
		cols = max(cols, len(r))
	}
	cropped = rows > h || cols > w
	cx := max(0, min(snap.Cursor.X, cols-1))
	cy := max(0, min(snap.Cursor.Y, rows-1))
	// The bottom of the content: the cursor row or the last row with
	// anything on it, whichever is lower. A shell that has printed three
	// lines is shown from the top, not as a window of blank rows.
	bottom := cy
	for y := rows - 1; y > cy; y-- {
		if !blankRow(snap.Cells[y]) {
			bottom = y
			break
		}
	}
	y0 := max(0, min(bottom-h+1, cy))
	x0 := 0
	if cx >= w {
		x0 = cx - w + 1
	}
	x0 = max(0, min(x0, cols-w))

	showCursor := opt.Cursor && snap.Cursor.Visible
	r := renderer{b: &b, opt: opt}
	b.Grow(h * (w + 16))
	for y := range h {
		if y > 0 {
			b.WriteByte('\n')
		}
		sy := y0 + y
		if sy >= rows {
			cellwidth.WriteSpaces(&b, w)
			continue
		}
		curX := -1
		if showCursor && sy == cy {
			curX = cx
		}
		r.row(snap.Cells[sy], x0, w, curX)
	}
	return b.String(), cropped
}

// blankRow reports whether a row shows nothing: only unstyled spaces.
func blankRow(row []vt.Cell) bool {
	for i := range row {
		c := &row[i]
		if (c.Content != " " && c.Content != "") || !c.Style.IsZero() {
			return false
		}
	}
	return true
}

// renderer writes rows of cells, tracking the style last written.
type renderer struct {
	b   *strings.Builder
	opt Options
	cur vt.Style // style in effect on the output (zero = default)
}

// row writes w cells of row starting at column x0, then resets the style.
// curX is the screen column of the cursor on this row, or -1.
func (r *renderer) row(row []vt.Cell, x0, w, curX int) {
	col := 0
	prevWide := false
	for x := x0; col < w; x++ {
		if x >= len(row) {
			r.setStyle(nil)
			cellwidth.WriteSpaces(r.b, w-col)
			break
		}
		c := &row[x]
		switch {
		case c.Width == 0:
			if prevWide { // the right half of the wide character just drawn
				prevWide = false
				continue
			}
			// An orphaned right half (its wide character is left of the
			// region, or the row is malformed): a blank.
			r.cell(" ", &c.Style, x == curX)
			col++
		case c.Width >= 2:
			if col+c.Width > w {
				// The character would cross the right edge.
				r.cell(" ", &c.Style, x == curX)
				col++
				prevWide = false
				continue
			}
			r.cell(c.Content, &c.Style, x == curX || x+1 == curX)
			col += c.Width
			prevWide = true
		default:
			content := c.Content
			if content == "" {
				content = " "
			}
			r.cell(content, &c.Style, x == curX)
			col++
			prevWide = false
		}
	}
	r.setStyle(nil)
}

// cell writes content in style s (reversed for the cursor). The style is
// copied only when it must change, to keep the per-cell cost low.
func (r *renderer) cell(content string, s *vt.Style, cursor bool) {
	if r.opt.Color && !cursor {
		r.setStyle(s)
	} else {
		st := *s
		if !r.opt.Color {
			st.Fg, st.Bg, st.UnderlineColor = nil, nil, nil
		}
		if cursor {
			st.Attrs ^= vt.AttrReverse
		}
		r.setStyle(&st)
	}
	r.b.WriteString(content)
}

// setStyle makes s (nil = default) the output's style, writing SGR only
// when it differs from the current one: a reset, then the full new style.
func (r *renderer) setStyle(s *vt.Style) {
	if s == nil || s.IsZero() {
		if !r.cur.IsZero() {
			r.b.WriteString("\x1b[m")
			r.cur = vt.Style{}
		}
		return
	}
	if s.Equal(&r.cur) {
		return
	}
	r.cur = *s
	r.writeSGR(s)
}

// writeSGR writes "ESC[0;...m" setting exactly style s.
func (r *renderer) writeSGR(s *vt.Style) {
	b := r.b
	b.WriteString("\x1b[0")
	attrs := [...]struct {
		bit  uint8
		code string
	}{
		{vt.AttrBold, ";1"}, {vt.AttrFaint, ";2"}, {vt.AttrItalic, ";3"},
		{vt.AttrBlink, ";5"}, {vt.AttrRapidBlink, ";6"}, {vt.AttrReverse, ";7"},
		{vt.AttrConceal, ";8"}, {vt.AttrStrikethrough, ";9"},
	}
	for _, a := range attrs {
		if s.Attrs&a.bit != 0 {
			b.WriteString(a.code)
		}
	}
	switch s.Underline {
	case vt.UnderlineNone:
	case vt.UnderlineSingle:
		b.WriteString(";4")
	default:
		b.WriteString(";4:")
		writeInt(b, int(s.Underline))
	}
	if s.Fg != nil {
		r.writeColor(s.Fg, 30, 90, "38")
	}
	if s.Bg != nil {
		r.writeColor(s.Bg, 40, 100, "48")
	}
	if s.UnderlineColor != nil {
		r.writeColor(s.UnderlineColor, -1, -1, "58")
	}
	b.WriteByte('m')
}

// writeColor writes one colour parameter: basic colours as 30–37/90–97
// (base/bright offsets; -1 = none, use the indexed form), indexed ones as
// ext;5;n and anything else as ext;2;r;g;b.
func (r *renderer) writeColor(c color.Color, base, bright int, ext string) {
	b := r.b
	if bc, ok := c.(vt.BasicColor); ok && r.opt.ANSI != nil && bc < 16 && r.opt.ANSI[bc] != nil {
		c = r.opt.ANSI[bc]
	}
	// A theme's colour may be the ansi package's counterpart of the
	// screen's types.
	switch t := c.(type) {
	case ansi.BasicColor:
		c = vt.BasicColor(t)
	case ansi.IndexedColor:
		c = vt.IndexedColor(t)
	}
	b.WriteByte(';')
	switch c := c.(type) {
	case vt.BasicColor:
		switch {
		case c < 8 && base >= 0:
			writeInt(b, base+int(c))
			return
		case c < 16 && bright >= 0:
			writeInt(b, bright+int(c)-8)
			return
		case c < 16:
			b.WriteString(ext)
			b.WriteString(";5;")
			writeInt(b, int(c))
			return
		}
	case vt.IndexedColor:
		b.WriteString(ext)
		b.WriteString(";5;")
		writeInt(b, int(c))
		return
	}
	cr, cg, cb, _ := c.RGBA()
	b.WriteString(ext)
	b.WriteString(";2;")
	writeInt(b, int(cr>>8))
	b.WriteByte(';')
	writeInt(b, int(cg>>8))
	b.WriteByte(';')
	writeInt(b, int(cb>>8))
}

// writeInt writes a small non-negative decimal without allocating.
func writeInt(b *strings.Builder, n int) {
	var buf [20]byte
	b.Write(strconv.AppendInt(buf[:0], int64(n), 10))
}
