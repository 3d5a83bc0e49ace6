package app

import (
	"context"
	"errors"
	"fmt"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/coord"
	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

// Planning is what the ledger, blackboard and capsule views need from the
// .planning/ tree. LivePlanning implements it; tests use a stub. Every
// call reads or writes files, so the model only calls them from Cmds.
type Planning interface {
	Root() string
	LedgerReport(latest int) (planning.LedgerReport, error)
	Facts() (planning.Facts, error)
	// SetFact and DeleteFact refuse with an error wrapping
	// planning.ErrConflict if the blackboard changed since expected.
	SetFact(key, value string, expected planning.Version) (planning.Version, error)
	DeleteFact(key string, expected planning.Version) (planning.Version, error)
	CapsuleIDs() ([]string, error)
	Hydrate(id string) (string, error)
	// Claims are the coordination ledger's active claims (backend/coord).
	Claims() ([]coord.Claim, error)
	// Decisions returns the last n entries of the coordination ledger's
	// decisions.md, oldest first.
	Decisions(n int) ([]coord.Decision, error)
	// NextChange blocks until planning files change (or ctx ends).
	NextChange(ctx context.Context) (planning.Changes, error)
}

// page is what the body shows: the sessions (list, grid or zoom) or one of
// the planning views.
type page uint8

const (
	pageSessions page = iota
	pageLedger
	pageBlackboard
	pageCapsules
	pageInbox // not a planning view: see inbox.go
	pageDiff  // what a session changed: see diff.go
)

// pageKeys are the actions that open (or, pressed again, close) a
// planning view.
var pageKeys = map[keys.Action]page{
	keys.Ledger:     pageLedger,
	keys.Blackboard: pageBlackboard,
	keys.Capsules:   pageCapsules,
}

// ledgerLatest is how many recent ledger entries the view is given.
const ledgerLatest = 200

// ledgerDecisions is how many of the latest decisions the ledger view
// reads (it shows as many as fit).
const ledgerDecisions = 20

// Messages carrying planning reads and writes back from their Cmds.
type (
	planningChangedMsg struct {
		changes planning.Changes
		err     error
	}
	ledgerMsg struct {
		report    planning.LedgerReport
		claims    []coord.Claim
		decisions []coord.Decision
		err       error
	}
	factsMsg struct {
		facts planning.Facts
		err   error
	}
	factWrittenMsg struct {
		key, value string // value "" with deleted
		deleted    bool
		err        error
	}
	capsuleListMsg struct {
		ids []string
		err error
	}
	hydratedMsg struct {
		id, text string
		err      error
	}
)

// waitPlanning waits for the next change under .planning/.
func (m *Model) waitPlanning() tea.Cmd {
	p, ctx := m.opt.Planning, m.ctx
	if p == nil {
		return nil
	}
	return func() tea.Msg {
		c, err := p.NextChange(ctx)
		if ctx.Err() != nil {
			return nil
		}
		return planningChangedMsg{changes: c, err: err}
	}
}

func (m *Model) loadLedger() tea.Cmd {
	p := m.opt.Planning
	return func() tea.Msg {
		r, err := p.LedgerReport(ledgerLatest)
		cl, cerr := p.Claims()
		ds, derr := p.Decisions(ledgerDecisions)
		err = errors.Join(err, cerr, derr)
		return ledgerMsg{report: r, claims: cl, decisions: ds, err: err}
	}
}

func (m *Model) loadFacts() tea.Cmd {
	p := m.opt.Planning
	return func() tea.Msg {
		f, err := p.Facts()
		return factsMsg{facts: f, err: err}
	}
}

func (m *Model) loadCapsules() tea.Cmd {
	p := m.opt.Planning
	return func() tea.Msg {
		ids, err := p.CapsuleIDs()
		return capsuleListMsg{ids: ids, err: err}
	}
}

func (m *Model) hydrate(id string) tea.Cmd {
	p := m.opt.Planning
	return func() tea.Msg {
		text, err := p.Hydrate(id)
		return hydratedMsg{id: id, text: text, err: err}
	}
}

// setFact writes through compare-and-swap: a race with another writer comes
// back as an error wrapping planning.ErrConflict, and nothing is written.
func (m *Model) setFact(key, value string, v planning.Version) tea.Cmd {
	p := m.opt.Planning
	return func() tea.Msg {
		_, err := p.SetFact(key, value, v)
		return factWrittenMsg{key: key, value: value, err: err}
	}
}

func (m *Model) deleteFact(key string, v planning.Version) tea.Cmd {
	p := m.opt.Planning
	return func() tea.Msg {
		_, err := p.DeleteFact(key, v)
		return factWrittenMsg{key: key, deleted: true, err: err}
	}
}

// openPage switches the body to a planning view and loads its data.
func (m *Model) openPage(pg page) tea.Cmd {
	if m.opt.Planning == nil {
		return m.report(errors.New("the planning views need a planning root (.planning or $HEIMDALL_PLANNING_DIR)"))
	}
	if m.page == pg {
		m.page = pageSessions
		return nil
	}
	m.page = pg
	return m.reloadPage(planning.Changes(^uint32(0)))
}

// reloadPage reloads what the open planning view shows when changes touch
// it.
func (m *Model) reloadPage(c planning.Changes) tea.Cmd {
	switch m.page {
	case pageLedger:
		if c.Has(planning.KindLedger) || c.Has(planning.KindBaselines) || c.Has(planning.KindClaims) || c.Has(planning.KindDecisions) {
			return m.loadLedger()
		}
	case pageBlackboard:
		if c.Has(planning.KindBlackboard) {
			return m.loadFacts()
		}
	case pageCapsules:
		if c.Has(planning.KindCapsule) {
			return m.loadCapsules() // its result hydrates the selected one
		}
	}
	return nil
}

// onPlanning handles the planning messages.
func (m *Model) onPlanning(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case planningChangedMsg:
		if msg.err != nil {
			return m.report(fmt.Errorf("watching %s: %w", m.opt.Planning.Root(), msg.err))
		}
		return tea.Batch(m.reloadPage(msg.changes), m.waitPlanning())
	case ledgerMsg:
		m.ledger, m.claims, m.decisions, m.ledgerErr = msg.report, msg.claims, msg.decisions, msg.err
	case factsMsg:
		if msg.err != nil {
			return m.report(msg.err)
		}
		m.bb.SetFacts(msg.facts)
	case factWrittenMsg:
		switch {
		case errors.Is(msg.err, planning.ErrConflict):
			// Someone else wrote the blackboard since the edit began: show
			// theirs, keep ours, let the user decide.
			p, key, value, deleted := m.opt.Planning, msg.key, msg.value, msg.deleted
			return func() tea.Msg {
				f, err := p.Facts()
				return conflictMsg{key: key, value: value, deleted: deleted, facts: f, err: err}
			}
		case msg.err != nil:
			m.bb.SetError(msg.err.Error())
			return nil
		case msg.deleted:
			return tea.Batch(m.info("deleted "+msg.key), m.loadFacts())
		}
		return tea.Batch(m.info("saved "+msg.key), m.loadFacts())
	case conflictMsg:
		if msg.err != nil {
			return m.report(msg.err)
		}
		m.bb.SetFacts(msg.facts)
		if msg.deleted {
			m.bb.SetError(msg.key + " was changed by another process; not deleted — look again and retry")
			return nil
		}
		m.bb.Conflict(msg.key, msg.value)
	case capsuleListMsg:
		if msg.err != nil {
			return m.report(msg.err)
		}
		m.caps.SetList(msg.ids)
		if id := m.caps.Selected(); id != "" {
			return m.hydrate(id)
		}
	case hydratedMsg:
		m.caps.SetShown(msg.id, msg.text, msg.err)
	}
	return nil
}

// conflictMsg carries the facts reloaded after a write conflicted, with
// the write the user attempted.
type conflictMsg struct {
	key, value string
	deleted    bool
	facts      planning.Facts
	err        error
}
