package vt

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// maxCount bounds repeat-style parameters (CUU 99999999 ...) so a hostile
// stream cannot make one sequence loop for long.
const maxCount = 1 << 16

// param returns parameter i, or def when missing, capped at maxCount.
func param(ps ansi.Params, i, def int) int {
	v, _, ok := ps.Param(i, def)
	if !ok {
		return def
	}
	return min(v, maxCount)
}

// count returns a count parameter: missing or 0 means 1.
func count(ps ansi.Params, i int) int {
	return max(param(ps, i, 1), 1)
}

// execute handles C0 control characters.
func (e *Emulator) execute(b byte) {
	switch b {
	case '\a': // BEL: nothing visible; the program wants attention
		e.queueAlert(Alert{Bell: true})
	case '\b':
		e.dirty = true
		e.wrapNext = false
		if e.x > 0 {
			e.x--
		}
	case '\t':
		e.dirty = true
		e.tabForward(1)
	case '\n', '\v', '\f':
		e.index()
	case '\r':
		e.carriageReturn()
	case 0x0e: // SO: invoke G1
		e.gl = 1
	case 0x0f: // SI: invoke G0
		e.gl = 0
	}
}

func (e *Emulator) carriageReturn() {
	e.dirty = true
	e.x = 0
	e.wrapNext = false
}

// index moves the cursor down one line, scrolling the region when the
// cursor is on its bottom margin (IND, LF).
func (e *Emulator) index() {
	e.dirty = true
	e.wrapNext = false
	switch {
	case e.y == e.bottom:
		e.scrollUp(e.top, e.bottom, 1)
	case e.y < e.rows-1:
		e.y++
	}
}

// reverseIndex moves the cursor up, scrolling down at the top margin (RI).
func (e *Emulator) reverseIndex() {
	e.dirty = true
	e.wrapNext = false
	switch {
	case e.y == e.top:
		e.scrollDown(e.top, e.bottom, 1)
	case e.y > 0:
		e.y--
	}
}

func (e *Emulator) tabForward(n int) {
	e.wrapNext = false
	for ; n > 0 && e.x < e.cols-1; n-- {
		e.x++
		for e.x < e.cols-1 && !e.tabs[e.x] {
			e.x++
		}
	}
}

func (e *Emulator) tabBackward(n int) {
	e.wrapNext = false
	for ; n > 0 && e.x > 0; n-- {
		e.x--
		for e.x > 0 && !e.tabs[e.x] {
			e.x--
		}
	}
}

// moveTo sets the cursor to absolute screen coordinates, clamped.
func (e *Emulator) moveTo(x, y int) {
	e.dirty = true
	e.wrapNext = false
	e.x = min(max(x, 0), e.cols-1)
	e.y = min(max(y, 0), e.rows-1)
}

// moveToOrigin positions the cursor relative to the origin: the scroll
// region's top when DECOM is set (and confined to the region).
func (e *Emulator) moveToOrigin(x, y int) {
	if e.modes.Origin {
		y = min(max(y+e.top, e.top), e.bottom)
	}
	e.moveTo(x, y)
}

// moveVert moves the cursor by dy rows, stopping at the scroll margins
// when starting inside the region (CUU/CUD).
func (e *Emulator) moveVert(dy int) {
	y := e.y + dy
	if dy < 0 && e.y >= e.top {
		y = max(y, e.top)
	}
	if dy > 0 && e.y <= e.bottom {
		y = min(y, e.bottom)
	}
	e.moveTo(e.x, y)
}

func (e *Emulator) saveCursor() {
	e.scr.saved = savedCursor{
		x: e.x, y: e.y, wrapNext: e.wrapNext, style: e.style,
		origin: e.modes.Origin, charsets: e.charsets, gl: e.gl, valid: true,
	}
}

func (e *Emulator) restoreCursor() {
	s := e.scr.saved
	e.dirty, e.penStale = true, true
	if !s.valid {
		e.x, e.y, e.wrapNext = 0, 0, false
		e.style = Style{}
		e.modes.Origin = false
		return
	}
	e.x, e.y = min(s.x, e.cols-1), min(s.y, e.rows-1)
	e.wrapNext = s.wrapNext
	e.style = s.style
	e.modes.Origin = s.origin
	e.charsets, e.gl = s.charsets, s.gl
}

// handleESC handles ESC sequences.
func (e *Emulator) handleESC(cmd ansi.Cmd) {
	inter, final := cmd.Intermediate(), cmd.Final()
	switch inter {
	case 0:
		switch final {
		case '7':
			e.saveCursor()
		case '8':
			e.restoreCursor()
		case 'D':
			e.index()
		case 'E':
			e.carriageReturn()
			e.index()
		case 'H':
			e.tabs[e.x] = true
		case 'M':
			e.reverseIndex()
		case 'c':
			e.reset()
		}
	case '(', ')', '*', '+':
		g := int(inter - '(')
		if final == '0' {
			e.charsets[g] = '0'
		} else {
			e.charsets[g] = 'B'
		}
	case '#':
		if final == '8' { // DECALN: fill the screen with E
			e.dirty = true
			for y := range e.scr.lines {
				l := e.scr.row(y)
				for i := range l {
					l[i] = cell{content: "E", width: 1}
				}
			}
			e.top, e.bottom = 0, e.rows-1
			e.moveTo(0, 0)
		}
	}
}

// handleCSI handles CSI sequences.
func (e *Emulator) handleCSI(cmd ansi.Cmd, ps ansi.Params) {
	prefix, inter, final := cmd.Prefix(), cmd.Intermediate(), cmd.Final()
	if inter == '$' && final == 'p' {
		e.requestMode(prefix == '?', param(ps, 0, 0))
		return
	}
	if inter == '!' && final == 'p' {
		e.softReset()
		return
	}
	if inter != 0 {
		return // DECSCUSR and friends: not tracked
	}
	switch prefix {
	case '?':
		switch final {
		case 'h':
			e.setModes(ps, true, true)
		case 'l':
			e.setModes(ps, true, false)
		case 'J':
			e.eraseDisplay(param(ps, 0, 0))
		case 'K':
			e.eraseLine(param(ps, 0, 0))
		case 'n':
			if param(ps, 0, 0) == 6 {
				row, col := e.cursorReport()
				e.queueReply([]byte("\x1b[?" + strconv.Itoa(row) + ";" + strconv.Itoa(col) + "R"))
			}
		}
		return
	case '>':
		switch final {
		case 'c':
			e.queueReply([]byte("\x1b[>1;10;0c"))
		case 'q':
			e.queueReply([]byte("\x1bP>|heimdall-tui\x1b\\"))
		}
		return
	case 0:
	default:
		return
	}
	switch final {
	case '@':
		e.wrapNext = false
		e.insertChars(count(ps, 0))
	case 'A':
		e.moveVert(-count(ps, 0))
	case 'B', 'e':
		e.moveVert(count(ps, 0))
	case 'C', 'a':
		e.moveTo(e.x+count(ps, 0), e.y)
	case 'D':
		e.moveTo(e.x-count(ps, 0), e.y)
	case 'E':
		e.moveVert(count(ps, 0))
		e.x = 0
	case 'F':
		e.moveVert(-count(ps, 0))
		e.x = 0
	case 'G', '`':
		e.moveTo(count(ps, 0)-1, e.y)
	case 'H', 'f':
		e.moveToOrigin(count(ps, 1)-1, count(ps, 0)-1)
	case 'I':
		e.dirty = true
		e.tabForward(count(ps, 0))
	case 'Z':
		e.dirty = true
		e.tabBackward(count(ps, 0))
	case 'J':
		e.eraseDisplay(param(ps, 0, 0))
	case 'K':
		e.eraseLine(param(ps, 0, 0))
	case 'L':
		if e.y >= e.top && e.y <= e.bottom {
			e.scrollDown(e.y, e.bottom, count(ps, 0))
			e.moveTo(0, e.y)
		}
	case 'M':
		if e.y >= e.top && e.y <= e.bottom {
			// DL never feeds scrollback, even from the top line.
			e.deleteLines(count(ps, 0))
			e.moveTo(0, e.y)
		}
	case 'P':
		e.wrapNext = false
		e.deleteChars(count(ps, 0))
	case 'S':
		e.scrollUp(e.top, e.bottom, count(ps, 0))
	case 'T':
		if len(ps) <= 1 { // CSI T with 5 params is mouse tracking
			e.scrollDown(e.top, e.bottom, count(ps, 0))
		}
	case 'X':
		e.dirty = true
		e.wrapNext = false
		e.scr.fillRow(e.y, e.x, e.x+count(ps, 0), e.blank())
	case 'b':
		e.repeat(count(ps, 0))
	case 'c':
		if param(ps, 0, 0) == 0 {
			e.queueReply([]byte("\x1b[?62;22c"))
		}
	case 'd':
		e.moveToOrigin(e.x, count(ps, 0)-1)
	case 'g':
		switch param(ps, 0, 0) {
		case 0:
			e.tabs[e.x] = false
		case 3:
			clear(e.tabs)
		}
	case 'h':
		e.setModes(ps, false, true)
	case 'l':
		e.setModes(ps, false, false)
	case 'm':
		e.dirty = true
		e.sgr(ps)
	case 'n':
		switch param(ps, 0, 0) {
		case 5:
			e.queueReply([]byte("\x1b[0n"))
		case 6:
			row, col := e.cursorReport()
			e.queueReply([]byte("\x1b[" + strconv.Itoa(row) + ";" + strconv.Itoa(col) + "R"))
		}
	case 'r':
		top := count(ps, 0) - 1
		bottom := param(ps, 1, e.rows)
		if bottom == 0 {
			bottom = e.rows
		}
		bottom = min(bottom, e.rows) - 1
		if top < bottom {
			e.top, e.bottom = top, bottom
			e.moveToOrigin(0, 0)
		}
	case 's':
		e.saveCursor()
	case 'u':
		e.restoreCursor()
	}
}

// deleteLines implements DL inside the scroll region: lines below the
// cursor move up and blanks enter at the bottom margin; no scrollback.
func (e *Emulator) deleteLines(n int) {
	n = min(n, e.bottom-e.y+1)
	e.dirty = true
	lines := e.scr.lines
	e.scratch = append(e.scratch[:0], lines[e.y:e.y+n]...)
	copy(lines[e.y:], lines[e.y+n:e.bottom+1])
	copy(lines[e.bottom+1-n:], e.scratch)
	b := e.blank()
	for y := e.bottom + 1 - n; y <= e.bottom; y++ {
		e.scr.fillRow(y, 0, e.cols, b)
	}
}

// cursorReport returns the 1-based cursor position for CPR, relative to
// the scroll region when origin mode is set.
func (e *Emulator) cursorReport() (row, col int) {
	row = e.y + 1
	if e.modes.Origin {
		row -= e.top
	}
	return row, e.x + 1
}

// handleOSC handles OSC sequences: titles, hyperlinks and colour queries.
func (e *Emulator) handleOSC(cmd int, data []byte) {
	rest := data
	if i := bytes.IndexByte(data, ';'); i >= 0 {
		rest = data[i+1:]
	} else {
		rest = nil
	}
	switch cmd {
	case 0, 2:
		if t := string(rest); t != e.title {
			e.title = t
			e.dirty = true
		}
	case 8: // OSC 8 ; params ; url
		if i := bytes.IndexByte(rest, ';'); i >= 0 {
			e.penStale = true
			if url := rest[i+1:]; len(url) == 0 {
				e.link = Link{}
			} else {
				e.link = Link{URL: string(url), Params: string(rest[:i])}
			}
		}
	case 9: // iTerm2's notification; "9;4;…" is a progress report, not one
		if len(rest) > 0 && !bytes.HasPrefix(rest, []byte("4;")) {
			e.queueAlert(Alert{Text: string(rest)})
		}
	case 99: // kitty's: OSC 99 ; metadata ; payload
		if i := bytes.IndexByte(rest, ';'); i >= 0 {
			e.queueAlert(Alert{Text: string(rest[i+1:])})
		}
	case 777: // OSC 777 ; notify ; TITLE ; BODY
		if t, ok := bytes.CutPrefix(rest, []byte("notify;")); ok {
			title, body, _ := bytes.Cut(t, []byte(";"))
			e.queueAlert(Alert{Text: strings.TrimPrefix(string(title)+": "+string(body), ": ")})
		}
	case 10, 11, 12:
		if string(rest) == "?" {
			c := "ffff/ffff/ffff" // foreground, cursor: white
			if cmd == 11 {
				c = "0000/0000/0000" // background: black
			}
			e.queueReply([]byte("\x1b]" + strconv.Itoa(cmd) + ";rgb:" + c + "\x1b\\"))
		}
	}
}

// handleDCS answers DECRQSS (DCS $ q Pt ST) for SGR and DECSTBM so programs
// probing them get an answer; other DCS strings are ignored.
func (e *Emulator) handleDCS(cmd ansi.Cmd, _ ansi.Params, data []byte) {
	if cmd.Intermediate() != '$' || cmd.Final() != 'q' {
		return
	}
	switch string(data) {
	case "m":
		r := appendSGRParams([]byte("\x1bP1$r0"), e.style)
		e.queueReply(append(r, "m\x1b\\"...))
	case "r":
		e.queueReply([]byte("\x1bP1$r" + strconv.Itoa(e.top+1) + ";" + strconv.Itoa(e.bottom+1) + "r\x1b\\"))
	default:
		e.queueReply([]byte("\x1bP0$r\x1b\\"))
	}
}
