package app

import (
	"fmt"
	"image/color"
	"os"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/tui/blackboard"
	"github.com/heimdall-tui/heimdall-tui/tui/grid"
	"github.com/heimdall-tui/heimdall-tui/tui/help"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
	"github.com/heimdall-tui/heimdall-tui/tui/ledger"
	"github.com/heimdall-tui/heimdall-tui/tui/pane"
	"github.com/heimdall-tui/heimdall-tui/tui/sessions"
	"github.com/heimdall-tui/heimdall-tui/tui/transcript"
)

// View implements tea.Model.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = m.windowTitle()
	return v
}

// windowTitle counts sessions needing input, so a background terminal tab
// shows it too.
func (m *Model) windowTitle() string {
	if n := m.needInput(); n > 0 {
		return fmt.Sprintf("heimdall-tui (%d need input)", n)
	}
	return "heimdall-tui"
}

// count is how many sessions satisfy ok.
func (m *Model) count(ok func(session.Info) bool) int {
	n := 0
	for _, in := range m.list.All() {
		if ok(in) {
			n++
		}
	}
	return n
}

// listMarkers say what the marks before a session's name mean (the
// help's legend).
var listMarkers = []help.Marker{
	{Mark: sessions.SelectedMarker, Desc: "the selected session"},
	{Mark: sessions.NeedsInputMarker, Desc: "needs input (the reason is its title)"},
	{Mark: sessions.AttentionMarker, Desc: "wants attention: its program rang or notified, or it began needing input while nobody watched, since you last saw it"},
}

// helpView is the help as shown in the body (from helpTop), and the
// largest top that scrolls it further.
func (m *Model) helpView() (string, int) {
	l := layout.Compute(m.w, m.h, len(m.list.Visible()), m.mode)
	return help.FullAt(m.st, m.opt.Keys, m.helpContext(), l.Body.W, l.Body.H-1, m.helpTop, listMarkers...)
}

// Render draws the whole dashboard as exactly h lines of width w.
func (m *Model) Render() string {
	w, h := m.w, m.h
	l := layout.Compute(w, h, len(m.list.Visible()), m.mode)
	if l.TooSmall {
		return layout.TooSmallNotice(w, h)
	}
	blocks := []layout.Block{
		{Rect: l.Header, Content: m.header(l.Header.W)},
		{Rect: l.Footer, Content: m.footer(l.Footer.W)},
	}
	switch {
	case m.page == pageLedger:
		us, days := m.sessionUsage()
		uh := min(ledger.UsageHeight(len(us), days), l.Body.H/2)
		body := l.Body.H - uh
		ch, dh := 0, 0
		if len(m.claims) > 0 {
			ch = min(ledger.ClaimsHeight(len(m.claims)), body/2)
		}
		if len(m.decisions) > 0 {
			dh = min(ledger.DecisionsHeight(len(m.decisions)), (body-ch)/2)
		}
		content := ledger.View(m.st, m.ledger, m.opt.Planning.Root(), l.Body.W, body-ch-dh)
		if ch > 0 {
			content += "\n" + ledger.ClaimsView(m.st, m.claims, m.now(), l.Body.W, ch)
		}
		if dh > 0 {
			content += "\n" + ledger.DecisionsView(m.st, m.decisions, l.Body.W, dh)
		}
		if m.ledgerErr != nil {
			content = m.st.Error.Render(m.ledgerErr.Error())
		}
		if uh > 0 {
			content = ledger.UsageView(m.st, us, m.today(), m.opt.DailyBudget, m.opt.Prices, l.Body.W, uh) + "\n" + content
		}
		blocks = append(blocks, layout.Block{Rect: l.Body, Content: content})
	case m.page == pageBlackboard:
		blocks = append(blocks, layout.Block{Rect: l.Body, Content: m.bb.View(m.st, l.Body.W, l.Body.H)})
	case m.page == pageCapsules:
		blocks = append(blocks, layout.Block{Rect: l.Body, Content: m.caps.View(m.st, l.Body.W, l.Body.H)})
	case m.page == pageInbox:
		blocks = append(blocks, m.inboxBlocks(l)...)
	case m.page == pageDiff:
		blocks = append(blocks, m.diffBlock(l))
	case m.showHelp:
		title := m.st.Title.Render("Key reference") + m.st.Muted.Render(" — "+m.keyFor(keys.Back)+" closes")
		blocks = append(blocks,
			layout.Block{Rect: layout.Rect{X: l.Body.X, Y: l.Body.Y, W: l.Body.W, H: 1}, Content: title},
			layout.Block{Rect: layout.Rect{X: l.Body.X, Y: l.Body.Y + 1, W: l.Body.W, H: l.Body.H - 1},
				Content: func() string { s, _ := m.helpView(); return s }()})
	case m.mode == layout.ModeGrid:
		blocks = append(blocks, layout.Block{Rect: l.Body, Content: m.gridView(l)})
	case m.mode == layout.ModeZoom:
		blocks = append(blocks, layout.Block{Rect: l.Preview, Content: m.paneView(l.Preview, true)})
	default:
		blocks = append(blocks,
			layout.Block{Rect: l.List, Content: m.list.View(m.st, m.now(), l.List.W, l.List.H, m.emptyHint())},
			layout.Block{Rect: l.Preview, Content: m.paneView(l.Preview, true)})
	}
	if n := len(m.dialogs); n > 0 {
		d := m.dialogs[n-1].View(m.st, max(10, w-4), max(3, h-2))
		dw, dh := lipgloss.Width(d), lipgloss.Height(d)
		dw, dh = min(dw, w), min(dh, h)
		blocks = append(blocks, layout.Block{
			Rect:    layout.Rect{X: (w - dw) / 2, Y: (h - dh) / 2, W: dw, H: dh},
			Content: d,
		})
	}
	return layout.Compose(w, h, blocks...)
}

// emptyHint is the session list's line when it shows nothing.
func (m *Model) emptyHint() string {
	if f := m.list.Filter(); f != "" {
		return "no sessions match /" + f
	}
	return "no sessions — press " + m.keyFor(keys.Spawn) + " to spawn one"
}

// keyFor names the first key bound to a (the user may have remapped it) in
// the view shown, whether or not a dialog is open over it.
func (m *Model) keyFor(a keys.Action) string {
	for _, ctx := range m.viewContext().Chain() {
		if ks := m.opt.Keys.KeysOf(ctx, a); len(ks) > 0 {
			return ks[0]
		}
	}
	return string(a)
}

// helpContext is the context whose keys the help screen lists first.
func (m *Model) helpContext() keys.Context {
	if m.mode == layout.ModeSplit {
		return keys.CtxList
	}
	return keys.CtxGrid
}

// header is the top bar: name, counts, filter and mode.
func (m *Model) header(w int) string {
	running, dead, lost := 0, 0, 0
	for _, in := range m.list.All() {
		switch {
		case in.Alive:
			running++
		case in.Lost:
			lost++
		default:
			dead++
		}
	}
	parts := []string{m.st.Title.Render("heimdall")}
	parts = append(parts, m.st.Muted.Render(fmt.Sprintf("%d running", running)))
	if dead > 0 {
		parts = append(parts, m.st.Muted.Render(fmt.Sprintf("%d dead", dead)))
	}
	if lost > 0 {
		parts = append(parts, m.st.State("Lost", false).Render(fmt.Sprintf("%d lost", lost)))
	}
	if n := m.needInput(); n > 0 {
		parts = append(parts, m.st.State("", true).Render(fmt.Sprintf("! %d need input", n)))
	}
	if n := m.count(func(in session.Info) bool { return sessions.State(in) == "Done" }); n > 0 {
		parts = append(parts, m.st.State("Done", false).Render(fmt.Sprintf("✓ %d done", n)))
	}
	if n := m.count(func(in session.Info) bool { return sessions.State(in) == "Error" }); n > 0 {
		parts = append(parts, m.st.State("Error", false).Render(fmt.Sprintf("✗ %d error", n)))
	}
	if down := downHosts(m.hosts); down != "" {
		parts = append(parts, m.st.State("Error", false).Render(down))
	}
	if m.list.Filter() != "" || m.list.Typing() {
		f := "/" + m.list.Filter()
		if m.list.Typing() {
			f += "▏"
		}
		parts = append(parts, m.st.Key.Render(f))
	}
	if o := m.list.Order(); o != sessions.SortStarted {
		parts = append(parts, m.st.Muted.Render("sort:"+o.String()))
	}
	s := strings.Join(parts, m.st.Subtle.Render(" · "))
	return m.st.Header.Width(w).MaxWidth(w).Render(ansi.Truncate(s, w, "…"))
}

// downHosts names the hosts that could not be reached ("" if none): the
// name and what ssh said of one, the names of several (`heimdall-tui
// hosts` says why each).
func downHosts(hs []fleet.HostInfo) string {
	var names []string
	why := ""
	for _, h := range hs {
		if !h.Up && h.Err != "" {
			names = append(names, h.Name)
			why, _, _ = strings.Cut(h.Err, "\n")
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("✗ %s down: %s", names[0], why)
	}
	return fmt.Sprintf("✗ %d hosts down: %s", len(names), strings.Join(names, ", "))
}

func (m *Model) needInput() int {
	n := 0
	for _, in := range m.list.All() {
		if in.NeedsInput && in.Alive {
			n++
		}
	}
	return n
}

// footer is the status line when there is a message, else the key hints of
// the current context.
func (m *Model) footer(w int) string {
	if m.status != "" {
		st := m.st.Info
		if m.statusErr {
			st = m.st.Error
		}
		return st.Render(ansi.Truncate(m.status, w, "…"))
	}
	if m.list.Typing() {
		return m.st.Muted.Render(ansi.Truncate("filter: type to narrow · enter keep · esc clear", w, "…"))
	}
	if m.page == pageBlackboard && m.bb.Editing() && len(m.dialogs) == 0 {
		return m.st.Muted.Render(ansi.Truncate(blackboard.EditingHelp, w, "…"))
	}
	return help.FooterUnavailable(m.st, m.opt.Keys, m.context(), w, m.unavailable)
}

// paneView renders the selected session's screen in r.
func (m *Model) paneView(r layout.Rect, focused bool) string {
	in, ok := m.selected()
	return m.paneOf(in, ok, r, focused)
}

// paneOf renders in's screen in r (ok false: no session, a hint).
func (m *Model) paneOf(in session.Info, ok bool, r layout.Rect, focused bool) string {
	if !ok {
		body := m.st.Muted.Render(m.emptyHint() + ", " + m.keyFor(keys.Command) + " for commands")
		return pane.Frame(m.st, pane.Border{Title: "heimdall-tui", Focused: focused}, body, r.W, r.H)
	}
	if showsTranscript(in) {
		body := m.transcriptView(in.ID, max(0, r.W-2), max(0, r.H-2))
		return pane.Frame(m.st, paneBorder(in, focused, false), body, r.W, r.H)
	}
	body, cropped := pane.Render(m.snaps[in.ID], max(0, r.W-2), max(0, r.H-2),
		pane.Options{Color: !m.opt.NoColor, Cursor: focused && in.Alive, ANSI: m.ansi()})
	return pane.Frame(m.st, paneBorder(in, focused, cropped), body, r.W, r.H)
}

// paneBorder is the border of in's pane: its title and state on top, its
// working directory (~ for the home directory) and classifier below.
func paneBorder(in session.Info, focused, cropped bool) pane.Border {
	var info []string
	if in.Dir != "" {
		info = append(info, homeRel(in.Dir))
	}
	if in.Classifier != "" {
		info = append(info, in.Classifier)
	}
	return pane.Border{Title: paneTitle(in), State: sessions.State(in), NeedsInput: in.NeedsInput && in.Alive,
		Focused: focused, Cropped: cropped, Info: strings.Join(info, " · ")}
}

// homeRel shows dir under the home directory as ~/….
func homeRel(dir string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return dir
	}
	if dir == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(dir, home+"/"); ok {
		return "~/" + rest
	}
	return dir
}

// ansi is the theme's remap of the 16 basic colours, if it has one.
func (m *Model) ansi() *[16]color.Color {
	for _, c := range m.st.P.ANSI {
		if c != nil {
			return &m.st.P.ANSI
		}
	}
	return nil
}

// paneTitle is a pane's title: ID, the exit code once dead, and the
// program's own window title (OSC 0/2) when it set one.
func paneTitle(in session.Info) string {
	t := in.ID
	switch {
	case in.Lost:
		t = in.ID + " (lost)"
	case !in.Alive:
		t = fmt.Sprintf("%s (exit %d)", in.ID, in.ExitCode)
	}
	if note := sessions.Note(in); note != "" {
		t += " — " + note
	}
	return t
}

// gridView draws a page of panes, the one holding the selection.
func (m *Model) gridView(l layout.Layout) string {
	start, end := m.gridPage(len(l.Grid))
	// The last page may hold fewer panes: tile the body with those.
	cells := layout.GridRects(l.Body, end-start)
	panes := make([]grid.Pane, 0, end-start)
	for _, in := range m.list.Visible()[start:end] {
		p := grid.Pane{ID: in.ID, Title: paneTitle(in), State: sessions.State(in),
			NeedsInput: in.NeedsInput && in.Alive, Focused: in.ID == m.list.SelectedID(), Snap: m.snaps[in.ID]}
		if showsTranscript(in) {
			id := in.ID
			p.Body = func(w, h int) string { return m.transcriptView(id, w, h) }
		}
		panes = append(panes, p)
	}
	rects := make([]layout.Rect, len(panes))
	for k := range panes {
		r := cells[k]
		rects[k] = layout.Rect{X: r.X - l.Body.X, Y: r.Y - l.Body.Y, W: r.W, H: r.H}
	}
	return grid.View(m.st, panes, rects, l.Body.W, l.Body.H, !m.opt.NoColor)
}

// gridPage is the range of the list shown in a grid of capacity panes:
// the page that holds the selection.
func (m *Model) gridPage(capacity int) (start, end int) {
	if capacity <= 0 {
		return 0, 0
	}
	i := max(0, m.index(m.list.SelectedID()))
	return layout.GridPage(len(m.list.Visible()), i, capacity)
}

// transcriptView is the transcript of id at w×h.
func (m *Model) transcriptView(id string, w, h int) string {
	var es []session.Entry
	if t := m.transcripts[id]; t != nil {
		es = t.entries
	}
	return transcript.View(m.st, es, w, h)
}

// visibleIDs are the sessions whose screens are on screen now.
func (m *Model) visibleIDs() []string {
	if m.page == pageInbox && !m.showHelp {
		return m.shownIDs()
	}
	if m.showHelp || m.page != pageSessions {
		return nil
	}
	return m.shownIDs()
}

// shownIDs are the sessions whose screens the session page shows, whether
// or not the help screen or another page covers it now (see keptIDs).
func (m *Model) shownIDs() []string {
	if m.page == pageInbox {
		if in, ok := m.inboxSelected(); ok {
			return []string{in.ID}
		}
		return nil
	}
	if m.mode == layout.ModeGrid {
		view := m.list.Visible()
		l := layout.Compute(m.w, m.h, len(view), m.mode)
		start, end := m.gridPage(len(l.Grid))
		ids := make([]string, 0, end-start)
		for _, in := range view[start:end] {
			ids = append(ids, in.ID)
		}
		return ids
	}
	if id := m.list.SelectedID(); id != "" {
		return []string{id}
	}
	return nil
}

// listRows is how many sessions the list shows at once.
func (m *Model) listRows() int { return m.listRowsFor(len(m.list.Visible())) }

// listRowsFor is how many sessions the list shows at once when it holds n.
func (m *Model) listRowsFor(n int) int {
	l := layout.Compute(m.w, m.h, n, m.mode)
	return max(1, l.List.H-sessions.HeaderRows)
}

// sessionUsage are the sessions whose agents reported tokens, in the
// list's order, and how many days their rows span.
func (m *Model) sessionUsage() ([]ledger.SessionUsage, int) {
	var us []ledger.SessionUsage
	days := map[string]bool{}
	for _, in := range m.list.All() {
		if len(in.Usage) == 0 {
			continue
		}
		us = append(us, ledger.SessionUsage{ID: in.ID, Usage: in.Usage})
		for _, r := range in.Usage {
			days[r.Day] = true
		}
	}
	return us, len(days)
}
