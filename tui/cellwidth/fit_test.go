package cellwidth

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestFit(t *testing.T) {
	for _, tc := range []struct {
		s    string
		w    int
		tail string
		want string
	}{
		{"abc", 5, "…", "abc  "},
		{"abc", 3, "…", "abc"},
		{"abcdef", 4, "…", "abc…"},
		{"abcdef", 4, "", "abcd"},
		// Wide runes: one that would straddle the cut goes whole, and
		// the cell it leaves is padded.
		{"日本語", 6, "…", "日本語"},
		{"日本語", 5, "…", "日本…"},
		{"日本語", 4, "…", "日… "},
		{"日本語", 3, "", "日 "},
		{"日本語", 1, "", " "},
		// Styled input: the cut keeps the escapes after it (the reset),
		// padding goes after them.
		{"\x1b[1mbold\x1b[m", 6, "…", "\x1b[1mbold\x1b[m  "},
		{"\x1b[1mbold text\x1b[m", 5, "…", "\x1b[1mbold…\x1b[m"},
		{"\x1b[31m日本\x1b[m", 3, "", "\x1b[31m日\x1b[m "},
		// A tail as wide as w or wider: only spaces (or only the tail).
		{"abcdef", 1, "…", "…"},
		{"abcdef", 2, "...", "  "},
		{"abcdef", 1, "日", " "},
		// Nothing to show.
		{"abc", 0, "…", ""},
		{"abc", -3, "…", ""},
		{"\x1b[1m\x1b[m", 0, "", ""},
		{"", 3, "…", "   "},
	} {
		got := Fit(tc.s, tc.w, tc.tail)
		if got != tc.want {
			t.Errorf("Fit(%q, %d, %q) = %q, want %q", tc.s, tc.w, tc.tail, got, tc.want)
		}
		if n := ansi.StringWidth(got); n != max(tc.w, 0) {
			t.Errorf("Fit(%q, %d, %q) is %d cells wide, want %d", tc.s, tc.w, tc.tail, n, max(tc.w, 0))
		}
	}
}

// Fit is exactly w cells for every width, and Cut never wider than w,
// over inputs that exercise the fast and the slow measuring path.
func TestFitWidthInvariant(t *testing.T) {
	inputs := []string{"", "a", "hello, world", "\x1b[0;1;38;5;75mab\x1b[m c", "日本語テキスト", "a日b本c",
		"👍🏽 ok", "e\u0301x", "╭─ box ─╮", strings.Repeat("x", 200)}
	for _, s := range inputs {
		for w := -1; w <= 20; w++ {
			for _, tail := range []string{"", "…", "日"} {
				if n := ansi.StringWidth(Fit(s, w, tail)); n != max(w, 0) {
					t.Errorf("Fit(%q, %d, %q) is %d cells", s, w, tail, n)
				}
				c := Cut(s, w, tail)
				if n := ansi.StringWidth(c); n > max(w, 0) {
					t.Errorf("Cut(%q, %d, %q) is %d cells", s, w, tail, n)
				}
				if w > 0 && ansi.StringWidth(s) <= w && c != s {
					t.Errorf("Cut(%q, %d, %q) = %q, want s unchanged", s, w, tail, c)
				}
			}
		}
	}
}

func TestPad(t *testing.T) {
	for _, tc := range []struct {
		s           string
		w           int
		right, left string
	}{
		{"ab", 4, "ab  ", "  ab"},
		{"日", 4, "日  ", "  日"},
		{"\x1b[1mab\x1b[m", 3, "\x1b[1mab\x1b[m ", " \x1b[1mab\x1b[m"},
		// Never cut: wider input is returned as it is.
		{"abcdef", 3, "abcdef", "abcdef"},
		{"ab", 0, "ab", "ab"},
		{"ab", -1, "ab", "ab"},
		{"", 2, "  ", "  "},
		{"x", 100, "x" + strings.Repeat(" ", 99), strings.Repeat(" ", 99) + "x"},
	} {
		if got := PadRight(tc.s, tc.w); got != tc.right {
			t.Errorf("PadRight(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.right)
		}
		if got := PadLeft(tc.s, tc.w); got != tc.left {
			t.Errorf("PadLeft(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.left)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want []string
	}{
		{"agents append with: heimdall-tui ledger log --role R --kind K", 30,
			[]string{"agents append with:", "heimdall-tui ledger log --role", "R --kind K"}},
		{"one two\n\nthree", 20, []string{"one two", "", "three"}},
		{"abcdefghij xy", 4, []string{"abcd", "efgh", "ij", "xy"}},
		{"中文字 ab", 4, []string{"中文", "字", "ab"}},
		{"a  b   c", 20, []string{"a  b   c"}},
		{"claude-1  claude-2  shell-1", 18, []string{"claude-1  claude-2", "shell-1"}},
		{"x", 0, nil},
		// A character wider than w is a line of its own (Wrap used to
		// loop forever here).
		{"中a", 1, []string{"中", "a"}},
	} {
		got := Wrap(c.s, c.w)
		if !slices.Equal(got, c.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
		for _, l := range got {
			if Of(l) > c.w && Of(l) > 2 {
				t.Errorf("Wrap(%q, %d): line %q wider than %d", c.s, c.w, l, c.w)
			}
		}
	}
}
