package vt

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"
)

// decMode returns a pointer to the Modes field a DEC private mode number
// controls, or nil for modes that need more than a flag (or are unknown).
func (e *Emulator) decMode(n int) *bool {
	switch n {
	case 1:
		return &e.modes.CursorKeys
	case 7:
		return &e.modes.Autowrap
	case 9:
		return &e.modes.MouseX10
	case 1000:
		return &e.modes.MouseNormal
	case 1002:
		return &e.modes.MouseButton
	case 1003:
		return &e.modes.MouseAny
	case 1004:
		return &e.modes.Focus
	case 1006:
		return &e.modes.MouseSGR
	case 2004:
		return &e.modes.BracketedPaste
	case 2026:
		return &e.modes.SyncOutput
	}
	return nil
}

// setModes implements SM/RM (dec=false) and DECSET/DECRST (dec=true).
func (e *Emulator) setModes(ps ansi.Params, dec, on bool) {
	e.dirty = true
	for i := range ps {
		n := ps[i].Param(0)
		if !dec {
			if n == 4 {
				e.modes.Insert = on
			}
			continue
		}
		if p := e.decMode(n); p != nil {
			*p = on
			if n == 7 && !on {
				e.wrapNext = false
			}
			continue
		}
		switch n {
		case 6:
			e.modes.Origin = on
			e.moveToOrigin(0, 0)
		case 25:
			e.cursorShown = on
		case 47, 1047, 1049:
			e.switchScreen(n, on)
		case 1048:
			if on {
				e.saveCursor()
			} else {
				e.restoreCursor()
			}
		}
	}
}

// switchScreen implements the alternate screen modes: 47 switches, 1047
// also clears the alternate screen on leaving it, 1049 saves the cursor and
// clears the alternate screen on entering, restoring the cursor on leaving.
func (e *Emulator) switchScreen(mode int, on bool) {
	if on == (e.scr == e.alt) {
		return
	}
	if on {
		if mode == 1049 {
			e.saveCursor()
		}
		if e.alt == nil {
			e.alt = newScreen(e.cols, e.rows)
		}
		e.scr = e.alt
		e.modes.AltScreen = true
		if mode == 1049 {
			for y := range e.alt.lines {
				e.alt.fillRow(y, 0, e.cols, emptyCell)
			}
		}
		return
	}
	e.scr = e.main
	if mode == 1047 || mode == 1049 {
		// The alternate screen is blank the next time it is shown (1047
		// clears it on leaving, 1049 on entering), so its memory can go:
		// a session that ran vim once does not keep a second screen.
		e.alt = nil
	}
	e.modes.AltScreen = false
	if mode == 1049 {
		e.restoreCursor()
	}
}

// softReset implements DECSTR.
func (e *Emulator) softReset() {
	e.dirty = true
	e.cursorShown = true
	e.modes.Insert = false
	e.modes.Origin = false
	e.modes.Autowrap = true
	e.modes.CursorKeys = false
	e.top, e.bottom = 0, e.rows-1
	e.style, e.link, e.penStale = Style{}, Link{}, true
	e.charsets, e.gl = [4]byte{'B', 'B', 'B', 'B'}, 0
	e.scr.saved = savedCursor{}
	e.wrapNext = false
}

// requestMode answers DECRQM: Pm is 1 set, 2 reset, 0 unrecognised.
func (e *Emulator) requestMode(dec bool, n int) {
	pm := 0
	state := func(b bool) int {
		if b {
			return 1
		}
		return 2
	}
	if dec {
		if p := e.decMode(n); p != nil {
			pm = state(*p)
		} else {
			switch n {
			case 6:
				pm = state(e.modes.Origin)
			case 25:
				pm = state(e.cursorShown)
			case 47, 1047, 1049:
				pm = state(e.modes.AltScreen)
			}
		}
		e.queueReply([]byte("\x1b[?" + strconv.Itoa(n) + ";" + strconv.Itoa(pm) + "$y"))
		return
	}
	switch n {
	case 4:
		pm = state(e.modes.Insert)
	case 20:
		pm = 2
	}
	e.queueReply([]byte("\x1b[" + strconv.Itoa(n) + ";" + strconv.Itoa(pm) + "$y"))
}
