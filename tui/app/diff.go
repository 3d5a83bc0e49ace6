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
	diff  string
	notes []review.Note
	err   error
}

// openDiff takes session a.ID's diff and notes off the event loop;
// diffMsg shows them.
func (m *Model) openDiff(a action.OpenDiff) tea.Cmd {
	b := m.opt.Backend
	return tea.Batch(m.info("taking the diff of "+a.ID+"…"), m.run(func() tea.Msg {
		d, err := b.Diff(a.ID)
		if err != nil {
			return diffMsg{id: a.ID, err: err}
		}
		ns, err := b.Notes(a.ID)
		return diffMsg{id: a.ID, diff: d, notes: ns, err: err}
	}))
}

// onDiff shows a diff taken.
func (m *Model) onDiff(msg diffMsg) tea.Cmd {
	if msg.err != nil {
		return m.report(msg.err)
	}
	m.diff = diffview.New(msg.id+" since it started", msg.diff)
	m.diff.SetNotes(msg.notes)
	m.diffID = msg.id
	m.page = pageDiff
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
		if n.File != a.Note.File || n.Line != a.Note.Line || n.Old != a.Note.Old {
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
	}
	return nil
}

// diffBlock draws the diff page in the body.
func (m *Model) diffBlock(l layout.Layout) layout.Block {
	return layout.Block{Rect: l.Body, Content: diffview.Render(m.st, m.diff, l.Body.W, l.Body.H)}
}
