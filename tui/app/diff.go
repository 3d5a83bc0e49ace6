package app

import (
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/tui/action"
	"github.com/heimdall-tui/heimdall-tui/tui/diffview"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
)

// The diff page shows what a session changed in its git working tree
// since it started (Backend.Diff, taken off the event loop when opened:
// it runs git), with a cursor on its lines.

// diffMsg is a diff taken for the page.
type diffMsg struct {
	id   string
	diff string
	err  error
}

// openDiff takes session a.ID's diff off the event loop; diffMsg shows it.
func (m *Model) openDiff(a action.OpenDiff) tea.Cmd {
	b := m.opt.Backend
	return tea.Batch(m.info("taking the diff of "+a.ID+"…"), m.run(func() tea.Msg {
		d, err := b.Diff(a.ID)
		return diffMsg{id: a.ID, diff: d, err: err}
	}))
}

// onDiff shows a diff taken.
func (m *Model) onDiff(msg diffMsg) tea.Cmd {
	if msg.err != nil {
		return m.report(msg.err)
	}
	m.diff = diffview.New(msg.id+" since it started", msg.diff)
	m.diffID = msg.id
	m.page = pageDiff
	return m.info("")
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
	}
	return nil
}

// diffBlock draws the diff page in the body.
func (m *Model) diffBlock(l layout.Layout) layout.Block {
	return layout.Block{Rect: l.Body, Content: diffview.Render(m.st, m.diff, l.Body.W, l.Body.H)}
}
