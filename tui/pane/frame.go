package pane

import (
	"strings"

	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"

	"charm.land/lipgloss/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/heimdall-tui/heimdall-tui/themes"
)

// CroppedLabel is shown in the bottom border of a cropped pane.
const CroppedLabel = "cropped"

// Border is what a pane's border says and how it is drawn.
type Border struct {
	Title, State string // the top border: "Title · State"
	NeedsInput   bool   // "needs input" in place of the state
	Focused      bool   // st.PaneFocus instead of st.Pane
	Cropped      bool   // the bottom border says CroppedLabel
	// Info is the bottom border's left part, muted (the session's working
	// directory and classifier); it is cut ("…") to leave room for the
	// cropped label, and dropped when not even one cell of it fits.
	Info string
}

// Frame draws a border of exactly w×h cells around body, which should be
// (w-2)×(h-2) (as Render returns): missing lines are blank, short lines
// padded, long ones cut. The top border carries the title as
// "name · State", the state in its badge colour ("needs input" instead of
// the state when bd.NeedsInput); the name is shortened with "…" before the
// state is dropped. The bottom border carries bd.Info and says whether the
// pane is cropped. The focused pane uses st.PaneFocus, others st.Pane.
// Below 2×2 there is no room for a border and Frame returns blanks of the
// right size.
func Frame(st *themes.Styles, bd Border, body string, w, h int) string {
	if w <= 0 || h <= 0 {
		return strings.Repeat("\n", max(h-1, 0))
	}
	var b strings.Builder
	if w < 2 || h < 2 {
		for y := range h {
			if y > 0 {
				b.WriteByte('\n')
			}
			cellwidth.WriteSpaces(&b, w)
		}
		return b.String()
	}
	bs := st.Pane
	if bd.Focused {
		bs = st.PaneFocus
	}
	border := bs.GetBorderStyle()
	// The border is painted with a plain SGR prefix rather than through
	// lipgloss.Style.Render, which costs more than the rest of Frame.
	var paint painter
	if c := bs.GetBorderTopForeground(); c != nil {
		if _, none := c.(lipgloss.NoColor); !none {
			s := uv.Style{Fg: c}
			paint.pre = s.String()
		}
	}
	inner := w - 2
	hline := func(n int) string { return strings.Repeat(border.Top, max(n, 0)) }
	bline := func(n int) string { return strings.Repeat(border.Bottom, max(n, 0)) }

	// Top border: ╭─ name · State ───╮
	if t, tw := titleText(st, bd.Title, bd.State, bd.NeedsInput, bd.Focused, inner-3); tw > 0 {
		b.WriteString(paint.Render(border.TopLeft + hline(1) + " "))
		b.WriteString(t)
		b.WriteString(paint.Render(" " + hline(inner-3-tw) + border.TopRight))
	} else {
		b.WriteString(paint.Render(border.TopLeft + hline(inner) + border.TopRight))
	}

	left, right := paint.Render(border.Left), paint.Render(border.Right)
	lines := strings.Split(body, "\n")
	for y := range h - 2 {
		b.WriteByte('\n')
		b.WriteString(left)
		line := ""
		if y < len(lines) {
			line = lines[y]
		}
		line, lw := cellwidth.CutN(line, inner, "")
		b.WriteString(line)
		cellwidth.WriteSpaces(&b, inner-lw)
		b.WriteString(right)
	}

	// Bottom border: ╰─ info ──── cropped ─╯ (runs of border are painted
	// whole: the labels interrupt them).
	b.WriteByte('\n')
	lw := len(CroppedLabel)
	cropped := bd.Cropped && inner >= lw+3
	rest := inner // border cells between the info and the cropped label
	if cropped {
		rest -= lw + 3
	}
	run := border.BottomLeft
	if avail := rest - 4; bd.Info != "" && avail >= 1 {
		text, tw := cellwidth.CutN(cellwidth.Sanitize(bd.Info), avail, "…")
		b.WriteString(paint.Render(run + bline(1) + " "))
		b.WriteString(st.Muted.Render(text))
		run, rest = " ", rest-tw-3
	}
	run += bline(rest)
	if cropped {
		b.WriteString(paint.Render(run + " "))
		b.WriteString(st.Warning.Render(CroppedLabel))
		run = " " + bline(1)
	}
	b.WriteString(paint.Render(run + border.BottomRight))
	return b.String()
}

// painter wraps border pieces in one style.
type painter struct{ pre string }

// Render returns s in the painter's style.
func (p painter) Render(s string) string {
	if p.pre == "" {
		return s
	}
	return p.pre + s + "\x1b[m"
}

// titleText is the styled "name · State" fitted into avail cells, and its
// width (0 when nothing fits): the name is cut first, then dropped for the
// state alone.
func titleText(st *themes.Styles, name, state string, needsInput, focused bool, avail int) (string, int) {
	if avail < 1 {
		return "", 0
	}
	name = cellwidth.Sanitize(name)
	badge := cellwidth.Sanitize(state)
	if needsInput {
		badge = "needs input"
	}
	nw, bw := ansi.StringWidth(name), ansi.StringWidth(badge)
	const sep, sepW = " · ", 3
	nameStyle := st.PaneTitle
	if !focused {
		nameStyle = st.Muted.Bold(true)
	}
	if name == "" {
		if bw > avail {
			return "", 0
		}
		return st.State(state, needsInput).Render(badge), bw
	}
	if badge != "" && avail < bw+sepW+2 && bw <= avail {
		// No room for the state next to two cells of name: the state
		// (needs input above all) matters more than the name.
		return st.State(state, needsInput).Render(badge), bw
	}
	if badge == "" || avail < bw+sepW+2 {
		// Not even the state fits: as much of the name as does.
		if nw > avail {
			name = ansi.Truncate(name, avail, "…")
		}
		return nameStyle.Render(name), ansi.StringWidth(name)
	}
	if nw+sepW+bw > avail {
		name = ansi.Truncate(name, avail-sepW-bw, "…")
		nw = ansi.StringWidth(name)
	}
	return nameStyle.Render(name) + st.Subtle.Render(sep) + st.State(state, needsInput).Render(badge), nw + sepW + bw
}
