// Package sessions renders the dashboard's session list: one row per
// session with its name, agent, state badge, time in state, idle time and
// exit code, under a header of column names. Columns appear as the width
// allows (narrow: marker, name, state; wider adds time in state, agent,
// idle time and exit code, in that order).
//
// View is a pure renderer of the sessions given, the selected row and the
// scroll offset, at the clock given. List is the list's state — every
// session, the filter, the order, the selection and the scroll offset
// (layout.VisibleRange) — as bubbles' list.Model keeps its own: the root
// model delegates to it and renders it with List.View. Neither does I/O.
package sessions

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/heimdall-tui/heimdall-tui/backend/inbox"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
)

// NeedsInputBadge replaces the state badge of a live session that waits
// for the user; NeedsInputMarker marks its row.
const (
	NeedsInputBadge  = "needs input"
	NeedsInputMarker = "!"
	AttentionMarker  = "*" // wants attention: its program rang the bell
	SelectedMarker   = ">"
)

// DefaultEmpty is shown when there are no sessions and the caller gives no
// hint of its own.
const DefaultEmpty = "no sessions — press n to spawn one"

// State is the badge text of a session: "Lost" once its supervisor died
// without recording an end, "Dead" once it is not alive otherwise;
// "Limited" while a usage limit stops it;
// an idle agent whose last turn failed, "Error", or that finished a turn
// nobody has seen yet, "Done" (its own reports); else its classifier
// state ("Idle", "Thinking", ...).
func State(in session.Info) string {
	switch {
	case !in.Alive && in.Lost:
		return "Lost"
	case !in.Alive:
		return "Dead"
	case in.Limited && !in.NeedsInput:
		return "Limited"
	case in.State == session.Idle && !in.NeedsInput && in.Error != "":
		return "Error"
	case in.State == session.Idle && !in.NeedsInput && in.Done:
		return "Done"
	}
	return in.State.String()
}

// Note is what the list's last column and a pane's title say of a session
// besides its state: why its agent waits (NeedsInput), the failure that
// ended its turn, else the session's own title.
func Note(in session.Info) string {
	switch {
	case in.Alive && in.NeedsInput && in.Reason != "":
		return in.Reason
	case in.Alive && in.Limited:
		return inbox.LimitText(in)
	case in.Alive && in.Error != "":
		return in.Error
	case in.Lost:
		return LostNote(in)
	case in.Alive && in.Resume.Reported:
		return ResumeNote(in.Resume)
	}
	return strings.TrimSpace(in.Title)
}

// ResumeNote says what Claude reported as it resumed a conversation: the
// context its first request re-sends, and whether its cache has expired
// (with Claude's estimate of caching it again).
func ResumeNote(r session.Resume) string {
	n := fmt.Sprintf("resumed: %d tokens of context", r.Tokens)
	switch {
	case r.Expired && r.USD > 0:
		n += fmt.Sprintf(", cache expired (≈$%.2f to cache again)", r.USD)
	case r.Expired:
		n += ", cache expired"
	default:
		n += ", cache warm"
	}
	return n
}

// LostNote says when a lost session was last seen, and whether the machine
// has rebooted since.
func LostNote(in session.Info) string {
	n := "last seen " + in.LastSeen.Local().Format("Jan 2 15:04")
	if in.Rebooted {
		n += ", rebooted since"
	}
	return n
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
	colNote // the rest of a wide row: Note
	colHost // the host a session runs on, when any runs on another
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
	hostMax  = 12
	minNote  = 12 // a narrower slack stays blank
)

// columns chooses the columns for width w: marker, name and state always;
// then the title (the needs-input reason) while the name keeps at least
// minName cells, as it says why a session wants the user; then time in
// state, agent, idle and exit, in that order, while the name and the
// title keep theirs.
// Each column is followed by a one-cell gap.
func columns(w, agentW, longestName, hostW int) []column {
	opt := []column{
		{colTime, "TIME", timeW},
		{colAgent, "AGENT", agentW},
		{colIdle, "IDLE", timeW},
		{colExit, "EXIT", exitW},
	}
	// Marker and its gap, the state and its gap, the name's gap; the
	// host and its gap when a session runs on another host.
	used := markerW + 1 + stateW + 1 + 1
	if hostW > 0 {
		used += hostW + 1
	}
	// What the title needs at least, and its gap.
	note := 0
	if w-(used+minNote+1) >= minName {
		note = minNote + 1
	}
	on := map[colKind]bool{}
	// In order, stopping at the first that does not fit, so that a wider
	// list never shows fewer of them.
	for _, c := range opt {
		if w-(used+note+c.width+1) < minName {
			break
		}
		used += c.width + 1
		on[c.kind] = true
	}
	// The name takes the rest, but no more than the longest name needs:
	// on a wide list the other columns stay next to the names and the
	// slack goes to the title.
	nameW := max(w-used-note, 1)
	nameW = min(nameW, max(minName, longestName))
	var cols []column
	if hostW > 0 {
		cols = append(cols, column{colHost, "HOST", hostW})
	}
	cols = append(cols, column{colName, "NAME", nameW})
	for _, c := range []column{{colAgent, "AGENT", agentW}, {colState, "STATE", stateW}, {colTime, "TIME", timeW}, {colIdle, "IDLE", timeW}, {colExit, "EXIT", exitW}} {
		if c.kind == colState || on[c.kind] {
			cols = append(cols, c)
		}
	}
	if rest := w - used - nameW - 1; note > 0 && rest >= minNote {
		cols = append(cols, column{colNote, "TITLE", rest})
	}
	return cols
}

// View renders infos as a list of exactly h lines of exactly w cells: a
// header of column names (HeaderRows), then the rows from offset (see
// layout.VisibleRange). The selected row is highlighted across the full width
// (st.RowSelected) and marked ">"; a live session that needs input is
// marked "!", shows "needs input" as its badge and uses st.RowAttn.
// Durations are measured to now. With no sessions the list says
// DefaultEmpty.
func View(st *themes.Styles, infos []session.Info, selected, offset int, now time.Time, w, h int) string {
	return ViewHint(st, infos, selected, offset, now, w, h, DefaultEmpty)
}

// ViewHint is View with the line shown for an empty list (e.g. "no
// sessions match /foo" while filtering, or hints naming remapped keys).
func ViewHint(st *themes.Styles, infos []session.Info, selected, offset int, now time.Time, w, h int, empty string) string {
	if w <= 0 || h <= 0 {
		return strings.Repeat("\n", max(h-1, 0))
	}
	cols := listColumns(infos, w)
	// Rows are as wide as w plus their escape sequences.
	buf := make([]byte, 0, h*(w+160))
	buf = append(buf, header(st, cols, w, scrolled(st, infos, offset, h-HeaderRows))...)
	lines := 1
	if len(infos) == 0 && lines < h {
		buf = append(buf, '\n')
		buf = append(buf, st.Muted.Render(cellwidth.Fit(" "+cellwidth.Sanitize(empty), w, "…"))...)
		lines++
	}
	p := painter{st: st, hasExit: slices.ContainsFunc(cols, func(c column) bool { return c.kind == colExit })}
	offset = max(0, min(offset, len(infos)-1))
	for i := offset; i < len(infos) && lines < h; i++ {
		buf = append(buf, '\n')
		buf = p.row(buf, cols, infos[i], i == selected, now, w)
		lines++
	}
	for ; lines < h; lines++ {
		buf = append(buf, '\n')
		buf = appendSpaces(buf, w)
	}
	return string(buf)
}

// listColumns are the columns of a list of infos w cells wide.
func listColumns(infos []session.Info, w int) []column {
	agentW, nameW, hostW := agentMin, 0, 0
	for _, in := range infos {
		agentW = max(agentW, min(agentMax, cellwidth.Of(cellwidth.Sanitize(in.Agent))))
		nameW = max(nameW, cellwidth.Of(cellwidth.Sanitize(in.ID)))
		if in.Host != "" {
			hostW = max(hostW, len("HOST"), min(hostMax, cellwidth.Of(cellwidth.Sanitize(in.Host))))
		}
	}
	return columns(w, agentW, nameW, hostW)
}

// ShownSince are the instants the durations on a list of infos w×h
// (ViewHint, from offset) are measured from: each shown row's StateSince
// if the TIME column is on, and each shown live row's LastOutput if the
// IDLE column is (a dead one's says "-"); zero instants ("-") are left
// out. A duration's text changes only as time passes from one of these,
// so a caller that redraws for those changes has nothing to wait for
// when there are none.
func ShownSince(infos []session.Info, offset, w, h int) []time.Time {
	if w <= 0 || h <= HeaderRows || len(infos) == 0 {
		return nil
	}
	var state, idle bool
	for _, c := range listColumns(infos, w) {
		state = state || c.kind == colTime
		idle = idle || c.kind == colIdle
	}
	offset = max(0, min(offset, len(infos)-1))
	var out []time.Time
	for _, in := range infos[offset:min(len(infos), offset+h-HeaderRows)] {
		if state && !in.StateSince.IsZero() {
			out = append(out, in.StateSince)
		}
		if idle && in.Alive && !in.LastOutput.IsZero() {
			out = append(out, in.LastOutput)
		}
	}
	return out
}

// header is the line of column names, with more at its right end (what
// scrolled says of the rows out of view).
func header(st *themes.Styles, cols []column, w int, more string) string {
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", markerW+1))
	for _, c := range cols {
		b.WriteString(cellwidth.Fit(c.title, c.width, "…"))
		b.WriteByte(' ')
	}
	mw := ansi.StringWidth(more)
	if more == "" || mw+markerW+1 > w {
		return st.Muted.Bold(true).Render(cellwidth.Fit(b.String(), w, "…"))
	}
	return st.Muted.Bold(true).Render(cellwidth.Fit(b.String(), w-mw, "…")) + more
}

// scrolled says how many rows are above and below the rows rows shown
// from offset ("↑2 ↓5"), and how many of those need input ("↓5 !1"): a
// session waiting for the user is never out of view without the list
// saying so. "" when every row is shown.
func scrolled(st *themes.Styles, infos []session.Info, offset, rows int) string {
	offset = max(0, min(offset, len(infos)-1))
	end := min(len(infos), offset+max(rows, 0))
	if len(infos) == 0 || (offset == 0 && end == len(infos)) {
		return ""
	}
	needs := 0
	for i, in := range infos {
		if (i < offset || i >= end) && in.Alive && in.NeedsInput {
			needs++
		}
	}
	var parts []string
	if offset > 0 {
		parts = append(parts, fmt.Sprintf("↑%d", offset))
	}
	if end < len(infos) {
		parts = append(parts, fmt.Sprintf("↓%d", len(infos)-end))
	}
	out := st.Muted.Render(" " + strings.Join(parts, " "))
	if needs > 0 {
		out += st.Warning.Bold(true).Render(fmt.Sprintf(" %s%d", NeedsInputMarker, needs))
	}
	return out + " "
}

// span is a style reduced to the bytes Render puts around one line of
// text: an SGR prefix and the reset after it. Writing text through a span
// gives exactly Render's bytes without Render's cost (it rebuilds the SGR
// sequence and scans the text on every call). A style that does more than
// wrap the text (width, max width, borders, transforms, spaces styled
// apart for underline or strikethrough) fails the check in newSpan and is
// rendered per call instead.
type span struct {
	style    lipgloss.Style
	pre, suf string
	wraps    bool // pre+text+suf is style.Render(text)
}

func newSpan(style lipgloss.Style) span {
	sp := span{style: style}
	if style.GetWidth() != 0 || style.GetMaxWidth() != 0 || style.GetMaxHeight() != 0 || style.GetTransform() != nil {
		return sp
	}
	const probe = "x y"
	out := style.Render(probe)
	i := strings.Index(out, probe)
	if i < 0 {
		return sp
	}
	pre, suf := out[:i], out[i+len(probe):]
	if style.Render("ab") != pre+"ab"+suf {
		return sp
	}
	sp.pre, sp.suf, sp.wraps = pre, suf, true
	return sp
}

// cell appends text cut ("…") or padded to exactly width cells, then the
// one-cell gap, all in the span's style: the bytes of
// style.Render(cellwidth.Fit(text, width, "…") + " ").
func (sp *span) cell(buf []byte, text string, width int) []byte {
	if !sp.wraps || strings.ContainsAny(text, "\t\r\n") {
		// Render converts tabs and line breaks; sanitized text has none.
		return append(buf, sp.style.Render(cellwidth.Fit(text, width, "…")+" ")...)
	}
	buf = append(buf, sp.pre...)
	text, n := cellwidth.CutN(text, width, "…")
	buf = append(buf, text...)
	buf = appendSpaces(buf, max(width, 0)-n+1)
	return append(buf, sp.suf...)
}

// spaces appends n spaces (none when n <= 0) in the span's style.
func (sp *span) spaces(buf []byte, n int) []byte {
	if !sp.wraps {
		return append(buf, sp.style.Render(strings.Repeat(" ", max(n, 0)))...)
	}
	buf = append(buf, sp.pre...)
	buf = appendSpaces(buf, n)
	return append(buf, sp.suf...)
}

// rowKind names the plain row styles a painter keeps.
type rowKind uint8

const (
	kindRow   rowKind = iota // st.Row
	kindAttn                 // st.RowAttn
	kindMuted                // st.Muted
	numKinds
)

// stateSpan is the badge span of one state.
type stateSpan struct {
	name           string
	attn, selected bool
	sp             span
}

// painter renders the rows of one View: it reduces each style it needs to
// a span once, on first use, instead of rendering a lipgloss style per
// column per row.
type painter struct {
	st      *themes.Styles
	hasExit bool              // the columns include EXIT (else a dead row's code goes in its badge)
	kinds   [numKinds][2]span // [kind][selected]
	built   [numKinds][2]bool
	states  []stateSpan
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// kind returns the span of a row style, on the selection when selected.
func (p *painter) kind(k rowKind, selected bool) *span {
	sel := b2i(selected)
	if !p.built[k][sel] {
		style := [numKinds]lipgloss.Style{p.st.Row, p.st.RowAttn, p.st.Muted}[k]
		if selected {
			style = style.Inherit(p.st.RowSelected)
		}
		p.kinds[k][sel], p.built[k][sel] = newSpan(style), true
	}
	return &p.kinds[k][sel]
}

// state returns the span of a state badge.
func (p *painter) state(name string, attn, selected bool) *span {
	for i := range p.states {
		if s := &p.states[i]; s.name == name && s.attn == attn && s.selected == selected {
			return &s.sp
		}
	}
	style := p.st.State(name, attn)
	if selected {
		style = style.Inherit(p.st.RowSelected)
	}
	p.states = append(p.states, stateSpan{name: name, attn: attn, selected: selected, sp: newSpan(style)})
	return &p.states[len(p.states)-1].sp
}

// row appends one session's line to buf.
func (p *painter) row(buf []byte, cols []column, in session.Info, selected bool, now time.Time, w int) []byte {
	attn := in.NeedsInput && in.Alive
	state := State(in)
	baseKind := kindRow
	if attn {
		baseKind = kindAttn
	}
	base, muted := p.kind(baseKind, selected), p.kind(kindMuted, selected)
	start := len(buf)
	used := 0
	// put writes a column and the one-cell gap after it.
	put := func(sp *span, text string, width int) {
		buf = sp.cell(buf, text, width)
		used += width + 1
	}
	marker := " "
	if selected {
		marker = SelectedMarker
	}
	switch {
	case attn:
		marker += NeedsInputMarker
	case in.Attention && in.Alive:
		marker += AttentionMarker // its program rang or notified
	default:
		marker += " "
	}
	put(base, marker, markerW)
	for _, c := range cols {
		switch c.kind {
		case colName:
			put(base, cellwidth.Sanitize(in.ID), c.width)
		case colHost:
			put(muted, cellwidth.Sanitize(in.Host), c.width)
		case colAgent:
			put(muted, cellwidth.Sanitize(in.Agent), c.width)
		case colState:
			badge := state
			switch {
			case attn:
				badge = NeedsInputBadge
			case !in.Alive && !in.Lost && !p.hasExit:
				// No room for the EXIT column: the code goes in the badge.
				badge = state + " " + strconv.Itoa(in.ExitCode)
			}
			put(p.state(state, attn, selected), badge, c.width)
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
			if !in.Alive && !in.Lost { // a lost one's is not known
				exit = "exit " + strconv.Itoa(in.ExitCode)
			}
			put(muted, exit, c.width)
		case colNote:
			put(muted, cellwidth.Sanitize(Note(in)), c.width)
		}
	}
	if used < w {
		buf = base.spaces(buf, w-used)
		used = w
	}
	// The columns were sized to fit w; cutting guards against rounding
	// and very small widths.
	if used > w {
		cut := ansi.Truncate(string(buf[start:]), w, "")
		buf = append(buf[:start], cut...)
	}
	return buf
}

// since is the compact time from t to now, "-" for a zero t.
func since(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return FormatDuration(now.Sub(t))
}

// appendSpaces appends n spaces (none when n <= 0).
func appendSpaces(buf []byte, n int) []byte { return cellwidth.AppendSpaces(buf, n) }
