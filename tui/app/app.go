// Package app is the dashboard's one root Bubble Tea model. It owns focus,
// the layout mode, the dialog stack and key routing; the views (session list,
// panes, grid, dialogs, help) are pure renderers in sibling packages, and
// everything about sessions goes through the Backend interface defined here.
//
// Update does no I/O beyond calls on the Backend that are in-memory or one
// quick write (documented on Backend); the only blocking call, Backend.Next,
// runs in a tea.Cmd. Events from the backend arrive as batches at most
// maxFPS times a second however fast sessions write, and an idle dashboard
// schedules nothing but the timers its visible durations need.
package app

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/blackboard"
	"github.com/heimdall-tui/heimdall-tui/tui/capsules"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
	"github.com/heimdall-tui/heimdall-tui/tui/dialog"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
	"github.com/heimdall-tui/heimdall-tui/tui/sessions"
)

// maxFPS caps how often backend events (and so screen pulls and renders
// caused by them) are taken in.
const maxFPS = 60

// statusTTL is how long a status-line message stays.
const statusTTL = 6 * time.Second

// Options configure the dashboard.
type Options struct {
	Backend Backend
	// Planning backs the ledger, blackboard and capsule views; nil leaves
	// them out (they say so).
	Planning Planning
	Theme    themes.Palette
	NoColor  bool        // NO_COLOR: monochrome styles, plain pane text
	Keys     keys.KeyMap // its Detach key leaves a full-screen attach
	// KillGrace is what the kill dialog says happens between SIGTERM and SIGKILL.
	KillGrace time.Duration
	// Bell rings the terminal bell when a session starts needing input.
	Bell        bool
	DefaultDir  string   // spawn dialog's working directory
	Classifiers []string // spawn dialog's choices
	Logger      *slog.Logger
	// Now is the clock (tests fix it); nil = time.Now.
	Now func() time.Time
}

// SortOrder is the session list's order.
type SortOrder uint8

const (
	SortStarted   SortOrder = iota // oldest first (spawn order)
	SortName                       // by ID
	SortAttention                  // needs input first, then busy, idle, dead
)

var sortNames = [...]string{"started", "name", "attention"}

func (s SortOrder) String() string { return sortNames[s] }

// Model is the root model.
type Model struct {
	opt    Options
	st     *themes.Styles
	now    func() time.Time
	ctx    context.Context
	cancel context.CancelFunc

	w, h int

	all    []session.Info // every session, as the backend last said
	view   []session.Info // filtered and sorted: what the list shows
	selID  string         // selected session (survives re-sorting)
	offset int            // list scroll offset

	mode     layout.Mode
	zoomFrom layout.Mode // the mode zoom returns to
	sort     SortOrder
	filter   string
	// filtering is true while the user types the filter after '/'.
	filtering bool
	showHelp  bool

	snaps map[string]*vt.Snapshot // latest pulled screens of visible sessions

	page      page // sessions or a planning view
	ledger    planning.LedgerReport
	ledgerErr error
	bb        *blackboard.Editor
	caps      *capsules.Browser

	dialogs []dialog.Dialog

	status     string
	statusErr  bool
	statusSeq  int
	tickSeq    int
	tickAt     time.Time
	attention  map[string]bool // needs-input flags last seen, for the bell
	lastBatch  time.Time
	pendingSel string // select this ID once it appears (after a spawn)
	quitting   bool
	// attachedID is the session handed the terminal, "" when none.
	attachedID string
}

// New returns the root model.
func New(opt Options) *Model {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Theme.Name == "" {
		opt.Theme = themes.Dark()
	}
	if opt.KillGrace == 0 {
		opt.KillGrace = 5 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Model{
		opt:       opt,
		st:        themes.Build(opt.Theme, opt.NoColor),
		now:       opt.Now,
		ctx:       ctx,
		cancel:    cancel,
		snaps:     map[string]*vt.Snapshot{},
		attention: map[string]bool{},
		w:         80,
		h:         24,
		bb:        blackboard.New(opt.Keys),
		caps:      capsules.New(opt.Keys),
	}
	m.reload()
	for _, in := range m.all {
		m.attention[in.ID] = in.NeedsInput && in.Alive
	}
	return m
}

// Init starts listening to the backend.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.waitEvents(), m.scheduleTick(), m.waitPlanning())
}

// eventsMsg is a batch of backend events, with the screens of the sessions
// that were visible and dirty, already pulled.
type eventsMsg struct {
	events  []session.Event
	screens map[string]*vt.Snapshot
	err     error
	at      time.Time
}

// tickMsg redraws durations shown in the list (time in state, idle time).
type tickMsg struct{ seq int }

// clearStatusMsg clears the status line if it is still message seq.
type clearStatusMsg struct{ seq int }

// attachDoneMsg reports the end of a full-screen attach.
type attachDoneMsg struct {
	id  string
	res attachResult
	err error
}

// waitEvents returns a Cmd that waits for the next batch of backend events,
// no sooner than 1/maxFPS after the previous batch: a session writing as
// fast as it can costs at most maxFPS wake-ups a second, an idle one none.
//
// The screens of visible sessions the batch marks dirty are pulled here too,
// off the event loop: taking a snapshot may wait for a busy emulator, and
// keys must not wait behind that.
func (m *Model) waitEvents() tea.Cmd {
	b, ctx, last := m.opt.Backend, m.ctx, m.lastBatch
	visible := m.visibleIDs()
	return func() tea.Msg {
		if d := time.Second/maxFPS - time.Since(last); d > 0 {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return nil
			}
		}
		ev, err := b.Next(ctx)
		if ctx.Err() != nil {
			return nil
		}
		screens := map[string]*vt.Snapshot{}
		for _, e := range ev {
			if e.Kind == session.Dirty && slices.Contains(visible, e.ID) && screens[e.ID] == nil {
				screens[e.ID] = b.Screen(e.ID)
			}
		}
		return eventsMsg{events: ev, screens: screens, err: err, at: time.Now()}
	}
}

// Update implements tea.Model. Whatever a message changed (selection, mode,
// filter, page), the screens now on show that were never pulled are pulled
// here, once, rather than by every handler that can change what is shown.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.pullVisible(false)
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.fixOffset()
		return nil
	case eventsMsg:
		return m.onEvents(msg)
	case tickMsg:
		if msg.seq != m.tickSeq {
			return nil
		}
		m.tickAt = time.Time{}
		return m.scheduleTick()
	case clearStatusMsg:
		if msg.seq == m.statusSeq {
			m.status = ""
		}
		return nil
	case attachDoneMsg:
		m.attachedID = ""
		m.reload()
		m.pullVisible(true)
		switch {
		case msg.err != nil:
			return m.report(msg.err)
		case msg.res.Exited:
			return m.info(msg.id + " exited (code " + strconv.Itoa(msg.res.Code) + ")")
		}
		return m.info("detached from " + msg.id)
	case presetsMsg:
		return m.onPresets(msg)
	case planningChangedMsg, ledgerMsg, factsMsg, factWrittenMsg, conflictMsg, capsuleListMsg, hydratedMsg:
		return m.onPlanning(msg)
	case tea.PasteMsg:
		if m.page == pageBlackboard && m.bb.Editing() && len(m.dialogs) == 0 {
			return m.onBlackboard(m.bb.Update(msg))
		}
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case tea.MouseClickMsg:
		return m.onClick(msg.Mouse())
	case tea.MouseWheelMsg:
		return m.onWheel(msg.Mouse())
	}
	if len(m.dialogs) > 0 {
		// Non-key messages a dialog may need (e.g. its text input's cursor).
		act, cmd := m.dialogs[len(m.dialogs)-1].Update(msg)
		return tea.Batch(cmd, m.apply(act))
	}
	return nil
}

// onEvents applies a batch of backend events and waits for the next.
func (m *Model) onEvents(msg eventsMsg) tea.Cmd {
	m.lastBatch = msg.at
	var cmds []tea.Cmd
	if msg.err != nil {
		if errors.Is(msg.err, context.Canceled) {
			return nil
		}
		m.opt.Logger.Error("backend events", "err", msg.err)
		return m.report(msg.err)
	}
	reload := false
	dirty := map[string]bool{}
	for _, ev := range msg.events {
		switch ev.Kind {
		case session.Dirty:
			dirty[ev.ID] = true
		case session.Failed:
			cmds = append(cmds, m.report(ev.Err))
			reload = true
		case session.Removed:
			delete(m.snaps, ev.ID)
			reload = true
		default:
			reload = true
		}
	}
	if reload {
		m.reload()
		cmds = append(cmds, m.checkAttention(), m.scheduleTick())
	}
	visible := m.visibleIDs()
	for id := range dirty {
		if !slices.Contains(visible, id) {
			delete(m.snaps, id) // stale: pulled again when it is shown
		}
	}
	for _, id := range visible {
		if snap, ok := msg.screens[id]; ok {
			m.snaps[id] = snap
		} else if dirty[id] {
			// Shown only since the batch was taken.
			m.snaps[id] = m.opt.Backend.Screen(id)
		}
	}
	cmds = append(cmds, m.waitEvents())
	return tea.Batch(cmds...)
}

// checkAttention notes sessions that started needing input and rings the
// bell for them when configured.
func (m *Model) checkAttention() tea.Cmd {
	ring := false
	seen := make(map[string]bool, len(m.all))
	for _, in := range m.all {
		now := in.NeedsInput && in.Alive
		if now && !m.attention[in.ID] {
			ring = true
		}
		seen[in.ID] = now
	}
	m.attention = seen
	if ring && m.opt.Bell && m.attachedID == "" {
		return tea.Raw("\a")
	}
	return nil
}

// reload takes the session list from the backend and re-derives the view.
func (m *Model) reload() {
	m.all = m.opt.Backend.Sessions()
	m.refilter()
}

// refilter re-derives the list from all, the filter and the sort order,
// keeping the selection on the same session when it is still shown.
func (m *Model) refilter() {
	q := strings.ToLower(m.filter)
	m.view = m.view[:0]
	for _, in := range m.all {
		if q == "" || matches(in, q) {
			m.view = append(m.view, in)
		}
	}
	sortInfos(m.view, m.sort)
	if m.pendingSel != "" && m.index(m.pendingSel) >= 0 {
		m.selID, m.pendingSel = m.pendingSel, ""
	}
	if m.index(m.selID) < 0 {
		m.selID = ""
		if len(m.view) > 0 {
			m.selID = m.view[0].ID
		}
	}
	m.fixOffset()
	// Forget screens of sessions that are gone.
	for id := range m.snaps {
		if m.indexAll(id) < 0 {
			delete(m.snaps, id)
		}
	}
}

func matches(in session.Info, q string) bool {
	for _, s := range []string{in.ID, in.Agent, sessions.State(in), in.Title} {
		if strings.Contains(strings.ToLower(s), q) {
			return true
		}
	}
	return false
}

// sortInfos orders the list; ties fall back to start time then ID, so the
// order is stable.
func sortInfos(v []session.Info, order SortOrder) {
	rank := func(in session.Info) int {
		switch {
		case !in.Alive:
			return 3
		case in.NeedsInput:
			return 0
		case sessions.State(in) == "Idle":
			return 2
		}
		return 1
	}
	slices.SortStableFunc(v, func(a, b session.Info) int {
		switch order {
		case SortName:
			return strings.Compare(a.ID, b.ID)
		case SortAttention:
			if d := rank(a) - rank(b); d != 0 {
				return d
			}
		}
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

func (m *Model) index(id string) int {
	return slices.IndexFunc(m.view, func(in session.Info) bool { return in.ID == id })
}

func (m *Model) indexAll(id string) int {
	return slices.IndexFunc(m.all, func(in session.Info) bool { return in.ID == id })
}

// selected returns the selected session.
func (m *Model) selected() (session.Info, bool) {
	if i := m.index(m.selID); i >= 0 {
		return m.view[i], true
	}
	return session.Info{}, false
}

// selectIndex moves the selection, clamped, and scrolls the list to it.
func (m *Model) selectIndex(i int) {
	if len(m.view) == 0 {
		return
	}
	i = max(0, min(i, len(m.view)-1))
	m.selID = m.view[i].ID
	m.fixOffset()
}

// pullVisible fetches the screens of the sessions on screen (all of them
// with force, else only those not yet fetched).
func (m *Model) pullVisible(force bool) {
	for _, id := range m.visibleIDs() {
		if force || m.snaps[id] == nil {
			m.snaps[id] = m.opt.Backend.Screen(id)
		}
	}
}

// report shows an error in the status line.
func (m *Model) report(err error) tea.Cmd {
	if err == nil {
		return nil
	}
	m.opt.Logger.Warn("ui error", "err", err)
	return m.setStatus(err.Error(), true)
}

// info shows a message in the status line.
func (m *Model) info(s string) tea.Cmd { return m.setStatus(s, false) }

// setStatus shows s (sanitized: messages name sessions, keys and files
// that other programs chose) until statusTTL passes.
func (m *Model) setStatus(s string, isErr bool) tea.Cmd {
	m.statusSeq++
	m.status, m.statusErr = cellwidth.Sanitize(s), isErr
	seq := m.statusSeq
	return tea.Tick(statusTTL, func(time.Time) tea.Msg { return clearStatusMsg{seq} })
}

// scheduleTick arms one timer for the moment the first duration shown in
// the list changes its text ("1m" → "2m" one minute after "1m" began;
// "59s" → "1m"), rounded up to a whole second, and none when no duration
// is shown: however many sessions there are, the list redraws at most once
// a second, and an hour-old idle fleet once an hour.
func (m *Model) scheduleTick() tea.Cmd {
	now := m.now()
	var at time.Time
	for _, in := range m.view {
		for _, t := range []time.Time{in.StateSince, in.LastOutput} {
			if t.IsZero() || !in.Alive {
				continue
			}
			d := max(now.Sub(t), 0)
			u := textUnit(d)
			if next := t.Add((d/u + 1) * u); at.IsZero() || next.Before(at) {
				at = next
			}
		}
	}
	if at.IsZero() {
		return nil
	}
	if r := at.Truncate(time.Second); !r.Equal(at) {
		at = r.Add(time.Second)
	}
	if !m.tickAt.IsZero() && !at.Before(m.tickAt) {
		return nil // an earlier tick is already armed
	}
	m.tickSeq++
	m.tickAt = at
	seq := m.tickSeq
	return tea.Tick(at.Sub(now)+time.Millisecond, func(time.Time) tea.Msg { return tickMsg{seq} })
}

// textUnit is the unit of the compact duration ("5s", "3m", "2h", "4d")
// shown for elapsed d: its text changes once per unit.
func textUnit(d time.Duration) time.Duration {
	switch {
	case d >= 24*time.Hour:
		return 24 * time.Hour
	case d >= time.Hour:
		return time.Hour
	case d >= time.Minute:
		return time.Minute
	}
	return time.Second
}
