package sessions

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
)

// A span writes exactly what Render would, whether the style reduces to a
// prefix and suffix or not; the styles that do more than wrap text are
// detected and rendered per call.
func TestSpanIsRender(t *testing.T) {
	fg := lipgloss.NewStyle().Foreground(lipgloss.Color("#ff8800"))
	cases := []struct {
		name  string
		style lipgloss.Style
		wraps bool
	}{
		{"plain", lipgloss.NewStyle(), true},
		{"colours", fg.Background(lipgloss.Color("4")).Bold(true), true},
		{"inherited", dark.Row.Inherit(dark.RowSelected), true},
		{"reverse", lipgloss.NewStyle().Reverse(true).Bold(true), true},
		{"padding", fg.Padding(0, 1), true},
		{"width", fg.Width(12), false},
		{"maxwidth", fg.MaxWidth(3), false},
		{"underline", fg.Underline(true), false},
		{"strikethrough", fg.Strikethrough(true), false},
		{"border", fg.Border(lipgloss.RoundedBorder()), false},
		{"transform", fg.Transform(strings.ToUpper), false},
	}
	texts := []string{"", "x", "claude-1", "needs input", "日本語-session", "a\tb", "refactor-the-entire-authentication"}
	for _, c := range cases {
		sp := newSpan(c.style)
		if sp.wraps != c.wraps {
			t.Errorf("%s: wraps = %v, want %v", c.name, sp.wraps, c.wraps)
		}
		for _, text := range texts {
			for _, width := range []int{-1, 0, 1, 4, 11, 40} {
				got := string(sp.cell(nil, text, width))
				want := c.style.Render(cellwidth.Fit(text, width, "…") + " ")
				if got != want {
					t.Errorf("%s: cell(%q, %d) = %q, want %q", c.name, text, width, got, want)
				}
			}
			if got, want := string(sp.spaces(nil, 5)), c.style.Render("     "); got != want {
				t.Errorf("%s: spaces(5) = %q, want %q", c.name, got, want)
			}
		}
	}
	// The reduced form is what it claims: prefix, text, suffix.
	sp := newSpan(dark.RowAttn)
	if out := string(sp.cell(nil, "ab", 3)); ansi.Strip(out) != "ab  " || !strings.HasPrefix(out, sp.pre) || !strings.HasSuffix(out, sp.suf) || sp.pre == "" {
		t.Errorf("RowAttn span: %q (pre %q, suf %q)", out, sp.pre, sp.suf)
	}
}
