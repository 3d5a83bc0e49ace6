package app

import (
	"io"
	"os"
	"slices"
	"unicode/utf8"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/tui/action"
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
	case m.page == pageInbox:
		return keys.CtxInbox
	case m.page == pageDiff:
		return keys.CtxDiff
	case m.list.Typing():
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
	case pageInbox:
		return m.onInboxKey(msg)
	case pageDiff:
		return m.onDiffKey(msg)
	}
	if m.list.Typing() {
		return m.filterKey(msg)
	}
	act, ok := m.opt.Keys.Lookup(m.context(), msg)
	if !ok {
		return nil
	}
	if act == keys.AnswerOption { // which option is the key itself
		if id := m.list.SelectedID(); id != "" {
			return m.exec(answerAction(act, id, msg))
		}
	}
	return m.do(act)
}

// filterKey edits the filter: the filter context's keys keep (enter) or
// clear (esc) it; text appends, backspace deletes.
func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	act, _ := m.opt.Keys.Lookup(keys.CtxFilter, msg)
	switch act {
	case keys.Accept:
		m.list.SetTyping(false)
		return nil
	case keys.Back:
		m.list.SetTyping(false)
		m.list.SetFilter("")
		return nil
	}
	f := m.list.Filter()
	switch msg.String() {
	case "backspace":
		if f != "" {
			_, n := utf8.DecodeLastRuneInString(f)
			f = f[:len(f)-n]
		}
	case "ctrl+u":
		f = ""
	default:
		if msg.Text == "" {
			return nil
		}
		f += msg.Text
	}
	m.list.SetFilter(f)
	return nil
}

// do performs a key-map action: the key's action value, carried out by
// exec like a dialog's or a command's.
func (m *Model) do(k keys.Action) tea.Cmd {
	act := m.fromKey(k)
	if act == nil {
		if len(m.opt.Keys.KeysOf(keys.CtxSession, k)) > 0 {
			return m.info("no session selected")
		}
		return nil
	}
	return m.exec(act)
}

// fromKey is the action a key-map action asks for now: the keys that
// toggle (g, z, ?) become the Mode or Back that toggles, movement keys a
// Move by the rows they cover, session keys the action on the selected
// session (nil when none is selected, or for keys with no action here).
func (m *Model) fromKey(k keys.Action) action.Action {
	if _, ok := pageKeys[k]; ok || k == keys.Inbox {
		return action.Page{Name: string(k)}
	}
	n := len(m.list.Visible())
	switch k {
	case keys.Up:
		return action.Move{By: -1}
	case keys.Down:
		return action.Move{By: 1}
	case keys.PageUp:
		return action.Move{By: -m.pageSize()}
	case keys.PageDown:
		return action.Move{By: m.pageSize()}
	case keys.Top:
		return action.Move{By: -n}
	case keys.Bottom:
		return action.Move{By: n}
	case keys.Help:
		if m.showHelp {
			return action.Back{}
		}
		return action.Mode{Name: "help"}
	case keys.Grid:
		if m.mode == layout.ModeGrid {
			return action.Mode{Name: layout.ModeSplit.String()}
		}
		return action.Mode{Name: layout.ModeGrid.String()}
	case keys.ResumeAll:
		return action.ResumeAll{IDs: m.lostShown()}
	case keys.Park:
		if in, ok := m.list.Selected(); ok {
			return action.Park{ID: in.ID, On: !in.Parked}
		}
		return nil
	case keys.Zoom:
		if m.mode == layout.ModeZoom {
			return action.Mode{Name: m.prevMode().String()}
		}
		return action.Mode{Name: layout.ModeZoom.String()}
	}
	if a, ok := plainKeys[k]; ok {
		return a
	}
	if mk, ok := sessionKeys[k]; ok {
		if id := m.list.SelectedID(); id != "" {
			return mk(id)
		}
	}
	return nil
}

// plainKeys are the key-map actions that are one action whatever the state.
var plainKeys = map[keys.Action]action.Action{
	keys.Back:          action.Back{},
	keys.Quit:          action.Quit{},
	keys.Filter:        action.Filter{},
	keys.Command:       action.OpenCommand{},
	keys.Spawn:         action.OpenSpawn{},
	keys.NextAttention: action.NextAttention{},
	keys.Sort:          action.Sort{},
}

// sessionKeys are the key-map actions on the selected session.
var sessionKeys = map[keys.Action]func(id string) action.Action{
	keys.Attach:    func(id string) action.Action { return action.Attach{ID: id} },
	keys.Send:      func(id string) action.Action { return action.OpenSend{ID: id} },
	keys.Kill:      func(id string) action.Action { return action.Kill{ID: id} },
	keys.KillNow:   func(id string) action.Action { return action.Kill{ID: id, Force: true} },
	keys.Remove:    func(id string) action.Action { return action.Remove{ID: id} },
	keys.Restart:   func(id string) action.Action { return action.Restart{ID: id} },
	keys.Interrupt: func(id string) action.Action { return action.Interrupt{ID: id} },
	keys.Diff:      func(id string) action.Action { return action.OpenDiff{ID: id} },
	keys.Continue:  func(id string) action.Action { return action.ContinueAfter{ID: id} },
	keys.Resize:    func(id string) action.Action { return action.OpenResize{ID: id} },
	keys.Allow:     func(id string) action.Action { return action.Answer{ID: id, Choice: answer.Choice{Kind: answer.Allow}} },
	keys.AllowAlways: func(id string) action.Action {
		return action.Answer{ID: id, Choice: answer.Choice{Kind: answer.Always}}
	},
	keys.Deny:       func(id string) action.Action { return action.Answer{ID: id, Choice: answer.Choice{Kind: answer.Deny}} },
	keys.AnswerText: func(id string) action.Action { return action.OpenAnswerText{ID: id} },
}

// unavailable reports whether the key's action is refused for the
// selected session now (action.Check): the footer shows it so.
func (m *Model) unavailable(k keys.Action) bool {
	mk, ok := sessionKeys[k]
	if !ok {
		return false
	}
	in, ok := m.selected()
	return ok && action.Check(mk(in.ID), in) != nil
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
	all := m.list.All()
	ids := make([]string, len(all))
	for i, in := range all {
		ids[i] = in.ID
	}
	return ids
}

// requestQuit quits at once when no session started from a dashboard is
// running, else asks whether to leave them running (the default) or stop
// them.
func (m *Model) requestQuit() tea.Cmd {
	// Sessions that run outside the dashboard (a supervisor of their own,
	// a daemon: session.CapOutlive) can outlive it. The others it started
	// (heddle workers, its children) end with it whatever the user
	// chooses.
	running, inside := 0, 0
	for _, in := range m.list.All() {
		switch {
		case !in.Owned || !in.Alive:
		case in.Caps.Has(session.CapOutlive):
			running++
		default:
			inside++
		}
	}
	queued := len(m.resumeQ) // resume all's, not started yet
	switch {
	case running > 0:
		m.push(dialog.NewChoice("Quit", dialog.QuitText(running, inside, queued, m.opt.KillGrace), dialog.QuitOptions(), 0))
	case inside > 0 || queued > 0:
		m.push(dialog.NewConfirm("Quit", dialog.QuitText(0, inside, queued, 0), dialog.Quit{Confirmed: true}))
	default:
		return m.quit(false)
	}
	return nil
}

// pageSize is how far page up/down moves: a screenful of the list, or a
// page of the grid.
func (m *Model) pageSize() int {
	if m.showHelp { // the help's lines on show, less the one kept
		return max(1, layout.Compute(m.w, m.h, len(m.list.Visible()), m.mode).Body.H-3)
	}
	if m.mode == layout.ModeGrid {
		return max(1, len(layout.Compute(m.w, m.h, len(m.list.Visible()), m.mode).Grid))
	}
	return max(1, m.listRows()-1)
}

// quit ends the program; stop is what the user chose for the running
// sessions (StopSessions).
func (m *Model) quit(stop bool) tea.Cmd {
	m.quitting, m.stopOnQuit = true, stop
	m.cancel()
	return tea.Quit
}

// nextAttention selects the session of the next inbox item after the
// selected session's (newest first, wrapping; the newest when the
// selected session has none): tab walks what wants the user.
func (m *Model) nextAttention() tea.Cmd {
	items := m.inboxItems()
	if len(items) == 0 {
		return m.info("nothing waits for you")
	}
	start := -1
	for i, it := range items {
		if it.Session == m.list.SelectedID() {
			start = i
		}
	}
	for k := 1; k <= len(items); k++ {
		id := items[(start+k)%len(items)].Session
		if m.list.Select(id) {
			return nil
		}
	}
	return m.info("what waits for you is hidden by the filter")
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
	view := m.list.Visible()
	l := layout.Compute(m.w, m.h, len(view), m.mode)
	if m.mode == layout.ModeGrid {
		start, end := m.gridPage(len(l.Grid))
		for k, r := range layout.GridRects(l.Body, end-start) {
			if r.Contains(ms.X, ms.Y) {
				m.list.Select(view[start+k].ID)
				return nil
			}
		}
		return nil
	}
	if l.List.Contains(ms.X, ms.Y) {
		row := ms.Y - l.List.Y - sessions.HeaderRows
		if off := m.list.Offset(); row >= 0 && off+row < len(view) {
			m.list.SelectIndex(off + row)
		}
	}
	return nil
}

// onWheel scrolls the list.
func (m *Model) onWheel(ms tea.Mouse) tea.Cmd {
	if len(m.dialogs) > 0 || m.showHelp || m.page != pageSessions {
		return nil
	}
	switch ms.Button {
	case tea.MouseWheelUp:
		m.list.Move(-1)
	case tea.MouseWheelDown:
		m.list.Move(1)
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
