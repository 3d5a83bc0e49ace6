package cellwidth

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Of is ansi.StringWidth, fast path or not: styled ASCII, Latin-1, box
// drawing, and everything that must fall back (wide, combining, soft
// hyphen, variation selectors, emoji modifiers, OSC, cut sequences).
func TestOfIsStringWidth(t *testing.T) {
	for _, s := range []string{"", "abc", "\x1b[0;1;38;5;75mab\x1b[m c", "日本", "\x1b[31m日\x1b[m", "a\tb",
		"\x1b]8;;http://x\x07link\x1b]8;;\x07", "\x1b[", "\x1b[31", "╭─ a · b ─╮", "é café", "e\u0301x", "│日│",
		"a\u00adb", "─\ufe0f", "👍🏽 ok", "\x1b[0;1m│\x1b[m", "…", "\r\n"} {
		if got, want := Of(s), ansi.StringWidth(s); got != want {
			t.Errorf("Of(%q) = %d, want %d", s, got, want)
		}
	}
}
