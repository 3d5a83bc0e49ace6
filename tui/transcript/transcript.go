// Package transcript renders a session's transcript — the entries of a
// session that takes messages rather than keystrokes (a headless agent, a
// worker) — as styled text for the dashboard's pane, beside tui/pane which
// renders terminal screens.
//
// View is a pure function of the styles, the entries and the size: each
// entry starts with its role's marker in a gutter, its text is wrapped to
// the width left (cellwidth.Wrap; control characters from outside shown as
// ?), and when the entries do not fit the oldest lines are dropped, so the
// newest entry is always at the bottom. The output is exactly w×h cells.
package transcript

import (
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
)

// Empty is shown when there are no entries yet.
const Empty = "no transcript yet"

// role is how one role is shown: its marker (full and narrow) and styles.
type role struct {
	label, short string
	mark, text   func(st *themes.Styles) lipgloss.Style
}

var roles = map[session.Role]role{
	session.RoleUser: {"you", ">", func(st *themes.Styles) lipgloss.Style { return st.Key },
		func(st *themes.Styles) lipgloss.Style { return st.Base }},
	session.RoleAssistant: {"agent", "*", func(st *themes.Styles) lipgloss.Style { return st.Title },
		func(st *themes.Styles) lipgloss.Style { return st.Base }},
	session.RoleTool: {"tool", "$", func(st *themes.Styles) lipgloss.Style { return st.Muted },
		func(st *themes.Styles) lipgloss.Style { return st.Muted }},
	session.RoleSystem: {"sys", "#", func(st *themes.Styles) lipgloss.Style { return st.Subtle },
		func(st *themes.Styles) lipgloss.Style { return st.Subtle }},
}

// unknownRole shows a role this package does not know by its own name.
func unknownRole(r session.Role) role {
	name := cellwidth.Sanitize(string(r))
	short := "?"
	if name != "" {
		short = cellwidth.Cut(name, 1, "")
	}
	return role{name, short, func(st *themes.Styles) lipgloss.Style { return st.Muted },
		func(st *themes.Styles) lipgloss.Style { return st.Base }}
}

// wideGutter is the gutter of the full labels ("agent " is the longest);
// narrower panes than minWide use a one-cell marker and a space.
const (
	wideGutter = 6
	minWide    = 24
)

// View renders entries (oldest first, as Transcript returns them) into
// exactly h lines of exactly w cells, the newest entry's last line at the
// bottom when they overflow and the first entry at the top when they fit.
func View(st *themes.Styles, entries []session.Entry, w, h int) string {
	if w <= 0 || h <= 0 {
		return strings.Repeat("\n", max(h-1, 0))
	}
	var lines []string
	if len(entries) == 0 {
		lines = []string{st.Muted.Render(cellwidth.Cut(Empty, w, "…"))}
	}
	gutter := wideGutter
	if w < minWide {
		gutter = 2
	}
	// Walk back from the newest entry until h lines are collected: a long
	// transcript costs only what is shown.
	for i := len(entries) - 1; i >= 0 && len(lines) < h; i-- {
		lines = append(entryLines(st, entries[i], gutter, w), lines...)
	}
	if len(lines) > h {
		lines = lines[len(lines)-h:]
	}
	var b strings.Builder
	for i := range h {
		if i > 0 {
			b.WriteByte('\n')
		}
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		b.WriteString(cellwidth.Fit(l, w, ""))
	}
	return b.String()
}

// entryLines is one entry: its marker in the gutter of the first line, its
// text wrapped to the rest of the width; at most w cells per line.
func entryLines(st *themes.Styles, e session.Entry, gutter, w int) []string {
	r, ok := roles[e.Role]
	if !ok {
		r = unknownRole(e.Role)
	}
	label := r.label
	if gutter < wideGutter {
		label = r.short
	}
	label = cellwidth.Cut(label, gutter-1, "…")
	tw := w - gutter
	text := strings.ReplaceAll(e.Text, "\t", "    ")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var wrapped []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		wrapped = append(wrapped, cellwidth.Wrap(cellwidth.Sanitize(l), max(tw, 1))...)
	}
	if len(wrapped) == 0 {
		wrapped = []string{""}
	}
	mark, body := r.mark(st), r.text(st)
	out := make([]string, len(wrapped))
	for i, l := range wrapped {
		g := cellwidth.Spaces(gutter)
		if i == 0 {
			g = mark.Render(label) + cellwidth.Spaces(gutter-cellwidth.Of(label))
		}
		if tw < 1 {
			out[i] = cellwidth.Cut(g, w, "")
			continue
		}
		if l == "" {
			out[i] = g
			continue
		}
		out[i] = g + body.Render(l)
	}
	return out
}
