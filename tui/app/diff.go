package app

import (
	"errors"
	"fmt"
	"strings"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/tui/action"
	"github.com/heimdall-tui/heimdall-tui/tui/dialog"
	"github.com/heimdall-tui/heimdall-tui/tui/diffview"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
)

// The diff page shows what a session changed in its git working tree
// since it started (Backend.Diff, taken off the event loop when opened:
// it runs git), with a cursor on its lines.

// diffMsg is a diff taken for the page, with the session's notes.
type diffMsg struct {
	id    string
	base  string
	quiet bool // leave the status line
	diff  string
	notes []review.Note
	err   error
}

// openDiff takes session a.ID's diff and notes off the event loop;
// diffMsg shows them.
func (m *Model) openDiff(a action.OpenDiff) tea.Cmd {
	return tea.Batch(m.info("taking the diff of "+a.ID+"…"), m.takeDiff(a, false))
}

// takeDiff takes a's diff and notes off the event loop (quiet: leaving
// the status line alone when it comes).
func (m *Model) takeDiff(a action.OpenDiff, quiet bool) tea.Cmd {
	b := m.opt.Backend
	return m.run(func() tea.Msg {
		d, err := b.Diff(a.ID, a.Base)
		if err != nil {
			return diffMsg{id: a.ID, err: err}
		}
		ns, err := b.Notes(a.ID)
		return diffMsg{id: a.ID, base: a.Base, diff: d, notes: ns, quiet: quiet, err: err}
	})
}

// onDiff shows a diff taken.
func (m *Model) onDiff(msg diffMsg) tea.Cmd {
	if msg.err != nil {
		return m.report(msg.err)
	}
	title := msg.id + " since it started"
	if msg.base != "" {
		title = msg.id + " since " + msg.base
	}
	m.diff = diffview.New(title, msg.diff)
	m.diffBase = msg.base
	m.diff.SetNotes(msg.notes)
	m.diffID = msg.id
	m.page = pageDiff
	if msg.quiet {
		return nil
	}
	return m.info("")
}

// keepNote puts a.Note in place of the note on its line (none if its
// text is empty) and keeps the notes off the event loop.
func (m *Model) keepNote(a action.Note) tea.Cmd {
	if m.diff == nil || a.ID != m.diffID {
		return nil
	}
	var ns []review.Note
	for _, n := range m.diff.Notes {
		if n.File != a.Note.File || n.Line != a.Note.Line || n.End != a.Note.End || n.Old != a.Note.Old {
			ns = append(ns, n)
		}
	}
	if strings.TrimSpace(a.Note.Text) != "" {
		ns = append(ns, a.Note)
	}
	if len(ns) > review.MaxNotes {
		return m.report(fmt.Errorf("at most %d notes", review.MaxNotes))
	}
	m.diff.SetNotes(ns)
	return m.saveNotes(a.ID, ns)
}

// saveNotes keeps ns as session id's notes off the event loop.
func (m *Model) saveNotes(id string, ns []review.Note) tea.Cmd {
	b := m.opt.Backend
	return m.run(func() tea.Msg {
		if err := b.SetNotes(id, ns); err != nil {
			return opMsg{id: id, err: err}
		}
		return nil
	})
}

// sayMsg is the outcome of typing the notes into a session.
type sayMsg struct {
	id  string
	n   int // notes sent
	err error
}

// sendNotes sends session id's notes as one prompt, now or, while it is
// not waiting at its prompt, once it is (retrySay).
func (m *Model) sendNotes(id string, ns []review.Note) tea.Cmd {
	if len(ns) == 0 {
		return m.info("no notes to send: a adds one on the line under the cursor")
	}
	m.pendingSay[id] = ns
	return m.say(id)
}

// say tries to type the pending notes of id, once at a time.
func (m *Model) say(id string) tea.Cmd {
	ns := m.pendingSay[id]
	if ns == nil || m.saying[id] {
		return nil
	}
	m.saying[id] = true
	b, text := m.opt.Backend, review.Prompt(ns)
	return m.run(func() tea.Msg { return sayMsg{id: id, n: len(ns), err: b.Say(id, text)} })
}

// onSay: sent (the notes are done with), not now (they wait, and the
// status says why), or failed.
func (m *Model) onSay(msg sayMsg) tea.Cmd {
	m.saying[msg.id] = false
	switch {
	case errors.Is(msg.err, fleet.ErrBusy):
		return m.info(fmt.Sprintf("%d notes wait for %s: %v; they go once it is idle at its prompt", msg.n, msg.id, msg.err))
	case msg.err != nil:
		delete(m.pendingSay, msg.id)
		return m.report(msg.err)
	}
	delete(m.pendingSay, msg.id)
	var cmds []tea.Cmd
	if m.diff != nil && m.diffID == msg.id {
		m.diff.SetNotes(nil)
	}
	cmds = append(cmds, m.saveNotes(msg.id, nil), m.info(fmt.Sprintf("sent %d notes to %s as one prompt", msg.n, msg.id)))
	return tea.Batch(cmds...)
}

// retrySay tries again the pending notes of the sessions now idle at
// their prompt (after a batch of events).
func (m *Model) retrySay() tea.Cmd {
	var cmds []tea.Cmd
	for id := range m.pendingSay {
		if in, ok := m.list.Find(id); !ok || !in.Alive {
			delete(m.pendingSay, id)
		} else if in.State == session.Idle && !in.NeedsInput {
			cmds = append(cmds, m.say(id))
		}
	}
	return tea.Batch(cmds...)
}

// onDiffKey handles a key on the diff page.
func (m *Model) onDiffKey(msg tea.KeyPressMsg) tea.Cmd {
	act, ok := m.opt.Keys.Lookup(keys.CtxDiff, msg)
	if !ok || m.diff == nil {
		return nil
	}
	page := max(1, m.h-4)
	switch act {
	case keys.Back:
		m.page = pageSessions
	case keys.Down:
		m.diff.Move(1)
	case keys.Up:
		m.diff.Move(-1)
	case keys.PageDown:
		m.diff.Move(page)
	case keys.PageUp:
		m.diff.Move(-page)
	case keys.NextHunk:
		m.diff.NextHunk()
	case keys.PrevHunk:
		m.diff.PrevHunk()
	case keys.NextFile:
		m.diff.NextFile()
	case keys.PrevFile:
		m.diff.PrevFile()
	case keys.Add:
		if n, ok := m.diff.NoteHere(); ok {
			m.push(dialog.NewNote(m.diffID, n))
		}
	case keys.Delete:
		if n, ok := m.diff.NoteHere(); ok && n.Text != "" {
			n.Text = ""
			return m.keepNote(action.Note{ID: m.diffID, Note: n})
		}
	case keys.SendNotes:
		return m.sendNotes(m.diffID, m.diff.Notes)
	case keys.MarkRange:
		m.diff.Mark()
		if m.diff.Marked() {
			return m.info("a range starts here: move to its last line, then a notes it (v again drops it)")
		}
		return m.info("")
	case keys.DiffBase:
		m.push(dialog.NewDiffBase(m.diffID, m.diffBase))
	case keys.Ship:
		warn := ""
		if in, ok := m.list.Find(m.diffID); ok && in.Worktree == "" {
			warn = "It commits everything in its checkout (git add -A), your own uncommitted changes there too."
		}
		m.push(dialog.NewShip(m.diffID, warn))
	}
	return nil
}

// diffBlock draws the diff page in the body.
func (m *Model) diffBlock(l layout.Layout) layout.Block {
	return layout.Block{Rect: l.Body, Content: diffview.Render(m.st, m.diff, l.Body.W, l.Body.H)}
}

// worktreeMsg says how many files of a session's worktree have
// uncommitted changes, for the question Remove asks.
type worktreeMsg struct {
	a       action.Remove
	changes int
	err     error
}

// remove forgets a dead session; one given a worktree is asked what
// becomes of it first (worktreeMsg), and a worktree with uncommitted
// changes is removed only after a second question.
func (m *Model) remove(a action.Remove, in session.Info) tea.Cmd {
	id := a.ID
	if in.Worktree == "" || a.Worktree == action.WorktreeKeep {
		return m.opGone(id, "removed "+id, func(b Backend) error { return b.Remove(id) })
	}
	b := m.opt.Backend
	if a.Worktree == action.WorktreeRemoveChanged { // the second question
		force := a
		force.Worktree, force.Force = action.WorktreeRemove, true
		m.push(dialog.NewConfirm("Remove "+id+"'s changes",
			fmt.Sprintf("The worktree %s has uncommitted changes. Remove them with it? They cannot be brought back.", in.Worktree), force))
		return nil
	}
	if a.Worktree == "" {
		return m.run(func() tea.Msg {
			n, err := b.WorktreeChanges(id)
			return worktreeMsg{a: a, changes: n, err: err}
		})
	}
	return m.opGone(id, "removed "+id+" and its worktree", func(b Backend) error {
		if err := b.RemoveWorktree(id, a.Force); err != nil {
			return err
		}
		return b.Remove(id)
	})
}

// onWorktree asks what becomes of the worktree of the session a removes.
func (m *Model) onWorktree(msg worktreeMsg) tea.Cmd {
	a := msg.a
	in, ok := m.list.Find(a.ID)
	if !ok {
		return nil
	}
	keep, rm := a, a
	keep.Worktree, rm.Worktree = action.WorktreeKeep, action.WorktreeRemove
	body := fmt.Sprintf("Remove %s. Its worktree %s (the branch stays either way):", a.ID, in.Worktree)
	switch {
	case msg.err != nil:
		body += " " + msg.err.Error()
	case msg.changes > 0:
		body = fmt.Sprintf("Remove %s. Its worktree %s has %d files with uncommitted changes: removing it loses them (the branch stays).", a.ID, in.Worktree, msg.changes)
		changed := rm
		changed.Worktree = action.WorktreeRemoveChanged
		m.push(dialog.NewChoice("Remove "+a.ID, body, []dialog.Option{{Label: "Keep the worktree", Key: "k", Action: keep},
			{Label: "Remove it and its changes", Key: "r", Action: changed},
			{Label: "Cancel", Key: "c", Action: dialog.Close{}}}, 0))
		return nil
	}
	m.push(dialog.NewChoice("Remove "+a.ID, body, []dialog.Option{{Label: "Keep the worktree", Key: "k", Action: keep},
		{Label: "Remove it", Key: "r", Action: rm}, {Label: "Cancel", Key: "c", Action: dialog.Close{}}}, 0))
	return nil
}

// shippedMsg is what Ship did.
type shippedMsg struct {
	id  string
	out review.Shipped
	err error
}

// ship commits (and pushes, opens a PR) off the event loop.
func (m *Model) ship(a action.Ship) tea.Cmd {
	b := m.opt.Backend
	return tea.Batch(m.info("shipping "+a.ID+"…"), m.run(func() tea.Msg {
		out, err := b.Ship(a.ID, a.Ship)
		return shippedMsg{id: a.ID, out: out, err: err}
	}))
}

// onShipped says what was done; the diff, shown, is taken again.
func (m *Model) onShipped(msg shippedMsg) tea.Cmd {
	if msg.err != nil {
		return m.report(msg.err)
	}
	o := msg.out
	say := fmt.Sprintf("%s: committed %s on %s", msg.id, o.Commit, o.Branch)
	if o.Pushed != "" {
		say += ", pushed to " + o.Pushed
	}
	switch {
	case o.PR != "":
		say += ", pull request " + o.PR
	case o.NoPR != "":
		say += "; no pull request: " + o.NoPR
	}
	cmds := []tea.Cmd{m.info(say)}
	if m.page == pageDiff && m.diffID == msg.id {
		cmds = append(cmds, m.takeDiff(action.OpenDiff{ID: msg.id, Base: m.diffBase}, true))
	}
	return tea.Batch(cmds...)
}
