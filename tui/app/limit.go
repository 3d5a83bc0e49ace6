package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/tui/action"
)

// Usage limits: P parks a session (heimdall sends it nothing), W schedules
// a limited one to continue once its limit resets — a gap after every
// other continue scheduled then, so sessions stopped by one limit do not
// all start at its reset. The schedule is kept by each session's
// supervisor. With a daily token budget, a session is parked instead
// once today's tokens reach it, and continues scheduled then are parked.

// park carries out a Park.
func (m *Model) park(a action.Park) tea.Cmd {
	done := "parked " + a.ID + ": heimdall sends it nothing"
	if !a.On {
		done = "unparked " + a.ID
	}
	return m.op(a.ID, done, func(b Backend) error { return b.Park(a.ID, a.On) })
}

// continueAfter carries out a ContinueAfter on in.
func (m *Model) continueAfter(in session.Info) tea.Cmd {
	if spent, used := m.budgetUsed(); spent {
		return m.op(in.ID, fmt.Sprintf("today's token budget is spent (%s of %s): parked %s instead",
			tokens(used), tokens(m.opt.DailyBudget), in.ID), func(b Backend) error { return b.Park(in.ID, true) })
	}
	var taken []time.Time
	for _, o := range m.list.All() {
		if o.ID != in.ID && !o.ContinueAt.IsZero() {
			taken = append(taken, o.ContinueAt)
		}
	}
	at := staggered(in.LimitReset, taken, m.opt.ResumeGap)
	text := m.opt.ContinueText
	if text == "" {
		text = "continue"
	}
	return m.op(in.ID, fmt.Sprintf("%s continues at %s (its limit resets %s)", in.ID, at.Local().Format("15:04:05"),
		in.LimitReset.Local().Format("15:04")), func(b Backend) error { return b.Continue(in.ID, at, text) })
}

// staggered is the first time from base that is at least gap from every
// time taken.
func staggered(base time.Time, taken []time.Time, gap time.Duration) time.Time {
	slices.SortFunc(taken, time.Time.Compare)
	at := base
	for _, t := range taken {
		if d := t.Sub(at); d > -gap && d < gap {
			at = t.Add(gap)
		}
	}
	return at
}

// today is the local date usage rows are kept under.
func (m *Model) today() string { return m.now().Format(time.DateOnly) }

// budgetUsed says whether today's tokens, over every session, have
// reached the daily budget (never without one), and how many they are.
func (m *Model) budgetUsed() (bool, int64) {
	var used int64
	day := m.today()
	for _, in := range m.list.All() {
		used += in.Usage.Day(day).Total()
	}
	return m.opt.DailyBudget > 0 && used >= m.opt.DailyBudget, used
}

// checkBudget parks the sessions with a continue scheduled once today's
// budget is spent (once a day).
func (m *Model) checkBudget() tea.Cmd {
	spent, used := m.budgetUsed()
	if !spent || m.budgetSpent == m.today() {
		return nil
	}
	m.budgetSpent = m.today()
	var ids []string
	for _, in := range m.list.All() {
		if in.Alive && !in.ContinueAt.IsZero() && !in.Parked {
			ids = append(ids, in.ID)
		}
	}
	say := fmt.Sprintf("today's token budget is spent (%s of %s)", tokens(used), tokens(m.opt.DailyBudget))
	if len(ids) == 0 {
		return m.info(say)
	}
	return m.op(ids[0], say+": parked "+strings.Join(ids, ", "), func(b Backend) error {
		var errs []error
		for _, id := range ids {
			errs = append(errs, b.Park(id, true))
		}
		return errors.Join(errs...)
	})
}

// tokens is n as the user reads it: 950, 12.3k, 4.1M.
func tokens(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}
