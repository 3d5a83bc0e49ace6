package vt

import (
	"image/color"
	"slices"
	"strconv"

	"github.com/charmbracelet/x/ansi/parser"
)

// Settled reports whether the parser is in its ground state: not inside an
// escape sequence, a UTF-8 character or an OSC/DCS string. Only then is
// everything that decides how later bytes are drawn state that Repaint
// reproduces; a sequence half read is not, so the emulator a repaint taken
// mid-sequence is written to would draw the sequence's rest as text.
func (e *Emulator) Settled() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.settled()
}

func (e *Emulator) settled() bool { return e.parser.State() == parser.GroundState && !e.osc.on }

// Repaint returns bytes that, written to a fresh emulator of the same size
// (New(cols, rows, opts)), make it equivalent to e: it shows the same
// screen, and any bytes written to both afterwards change them alike. The
// bytes begin with RIS (ESC c), so an emulator of the same size that is not
// fresh ends up the same too, except for its scrollback, which RIS keeps.
// They contain no query: the emulator they are written to answers nothing.
//
// Reproduced: the cells of both screens (content, width — wide characters
// included —, SGR style with colours and underline styles, hyperlink), the
// main screen first, so a later ESC[?1049l shows the right one, and an
// alternate screen a program left with mode 47 (which keeps its content);
// the cursor's position, visibility and pending wrap; each screen's saved
// cursor (DECSC: position, pending wrap, pen, origin mode, charsets); the
// scroll region; origin mode, autowrap, insert mode and the other modes of
// Modes (cursor keys, mouse, focus, bracketed paste, synchronized output);
// the pen (SGR and hyperlink); the G0–G3 charsets and the one invoked; tab
// stops; the character REP repeats; the title.
//
// Not Settled, the repaint ends with the bytes of the sequence half read
// (up to 64 KiB of them), so the emulator it is written to reads the rest
// as e does; a longer one, or one a control was executed inside (a LF
// amid a CSI's parameters), is not reproduced. Not reproduced either: the
// scrollback. Nor, in corner cases, the cursor or REP's character (the screen
// is exact in those too): while an alternate screen exists (it is active,
// or a program left it with mode 47), the cursor outside the scroll region
// in origin mode, or a pending wrap with autowrap off, unless DECRC would
// restore that very cursor, and REP's character when it is not the one a
// pending wrap was left by, or no cell shows it and none is blank; on any
// screen, REP's character when nothing was printed since a reset (DECALN
// filled the screen) or it is wide and the screen one column wide. With
// the main screen active and no alternate screen (a shell, Claude Code)
// the rest is always exact.
func (e *Emulator) Repaint() []byte {
	b, _ := e.repaint()
	return b
}

// Painting is a Repaint with the size it is drawn at and the Seq of the
// screen it shows, all taken at one moment.
type Painting struct {
	Bytes      []byte
	Cols, Rows int
	Seq        uint64
}

// Painting returns the emulator's Repaint, size and Seq at one moment: a
// resize or a write cannot come between them.
func (e *Emulator) Painting() Painting {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, _ := e.repaintLocked()
	return Painting{Bytes: b, Cols: e.cols, Rows: e.rows, Seq: e.seq.Load()}
}

// repaint is Repaint, also reporting whether the result is exact (see
// Repaint's corner cases; the tests assert equivalence when it is).
func (e *Emulator) repaint() (b []byte, exact bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.repaintLocked()
}

// repaintLocked is repaint with e.mu held.
func (e *Emulator) repaintLocked() (b []byte, exact bool) {
	p := &painter{e: e, exact: e.settled() || !e.unsettledLost, cs: defaultCharsets, b: make([]byte, 0, 2*e.cols*e.rows+64)}
	p.str("\x1bc")
	p.cells(e.main.lines)
	p.saved(e.main)
	if e.alt != nil {
		p.str("\x1b[?47h")
		p.cells(e.alt.lines)
		p.saved(e.alt)
		if e.scr == e.main {
			p.str("\x1b[?47l")
		}
	}
	p.tabs()
	if e.scr == e.main && e.alt == nil {
		p.cursorViaScratch()
	} else {
		p.cursorInPlace()
	}
	p.modes()
	if e.lastWidth == 0 && p.printed {
		p.exact = false // only DECALN fills cells without printing
	}
	if !e.settled() && !e.unsettledLost {
		// Mid-sequence: its first bytes, so that the rest is read alike.
		p.b = append(p.b, e.unsettled...)
	}
	return p.b, p.exact
}

var defaultCharsets = [4]byte{'B', 'B', 'B', 'B'}

// painter builds a repaint of e (locked), tracking the state the bytes so
// far leave a fresh emulator in, so it emits only what changes.
type painter struct {
	e     *Emulator
	b     []byte
	exact bool
	// printed: a character was printed (REP's character changed).
	printed bool

	pen    Style
	link   Link
	cs     [4]byte
	gl     int
	origin bool
	top    int // the scroll region's top (CUP's origin in origin mode)
	// x, y is the cursor when at is set; at is clear after printing in
	// the last column (a pending wrap) or a sequence that moves it.
	x, y int
	at   bool
}

func (p *painter) str(s string) { p.b = append(p.b, s...) }

// csi appends CSI, the parameters joined by ';', and final.
func (p *painter) csi(final byte, ps ...int) { p.seq("\x1b[", final, ps...) }

// seq appends intro, the parameters joined by ';', and final.
func (p *painter) seq(intro string, final byte, ps ...int) {
	p.b = append(p.b, intro...)
	for i, n := range ps {
		if i > 0 {
			p.b = append(p.b, ';')
		}
		p.b = strconv.AppendInt(p.b, int64(n), 10)
	}
	p.b = append(p.b, final)
}

// cup moves the cursor to (x, y) with CUP, relative to the scroll region's
// top in origin mode.
func (p *painter) cup(x, y int) {
	row := y
	if p.origin {
		row -= p.top
	}
	p.csi('H', row+1, x+1)
	p.x, p.y, p.at = x, y, true
}

// goTo moves the cursor to (x, y) unless it is there, along the row if it
// is on it.
func (p *painter) goTo(x, y int) {
	switch {
	case p.at && p.y == y && p.x == x:
	case p.at && p.y == y && x > p.x:
		p.csi('C', x-p.x)
		p.x = x
	default:
		p.cup(x, y)
	}
}

// setPen sets the SGR style and the hyperlink.
func (p *painter) setPen(st Style, lk Link) {
	p.sgr(st)
	if lk != p.link {
		p.str("\x1b]8;" + lk.Params + ";" + lk.URL + "\x1b\\")
		p.link = lk
	}
}

func (p *painter) sgr(st Style) {
	if st != p.pen {
		p.b = appendSGR(p.b, st)
		p.pen = st
	}
}

// text prints s, one character of width w, at the cursor with the pen.
func (p *painter) text(s string, w int) {
	p.str(s)
	p.printed = true
	p.x += w
	if p.x >= p.e.cols {
		p.at = false
	}
}

// put prints cell c at (x, y) with its own style and hyperlink.
func (p *painter) put(c *cell, x, y int) {
	p.goTo(x, y)
	pn := p.e.pens.at(c.pen)
	p.setPen(pn.style, pn.link)
	if c.content == "" {
		p.exact = false // a cell printing cannot make; shown as a blank
		p.text(" ", int(c.width))
		return
	}
	p.text(c.content, int(c.width))
}

// cells draws a screen's cells on the fresh screen the bytes so far have
// switched to (empty cells are there already), with origin mode off, the
// whole screen as the scroll region, autowrap on and insert mode off.
func (p *painter) cells(lines [][]cell) {
	for y, line := range lines {
		end := len(line)
		for end > 0 && isEmpty(&line[end-1]) {
			end--
		}
		for x := 0; x < end; {
			c := &line[x]
			switch {
			case isEmpty(c):
				x++
			case p.isBlank(c):
				x += p.blanks(line, x, y)
			case c.width < 1 || x+int(c.width) > len(line):
				// A continuation without its wide character, or a wide
				// character cut by the margin: nothing prints those.
				p.exact = false
				x++
			default:
				p.put(c, x, y)
				x += int(c.width)
			}
		}
	}
}

// isEmpty reports whether c is a fresh screen's cell (its content first:
// that settles most cells without comparing styles).
func isEmpty(c *cell) bool { return c.content == " " && *c == emptyCell }

// isBlank reports whether c is what erasing with c's background leaves.
func (p *painter) isBlank(c *cell) bool {
	if c.content != " " || c.width != 1 {
		return false
	}
	pn := p.e.pens.at(c.pen)
	return pn.link == (Link{}) && pn.style == Style{Bg: pn.style.Bg}
}

// blanks draws the run of cells equal to line[x] (a blank with a
// background) by erasing with that background: EL if it reaches the
// margin, ECH if it is long; it returns the run's length.
func (p *painter) blanks(line []cell, x, y int) int {
	n := 1
	for x+n < len(line) && line[x+n] == line[x] {
		n++
	}
	switch {
	case x+n == len(line):
		p.goTo(x, y)
		p.sgr(p.e.pens.at(line[x].pen).style)
		p.str("\x1b[K")
	case n >= 4:
		p.goTo(x, y)
		p.sgr(p.e.pens.at(line[x].pen).style)
		p.csi('X', n)
	default:
		for k := range n {
			p.put(&line[x+k], x+k, y)
		}
	}
	return n
}

// wrapAt reprints the character that ends at the right margin of row y,
// which leaves the cursor there with a wrap pending; if none does (it
// cannot be printed), it puts the cursor in the last column, without a
// pending wrap, and the repaint is not exact.
func (p *painter) wrapAt(line []cell, y int) {
	x := len(line) - 1
	if line[x].width == 0 && x > 0 {
		x--
	}
	if c := &line[x]; x+int(c.width) == len(line) {
		p.put(c, x, y)
		return
	}
	p.exact = false
	p.cup(len(line)-1, y)
}

// charsets designates G0–G3 and invokes G0 or G1 as cs and gl say.
func (p *painter) charsets(cs [4]byte, gl int) {
	for g := range cs {
		if cs[g] != p.cs[g] {
			p.b = append(p.b, 0x1b, "()*+"[g], cs[g])
		}
	}
	if gl != p.gl {
		p.b = append(p.b, "\x0f\x0e"[gl])
	}
	p.cs, p.gl = cs, gl
}

func (p *painter) setOrigin(on bool) {
	if on == p.origin {
		return
	}
	if on {
		p.str("\x1b[?6h")
	} else {
		p.str("\x1b[?6l")
	}
	p.origin, p.at = on, false // the cursor goes to the origin
}

// saved sets the DECSC slot of screen s (the one the bytes so far show).
func (p *painter) saved(s *screen) {
	sv := s.saved
	if !sv.valid {
		return // a fresh screen's slot is empty too
	}
	p.setOrigin(sv.origin) // the region is the whole screen: CUP stays absolute
	if sv.wrapNext {
		p.wrapAt(s.lines[sv.y], sv.y) // Resize ends a saved wrap: sv.x is the last column
	} else {
		p.cup(sv.x, sv.y)
	}
	p.sgr(sv.style)
	p.charsets(sv.charsets, sv.gl)
	p.str("\x1b7")
	p.setOrigin(false)
	p.charsets(defaultCharsets, 0)
}

// tabs sets the tab stops, if they are not a fresh emulator's.
func (p *painter) tabs() {
	e := p.e
	def := make([]bool, e.cols)
	for i := 8; i < e.cols; i += 8 {
		def[i] = true
	}
	if slices.Equal(e.tabs, def) {
		return
	}
	p.str("\x1b[3g")
	for i, on := range e.tabs {
		if on {
			p.csi('G', i+1)
			p.str("\x1bH")
		}
	}
	p.at = false
}

// region sets the scroll region (DECSTBM, which homes the cursor).
func (p *painter) region() {
	e := p.e
	if e.top == 0 && e.bottom == e.rows-1 {
		return
	}
	p.csi('r', e.top+1, e.bottom+1)
	p.top, p.at = e.top, false
}

// cursorViaScratch sets the cursor, the pen, the charsets, REP's
// character and the region with the main screen active and no alternate
// screen. Some cursors (origin mode outside the region, a pending wrap with
// autowrap off) only DECRC can set, so the cursor is built in the slot of
// a scratch alternate screen, restored after the region and autowrap are
// set, and the scratch screen is freed with ?1047l, which leaves the
// cursor alone. REP's character is printed on the scratch screen.
func (p *painter) cursorViaScratch() {
	e := p.e
	p.str("\x1b[?47h")
	p.setOrigin(e.modes.Origin) // the region is still the whole screen
	lc, lw := e.lastContent, e.lastWidth
	if e.wrapNext && e.x != e.cols-1 {
		p.exact = false // not after Resize, which ends a pending wrap
	}
	if lw > e.cols {
		p.exact, lw = false, 0 // a 1-column screen cannot print a wide REP character
	}
	switch {
	case e.wrapNext && lw > 0:
		p.cup(e.cols-lw, e.y)
		p.text(lc, lw)
	case e.wrapNext:
		p.cup(e.cols-1, e.y)
		p.text(" ", 1)
	default:
		if lw > 0 {
			p.cup(0, 0)
			p.text(lc, lw)
		}
		p.cup(e.x, e.y)
	}
	p.sgr(e.style)
	p.charsets(e.charsets, e.gl)
	p.str("\x1b7")
	p.region()
	if !e.modes.Autowrap {
		p.str("\x1b[?7l")
	}
	p.str("\x1b8\x1b[?1047l")
	p.finish()
}

// cursorInPlace sets the cursor, the pen, the charsets, REP's character
// and the region on the active screen when an alternate screen exists
// (no scratch slot is free): directly, or with DECRC when the screen's
// saved cursor is this cursor.
func (p *painter) cursorInPlace() {
	e := p.e
	sv := e.scr.saved
	decrc := sv.valid && sv.x == e.x && sv.y == e.y && sv.wrapNext == e.wrapNext && sv.origin == e.modes.Origin
	outside := e.y < e.top || e.y > e.bottom
	if !decrc && (e.modes.Origin && outside || e.wrapNext && !e.modes.Autowrap) {
		p.exact = false
	}
	p.region()
	wrap := e.wrapNext && !decrc // the cursor's pending wrap is printed last
	if lw := e.lastWidth; lw > e.cols {
		p.exact = false // a 1-column screen cannot print a wide REP character
	} else if lw > 0 {
		line := e.scr.lines[e.y]
		end := len(line) - lw
		if wrap && !(line[end].content == e.lastContent && int(line[end].width) == lw) || !wrap && !p.printLast() {
			p.exact = false
		}
	}
	if !e.modes.Autowrap {
		p.str("\x1b[?7l")
	}
	if decrc {
		p.str("\x1b8")
		p.pen, p.cs, p.gl, p.origin, p.at = sv.style, sv.charsets, sv.gl, sv.origin, false
	} else {
		p.setOrigin(e.modes.Origin)
		if wrap {
			p.wrapAt(e.scr.lines[e.y], e.y)
		} else {
			p.cup(e.x, e.y)
		}
	}
	p.sgr(e.style)
	p.charsets(e.charsets, e.gl)
	p.finish()
}

// printLast prints REP's character on the active screen without changing
// a cell: over a cell that shows it (with that cell's own pen), or on blank
// cells, erased again with their backgrounds. It reports false if neither
// is found. Origin mode is off.
func (p *painter) printLast() bool {
	e := p.e
	lc, lw := e.lastContent, e.lastWidth
	for y, line := range e.scr.lines {
		for x := range line {
			if c := &line[x]; c.content == lc && int(c.width) == lw {
				p.put(c, x, y)
				return true
			}
		}
	}
	for y, line := range e.scr.lines {
		for x := 0; x+lw <= len(line); x++ {
			if !p.isBlank(&line[x]) || lw == 2 && !p.isBlank(&line[x+1]) {
				continue
			}
			p.goTo(x, y)
			p.text(lc, lw)
			for k := lw - 1; k >= 0; k-- {
				p.goTo(x+k, y)
				p.sgr(Style{Bg: p.e.pens.at(line[x+k].pen).style.Bg})
				p.str("\x1b[X")
			}
			return true
		}
	}
	return false
}

// finish sets what needs no cursor: the hyperlink and insert mode.
func (p *painter) finish() {
	e := p.e
	p.setPen(e.style, e.link)
	if e.modes.Insert {
		p.str("\x1b[4h")
	}
}

// modes sets the DEC modes that only change what the program is sent or
// how the cursor is shown, and the title.
func (p *painter) modes() {
	e := p.e
	m := e.modes
	var on []int
	for _, f := range []struct {
		set  bool
		mode int
	}{
		{m.CursorKeys, 1}, {m.MouseX10, 9}, {m.MouseNormal, 1000}, {m.MouseButton, 1002},
		{m.MouseAny, 1003}, {m.Focus, 1004}, {m.MouseSGR, 1006}, {m.BracketedPaste, 2004},
		{m.SyncOutput, 2026},
	} {
		if f.set {
			on = append(on, f.mode)
		}
	}
	if len(on) > 0 {
		p.seq("\x1b[?", 'h', on...)
	}
	if !e.cursorShown {
		p.str("\x1b[?25l")
	}
	if e.title != "" {
		p.str("\x1b]2;" + e.title + "\x1b\\")
	}
}

// sgrAttrs are the SGR codes of Style.Attrs bits, lowest bit first.
var sgrAttrs = [8]int{1, 2, 3, 5, 6, 7, 8, 9}

// sgrUnderline is the SGR of each underline style (4:0 is none).
var sgrUnderline = map[Underline]string{
	UnderlineSingle: ";4", UnderlineDouble: ";4:2", UnderlineCurly: ";4:3",
	UnderlineDotted: ";4:4", UnderlineDashed: ";4:5",
}

// appendSGR appends one SGR sequence that resets the pen and sets st, in
// the forms sgr parses back to the same values (and colour types).
func appendSGR(b []byte, st Style) []byte {
	return append(appendSGRParams(append(b, "\x1b[0"...), st), 'm')
}

// appendSGRParams appends the SGR parameters that set st on the default
// pen, each after a ';'.
func appendSGRParams(b []byte, st Style) []byte {
	for i, code := range sgrAttrs {
		if st.Attrs&(1<<i) != 0 {
			b = append(b, ';')
			b = strconv.AppendInt(b, int64(code), 10)
		}
	}
	b = append(b, sgrUnderline[st.Underline]...)
	b = appendColor(b, 30, st.Fg)
	b = appendColor(b, 40, st.Bg)
	return appendColor(b, 50, st.UnderlineColor)
}

// appendColor appends ";" and the SGR parameters of colour c for base 30
// (foreground), 40 (background) or 50 (underline, which has no basic
// form).
func appendColor(b []byte, base int, c color.Color) []byte {
	if c == nil {
		return b
	}
	n := -1
	switch c := c.(type) {
	case BasicColor:
		switch {
		case base != 50 && c < 8:
			return strconv.AppendInt(append(b, ';'), int64(base+int(c)), 10)
		case base != 50 && c < 16:
			return strconv.AppendInt(append(b, ';'), int64(base+60+int(c)-8), 10)
		}
		n = int(c)
	case IndexedColor:
		n = int(c)
	}
	b = strconv.AppendInt(append(b, ';'), int64(base+8), 10)
	if n >= 0 {
		return strconv.AppendInt(append(b, ";5;"...), int64(uint8(n)), 10)
	}
	r, g, bl, _ := c.RGBA()
	b = append(b, ";2"...)
	for _, v := range []uint32{r, g, bl} {
		b = strconv.AppendInt(append(b, ';'), int64(v>>8), 10)
	}
	return b
}
