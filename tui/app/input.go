package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/blackboard"
	"github.com/heimdall-tui/heimdall-tui/tui/capsules"
	"github.com/heimdall-tui/heimdall-tui/tui/dialog"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
	"github.com/heimdall-tui/heimdall-tui/tui/sessions"
)

// context is the key context the user is in: a dialog, the filter prompt,
// the help screen, the grid or the list.
func (m *Model) context() keys.Context {
	if len(m.dialogs) > 0 {
		return keys.CtxDialog
	}
	return m.viewContext()
}

// viewContext is the context of what is shown under any dialog: the key
// hints the view itself shows are named in it.
func (m *Model) viewContext() keys.Context {
	switch {
	case m.page == pageLedger:
		return keys.CtxLedger
	case m.page == pageBlackboard:
		return keys.CtxBlackboard
	case m.page == pageCapsules:
		return keys.CtxCapsules
	case m.filtering:
		return keys.CtxFilter
	case m.showHelp:
		return keys.CtxHelp
	case m.mode == layout.ModeSplit:
		return keys.CtxList
	}
	return keys.CtxGrid
}

// onKey routes a key: the top dialog gets everything; the filter prompt
// takes text; otherwise the key map decides.
func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if len(m.dialogs) > 0 {
		act, cmd := m.dialogs[len(m.dialogs)-1].Update(msg)
		return tea.Batch(cmd, m.apply(act))
	}
	if m.page != pageSessions && !m.bb.Editing() {
		// The planning views' own keys come first (L closes the ledger);
		// the other views' global keys switch straight to them.
		if _, own := m.opt.Keys.Lookup(m.context(), msg); !own {
			if act, ok := m.opt.Keys.Lookup(keys.CtxGlobal, msg); ok {
				if _, page := pageKeys[act]; page || act == keys.Quit {
					return m.do(act)
				}
			}
		}
	}
	switch m.page {
	case pageBlackboard:
		return m.onBlackboard(m.bb.Update(msg))
	case pageCapsules:
		switch a := m.caps.Update(msg).(type) {
		case capsules.Close:
			m.page = pageSessions
			return nil
		case capsules.Show:
			return m.hydrate(a.ID)
		}
		return nil
	case pageLedger:
		if act, ok := m.opt.Keys.Lookup(keys.CtxLedger, msg); ok && act == keys.Back {
			m.page = pageSessions
		}
		return nil
	}
	if m.filtering {
		return m.filterKey(msg)
	}
	act, ok := m.opt.Keys.Lookup(m.context(), msg)
	if !ok {
		return nil
	}
	return m.do(act)
}

// filterKey edits the filter: the filter context's keys keep (enter) or
// clear (esc) it; text appends, backspace deletes.
func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	act, _ := m.opt.Keys.Lookup(keys.CtxFilter, msg)
	switch act {
	case keys.Accept:
		m.filtering = false
		return nil
	case keys.Back:
		m.filtering, m.filter = false, ""
		m.refilter()
		return nil
	}
	switch msg.String() {
	case "backspace":
		if m.filter != "" {
			_, n := utf8.DecodeLastRuneInString(m.filter)
			m.filter = m.filter[:len(m.filter)-n]
		}
	case "ctrl+u":
		m.filter = ""
	default:
		if msg.Text == "" {
			return nil
		}
		m.filter += msg.Text
	}
	m.refilter()
	return nil
}

// do performs a key-map action.
func (m *Model) do(act keys.Action) tea.Cmd {
	if pg, ok := pageKeys[act]; ok {
		return m.openPage(pg)
	}
	sel, ok := m.selected()
	i := m.index(m.selID)
	switch act {
	case keys.Up:
		m.selectIndex(i - 1)
	case keys.Down:
		m.selectIndex(i + 1)
	case keys.PageUp:
		m.selectIndex(i - m.pageSize())
	case keys.PageDown:
		m.selectIndex(i + m.pageSize())
	case keys.Top:
		m.selectIndex(0)
	case keys.Bottom:
		m.selectIndex(len(m.view) - 1)
	case keys.Help:
		m.showHelp = !m.showHelp
	case keys.Back:
		switch {
		case m.showHelp:
			m.showHelp = false
		case m.mode == layout.ModeZoom:
			m.mode = m.prevMode()
		case m.mode == layout.ModeGrid:
			m.mode = layout.ModeSplit
		case m.filter != "":
			m.filter = ""
			m.refilter()
		}
		return nil
	case keys.Quit:
		return m.requestQuit()
	case keys.Filter:
		m.filtering = true
	case keys.Command:
		return m.pushForPresets(dialog.NewCommandPending(m.ids()))
	case keys.Spawn:
		return m.pushForPresets(dialog.NewSpawnPending(m.opt.DefaultDir, m.opt.Classifiers))
	case keys.Grid:
		if m.mode == layout.ModeGrid {
			m.mode = layout.ModeSplit
		} else {
			m.mode = layout.ModeGrid
		}
		return nil
	case keys.Zoom:
		if m.mode == layout.ModeZoom {
			m.mode = m.prevMode()
		} else if ok {
			m.zoomFrom = m.mode
			m.mode = layout.ModeZoom
		}
		return nil
	case keys.NextAttention:
		return m.nextAttention()
	case keys.Sort:
		m.sort = (m.sort + 1) % SortOrder(len(sortNames))
		m.refilter()
		return m.info("sorted by " + m.sort.String())
	}
	// The rest act on the selected session (the key map's Session context).
	if len(m.opt.Keys.KeysOf(keys.CtxSession, act)) == 0 {
		return nil
	}
	if !ok {
		return m.info("no session selected")
	}
	switch act {
	case keys.Attach:
		return m.attach(sel)
	case keys.Send:
		if !sel.Alive {
			return m.report(fmt.Errorf("%s has exited (code %d)", sel.ID, sel.ExitCode))
		}
		m.push(dialog.NewSend(sel.ID))
	case keys.Kill, keys.KillNow:
		if !sel.Alive {
			return m.report(fmt.Errorf("%s has already exited (code %d); d removes it", sel.ID, sel.ExitCode))
		}
		return m.confirmKill(sel.ID, act == keys.KillNow)
	case keys.Remove:
		if sel.Alive {
			return m.report(fmt.Errorf("%s is running; kill it first (x)", sel.ID))
		}
		return m.apply(dialog.Remove{ID: sel.ID})
	case keys.Restart:
		if sel.Alive {
			m.push(dialog.NewConfirm("Restart "+sel.ID,
				"Restart "+sel.ID+"? It is running: "+dialog.KillText(sel.ID, m.opt.KillGrace, false)+
					" Then it starts again with the same command.", dialog.Restart{ID: sel.ID}))
			return nil
		}
		return m.apply(dialog.Restart{ID: sel.ID})
	case keys.Resize:
		if !sel.Alive {
			return m.report(fmt.Errorf("%s has exited", sel.ID))
		}
		m.push(dialog.NewResize(sel.ID, uint16(sel.Cols), uint16(sel.Rows)))
	}
	return nil
}

// prevMode is the mode zoom returns to.
func (m *Model) prevMode() layout.Mode {
	if m.zoomFrom == layout.ModeZoom {
		return layout.ModeSplit
	}
	return m.zoomFrom
}

func (m *Model) push(d dialog.Dialog) { m.dialogs = append(m.dialogs, d) }

// presetsMsg carries the presets looked up for dialog d.
type presetsMsg struct {
	d       dialog.Dialog
	presets []fleet.Preset
}

// pushForPresets opens d (a dialog that waits for the presets) at once and
// returns the Cmd that looks the presets up off the event loop (PATH
// lookups are file system I/O). onPresets hands them to d.
func (m *Model) pushForPresets(d dialog.Dialog) tea.Cmd {
	m.push(d)
	b := m.opt.Backend
	return func() tea.Msg { return presetsMsg{d: d, presets: b.Presets()} }
}

// onPresets fills in the dialog the presets were looked up for, if it is
// still open: a result for a dialog closed meanwhile (esc; another may
// have opened since, with its own lookup) is dropped.
func (m *Model) onPresets(msg presetsMsg) tea.Cmd {
	if !slices.Contains(m.dialogs, msg.d) {
		return nil
	}
	switch d := msg.d.(type) {
	case *dialog.SpawnDialog:
		d.SetPresets(msg.presets)
	case *dialog.CommandDialog:
		// A ":spawn …" entered while the lookup ran runs now. Actions
		// apply to the top dialog, which this one must be for that.
		if act := d.SetPresets(msg.presets); act != nil && m.dialogs[len(m.dialogs)-1] == d {
			return m.apply(act)
		}
	}
	return nil
}

func (m *Model) pop() {
	if n := len(m.dialogs); n > 0 {
		m.dialogs = m.dialogs[:n-1]
	}
}

func (m *Model) ids() []string {
	ids := make([]string, len(m.all))
	for i, in := range m.all {
		ids[i] = in.ID
	}
	return ids
}

// requestQuit quits at once when no session of ours is running, else asks:
// quitting stops them.
func (m *Model) requestQuit() tea.Cmd {
	running := 0
	for _, in := range m.all {
		if in.Owned && in.Alive {
			running++
		}
	}
	if running == 0 {
		return m.quit()
	}
	m.push(dialog.NewConfirm("Quit", dialog.QuitText(running, m.opt.KillGrace), dialog.Quit{Confirmed: true}))
	return nil
}

// confirmKill asks before killing: a kill from a key or the command line
// alike is confirmed, with No selected, saying what will happen.
func (m *Model) confirmKill(id string, force bool) tea.Cmd {
	if i := m.indexAll(id); i >= 0 && !m.all[i].Alive {
		return m.report(fmt.Errorf("%s has already exited (code %d); d removes it", id, m.all[i].ExitCode))
	}
	title := "Kill " + id
	if force {
		title += " now"
	}
	m.push(dialog.NewConfirm(title, dialog.KillText(id, m.opt.KillGrace, force), dialog.Kill{ID: id, Force: force, Confirmed: true}))
	return nil
}

// pageSize is how far page up/down moves: a screenful of the list, or a
// page of the grid.
func (m *Model) pageSize() int {
	if m.mode == layout.ModeGrid {
		return max(1, len(layout.Compute(m.w, m.h, len(m.view), m.mode).Grid))
	}
	return max(1, m.listRows()-1)
}

func (m *Model) quit() tea.Cmd {
	m.quitting = true
	m.cancel()
	return tea.Quit
}

// nextAttention selects the next session (after the selected one, wrapping)
// that needs input.
func (m *Model) nextAttention() tea.Cmd {
	n := len(m.view)
	start := m.index(m.selID)
	for k := 1; k <= n; k++ {
		in := m.view[(start+k+n)%n]
		if in.NeedsInput && in.Alive {
			m.selID = in.ID
			m.fixOffset()
			return nil
		}
	}
	return m.info("no session needs input")
}

// apply carries out a dialog's action. nil means the dialog stays open.
func (m *Model) apply(act dialog.Action) tea.Cmd {
	if act == nil {
		return nil
	}
	m.pop()
	b := m.opt.Backend
	switch a := act.(type) {
	case dialog.Close:
		return nil
	case dialog.Error:
		return m.report(a.Err)
	case dialog.Quit:
		if a.Confirmed {
			return m.quit()
		}
		return m.requestQuit()
	case dialog.Kill:
		if !a.Confirmed {
			return m.confirmKill(a.ID, a.Force)
		}
		if err := b.Kill(a.ID, a.Force); err != nil {
			return m.report(err)
		}
		if a.Force {
			return m.info("SIGKILL sent to " + a.ID)
		}
		return m.info(fmt.Sprintf("SIGTERM sent to %s (SIGKILL after %s)", a.ID, m.opt.KillGrace))
	case dialog.Remove:
		if err := b.Remove(a.ID); err != nil {
			return m.report(err)
		}
		m.reload()
		return m.info("removed " + a.ID)
	case dialog.Restart:
		if err := b.Restart(a.ID); err != nil {
			return m.report(err)
		}
		return m.info("restarting " + a.ID)
	case dialog.Spawn:
		spec := a.Spec
		if spec.Cols == 0 || spec.Rows == 0 {
			spec.Cols, spec.Rows = m.paneSize(m.mode)
		}
		id, err := b.Spawn(spec)
		if err != nil {
			return m.report(err)
		}
		m.pendingSel = id
		m.reload()
		return m.info("started " + id)
	case dialog.Send:
		if err := b.Send(a.ID, session.Input{Data: []byte(a.Text + "\r")}); err != nil {
			return m.report(err)
		}
		return m.info("sent to " + a.ID)
	case dialog.Resize:
		cols, rows := a.Cols, a.Rows
		switch a.Fit {
		case dialog.FitPane:
			cols, rows = m.paneSize(m.mode)
		case dialog.FitTerminal:
			cols, rows = uint16(max(1, m.w)), uint16(max(1, m.h))
		}
		if err := b.Resize(a.ID, cols, rows); err != nil {
			return m.report(err)
		}
		return m.info(fmt.Sprintf("%s resized to %d×%d", a.ID, cols, rows))
	case dialog.Theme:
		p, err := themes.ByName(a.Name)
		if err != nil {
			return m.report(err)
		}
		m.opt.Theme = p
		m.st = themes.Build(p, m.opt.NoColor)
		return m.info("theme " + p.Name)
	case dialog.Attach:
		if i := m.indexAll(a.ID); i >= 0 {
			m.selID = a.ID
			return m.attach(m.all[i])
		}
		return m.report(fmt.Errorf("no session %q", a.ID))
	case dialog.Mode:
		switch a.Name {
		case "grid":
			m.mode = layout.ModeGrid
		case "zoom":
			m.zoomFrom, m.mode = m.mode, layout.ModeZoom
		case "help":
			m.showHelp = true
		default:
			m.mode = layout.ModeSplit
		}
		return nil
	}
	return m.report(fmt.Errorf("unhandled action %T", act))
}

// paneSize is the inner size of the focused pane in mode: what "fit to
// pane" resizes to and what a new session starts with.
func (m *Model) paneSize(mode layout.Mode) (cols, rows uint16) {
	l := layout.Compute(m.w, m.h, len(m.view), mode)
	r := l.Preview
	if mode == layout.ModeGrid && len(l.Grid) > 0 {
		r = l.Grid[0]
	}
	return uint16(max(1, r.W-2)), uint16(max(1, r.H-2))
}

// attach hands the terminal to the session until the detach key.
func (m *Model) attach(in session.Info) tea.Cmd {
	if !in.Alive {
		return m.report(fmt.Errorf("%s has exited (code %d); R restarts it", in.ID, in.ExitCode))
	}
	ep, err := m.opt.Backend.Endpoint(in.ID)
	if err != nil {
		return m.report(err)
	}
	m.attachedID = in.ID
	x := &attachExec{ep: ep, detach: m.opt.Keys.Detach}
	id := in.ID
	return tea.Exec(x, func(err error) tea.Msg {
		return attachDoneMsg{id: id, res: x.res, err: errors.Join(err, x.err)}
	})
}

type attachResult = attach.Result

// attachExec runs attach.Run as a tea.ExecCommand: Bubble Tea releases the
// terminal (leaves the alternate screen, restores cooked mode, stops its
// input reader) before Run and takes it back after, so the first key after
// the detach key reaches the dashboard.
type attachExec struct {
	ep     attach.Endpoint
	detach byte
	in     io.Reader
	out    io.Writer
	res    attach.Result
	err    error
}

func (x *attachExec) SetStdin(r io.Reader)  { x.in = r }
func (x *attachExec) SetStdout(w io.Writer) { x.out = w }
func (x *attachExec) SetStderr(io.Writer)   {}

// Run implements tea.ExecCommand. attach needs real files for raw mode and
// the window size; Bubble Tea's are os.Stdin/os.Stdout unless the program
// was given others.
func (x *attachExec) Run() error {
	in, ok := x.in.(*os.File)
	if !ok {
		in = os.Stdin
	}
	out, ok := x.out.(*os.File)
	if !ok {
		out = os.Stdout
	}
	x.res, x.err = attach.Run(x.ep, attach.Options{In: in, Out: out, DetachKey: x.detach})
	return nil
}

// onClick focuses the session under the pointer.
func (m *Model) onClick(ms tea.Mouse) tea.Cmd {
	if len(m.dialogs) > 0 || m.showHelp || m.page != pageSessions || ms.Button != tea.MouseLeft {
		return nil
	}
	l := layout.Compute(m.w, m.h, len(m.view), m.mode)
	if m.mode == layout.ModeGrid {
		start, end := m.gridPage(len(l.Grid))
		for k, r := range layout.GridRects(l.Body, end-start) {
			if r.Contains(ms.X, ms.Y) {
				m.selID = m.view[start+k].ID
				return nil
			}
		}
		return nil
	}
	if l.List.Contains(ms.X, ms.Y) {
		row := ms.Y - l.List.Y - sessions.HeaderRows
		if row >= 0 && m.offset+row < len(m.view) {
			m.selectIndex(m.offset + row)
		}
	}
	return nil
}

// onWheel scrolls the list.
func (m *Model) onWheel(ms tea.Mouse) tea.Cmd {
	if len(m.dialogs) > 0 || m.showHelp || m.page != pageSessions {
		return nil
	}
	i := m.index(m.selID)
	switch ms.Button {
	case tea.MouseWheelUp:
		m.selectIndex(i - 1)
	case tea.MouseWheelDown:
		m.selectIndex(i + 1)
	}
	return nil
}

// onBlackboard carries out the blackboard editor's action.
func (m *Model) onBlackboard(act blackboard.Action) tea.Cmd {
	switch a := act.(type) {
	case blackboard.Close:
		m.page = pageSessions
		return nil
	case blackboard.Set:
		return m.setFact(a.Key, a.Value, a.Version)
	case blackboard.Delete:
		return m.deleteFact(a.Key, a.Version)
	}
	return nil
}
