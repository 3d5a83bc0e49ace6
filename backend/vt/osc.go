package vt

// OSC strings are collected here rather than by the ansi parser, whose state
// table ends an OSC at any 0x9C byte (the 8-bit ST). In UTF-8 that byte is
// also a continuation byte: "✳" is E2 9C B3, and Claude Code puts it in its
// window title. Like xterm and tmux in UTF-8 mode, a 0x9C inside a UTF-8
// character is data; BEL, ESC \ and a stray 0x9C end the string; CAN and SUB
// abort it.

// maxOSC bounds a collected OSC string; longer ones are truncated.
const maxOSC = 4096

type oscState struct {
	on   bool
	esc  bool // the previous byte was ESC
	need int  // UTF-8 continuation bytes still expected
	buf  []byte
}

// oscByte consumes b while an OSC string is open. It reports false when b
// must go to the parser instead (the OSC has ended before it).
func (e *Emulator) oscByte(b byte) bool {
	o := &e.osc
	if o.esc {
		o.esc = false
		e.endOSC()
		if b == '\\' {
			return true
		}
		// ESC + anything else: the string ends and ESC starts a new
		// sequence, as in xterm.
		e.parser.Advance(0x1b)
		return false
	}
	switch {
	case b == 0x07:
		e.endOSC()
	case b == 0x1b:
		o.esc = true
	case b == 0x18 || b == 0x1a:
		o.on, o.buf, o.need = false, o.buf[:0], 0
	case b == 0x9c && o.need == 0:
		e.endOSC()
	default:
		switch {
		case b >= 0xc0:
			o.need = max(utf8LenOf(b)-1, 0)
		case b >= 0x80 && o.need > 0:
			o.need--
		default:
			o.need = 0
		}
		if len(o.buf) < maxOSC {
			o.buf = append(o.buf, b)
		}
	}
	return true
}

func utf8LenOf(lead byte) int {
	switch {
	case lead >= 0xf0:
		return 4
	case lead >= 0xe0:
		return 3
	case lead >= 0xc0:
		return 2
	}
	return 1
}

// beginOSC takes the string over from the parser, which has just entered
// its OSC state.
func (e *Emulator) beginOSC() {
	e.parser.Reset()
	e.osc.on, e.osc.esc, e.osc.need, e.osc.buf = true, false, 0, e.osc.buf[:0]
}

// endOSC dispatches the collected string ("Ps;Pt") and closes it.
func (e *Emulator) endOSC() {
	o := &e.osc
	data := o.buf
	cmd, i := -1, 0
	for ; i < len(data) && data[i] >= '0' && data[i] <= '9'; i++ {
		if cmd < 0 {
			cmd = 0
		}
		cmd = cmd*10 + int(data[i]-'0')
	}
	e.handleOSC(cmd, data)
	o.on, o.need, o.buf = false, 0, o.buf[:0]
}
