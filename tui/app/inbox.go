package app

import (
	"fmt"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/inbox"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/tui/action"
	"github.com/heimdall-tui/heimdall-tui/tui/dialog"
	inboxview "github.com/heimdall-tui/heimdall-tui/tui/inbox"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
)

// The inbox page lists what wants the user (backend/inbox) with the
// selected item's session drawn beside it. Its selection is its own (a
// session ID: a session has one item at most), not the session list's: an
// item looked at in the inbox is not seen (a Done one would vanish under
// the cursor); going to its session (enter) or attaching sees it.

// inboxItems are the items of every session listed.
func (m *Model) inboxItems() []inbox.Item { return inbox.Items(m.list.All()) }

// inboxIndex is the selected item's index in items (0 when the selected
// session has no item any more).
func (m *Model) inboxIndex(items []inbox.Item) int {
	for i, it := range items {
		if it.Session == m.inboxSel {
			return i
		}
	}
	return 0
}

// inboxSelected is the selected item's session, if the inbox has any item.
func (m *Model) inboxSelected() (session.Info, bool) {
	items := m.inboxItems()
	if len(items) == 0 {
		return session.Info{}, false
	}
	return m.list.Find(items[m.inboxIndex(items)].Session)
}

// openInbox shows the inbox (or, shown, closes it), its newest item
// selected.
func (m *Model) openInbox() tea.Cmd {
	if m.page == pageInbox {
		m.page = pageSessions
		return nil
	}
	m.page = pageInbox
	if items := m.inboxItems(); len(items) > 0 {
		m.inboxSel = items[0].Session
	}
	return nil
}

// moveInbox moves the inbox selection by n items, wrapping.
func (m *Model) moveInbox(n int) {
	items := m.inboxItems()
	if len(items) == 0 {
		return
	}
	i := (m.inboxIndex(items) + n%len(items) + len(items)) % len(items)
	m.inboxSel = items[i].Session
}

// onInboxKey handles a key on the inbox page.
func (m *Model) onInboxKey(msg tea.KeyPressMsg) tea.Cmd {
	act, ok := m.opt.Keys.Lookup(keys.CtxInbox, msg)
	if !ok {
		return nil
	}
	switch act {
	case keys.Back:
		m.page = pageSessions
		return nil
	case keys.Up:
		m.moveInbox(-1)
		return nil
	case keys.Down, keys.NextAttention:
		m.moveInbox(1)
		return nil
	}
	in, ok := m.inboxSelected()
	if !ok {
		return m.info("nothing waits for you")
	}
	if act == keys.Accept {
		m.page = pageSessions
		if !m.list.Select(in.ID) {
			m.list.SetFilter("") // shown whatever the filter hid
			m.list.Select(in.ID)
		}
		return nil
	}
	if a := answerAction(act, in.ID, msg); a != nil {
		return m.exec(a)
	}
	return nil
}

// answerAction is the answer a key asks for on session id (nil if the
// key is no answer key).
func answerAction(k keys.Action, id string, msg tea.KeyPressMsg) action.Action {
	choice := func(c answer.Choice) action.Action { return action.Answer{ID: id, Choice: c} }
	switch k {
	case keys.Allow:
		return choice(answer.Choice{Kind: answer.Allow})
	case keys.AllowAlways:
		return choice(answer.Choice{Kind: answer.Always})
	case keys.Deny:
		return choice(answer.Choice{Kind: answer.Deny})
	case keys.AnswerOption:
		if s := msg.String(); len(s) == 1 && s[0] >= '1' && s[0] <= '9' {
			return choice(answer.Choice{Kind: answer.Option, Option: int(s[0] - '0')})
		}
	case keys.AnswerText:
		return action.OpenAnswerText{ID: id}
	}
	return nil
}

// answeredMsg is an answer's outcome.
type answeredMsg struct {
	id    string
	given answer.Given
	err   error
}

// answer sends an answer off the event loop (a dial and a round trip to
// the session's supervisor).
func (m *Model) answer(a action.Answer) tea.Cmd {
	b := m.opt.Backend
	return m.run(func() tea.Msg {
		g, err := b.Answer(a.ID, a.Choice, "")
		return answeredMsg{id: a.ID, given: g, err: err}
	})
}

// onAnswered reports an answer's outcome on the status line; a refusal
// (nothing was typed) offers to attach, so that the user answers in the
// agent's own terminal.
func (m *Model) onAnswered(msg answeredMsg) tea.Cmd {
	if msg.err != nil {
		if in, ok := m.list.Find(msg.id); ok && in.Alive && in.Caps.Has(session.CapAttach) {
			m.push(dialog.NewConfirm("Not answered", msg.err.Error()+"\n\nNothing was typed. Attach to "+msg.id+" to answer it there?",
				action.Attach{ID: msg.id}))
			return nil
		}
		return m.report(msg.err)
	}
	return m.info(fmt.Sprintf("answered %s: %d. %s", msg.id, msg.given.Option, msg.given.Label))
}

// openAnswerText asks for the words of an answer to in's question.
func (m *Model) openAnswerText(in session.Info) {
	m.push(dialog.NewAnswerText(in.ID, in.Reason))
}

// inboxBlocks draws the inbox page in l's body: the items where the list
// goes (at least half the width when the terminal is narrow) and the
// selected item's session beside them, as the split layout does.
func (m *Model) inboxBlocks(l layout.Layout) []layout.Block {
	items := m.inboxItems()
	sel := m.inboxIndex(items)
	body := l.Body
	listW := min(body.W, max(body.W/2, 48))
	if body.W < 80 {
		listW = body.W // a narrow split: the items alone
	}
	hint := m.st.Muted.Render(m.answerHint())
	list := layout.Block{Rect: layout.Rect{X: body.X, Y: body.Y, W: listW, H: body.H},
		Content: inboxview.View(m.st, items, sel, m.now(), hint, listW, body.H)}
	if listW == body.W {
		return []layout.Block{list}
	}
	in, ok := m.inboxSelected()
	pr := layout.Rect{X: body.X + listW, Y: body.Y, W: body.W - listW, H: body.H}
	return []layout.Block{list, {Rect: pr, Content: m.paneOf(in, ok, pr, false)}}
}

// answerHint names the answer keys, as bound (the footer has the rest).
func (m *Model) answerHint() string {
	return fmt.Sprintf("%s allow · %s always · %s deny · 1-9 option · %s words · %s go to it",
		m.keyFor(keys.Allow), m.keyFor(keys.AllowAlways), m.keyFor(keys.Deny), m.keyFor(keys.AnswerText), m.keyFor(keys.Accept))
}
