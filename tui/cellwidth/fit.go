package cellwidth

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Cut returns s cut to at most w cells: s itself when it fits, else as
// much of s as fits before tail, then tail (tail's cells count towards w;
// a tail wider than w leaves nothing of s or tail). Escape sequences are
// never split, and those after the cut are kept, so a styled s stays
// balanced. A wide character that would straddle the cut is dropped
// whole. w <= 0 gives "".
func Cut(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	if Of(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, tail)
}

// Fit returns s as exactly w cells: cut as Cut does (with tail) when it is
// wider, padded with spaces on the right when it is narrower. The padding
// is plain (unstyled) spaces after any escape sequences of s. w <= 0
// gives "".
func Fit(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	n := Of(s)
	if n > w {
		s = ansi.Truncate(s, w, tail)
		n = Of(s)
	}
	return pad(s, w-n, false)
}

// PadRight returns s followed by spaces up to w cells; s is never cut, so
// a string already w or more cells wide is returned as it is.
func PadRight(s string, w int) string {
	return pad(s, w-Of(s), false)
}

// PadLeft returns s preceded by spaces up to w cells (right-aligned); s is
// never cut, so a string already w or more cells wide is returned as it
// is.
func PadLeft(s string, w int) string {
	return pad(s, w-Of(s), true)
}

// pad adds n spaces (none when n <= 0) after s, or before it when left.
func pad(s string, n int, left bool) string {
	if n <= 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + n)
	if left {
		writeSpaces(&b, n)
		b.WriteString(s)
	} else {
		b.WriteString(s)
		writeSpaces(&b, n)
	}
	return b.String()
}

const spaces = "                                                                "

// writeSpaces writes n spaces in chunks of a constant string.
func writeSpaces(b *strings.Builder, n int) {
	for n > len(spaces) {
		b.WriteString(spaces)
		n -= len(spaces)
	}
	b.WriteString(spaces[:n])
}
