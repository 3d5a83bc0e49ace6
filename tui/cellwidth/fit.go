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
	s, _ = CutN(s, w, tail)
	return s
}

// CutN is Cut, also returning the result's width in cells (measured once).
func CutN(s string, w int, tail string) (string, int) {
	if w <= 0 {
		return "", 0
	}
	n := Of(s)
	if n > w {
		s = ansi.Truncate(s, w, tail)
		n = Of(s)
	}
	return s, n
}

// Fit returns s as exactly w cells: cut as Cut does (with tail) when it is
// wider, padded with spaces on the right when it is narrower. The padding
// is plain (unstyled) spaces after any escape sequences of s. w <= 0
// gives "".
func Fit(s string, w int, tail string) string {
	s, n := CutN(s, w, tail)
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
	if left {
		return Spaces(n) + s
	}
	return s + Spaces(n)
}

const spaces = "                                                                "

// Spaces returns n spaces ("" when n <= 0); up to 64 without allocating.
func Spaces(n int) string {
	switch {
	case n <= 0:
		return ""
	case n <= len(spaces):
		return spaces[:n]
	}
	return strings.Repeat(" ", n)
}
