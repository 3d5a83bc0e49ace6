package cellwidth

import "strings"

// Sanitize replaces control characters (including ESC) with '?' in text
// taken from outside (session names, titles, keys and values agents wrote)
// so it cannot move the cursor or restyle the screen.
func Sanitize(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}
