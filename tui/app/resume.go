package app

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/tui/action"
	"github.com/heimdall-tui/heimdall-tui/tui/dialog"
	"github.com/heimdall-tui/heimdall-tui/tui/sessions"
)

// Sessions started again one at a time: the lost ones after a crash or a
// reboot (A, or [resume] lost = "all"). One starts, then the next after
// Options.ResumeGap, so that a dozen agents resuming at once do not spend
// a usage window in minutes. The queue lives in this dashboard: quitting
// it drops what was not started yet.

// resumeNextMsg starts the next queued session.
type resumeNextMsg struct{}

// resumedMsg is the end of one queued start.
type resumedMsg struct {
	id  string
	err error
}

// lostShown are the lost sessions the list shows (the filter narrows it),
// in its order.
func (m *Model) lostShown() []string {
	var ids []string
	for _, in := range m.list.Visible() {
		if in.Lost {
			ids = append(ids, in.ID)
		}
	}
	return ids
}

// showLost, when sessions were lost with their supervisors, says how
// many, when they were last seen and how to get them back; with [resume]
// lost = "all" it starts resuming them.
func (m *Model) showLost() tea.Cmd {
	var lost []session.Info
	for _, in := range m.list.All() {
		if in.Lost {
			lost = append(lost, in)
		}
	}
	if len(lost) == 0 {
		return nil
	}
	last := slices.MaxFunc(lost, func(a, b session.Info) int { return a.LastSeen.Compare(b.LastSeen) })
	what := lost[0].ID + " was lost with its supervisor"
	if len(lost) > 1 {
		what = fmt.Sprintf("%d sessions were lost together", len(lost))
	}
	what += " (" + sessions.LostNote(last) + ")"
	if m.opt.ResumeLost {
		ids := make([]string, len(lost))
		for i, in := range lost {
			ids[i] = in.ID
		}
		return tea.Batch(m.info(what+": resuming them one at a time"), m.exec(action.ResumeAll{IDs: ids, Confirmed: true}))
	}
	return m.info(what + ": R resumes one, A all")
}

// resumeAll queues a's sessions (asking first unless it is confirmed).
func (m *Model) resumeAll(a action.ResumeAll) tea.Cmd {
	if len(a.IDs) == 0 {
		return m.info("no lost session shown: A resumes the lost sessions the list shows")
	}
	if !a.Confirmed {
		a.Confirmed = true
		m.push(dialog.NewConfirm("Resume "+plural(len(a.IDs), "session"), m.resumeText(a.IDs), a))
		return nil
	}
	for _, id := range a.IDs {
		if !slices.Contains(m.resumeQ, id) && id != m.resuming {
			m.resumeQ = append(m.resumeQ, id)
		}
	}
	if m.resuming != "" || m.resumeWait {
		return nil // the queue is moving
	}
	return m.resumeNext()
}

// resumeText says what resuming ids does, and what their contexts cost
// to send again (tokens; a cost where Claude estimated one or the config
// prices the model).
func (m *Model) resumeText(ids []string) string {
	var convo, cmd []string
	var tokensAll int64
	var usd float64
	priced := true
	for _, id := range ids {
		in, ok := m.list.Find(id)
		if !ok || !in.ResumesConversation() {
			cmd = append(cmd, id)
			continue
		}
		c := id
		if in.Resume.Tokens > 0 {
			c += " (" + tokens(in.Resume.Tokens) + ")"
			tokensAll += in.Resume.Tokens
		}
		if cost, ok := m.opt.Prices.ResumeCost(in.Resume); ok {
			usd += cost
		} else {
			priced = false
		}
		convo = append(convo, c)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Start %s again, one at a time, %s apart?", plural(len(ids), "session"), m.opt.ResumeGap)
	if len(convo) > 0 {
		fmt.Fprintf(&b, " In their conversations: %s.", strings.Join(convo, ", "))
	}
	if tokensAll > 0 {
		fmt.Fprintf(&b, " Their first requests re-send %s tokens of context", tokens(tokensAll))
		if priced && usd > 0 {
			fmt.Fprintf(&b, " (about %.2f to cache again)", usd)
		}
		b.WriteString(".")
	}
	if len(cmd) > 0 {
		fmt.Fprintf(&b, " With their commands: %s.", strings.Join(cmd, ", "))
	}
	return b.String()
}

// contextCost says what going on with in's conversation re-sends, and
// what caching it again costs where that is known ("" when nothing is).
func (m *Model) contextCost(in session.Info) string {
	if in.Resume.Tokens == 0 {
		return ""
	}
	s := " Going on re-sends " + tokens(in.Resume.Tokens) + " tokens of context"
	if cost, ok := m.opt.Prices.ResumeCost(in.Resume); ok {
		s += fmt.Sprintf(" (about %.2f to cache again)", cost)
	}
	return s + "."
}

// resumeNext starts the first queued session that is still not running.
func (m *Model) resumeNext() tea.Cmd {
	m.resumeWait = false
	for len(m.resumeQ) > 0 {
		id := m.resumeQ[0]
		m.resumeQ = m.resumeQ[1:]
		in, ok := m.list.Find(id)
		if !ok || in.Alive {
			continue // removed, or started meanwhile
		}
		m.resuming = id
		b := m.opt.Backend
		convo := in.ResumesConversation()
		return m.run(func() tea.Msg {
			if convo {
				return resumedMsg{id, b.Resume(id)}
			}
			return resumedMsg{id, b.Restart(id)}
		})
	}
	m.resuming = ""
	return nil
}

// onResumed reports one start and arms the next after the gap.
func (m *Model) onResumed(msg resumedMsg) tea.Cmd {
	m.resuming = ""
	var say tea.Cmd
	if msg.err != nil {
		say = m.report(fmt.Errorf("resume %s: %w", msg.id, msg.err))
	} else {
		s := "resumed " + msg.id
		if n := len(m.resumeQ); n > 0 {
			s += fmt.Sprintf("; %d more, the next in %s", n, m.opt.ResumeGap)
		}
		say = m.info(s)
	}
	if len(m.resumeQ) == 0 {
		return say
	}
	m.resumeWait = true
	return tea.Batch(say, tea.Tick(m.opt.ResumeGap, func(time.Time) tea.Msg { return resumeNextMsg{} }))
}

// plural is "1 session", "3 sessions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
