package app

import (
	"errors"
	"fmt"
	"slices"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/action"
	"github.com/heimdall-tui/heimdall-tui/tui/dialog"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
)

// apply carries out a dialog's action: the dialog closes, then exec runs
// the action. nil means the dialog stays open.
func (m *Model) apply(act action.Action) tea.Cmd {
	if act == nil {
		return nil
	}
	switch act.(type) {
	case action.Spawn, action.SpawnHeadless:
		if m.spawnForm() != nil {
			// The form stays open until the spawn is done: a name
			// taken or a program missing is said there, the form kept
			// (onOp).
			return m.exec(act)
		}
	}
	m.pop()
	return m.exec(act)
}

// spawnForm is the spawn dialog on top of the stack, or nil.
func (m *Model) spawnForm() *dialog.SpawnDialog {
	if n := len(m.dialogs); n > 0 {
		if d, ok := m.dialogs[n-1].(*dialog.SpawnDialog); ok {
			return d
		}
	}
	return nil
}

// exec carries out an action, whichever of a key, a dialog or a ':'
// command asked for it: the one place actions take effect. An action on a
// session the list does not know, or that action.Check refuses for it, is
// reported (report) and does nothing.
func (m *Model) exec(act action.Action) tea.Cmd {
	if id := action.Target(act); id != "" {
		in, ok := m.list.Find(id)
		if !ok {
			return m.report(fmt.Errorf("no session %q", id))
		}
		if err := action.Check(act, in); err != nil {
			return m.report(err)
		}
		return m.execSession(act, in)
	}
	switch a := act.(type) {
	case action.Close:
		return nil
	case action.Error:
		return m.report(a.Err)
	case action.Quit:
		if a.Confirmed {
			return m.quit(a.Stop)
		}
		return m.requestQuit()
	case action.Theme:
		p, err := themes.ByName(a.Name)
		if err != nil {
			return m.report(err)
		}
		m.opt.Theme = p
		m.st = themes.Build(p, m.opt.NoColor)
		return m.info("theme " + p.Name)
	case action.Spawn:
		return m.spawn(a)
	case action.SpawnHeadless:
		return m.spawnHeadless(a)
	case action.ResumeAll:
		return m.resumeAll(a)
	case action.OpenSpawn:
		d := dialog.NewSpawnPending(m.opt.DefaultDir, m.opt.Classifiers)
		if m.opt.Headless != nil {
			d.OfferHeadless(m.opt.Headless.Kinds()...)
		}
		return m.pushForPresets(d)
	case action.OpenCommand:
		d := dialog.NewCommandPending(m.ids())
		if m.opt.Headless != nil {
			d.OfferHeadless(m.opt.Headless.Kinds()...)
		}
		return m.pushForPresets(d)
	case action.Page:
		if a.Name == string(keys.Inbox) {
			return m.openInbox()
		}
		return m.openPage(pageKeys[keys.Action(a.Name)])
	}
	return m.execView(act)
}

// execView carries out the actions that change only what is shown.
func (m *Model) execView(act action.Action) tea.Cmd {
	switch a := act.(type) {
	case action.Mode:
		m.setMode(a.Name)
	case action.Back:
		switch {
		case m.showHelp:
			m.showHelp = false
		case m.mode == layout.ModeZoom:
			m.mode = m.prevMode()
		case m.mode == layout.ModeGrid:
			m.mode = layout.ModeSplit
		case m.list.Filter() != "":
			m.list.SetFilter("")
		}
	case action.Move:
		if m.showHelp {
			_, last := m.helpView()
			m.helpTop = min(max(m.helpTop+a.By, 0), last)
			break
		}
		m.list.Move(a.By)
	case action.NextAttention:
		return m.nextAttention()
	case action.Filter:
		m.list.SetTyping(true)
	case action.Sort:
		order := m.list.NextOrder().String()
		cmd := m.info("sorted by " + order)
		if save := m.opt.SaveSort; save != nil {
			log := m.opt.Logger
			return tea.Batch(cmd, func() tea.Msg {
				if err := save(order); err != nil {
					log.Warn("sort order not kept", "err", err)
				}
				return nil
			})
		}
		return cmd
	default:
		return m.report(fmt.Errorf("unhandled action %T", act))
	}
	return nil
}

// setMode shows a layout or the help ("grid", "zoom", "split", "help").
// It sets rather than toggles: zooming while zoomed keeps the mode the
// zoom returns to, so `g z z` and `g :zoom :zoom z` both end in the grid.
// Zooming needs a selected session.
func (m *Model) setMode(name string) {
	switch name {
	case "help":
		m.showHelp, m.helpTop = true, 0
	case "grid":
		m.mode = layout.ModeGrid
	case "zoom":
		if _, ok := m.selected(); ok && m.mode != layout.ModeZoom {
			m.zoomFrom, m.mode = m.mode, layout.ModeZoom
		}
	default:
		m.mode = layout.ModeSplit
	}
}

// execSession carries out an action on in, which action.Check allowed.
// Backend calls go to a Cmd (see op).
func (m *Model) execSession(act action.Action, in session.Info) tea.Cmd {
	id := in.ID
	switch a := act.(type) {
	case action.Attach:
		m.list.Select(id)
		return m.attach(id)
	case action.OpenSend:
		m.push(dialog.NewSend(id, showsTranscript(in)))
	case action.OpenAnswerText:
		m.openAnswerText(in)
	case action.Answer:
		return m.answer(a)
	case action.OpenDiff:
		return m.openDiff(a)
	case action.Note:
		return m.keepNote(a)
	case action.Ship:
		return m.ship(a)
	case action.OpenResize:
		m.push(dialog.NewResize(id, uint16(in.Cols), uint16(in.Rows)))
	case action.Send:
		// Enter for a terminal; a session that takes messages takes the
		// text as one message, without it (session.Input).
		data := []byte(a.Text + "\r")
		if showsTranscript(in) {
			data = []byte(a.Text)
		}
		return m.op(id, "sent to "+id, func(b Backend) error { return b.Send(id, session.Input{Data: data}) })
	case action.Resize:
		cols, rows := m.fitSize(a)
		return m.op(id, fmt.Sprintf("%s resized to %d×%d", id, cols, rows),
			func(b Backend) error { return b.Resize(id, cols, rows) })
	case action.Kill:
		headless := showsTranscript(in) // closed, not killed: it has no terminal
		if !a.Confirmed {
			title, text := "Kill "+id, dialog.KillText(id, m.opt.KillGrace, a.Force)
			if a.Force {
				title += " now"
			}
			if headless {
				title, text = "Close "+id, dialog.CloseText(id, in.Kind)
			}
			a.Confirmed = true
			m.push(dialog.NewConfirm(title, text, a))
			return nil
		}
		done := fmt.Sprintf("SIGTERM sent to %s (SIGKILL after %s)", id, m.opt.KillGrace)
		switch {
		case headless:
			done = "closed " + id
		case a.Force:
			done = "SIGKILL sent to " + id
		}
		return m.op(id, done, func(b Backend) error { return b.Kill(id, a.Force) })
	case action.Remove:
		return m.remove(a, in)
	case action.Restart:
		if in.ResumesConversation() && !a.Resume && !a.Fresh {
			// Its agent said which conversation it was in: go on with it
			// (the default) or start afresh. The choice is the confirmation.
			running := ""
			if in.Alive {
				running = " It is running: " + dialog.KillText(id, m.opt.KillGrace, false)
			}
			resume, fresh := a, a
			resume.Confirmed, resume.Resume = true, true
			fresh.Confirmed, fresh.Fresh = true, true
			m.push(dialog.NewChoice("Restart "+id, "Restart "+id+" in its conversation ("+in.Conversation+"), or afresh?"+m.contextCost(in)+running,
				[]dialog.Option{{Label: "Resume", Key: "r", Action: resume}, {Label: "Fresh", Key: "f", Action: fresh},
					{Label: "Cancel", Key: "c", Action: dialog.Close{}}}, 0))
			return nil
		}
		if in.Alive && !a.Confirmed {
			a.Confirmed = true
			m.push(dialog.NewConfirm("Restart "+id, "Restart "+id+"? It is running: "+
				dialog.KillText(id, m.opt.KillGrace, false)+" Then it starts again with the same command.", a))
			return nil
		}
		switch {
		case a.Resume:
			return m.op(id, "resuming "+id+" in "+in.Conversation, func(b Backend) error { return b.Resume(id) })
		case a.Fresh:
			return m.op(id, "restarting "+id+" afresh", func(b Backend) error { return b.RestartFresh(id) })
		}
		return m.op(id, "restarting "+id, func(b Backend) error { return b.Restart(id) })
	case action.Interrupt:
		return m.op(id, "interrupted "+id, func(b Backend) error { return b.Interrupt(id) })
	case action.Park:
		return m.park(a)
	case action.ContinueAfter:
		return m.continueAfter(in)
	default:
		return m.report(fmt.Errorf("unhandled action %T", act))
	}
	return nil
}

// fitSize is the size a Resize asks for.
func (m *Model) fitSize(a action.Resize) (cols, rows uint16) {
	switch a.Fit {
	case action.FitPane:
		return m.paneSize(m.mode)
	case action.FitTerminal:
		return uint16(max(1, m.w)), uint16(max(1, m.h))
	}
	return a.Cols, a.Rows
}

// paneSize is the inner size of the focused pane in mode: what "fit to
// pane" resizes to and what a new session starts with.
func (m *Model) paneSize(mode layout.Mode) (cols, rows uint16) {
	l := layout.Compute(m.w, m.h, len(m.list.Visible()), mode)
	r := l.Preview
	if mode == layout.ModeGrid && len(l.Grid) > 0 {
		r = l.Grid[0]
	}
	return uint16(max(1, r.W-2)), uint16(max(1, r.H-2))
}

// opMsg is the result of a Backend call made by a Cmd.
type opMsg struct {
	id string // the session it acted on ("" for a spawn)
	// gone: the call makes the session leave the list (remove), so its
	// result stands when the session has gone.
	gone    bool
	done    string // the status line on success
	err     error
	spawned string // the session a spawn started
}

// op returns the Cmd that makes a Backend call on session id off the event
// loop (a kill or a send to a session of another supervisor writes to its
// socket, a restart forks); onOp reports its result.
func (m *Model) op(id, done string, call func(Backend) error) tea.Cmd {
	b := m.opt.Backend
	return m.run(func() tea.Msg { return opMsg{id: id, done: done, err: call(b)} })
}

// opGone is op for a call that removes the session.
func (m *Model) opGone(id, done string, call func(Backend) error) tea.Cmd {
	b := m.opt.Backend
	return m.run(func() tea.Msg { return opMsg{id: id, gone: true, done: done, err: call(b)} })
}

// spawn starts a session off the event loop (a PATH lookup, a lock file
// and a fork: milliseconds); a zero size is the focused pane's.
func (m *Model) spawn(a action.Spawn) tea.Cmd {
	spec := a.Spec
	if spec.NewWorktree != nil {
		w := *spec.NewWorktree
		w.Copy = m.opt.WorktreeCopy
		spec.NewWorktree = &w
	}
	if spec.Cols == 0 || spec.Rows == 0 {
		spec.Cols, spec.Rows = m.paneSize(m.mode)
	}
	b := m.opt.Backend
	return m.run(func() tea.Msg {
		id, err := b.Spawn(spec)
		return opMsg{done: "started " + id, err: err, spawned: id}
	})
}

// spawnHeadless opens a session of an event-driven kind off the event
// loop (its program starts: up to seconds), when the dashboard can open
// that kind (Options.Headless).
func (m *Model) spawnHeadless(a action.SpawnHeadless) tea.Cmd {
	h := m.opt.Headless
	kind := a.Spec.Kind
	if kind == "" {
		kind = session.KindHeadless
	}
	if h == nil || !slices.Contains(h.Kinds(), kind) {
		err := fmt.Errorf("cannot open %s here: %s", kind.Describe(), kindNeeds[kind])
		if d := m.spawnForm(); d != nil {
			d.SetError(err)
			return nil
		}
		return m.report(err)
	}
	return m.run(func() tea.Msg {
		id, err := h.Open(a.Spec)
		return opMsg{done: "started " + id + " (" + kind.Describe() + ")", err: err, spawned: id}
	})
}

// kindNeeds says what the dashboard needs to open a kind.
var kindNeeds = map[session.Kind]string{
	session.KindHeadless: "headless sessions need blemeesd in the dashboard: --blemeesd or config [blemeesd] enabled",
	session.KindHeddle:   "heddle workers need a worker command: config [heddle] command",
}

// onOp reports a Backend call's result. A result about a session that has
// left the list meanwhile (and whose call did not remove it) is dropped:
// there is nothing left to say it about.
func (m *Model) onOp(msg opMsg) tea.Cmd {
	if msg.gone || msg.spawned != "" {
		m.reload()
	}
	if msg.id != "" && !msg.gone {
		if _, ok := m.list.Find(msg.id); !ok {
			m.opt.Logger.Info("result for a session that has gone", "id", msg.id, "err", msg.err)
			return nil
		}
	}
	if d := m.spawnForm(); d != nil && msg.id == "" && !msg.gone {
		// A spawn from the form: it closes on success, and shows the
		// error in place otherwise.
		if msg.err != nil {
			d.SetError(msg.err)
			return nil
		}
		m.pop()
	}
	if msg.err != nil {
		return m.report(msg.err)
	}
	if msg.spawned != "" {
		m.list.SelectWhenShown(msg.spawned)
	}
	return m.info(msg.done)
}

// endpointMsg is an attachment opened by a Cmd (Endpoint dials the socket
// of a session another supervisor serves).
type endpointMsg struct {
	id  string
	ep  attach.Endpoint
	err error
}

// attach opens the session's Endpoint off the event loop; onEndpoint hands
// it the terminal.
func (m *Model) attach(id string) tea.Cmd {
	if m.attaching != "" || m.attachedID != "" {
		return nil // one attach at a time (enter pressed twice)
	}
	m.attaching = id
	b := m.opt.Backend
	return m.run(func() tea.Msg {
		ep, err := b.Endpoint(id)
		return endpointMsg{id: id, ep: ep, err: err}
	})
}

// onEndpoint hands the terminal to the session until the detach key,
// unless it has exited or gone while the endpoint was opened (the
// endpoint is closed then, and the reason reported).
func (m *Model) onEndpoint(msg endpointMsg) tea.Cmd {
	if msg.id != m.attaching {
		closeEndpoint(msg.ep)
		return nil
	}
	m.attaching = ""
	if msg.err != nil {
		return m.report(msg.err)
	}
	in, ok := m.list.Find(msg.id)
	if !ok {
		closeEndpoint(msg.ep)
		return nil
	}
	if err := action.Check(action.Attach{ID: in.ID}, in); err != nil {
		closeEndpoint(msg.ep)
		return m.report(err)
	}
	m.attachedID = in.ID
	x := &attachExec{ep: msg.ep, detach: m.opt.Keys.Detach}
	id := in.ID
	return tea.Exec(x, func(err error) tea.Msg {
		return attachDoneMsg{id: id, res: x.res, err: errors.Join(err, x.err)}
	})
}

func closeEndpoint(ep attach.Endpoint) {
	if ep != nil {
		ep.Close()
	}
}
