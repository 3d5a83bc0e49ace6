package notify

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Terminal notification formats: the values of Options.Terminal and of the
// config key notify ("" means FormatOff).
const (
	FormatOff    = "off"
	FormatOSC9   = "osc9"   // ESC ] 9 ; message BEL
	FormatOSC777 = "osc777" // ESC ] 777 ; notify ; title ; body BEL
	FormatOSC99  = "osc99"  // kitty's: ESC ] 99 ; i=…:d=0 ; title ESC \, then the body
)

// Formats lists the terminal notification formats that send something.
var Formats = []string{FormatOSC9, FormatOSC777, FormatOSC99}

// ValidFormat reports whether s is a value Options.Terminal accepts: "",
// FormatOff or one of Formats.
func ValidFormat(s string) bool {
	switch s {
	case "", FormatOff, FormatOSC9, FormatOSC777, FormatOSC99:
		return true
	}
	return false
}

// Bounds of the text in a terminal notification, in bytes of UTF-8. Desktop
// notifications show a line or two; the bound also keeps the whole
// sequence far below a tty's buffer, so it is written in one write(2),
// which the kernel does not interleave with another writer's.
const (
	maxTitle = 64
	maxBody  = 256
)

// appName is the sender named in every notification.
const appName = "heimdall"

// Sequence returns the terminal notification for ev in format (FormatOSC9
// or FormatOSC777), wrapped in tmux's passthrough when tmux is true. Every
// text from ev is cleaned as OSC9 and OSC777 say. FormatOSC9's message is
// "heimdall: " + ev.Message(); FormatOSC777's title is "heimdall" and its
// body ev.Message().
func Sequence(format string, ev Event, tmux bool) (string, error) {
	var s string
	switch format {
	case FormatOSC9:
		s = OSC9(appName + ": " + ev.Message())
	case FormatOSC777:
		s = OSC777(appName, ev.Message())
	case FormatOSC99:
		s = OSC99(appName, ev.Message())
	default:
		return "", fmt.Errorf("notification format %q: want %q, %q or %q", format, FormatOSC9, FormatOSC777, FormatOSC99)
	}
	if tmux {
		s = TmuxPassthrough(s)
	}
	return s, nil
}

// OSC9 returns ESC ] 9 ; msg BEL, the notification of iTerm2, WezTerm,
// Windows Terminal, ghostty and kitty. msg is cleaned (see clean) and cut
// to 256 bytes. A message that begins with a digit gets a leading space:
// ConEmu and Windows Terminal read "9 ; N ;" as commands of their own
// (4 sets a progress bar, 9 the working directory).
func OSC9(msg string) string {
	m := clean(msg, maxBody, false)
	if m != "" && m[0] >= '0' && m[0] <= '9' {
		m = " " + m
	}
	return "\x1b]9;" + m + "\a"
}

// OSC777 returns ESC ] 777 ; notify ; title ; body BEL, the notification of
// urxvt, foot, Konsole and VTE terminals. Both texts are cleaned (see
// clean); a ';' in the title, which would end the title field, becomes ','
// (the body is the last field: terminals take the rest of the string). The
// title is cut to 64 bytes, the body to 256.
func OSC777(title, body string) string {
	return "\x1b]777;notify;" + clean(title, maxTitle, true) + ";" + clean(body, maxBody, false) + "\a"
}

// OSC99 returns kitty's desktop notification (its OSC 99 protocol): one
// sequence with the title, one with the body, joined by an id, each ended
// by BEL as the other formats are (kitty ends an OSC at BEL or ST). Both
// texts are cleaned (see clean: nothing can end them early) and cut as
// OSC777's are.
func OSC99(title, body string) string {
	const id = "i=heimdall"
	return "\x1b]99;" + id + ":d=0;" + clean(title, maxTitle, false) + "\a" +
		"\x1b]99;" + id + ":d=1:p=body;" + clean(body, maxBody, false) + "\a"
}

// TmuxPassthrough wraps seq in tmux's passthrough: ESC P tmux ; seq with
// every ESC doubled, then ESC \. tmux hands the inner sequence to the
// terminal it runs in. Since tmux 3.3 it does so only with the option
// allow-passthrough set to on (for the pane that is visible) or all (for
// every pane: a notification usually comes while one is not); with it off
// tmux drops the sequence, and terminals that are not tmux ignore the DCS.
func TmuxPassthrough(seq string) string {
	return "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
}

// clean makes s safe as the text of an OSC string and as one line of a
// notification: C0 controls (ESC, BEL, CR, LF, TAB …), DEL and C1 controls
// (U+0080–U+009F, which include CSI, OSC and ST for terminals that read
// them from UTF-8) become spaces; runs of spaces become one and the ends
// are trimmed; invalid UTF-8 becomes U+FFFD (so no stray 0x9C byte can end
// the string either). With noSemi a ';' becomes ','. With limit > 0 the
// result is cut to at most limit bytes at a character boundary, ending in
// "…" when cut.
func clean(s string, limit int, noSemi bool) string {
	var b strings.Builder
	if limit > 0 {
		b.Grow(min(len(s), limit+8))
	} else {
		b.Grow(len(s))
	}
	space := false
	for _, r := range s { // invalid UTF-8 comes as utf8.RuneError
		switch {
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r == ' ':
			space = b.Len() > 0
			continue
		case r == ';' && noSemi:
			r = ','
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		if limit > 0 && b.Len() > limit+len("…") {
			break // enough to know it is cut; the rest is not looked at
		}
	}
	out := b.String()
	if limit <= 0 || len(out) <= limit {
		return out
	}
	cut := limit - len("…")
	for cut > 0 && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return strings.TrimRight(out[:cut], " ") + "…"
}
