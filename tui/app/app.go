// Package app is the dashboard's one root Bubble Tea model. It owns focus,
// the layout mode, the dialog stack and key routing; the views (session list,
// panes, grid, dialogs, help) are pure renderers in sibling packages, and
// everything about sessions goes through the Backend interface defined here.
//
// Keys, dialogs and ':' commands all produce the values of package action,
// and one executor (exec) carries them out; an action a session cannot
// take is refused by action.Check, through the one error path (report).
//
// Update does no I/O beyond the Backend's in-memory reads (Sessions,
// Screen); every call that may block — Next, Presets, Spawn, Kill,
// Restart, Remove, Send, Resize, Endpoint, Transcript — runs in a tea.Cmd
// and its result comes back as a message (dropped when the session it was
// about has vanished meanwhile). Events from the backend arrive as batches
// at most maxFPS times a second however fast sessions write (floodFPS while
// many sessions on screen write at once), and an idle
// dashboard schedules nothing but the timers its visible durations need.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/coord"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/blackboard"
	"github.com/heimdall-tui/heimdall-tui/tui/capsules"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
	"github.com/heimdall-tui/heimdall-tui/tui/dialog"
	"github.com/heimdall-tui/heimdall-tui/tui/diffview"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
	"github.com/heimdall-tui/heimdall-tui/tui/sessions"
)

// maxFPS caps how often backend events (and so screen pulls and renders
// caused by them) are taken in; floodFPS caps it instead after a batch
// that changed more than floodPanes of the sessions on screen (see
// batchGap).
const (
	maxFPS     = 60
	floodFPS   = 20
	floodPanes = 4
)

// batchGap is the least time between a batch of backend events and the
// next, given how many of the sessions on screen the last one changed.
//
// One or a few sessions writing (an agent streaming its answer) are
// followed at maxFPS. When many write at once (a grid of flooding panes)
// each batch redraws them all, and drawing them maxFPS times a second
// costs the dashboard a third more CPU than floodFPS, at which the grid
// is still redrawn as often as anybody can follow sixteen panes
// (docs/PERFORMANCE.md). Keys are not slowed: the frame that shows input
// is drawn at once (the patched renderer's requestInputFrame).
func batchGap(changedOnScreen int) time.Duration {
	if changedOnScreen > floodPanes {
		return time.Second / floodFPS
	}
	return time.Second / maxFPS
}

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
	Bell bool
	// Alerter, if set, tells the user of each new inbox item (alerts.go).
	Alerter Alerter
	// Headless opens headless Claude sessions (the blemeesd the dashboard
	// runs); nil when it runs none: the spawn dialog offers them only
	// when set.
	Headless   HeadlessOpener
	DefaultDir string // spawn dialog's working directory
	// WorktreeCopy are the untracked files copied into a new worktree
	// (config [worktree] copy).
	WorktreeCopy []string
	Classifiers  []string // spawn dialog's choices
	Logger       *slog.Logger
	// Now is the clock (tests fix it); nil = time.Now.
	Now func() time.Time
	// ResumeGap is the time between two sessions started one at a time
	// (resume all); ResumeLost resumes the lost sessions as the dashboard
	// starts (config [resume]).
	ResumeGap  time.Duration
	ResumeLost bool
	// ContinueText is what a continue after a usage limit types
	// ([resume] continue); DailyBudget the tokens a day may use over
	// every session before limited sessions are parked instead of
	// continued (0: none); Prices make tokens a cost ([usage]).
	ContinueText string
	DailyBudget  int64
	Prices       config.Usage
	// Sort is the list's order as the user last chose it (a
	// sessions.SortOrder name; "" or unknown: by start). SaveSort, if set,
	// keeps a choice for the next dashboard; it is called off the event
	// loop.
	Sort     string
	SaveSort func(order string) error
}

// SortOrder is the session list's order (the list component's).
type SortOrder = sessions.SortOrder

// maxEntries bounds the transcript entries kept per session: more than
// any pane shows.
const maxEntries = 1000

// Model is the root model.
type Model struct {
	opt    Options
	st     *themes.Styles
	now    func() time.Time
	ctx    context.Context
	cancel context.CancelFunc

	w, h int

	// list is the session list: every session, filter, order, selection
	// and scroll.
	list *sessions.List
	// hosts are the other machines followed, as of the last reload.
	hosts []fleet.HostInfo

	mode     layout.Mode
	zoomFrom layout.Mode // the mode zoom returns to
	showHelp bool
	helpTop  int // the help's first line shown, when it is scrolled

	snaps map[string]*vt.Snapshot // latest pulled screens of shown sessions (shownIDs)
	// stale marks the snaps that changed since they were pulled while
	// covered (help, another page) or not pulled with their batch: they
	// are pulled again off the event loop once visible (pullVisible).
	stale map[string]bool
	// spares are the snapshots the shown sessions' latest replaced, whose
	// memory the next pull of each reuses (Backend.ScreenInto): a grid
	// of flooding sessions would otherwise leave a full copy of every
	// pane as garbage up to maxFPS times a second (16 × ~0.26 MB × 60,
	// and a collection every ~50 ms; the collector's work then slowed
	// the frames keys wait for). Nothing else holds them. Only a screen
	// replaced within spareHold of its last replacement is kept (the
	// session is writing), so an idle dashboard keeps none and arms no
	// timer for them (nextHolding).
	spares map[string]*vt.Snapshot
	// replaced is when each shown session's screen was last replaced.
	replaced map[string]time.Time
	// snapGen counts the snapshots stored per session (setSnap): a pull
	// begun off the event loop is stored only if none came meanwhile.
	snapGen map[string]uint64
	// pullIDs is visibleIDs as of the last message handled, read by the
	// waitEvents Cmd when it pulls a batch's screens: the sessions on
	// show then, not when the Cmd began (help closed meanwhile, say).
	pullIDs *atomic.Pointer[[]string]
	// transcripts are the entries pulled of sessions shown by their
	// transcript (see showsTranscript), at most maxEntries each.
	transcripts map[string]*transcriptBuf

	page     page           // sessions or a planning view
	inboxSel string         // the inbox's selected item's session (inbox.go)
	diff     *diffview.View // the diff page's diff (diff.go)
	diffID   string         // whose
	diffBase string         // from what ("": its baseline)
	// pendingSay are the notes waiting to be typed into each session
	// once it is idle at its prompt; saying, those being typed now.
	pendingSay map[string][]review.Note
	saying     map[string]bool
	ledger     planning.LedgerReport
	ledgerErr  error
	claims     []coord.Claim    // active claims, shown under the ledger
	decisions  []coord.Decision // the latest decisions, under the claims
	bb         *blackboard.Editor
	caps       *capsules.Browser

	dialogs []dialog.Dialog

	status    string
	statusErr bool
	statusSeq int
	tickSeq   int
	tickAt    time.Time
	alerted   map[string]bool // the inbox items known, by Key: each alerts once (alerts.go)
	viewing   string          // the session told it is looked at here (declareView)
	// seen maps a Done (or ringing) session to what the dashboard last
	// told it was seen with (markSeen): once per turn, once per bell.
	seen      map[string]seenMark
	lastBatch time.Time
	// nextGap is the least time after lastBatch before the next batch is
	// taken in: batchGap of the last batch.
	nextGap  time.Duration
	quitting bool
	// stopOnQuit: the user quit with "Stop them" (StopSessions).
	stopOnQuit bool
	// resumeQ are the sessions waiting to be started again, one at a
	// time (resume.go); resuming is the one starting now, resumeWait
	// that the gap before the next runs.
	resumeQ    []string
	resuming   string
	resumeWait bool
	// budgetSpent is the day whose token budget was found spent (the
	// continues then scheduled were parked).
	budgetSpent string
	// attaching is the session whose Endpoint is being opened, attachedID
	// the one handed the terminal; "" when none.
	attaching, attachedID string
	// run starts fn off the event loop: it returns fn as the tea.Cmd.
	// Tests replace it to run the Backend calls when they choose.
	run func(fn func() tea.Msg) tea.Cmd
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
		opt:         opt,
		st:          themes.Build(opt.Theme, opt.NoColor),
		now:         opt.Now,
		ctx:         ctx,
		cancel:      cancel,
		snaps:       map[string]*vt.Snapshot{},
		stale:       map[string]bool{},
		spares:      map[string]*vt.Snapshot{},
		replaced:    map[string]time.Time{},
		snapGen:     map[string]uint64{},
		pullIDs:     new(atomic.Pointer[[]string]),
		transcripts: map[string]*transcriptBuf{},
		pendingSay:  map[string][]review.Note{},
		saying:      map[string]bool{},
		w:           80,
		h:           24,
		bb:          blackboard.New(opt.Keys),
		caps:        capsules.New(opt.Keys),
		run:         func(fn func() tea.Msg) tea.Cmd { return fn },
	}
	m.list = sessions.NewList(m.listRowsFor)
	if o, ok := sessions.ParseSortOrder(opt.Sort); ok {
		m.list.SetOrder(o)
	}
	m.reload()
	m.checkInbox() // what waits already was told while nobody watched (supervisors' notify)
	return m
}

// StopSessions reports whether the user quit choosing to stop the running
// sessions started from a dashboard; false for "Leave them running", a
// quit with none running, and an end the user did not choose (SIGHUP:
// sessions outlive the terminal, as in tmux).
func (m *Model) StopSessions() bool { return m.quitting && m.stopOnQuit }

// Init starts listening to the backend, and shows first the sessions that
// asked for input while no dashboard watched them.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.waitEvents(), m.scheduleTick(), m.waitPlanning(), m.showLost(), m.showAttention())
}

// showAttention, when sessions started needing input while no dashboard
// watched them (session.Info.Attention), selects the first of them in the
// order the user chose and says so.
func (m *Model) showAttention() tea.Cmd {
	var ids []string
	for _, in := range m.list.All() {
		if in.Attention && in.Alive {
			ids = append(ids, in.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	for _, in := range m.list.Visible() {
		if in.Attention && in.Alive {
			m.list.Select(in.ID)
			break
		}
	}
	if len(ids) == 1 {
		return m.info(ids[0] + " asked for input while you were away")
	}
	return m.info(fmt.Sprintf("%d sessions asked for input while you were away: %s", len(ids), strings.Join(ids, ", ")))
}

// eventsMsg is a batch of backend events, with the screens of the sessions
// that were visible and dirty, already pulled.
type eventsMsg struct {
	events  []session.Event
	screens map[string]*vt.Snapshot
	// entries are the new transcript entries of the shown sessions the
	// batch marks dirty that show a transcript.
	entries map[string][]session.Entry
	// spares are the spares handed to the Cmd that it did not use.
	spares map[string]*vt.Snapshot
	err    error
	at     time.Time
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
// no sooner than batchGap after the previous batch: a session writing as
// fast as it can costs at most maxFPS wake-ups a second, an idle one none.
//
// The screens of the sessions the batch marks dirty that are visible when
// it comes (pullIDs) are pulled here too, off the event loop: taking a
// snapshot may wait for a busy emulator, and keys must not wait behind
// that. So are the new entries of shown sessions that show a transcript,
// after the last entry the dashboard has of each.
func (m *Model) waitEvents() tea.Cmd {
	b, ctx, last, gap := m.opt.Backend, m.ctx, m.lastBatch, m.nextGap
	m.publishVisible()
	pullIDs, spares := m.pullIDs, m.spares
	m.spares = map[string]*vt.Snapshot{} // the Cmd's now: returned in its message
	after := map[string]uint64{}         // the transcripts among visible
	for _, id := range m.visibleIDs() {
		if in, ok := m.list.Find(id); ok && showsTranscript(in) {
			after[id] = m.lastSeq(id)
		}
	}
	return func() tea.Msg {
		if d := gap - time.Since(last); d > 0 {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return nil
			}
		}
		ev, err := nextHolding(ctx, b, &spares)
		if ctx.Err() != nil {
			return nil
		}
		visible := *pullIDs.Load()
		screens := map[string]*vt.Snapshot{}
		entries := map[string][]session.Entry{}
		for _, e := range ev {
			if e.Kind != session.Dirty {
				continue
			}
			if seq, ok := after[e.ID]; ok {
				if _, done := entries[e.ID]; !done {
					entries[e.ID] = b.Transcript(e.ID, seq)
				}
			} else if screens[e.ID] == nil && slices.Contains(visible, e.ID) {
				screens[e.ID] = b.ScreenInto(e.ID, spares[e.ID])
				delete(spares, e.ID)
			}
		}
		return eventsMsg{events: ev, screens: screens, entries: entries, spares: spares, err: err, at: time.Now()}
	}
}

// spareHold is how long the waitEvents Cmd keeps the spare screens it was
// handed while no batch comes: past it the burst that made them is over,
// and an idle dashboard keeps no second copy of any screen (the next
// burst's first pulls allocate again).
const spareHold = 250 * time.Millisecond

// nextHolding is b.Next, dropping *spares when no batch came within
// spareHold.
func nextHolding(ctx context.Context, b Backend, spares *map[string]*vt.Snapshot) ([]session.Event, error) {
	if len(*spares) > 0 {
		hold, cancel := context.WithTimeout(ctx, spareHold)
		ev, err := b.Next(hold)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return ev, err
		}
		*spares = nil
	}
	return b.Next(ctx)
}

// publishVisible stores visibleIDs for the waitEvents Cmd (pullIDs).
func (m *Model) publishVisible() {
	ids := m.visibleIDs()
	m.pullIDs.Store(&ids)
}

// Update implements tea.Model. Whatever a message changed (selection, mode,
// filter, page), the screens now on show that were never pulled are pulled
// here, once, rather than by every handler that can change what is shown.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	pull := m.pullVisible(false)
	m.publishVisible()
	return m, tea.Batch(cmd, pull, m.markSeen(), m.declareView(), m.scheduleTick())
}

// seenMark is what a Seen was sent for: a state's start and the
// attention flag then.
type seenMark struct {
	since time.Time
	attn  bool
}

// markSeen tells the selected session it has been seen while the session
// list shows it and it is Done (finished, not yet seen) or wants
// attention (its program rang): focusing a session clears those, as
// attaching does.
func (m *Model) markSeen() tea.Cmd {
	in, ok := m.selected()
	if !ok || !in.Alive || !(in.Done || in.Attention) || m.page != pageSessions || m.showHelp || m.quitting {
		return nil
	}
	mark := seenMark{in.StateSince, in.Attention}
	if sent, ok := m.seen[in.ID]; ok && sent.since.Equal(mark.since) && sent.attn == mark.attn {
		return nil
	}
	if m.seen == nil {
		m.seen = map[string]seenMark{}
	}
	m.seen[in.ID] = mark
	b, id, log := m.opt.Backend, in.ID, m.opt.Logger
	return m.run(func() tea.Msg {
		if err := b.Seen(id); err != nil {
			log.Debug("seen", "id", id, "err", err)
		}
		return nil
	})
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.list.Scroll()
		return nil
	case eventsMsg:
		return m.onEvents(msg)
	case tickMsg:
		if msg.seq != m.tickSeq {
			return nil
		}
		m.tickAt = time.Time{}
		return nil // Update arms the next
	case clearStatusMsg:
		if msg.seq == m.statusSeq {
			m.status = ""
		}
		return nil
	case attachDoneMsg:
		m.attachedID = ""
		m.reload()
		pull := m.pullVisible(true)
		switch {
		case msg.err != nil:
			return tea.Batch(pull, m.report(msg.err))
		case msg.res.Exited:
			return tea.Batch(pull, m.info(msg.id+" exited (code "+strconv.Itoa(msg.res.Code)+")"))
		}
		return tea.Batch(pull, m.info("detached from "+msg.id))
	case answeredMsg:
		return m.onAnswered(msg)
	case diffMsg:
		return m.onDiff(msg)
	case sayMsg:
		return m.onSay(msg)
	case worktreeMsg:
		return m.onWorktree(msg)
	case shippedMsg:
		return m.onShipped(msg)
	case opMsg:
		return m.onOp(msg)
	case resumedMsg:
		return m.onResumed(msg)
	case resumeNextMsg:
		return m.resumeNext()
	case endpointMsg:
		return m.onEndpoint(msg)
	case transcriptMsg:
		m.onTranscript(msg)
		return nil
	case screensMsg:
		m.onScreens(msg)
		return nil
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
			if t := m.transcripts[ev.ID]; t != nil {
				t.stale = true // cleared when this batch brought its entries
			}
		case session.Failed:
			cmds = append(cmds, m.report(ev.Err))
			reload = true
		case session.Removed:
			m.dropSnap(ev.ID)
			delete(m.transcripts, ev.ID)
			delete(m.seen, ev.ID)
			reload = true
		case session.Added:
			// A session restarted under its ID (R) is a new program:
			// what was pulled of the old one goes, and the new one's
			// screen is pulled (pullVisible) rather than kept until
			// the new program writes.
			m.dropSnap(ev.ID)
			reload = true
		default:
			reload = true
		}
	}
	if reload {
		m.reload()
		cmds = append(cmds, m.checkInbox(), m.retrySay(), m.checkBudget())
	}
	for id, es := range msg.entries {
		m.addEntries(id, es)
		if t := m.transcripts[id]; t != nil {
			t.stale = false
		}
	}
	visible, shown := m.visibleIDs(), m.shownIDs()
	for id, s := range msg.spares {
		if m.spares[id] == nil && slices.Contains(shown, id) {
			m.spares[id] = s
		}
	}
	changed := 0 // the sessions on screen this batch changed
	for id := range dirty {
		onScreen := slices.Contains(visible, id)
		if onScreen {
			changed++
		}
		switch {
		case m.transcripts[id] != nil || m.showsTranscript(id):
			// pulled by pullVisible when stale
		case onScreen:
			if snap, ok := msg.screens[id]; ok {
				m.setSnap(id, snap)
			} else {
				// Shown only since the batch's screens were pulled:
				// pullVisible pulls it off the event loop.
				m.stale[id] = true
			}
		case slices.Contains(shown, id) && m.snaps[id] != nil:
			m.stale[id] = true // covered: pulled again when visible
		default:
			m.dropSnap(id) // pulled again when it is shown
		}
	}
	m.nextGap = batchGap(changed)
	cmds = append(cmds, m.waitEvents())
	return tea.Batch(cmds...)
}

// reload takes the session list from the backend and re-derives the view,
// forgetting the screens and transcripts of sessions that are gone.
func (m *Model) reload() {
	m.list.SetItems(m.opt.Backend.Sessions())
	m.hosts = m.opt.Backend.Hosts()
	for id := range m.snaps {
		if _, ok := m.list.Find(id); !ok {
			m.dropSnap(id)
		}
	}
	for id := range m.transcripts {
		if _, ok := m.list.Find(id); !ok {
			delete(m.transcripts, id)
		}
	}
}

// index is id's row in the list as shown, -1 if not shown.
func (m *Model) index(id string) int { return m.list.Index(id) }

// selected returns the selected session.
func (m *Model) selected() (session.Info, bool) { return m.list.Selected() }

// pullVisible fetches the screens of the sessions on screen (all of them
// with force, else only those not yet fetched), drops the copies of those
// the session page does not show (a full 120×35 copy is ~0.5 MB, kept for
// nothing while hidden; pulling it again when shown is a copy from the
// fleet's emulator), and returns the Cmds that pull, off the event loop,
// the screens on show that are stale (refreshStale) and the new entries of
// the transcripts on screen that are stale.
//
// The copies of sessions only covered by the help screen or another page
// are kept: closing help is a key, and pulling a grid's screens then made
// its frame wait (16 copies of ~0.26 MB, and a collection their garbage
// set off); stale ones are shown until the refresh comes, a frame later.
func (m *Model) pullVisible(force bool) tea.Cmd {
	var cmds []tea.Cmd
	shown := m.shownIDs()
	for id := range m.snaps {
		if !slices.Contains(shown, id) {
			m.dropSnap(id)
		}
	}
	for id := range m.spares {
		if !slices.Contains(shown, id) {
			delete(m.spares, id)
		}
	}
	for _, id := range m.visibleIDs() {
		if m.showsTranscript(id) {
			cmds = append(cmds, m.pullTranscript(id, force))
			continue
		}
		if force || m.snaps[id] == nil {
			m.setSnap(id, m.opt.Backend.Screen(id))
		}
	}
	return tea.Batch(append(cmds, m.refreshStale())...)
}

// screensMsg brings screens pulled off the event loop (refreshStale), each
// with the snapGen it was pulled at.
type screensMsg struct {
	screens map[string]*vt.Snapshot
	gens    map[string]uint64
}

// refreshStale returns the Cmd that pulls the stale screens on show, or
// nil when none is.
func (m *Model) refreshStale() tea.Cmd {
	gens := map[string]uint64{}
	for _, id := range m.visibleIDs() {
		if m.stale[id] && !m.showsTranscript(id) {
			gens[id] = m.snapGen[id]
			delete(m.stale, id) // marked again if it changes meanwhile
		}
	}
	if len(gens) == 0 {
		return nil
	}
	b := m.opt.Backend
	return m.run(func() tea.Msg {
		msg := screensMsg{screens: make(map[string]*vt.Snapshot, len(gens)), gens: gens}
		for id := range gens {
			msg.screens[id] = b.Screen(id)
		}
		return msg
	})
}

// onScreens stores the screens refreshStale pulled, unless a newer one was
// stored meanwhile or the session is no longer shown.
func (m *Model) onScreens(msg screensMsg) {
	shown := m.shownIDs()
	for id, s := range msg.screens {
		if m.snapGen[id] == msg.gens[id] && slices.Contains(shown, id) {
			m.setSnap(id, s)
		}
	}
}

// setSnap stores id's screen as pulled now; the one it replaces becomes
// id's spare if the session is writing (it replaced one within spareHold).
func (m *Model) setSnap(id string, s *vt.Snapshot) {
	if old := m.snaps[id]; old != nil && old != s {
		now := m.now()
		if last, ok := m.replaced[id]; ok && now.Sub(last) < spareHold {
			m.spares[id] = old
		}
		m.replaced[id] = now
	}
	m.snaps[id] = s
	m.snapGen[id]++
	delete(m.stale, id)
}

// dropSnap forgets id's screen and its spare.
func (m *Model) dropSnap(id string) {
	delete(m.snaps, id)
	delete(m.spares, id)
	delete(m.replaced, id)
	delete(m.stale, id)
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

// slowTickGrid is the wall-clock grid a redraw for a duration in minutes or
// coarser is put on: its change is shown up to this late, so however many
// sessions' minutes turn at different seconds, an idle list redraws at most
// twice a minute (a redraw wakes the process ~25 times: the timer, the
// event loop, the renderer, the Go runtime's sysmon).
const slowTickGrid = 30 * time.Second

// scheduleTick arms one timer for the moment the first duration on screen
// changes its text ("1m" → "2m" one minute after "1m" began; "59s" → "1m")
// and none when no duration is on screen (shownSince). A change in seconds
// is redrawn on the whole second it happens; one in minutes or coarser on
// the next slowTickGrid mark. However many sessions there are, the list
// redraws at most once a second while a duration in seconds shows, at most
// twice a minute past that, and never while none shows. Update calls it
// after every message, so a duration that comes on screen (a scroll, a
// mode or page change, a resize, a new session) arms it.
func (m *Model) scheduleTick() tea.Cmd {
	now := m.now()
	var at time.Time
	var unit time.Duration
	for _, t := range m.shownSince() {
		d := max(now.Sub(t), 0)
		u := textUnit(d)
		if next := t.Add((d/u + 1) * u); at.IsZero() || next.Before(at) {
			at, unit = next, u
		}
	}
	if at.IsZero() {
		return nil
	}
	grid := time.Second
	if unit > time.Second {
		grid = slowTickGrid
	}
	if r := at.Truncate(grid); !r.Equal(at) {
		at = r.Add(grid)
	}
	if !m.tickAt.IsZero() && !at.Before(m.tickAt) {
		return nil // an earlier tick is already armed
	}
	m.tickSeq++
	m.tickAt = at
	seq := m.tickSeq
	return tea.Tick(at.Sub(now)+time.Millisecond, func(time.Time) tea.Msg { return tickMsg{seq} })
}

// shownSince are the instants the durations on screen are measured from:
// the session list's (sessions.ShownSince), when the list is drawn.
func (m *Model) shownSince() []time.Time {
	if m.page != pageSessions || m.showHelp || m.mode != layout.ModeSplit {
		return nil
	}
	l := layout.Compute(m.w, m.h, len(m.list.Visible()), m.mode)
	if l.TooSmall {
		return nil
	}
	return m.list.ShownSince(l.List.W, l.List.H)
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
