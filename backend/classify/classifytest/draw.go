package classifytest

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// Widths are the terminal widths every case is replayed at: a dashboard
// pane (the dashboard sizes a session's terminal to its pane: 40–50
// columns is common), a common narrow terminal, where long rows wrap, and
// a wide one.
var Widths = []int{40, 50, 80, 120}

// Rows is the height of the replay terminal. Frames taller than that (after
// wrapping) scroll, as they would in a real terminal.
const Rows = 40

// Style is how Draw colours a case.
type Style uint8

const (
	// Plain writes text only.
	Plain Style = iota
	// TrueColour colours as Claude Code's default dark theme does on a
	// truecolour terminal (38;2 / 48;2 SGR), with bold and dim.
	TrueColour
	// Colour256 uses the 256-colour palette (38;5 / 48;5), 16-colour dim
	// grey footers, and inverse for the selected option.
	Colour256
)

// Styles lists every Style, for tests that check each.
var Styles = []Style{Plain, TrueColour, Colour256}

func (s Style) String() string {
	switch s {
	case Plain:
		return "plain"
	case TrueColour:
		return "truecolour"
	case Colour256:
		return "256"
	}
	return fmt.Sprintf("Style(%d)", uint8(s))
}

// widthCond measures text as backend/vt does (ambiguous-width runes narrow).
var widthCond = &runewidth.Condition{EastAsianWidth: false}

func width(s string) int { return widthCond.StringWidth(s) }

// Layout returns fr's rows as a program that drew them at c.Cols would
// draw them at cols. Only full-width rows (exactly c.Cols wide) change:
//   - a rule (─ ━ ═ ╌ only) becomes cols wide;
//   - a box row (a box side or corner at both ends, boxes may nest) keeps
//     its borders and grows or shrinks its padding; text that no longer
//     fits is word-wrapped inside the box, as Ink does;
//   - any other row (a footer with hints at both ends) grows or shrinks its
//     widest run of spaces, or is left to wrap in the terminal when it
//     cannot shrink enough.
//
// Other rows are drawn as they are: at a narrower terminal a long one
// wraps in the terminal, which is what a real session shows — except a box
// or a rule wider than cols (a box narrower than the terminal it was drawn
// in, or any box of a case whose width is unknown): Ink never draws a box
// wider than the terminal, so it shrinks to cols as above.
func (c Case) Layout(fr Frame, cols int) []string {
	if cols == c.Cols {
		return fr.Rows
	}
	out := make([]string, 0, len(fr.Rows))
	for _, r := range fr.Rows {
		w := width(r)
		switch {
		case c.Cols > 0 && w == c.Cols:
			out = append(out, relayout(r, cols)...)
		case w > cols && (ruleRow.MatchString(r) || closedBox(r)):
			out = append(out, relayout(r, cols)...)
		default:
			out = append(out, r)
		}
	}
	return out
}

var (
	ruleRow = regexp.MustCompile(`^[─━═╌]+$`)
	// boxRow splits a row that starts a box: leading margin and left
	// borders (nested boxes: "│ │ "), the middle, and the right borders
	// ("│ │", "╮ │"; empty for a box open on the right).
	boxRow = regexp.MustCompile(`^( *(?:[│╭╰┃├](?: ?[│╭╰┃├])* ?))(.*?)((?:[│╮╯┃┤](?: ?[│╮╯┃┤])*)?)$`)
	spaces = regexp.MustCompile(` {2,}`)
)

// closedBox reports whether r is a box row with borders on both sides.
func closedBox(r string) bool {
	m := boxRow.FindStringSubmatch(r)
	return m != nil && m[3] != ""
}

func relayout(r string, cols int) []string {
	if ruleRow.MatchString(r) {
		ch, _ := utf8.DecodeRuneInString(r)
		return []string{strings.Repeat(string(ch), cols)}
	}
	if m := boxRow.FindStringSubmatch(r); m != nil && m[3] != "" {
		prefix, middle, suffix := m[1], m[2], m[3]
		fill := " "
		content := strings.TrimRight(middle, " ")
		if strings.Trim(middle, "─") == "" || strings.HasSuffix(middle, "─") {
			// A border, perhaps with a title: "╭─── Claude Code ───╮".
			fill = "─"
			content = strings.TrimRight(middle, "─")
		}
		room := cols - width(prefix) - width(suffix)
		if n := room - width(content); n >= 1 || (fill == "─" && n >= 0) {
			return []string{prefix + content + strings.Repeat(fill, n) + suffix}
		}
		if fill == "─" {
			// A title wider than the border: cut it.
			return []string{prefix + cut(content, room) + suffix}
		}
		var rows []string
		for _, l := range wrapWords(content, room-1) {
			rows = append(rows, prefix+l+strings.Repeat(" ", room-width(l))+suffix)
		}
		return rows
	}
	// A row spread across the terminal: resize its widest gap.
	gaps := spaces.FindAllStringIndex(r, -1)
	if len(gaps) == 0 {
		return []string{r}
	}
	g := gaps[0]
	for _, x := range gaps[1:] {
		if x[1]-x[0] >= g[1]-g[0] {
			g = x
		}
	}
	n := g[1] - g[0] + cols - width(r)
	if n < 2 {
		return []string{r}
	}
	return []string{r[:g[0]] + strings.Repeat(" ", n) + r[g[1]:]}
}

// cut returns the longest prefix of s at most w wide, padded to w.
func cut(s string, w int) string {
	var b strings.Builder
	n := 0
	for _, ch := range s {
		cw := widthCond.RuneWidth(ch)
		if n+cw > w {
			break
		}
		b.WriteRune(ch)
		n += cw
	}
	return b.String() + strings.Repeat("─", w-n)
}

// wrapWords wraps s at spaces into lines at most w wide; continuation lines
// keep s's indentation. A word longer than w is cut.
func wrapWords(s string, w int) []string {
	indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
	var lines []string
	line := indent
	for _, word := range strings.Fields(s) {
		for width(word) > w-len(indent) {
			// Cut an over-long word (a URL) at the width.
			k, acc := 0, 0
			for i, ch := range word {
				cw := widthCond.RuneWidth(ch)
				if acc+cw > w-len(indent) {
					k = i
					break
				}
				acc += cw
			}
			if strings.TrimSpace(line) != "" {
				lines = append(lines, line)
			}
			lines = append(lines, indent+word[:k])
			line, word = indent, word[k:]
		}
		switch {
		case strings.TrimSpace(line) == "":
			line = indent + word
		case width(line)+1+width(word) <= w:
			line += " " + word
		default:
			lines = append(lines, line)
			line = indent + word
		}
	}
	return append(lines, line)
}

// Draw returns the bytes a program writes to show frame i of c in a
// cols-wide terminal: the title (OSC 0), home and clear, then the laid-out
// rows (see Layout), coloured per st, separated by CR LF.
func (c Case) Draw(i, cols int, st Style) []byte {
	fr := c.Frames[i]
	var b strings.Builder
	b.WriteString("\x1b]0;" + fr.Title + "\x07\x1b[H\x1b[2J")
	if st != Plain {
		b.WriteString("\x1b[?25l") // Claude Code hides the cursor and draws its own
	}
	p := palettes[st]
	seed := hashOf(c.Name)
	for k, r := range c.Layout(fr, cols) {
		if k > 0 {
			b.WriteString("\r\n")
		}
		if p == nil {
			b.WriteString(r)
			continue
		}
		b.WriteString(p.row(r, cols, seed+uint32(i*7+k)))
	}
	return []byte(b.String())
}

func hashOf(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// Shown is what the terminal shows after a frame: rows with trailing spaces
// trimmed, and the window title.
type Shown struct {
	Lines []string
	Title string
}

// Replay draws every frame of c through the terminal emulator (backend/vt)
// at cols × Rows and returns what it shows after each.
func (c Case) Replay(cols int, st Style) []Shown {
	e := vt.New(cols, Rows, vt.Options{})
	out := make([]Shown, len(c.Frames))
	for i := range c.Frames {
		e.Write(c.Draw(i, cols, st))
		p := e.Plain()
		out[i] = Shown{Lines: p.Lines, Title: p.Title}
	}
	return out
}
