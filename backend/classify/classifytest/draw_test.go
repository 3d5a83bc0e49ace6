package classifytest

import (
	"strings"
	"testing"
)

// Full-width rows follow the replay width; others are drawn as they are.
func TestLayout(t *testing.T) {
	c := Case{Cols: 20}
	fr := Frame{Rows: []string{
		"────────────────────", // a rule, 20 wide
		"╭──────────────────╮",
		"│ Do you want to   │",
		"│ ❯ 1. Yes, and go │",
		"╰──────────────────╯",
		"  ? help       ◯ IDE", // a footer with hints at both ends
		"short row",
	}}
	for _, tc := range []struct {
		cols int
		want []string
	}{
		{26, []string{
			"──────────────────────────",
			"╭────────────────────────╮",
			"│ Do you want to         │",
			"│ ❯ 1. Yes, and go       │",
			"╰────────────────────────╯",
			"  ? help             ◯ IDE",
			"short row",
		}},
		{16, []string{
			"────────────────",
			"╭──────────────╮",
			"│ Do you want  │", // wrapped inside the box, as Ink does
			"│ to           │",
			"│ ❯ 1. Yes,    │",
			"│ and go       │",
			"╰──────────────╯",
			"  ? help   ◯ IDE",
			"short row",
		}},
	} {
		got := c.Layout(fr, tc.cols)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("at %d columns:\n%s\nwant:\n%s", tc.cols, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// A case of unknown width draws its rows as they are, but never a box
// wider than the terminal.
func TestLayoutUnknownWidth(t *testing.T) {
	c := Case{}
	fr := Frame{Rows: []string{
		"╭─── Title that is long ───╮",
		"│ Do you trust the files?  │",
		"╰──────────────────────────╯",
		"a plain row wider than sixteen",
		"╭────╮",
	}}
	if got := c.Layout(fr, 40); strings.Join(got, "\n") != strings.Join(fr.Rows, "\n") {
		t.Errorf("at 40 columns:\n%s", strings.Join(got, "\n"))
	}
	want := []string{
		"╭─── Title that╮",
		"│ Do you trust │",
		"│ the files?   │",
		"╰──────────────╯",
		"a plain row wider than sixteen",
		"╭────╮",
	}
	if got := c.Layout(fr, 16); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("at 16 columns:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Colour changes the bytes, never the text the terminal shows.
func TestStylesShowSameText(t *testing.T) {
	c := Case{Name: "x", Cols: 40, Frames: []Frame{{Title: "⠂ t", Rows: []string{
		"> hi", "", "⏺ Bash(ls)", "  ⎿  Running…", "", "✻ Zorbling… (3s · esc to interrupt)", "",
		"────────────────────────────────────────", "❯", "────────────────────────────────────────", "  ? for shortcuts",
	}}}}
	for _, w := range Widths {
		plain := c.Replay(w, Plain)[0]
		for _, st := range Styles[1:] {
			if string(c.Draw(0, w, st)) == string(c.Draw(0, w, Plain)) {
				t.Errorf("%v draws no colour", st)
			}
			got := c.Replay(w, st)[0]
			if strings.Join(got.Lines, "\n") != strings.Join(plain.Lines, "\n") || got.Title != plain.Title {
				t.Errorf("%d/%v shows\n%s\nplain shows\n%s", w, st, strings.Join(got.Lines, "\n"), strings.Join(plain.Lines, "\n"))
			}
		}
	}
}
