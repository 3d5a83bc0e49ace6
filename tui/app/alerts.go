package app

import (
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/inbox"
)

// Alerter tells the user of an inbox item that came while the dashboard
// runs: Sequence is what to write to the terminal for it (a desktop
// notification; "" for none), Run does the rest (notify_command) and is
// called off the event loop. The dashboard's is built from the config
// (notify, notify_command); the app decides when.
type Alerter interface {
	Sequence(it inbox.Item) string
	Run(it inbox.Item) error
}

// checkInbox alerts for each item new since the last check (by Key: a
// session that asks again, or asks something else, is a new item; one that
// is merely re-read is not) unless the user is looking at its session:
// the terminal gets the Alerter's sequence, and the bell for one that
// needs input when Bell is set (not while a session has the terminal), and
// the Alerter runs. The items there at the start alert nobody: they came
// while no dashboard watched, which the sessions' own notifications cover.
func (m *Model) checkInbox() tea.Cmd {
	items := m.inboxItems()
	known := make(map[string]bool, len(items))
	var cmds []tea.Cmd
	for _, it := range items {
		known[it.Key()] = true
		if m.alerted == nil || m.alerted[it.Key()] || m.lookingAt(it.Session) {
			continue
		}
		if in, _ := m.list.Find(it.Session); in.Viewed {
			continue // a user looks at it elsewhere (attached, a page, another dashboard)
		}
		cmds = append(cmds, m.alert(it))
	}
	m.alerted = known
	return tea.Batch(cmds...)
}

// lookingAt reports whether the user looks at session id here: it is
// attached, or focused on the session page.
func (m *Model) lookingAt(id string) bool {
	if m.attachedID != "" {
		return m.attachedID == id
	}
	return m.page == pageSessions && !m.showHelp && m.list.SelectedID() == id
}

// declareView tells the sessions when the one the user looks at here
// changes (the focused one on the session page), off the event loop, so
// that other clients leave it alone too (session.Info.Viewed).
func (m *Model) declareView() tea.Cmd {
	want := ""
	if m.page == pageSessions && !m.showHelp && !m.quitting && m.attachedID == "" {
		want = m.list.SelectedID()
	}
	if want == m.viewing {
		return nil
	}
	was := m.viewing
	m.viewing = want
	b, log := m.opt.Backend, m.opt.Logger
	return m.run(func() tea.Msg {
		for id, on := range map[string]bool{was: false, want: true} {
			if id == "" {
				continue
			}
			if err := b.View(id, on); err != nil {
				log.Debug("view", "id", id, "on", on, "err", err)
			}
		}
		return nil
	})
}

// alert tells the user of it.
func (m *Model) alert(it inbox.Item) tea.Cmd {
	var seq string
	a := m.opt.Alerter
	if a != nil {
		seq = a.Sequence(it)
	}
	if m.opt.Bell && it.Kind == inbox.Input {
		seq += "\a"
	}
	var cmds []tea.Cmd
	if seq != "" && m.attachedID == "" {
		cmds = append(cmds, tea.Raw(seq))
	}
	if a != nil {
		log := m.opt.Logger
		cmds = append(cmds, m.run(func() tea.Msg {
			if err := a.Run(it); err != nil {
				log.Warn("alert", "session", it.Session, "kind", it.Kind, "err", err)
			}
			return nil
		}))
	}
	return tea.Batch(cmds...)
}
