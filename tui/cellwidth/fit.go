package cellwidth

import (
	"strings"
	"unicode/utf8"

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

const spaces = "                                                                                "

// Spaces returns n spaces ("" when n <= 0); up to 80 without allocating.
func Spaces(n int) string {
	switch {
	case n <= 0:
		return ""
	case n <= len(spaces):
		return spaces[:n]
	}
	return strings.Repeat(" ", n)
}

// WriteSpaces writes n spaces (none when n <= 0) to b without allocating
// beyond b's own growth.
func WriteSpaces(b *strings.Builder, n int) {
	for n > 0 {
		k := min(n, len(spaces))
		b.WriteString(spaces[:k])
		n -= k
	}
}

// AppendSpaces appends n spaces (none when n <= 0) to buf.
func AppendSpaces(buf []byte, n int) []byte {
	for n > 0 {
		k := min(n, len(spaces))
		buf = append(buf, spaces[:k]...)
		n -= k
	}
	return buf
}

// Wrap breaks plain text into lines of at most w cells: at the last space
// that fits, and within a word only when the word alone is wider than w
// (never at hyphens, so "--role" stays whole). Spacing inside a line is
// kept; spaces at a break and at line ends are dropped. Newlines in s end
// lines. A character wider than w (a wide one when w is 1) is a line of
// its own, wider than w. w < 1 gives nil.
func Wrap(s string, w int) []string {
	if w < 1 {
		return nil
	}
	var out []string
	for _, rest := range strings.Split(s, "\n") {
		rest = strings.TrimRight(rest, " ")
		for Of(rest) > w {
			cut := -1 // the last space with at most w cells before it
			for i := 0; i < len(rest); i++ {
				if rest[i] == ' ' && i > 0 {
					if Of(rest[:i]) > w {
						break
					}
					cut = i
				}
			}
			if line := strings.TrimRight(rest[:max(cut, 0)], " "); line != "" {
				out = append(out, line)
				rest = strings.TrimLeft(rest[cut:], " ")
				continue
			}
			head := ansi.Truncate(rest, w, "") // no space fits: break the word
			if head == "" {
				// A character wider than w on its own: it makes a line by
				// itself (wider than w; the caller cuts it), so Wrap ends.
				_, n := utf8.DecodeRuneInString(rest)
				head = rest[:n]
			}
			out = append(out, head)
			rest = strings.TrimLeft(rest[len(head):], " ")
		}
		out = append(out, rest)
	}
	return out
}
