// Package sessions renders the dashboard's session list: one row per
// session with its name, agent, state badge, time in state, idle time and
// exit code, under a header of column names. Columns appear as the width
// allows (narrow: marker, name, state; wider adds time in state, agent,
// idle time and exit code, in that order).
//
// The package is a pure renderer: the caller filters and sorts the
// sessions, keeps the selection and scroll offset (VisibleRange), and
// passes the clock.
package sessions

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/themes"
)

// NeedsInputBadge replaces the state badge of a live session that waits
// for the user; NeedsInputMarker marks its row.
const (
	NeedsInputBadge  = "needs input"
	NeedsInputMarker = "!"
	SelectedMarker   = ">"
)

// DefaultEmpty is shown when there are no sessions and the caller gives no
// hint of its own.
const DefaultEmpty = "no sessions — press n to spawn one"

// State is the badge text of a session: "Dead" once it is not alive,
// else its classifier state ("Idle", "Thinking", ...).
func State(in fleet.Info) string {
	if !in.Alive {
		return "Dead"
	}
	return in.State.String()
}

// FormatDuration is d in one compact unit, rounded down: "5s", "3m",
// "2h", "4d". Negative durations are "0s".
func FormatDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 24*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}

// HeaderRows is the height of the list's column header: a View of height
// h shows h-HeaderRows sessions.
const HeaderRows = 1

// VisibleRange returns the scroll offset that keeps the selected one of n
// sessions visible when rows of them are shown (a View's height minus
// HeaderRows), moving offset as little as possible and never scrolling
// past the end (no blank rows while sessions are hidden above). Pass its
// result to View as offset.
func VisibleRange(n, selected, offset, rows int) (newOffset int) {
	if n <= 0 || rows <= 0 {
		return 0
	}
	selected = max(0, min(selected, n-1))
	if selected < offset {
		offset = selected
	}
	if selected >= offset+rows {
		offset = selected - rows + 1
	}
	return max(0, min(offset, n-rows))
}

// column is one column of the list.
type column struct {
	kind  colKind
	title string
	width int
}

type colKind uint8

const (
	colName colKind = iota
	colAgent
	colState
	colTime
	colIdle
	colExit
)

// Column widths. The name takes what is left, at least minName cells.
const (
	markerW  = 2 // selected marker + needs-input marker
	stateW   = len(NeedsInputBadge)
	timeW    = 4 // "59m", "23h", "365d"
	exitW    = 8 // "exit 255"
	minName  = 10
	agentMin = 5 // len("AGENT")
	agentMax = 10
)

// columns chooses the columns for width w: marker, name and state always;
// then time in state, agent, idle and exit while the name keeps at least
// minName cells. Each column is followed by a one-cell gap.
func columns(w, agentW, longestName int) []column {
	opt := []column{
		{colTime, "TIME", timeW},
		{colAgent, "AGENT", agentW},
		{colIdle, "IDLE", timeW},
		{colExit, "EXIT", exitW},
	}
	// Marker and its gap, the state and its gap, the name's gap.
	used := markerW + 1 + stateW + 1 + 1
	on := map[colKind]bool{}
	for _, c := range opt {
		if w-(used+c.width+1) >= minName {
			used += c.width + 1
			on[c.kind] = true
		}
	}
	// The name takes the rest, but no more than the longest name needs:
	// on a wide list the other columns stay next to the names and the
	// slack goes to the end of the row.
	nameW := max(w-used, 1)
	nameW = min(nameW, max(minName, longestName))
	cols := []column{{colName, "NAME", nameW}}
	for _, c := range []column{{colAgent, "AGENT", agentW}, {colState, "STATE", stateW}, {colTime, "TIME", timeW}, {colIdle, "IDLE", timeW}, {colExit, "EXIT", exitW}} {
		if c.kind == colState || on[c.kind] {
			cols = append(cols, c)
		}
	}
	return cols
}

// View renders infos as a list of exactly h lines of exactly w cells: a
// header of column names (HeaderRows), then the rows from offset (see
// VisibleRange). The selected row is highlighted across the full width
// (st.RowSelected) and marked ">"; a live session that needs input is
// marked "!", shows "needs input" as its badge and uses st.RowAttn.
// Durations are measured to now. With no sessions the list says
// DefaultEmpty.
func View(st *themes.Styles, infos []fleet.Info, selected, offset int, now time.Time, w, h int) string {
	return ViewHint(st, infos, selected, offset, now, w, h, DefaultEmpty)
}

// ViewHint is View with the line shown for an empty list (e.g. "no
// sessions match /foo" while filtering, or hints naming remapped keys).
func ViewHint(st *themes.Styles, infos []fleet.Info, selected, offset int, now time.Time, w, h int, empty string) string {
	if w <= 0 || h <= 0 {
		return strings.Repeat("\n", max(h-1, 0))
	}
	agentW, nameW := agentMin, 0
	for _, in := range infos {
		agentW = max(agentW, min(agentMax, ansi.StringWidth(sanitize(in.Agent))))
		nameW = max(nameW, ansi.StringWidth(sanitize(in.ID)))
	}
	cols := columns(w, agentW, nameW)
	lines := make([]string, 0, h)
	lines = append(lines, header(st, cols, w))
	if len(infos) == 0 && len(lines) < h {
		lines = append(lines, fit(st.Muted, " "+sanitize(empty), w))
	}
	offset = max(0, min(offset, len(infos)-1))
	for i := offset; i < len(infos) && len(lines) < h; i++ {
		lines = append(lines, row(st, cols, infos[i], i == selected, now, w))
	}
	for len(lines) < h {
		lines = append(lines, strings.Repeat(" ", w))
	}
	return strings.Join(lines, "\n")
}

// header is the line of column names.
func header(st *themes.Styles, cols []column, w int) string {
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", markerW+1))
	for _, c := range cols {
		b.WriteString(pad(c.title, c.width))
		b.WriteByte(' ')
	}
	return fit(st.Muted.Bold(true), b.String(), w)
}

// row renders one session.
func row(st *themes.Styles, cols []column, in fleet.Info, selected bool, now time.Time, w int) string {
	hasExit := slices.ContainsFunc(cols, func(c column) bool { return c.kind == colExit })
	attn := in.NeedsInput && in.Alive
	state := State(in)
	base, muted := st.Row, st.Muted
	if attn {
		base = st.RowAttn
	}
	if selected {
		base = base.Inherit(st.RowSelected)
		muted = muted.Inherit(st.RowSelected)
	}
	var b strings.Builder
	used := 0
	// put writes a column and the one-cell gap after it in style.
	put := func(style lipgloss.Style, text string, width int) {
		b.WriteString(style.Render(pad(text, width) + " "))
		used += width + 1
	}
	marker := " "
	if selected {
		marker = SelectedMarker
	}
	if attn {
		marker += NeedsInputMarker
	} else {
		marker += " "
	}
	put(base, marker, markerW)
	for _, c := range cols {
		switch c.kind {
		case colName:
			put(base, sanitize(in.ID), c.width)
		case colAgent:
			put(muted, sanitize(in.Agent), c.width)
		case colState:
			badge := state
			switch {
			case attn:
				badge = NeedsInputBadge
			case !in.Alive && !hasExit:
				// No room for the EXIT column: the code goes in the badge.
				badge = state + " " + strconv.Itoa(in.ExitCode)
			}
			bs := st.State(state, attn)
			if selected {
				bs = bs.Inherit(st.RowSelected)
			}
			put(bs, badge, c.width)
		case colTime:
			put(muted, since(now, in.StateSince), c.width)
		case colIdle:
			idle := "-"
			if in.Alive {
				idle = since(now, in.LastOutput)
			}
			put(muted, idle, c.width)
		case colExit:
			exit := ""
			if !in.Alive {
				exit = "exit " + strconv.Itoa(in.ExitCode)
			}
			put(muted, exit, c.width)
		}
	}
	if used < w {
		b.WriteString(base.Render(strings.Repeat(" ", w-used)))
		used = w
	}
	// The columns were sized to fit w; cutting guards against rounding
	// and very small widths.
	if used > w {
		return ansi.Truncate(b.String(), w, "")
	}
	return b.String()
}

// since is the compact time from t to now, "-" for a zero t.
func since(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return FormatDuration(now.Sub(t))
}

// pad fits s into exactly width cells: cut with "…" or padded with spaces.
func pad(s string, width int) string {
	if width <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > width {
		s = ansi.Truncate(s, width, "…")
		sw = ansi.StringWidth(s)
	}
	return s + strings.Repeat(" ", width-sw)
}

// fit renders s in style, cut or padded to exactly w cells.
func fit(style lipgloss.Style, s string, w int) string {
	return style.Render(pad(s, w))
}

// sanitize replaces control characters in a name taken from outside so it
// cannot move the cursor or restyle the screen.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}
