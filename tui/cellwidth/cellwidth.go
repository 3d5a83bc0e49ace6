// Package cellwidth measures styled terminal text in cells, quickly for the
// text the dashboard renders most (ASCII, Latin-1 and box drawing with SGR
// sequences) and exactly like ansi.StringWidth for everything else.
package cellwidth

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Of is ansi.StringWidth with a fast path for the common case: ASCII,
// Latin-1 and box-drawing text with CSI sequences (SGR), which rendered
// panes and borders almost always are. Any other character or escape
// sends the whole string through the full grapheme-aware algorithm, so the
// result is always ansi.StringWidth's.
func Of(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			// Skip to the CSI's final byte (0x40–0x7e).
			i += 2
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
				i++
			}
			i++
		case c >= 0x20 && c < 0x7f:
			n++
			i++
		case c >= 0xc2:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !narrowRune(r) {
				return ansi.StringWidth(s)
			}
			n++
			i += size
		default:
			return ansi.StringWidth(s)
		}
	}
	return n
}

// narrowRune reports runes that are one cell wide on their own and never
// join a neighbour into a grapheme cluster: printable Latin-1 (but the
// soft hyphen) and box drawing / block elements.
func narrowRune(r rune) bool {
	return (r >= 0xa0 && r <= 0xff && r != 0xad) || (r >= 0x2500 && r <= 0x259f)
}
