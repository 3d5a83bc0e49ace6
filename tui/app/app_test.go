package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/action"
	"github.com/heimdall-tui/heimdall-tui/tui/internal/shapetest"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
	"github.com/heimdall-tui/heimdall-tui/tui/sessions"
)

// t0 is the stub clock's "now".
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// stub is a Backend in memory: it records every call and draws each
// session's screen with a fresh emulator.
type stub struct {
	mu      sync.Mutex
	infos   []session.Info
	calls   []string
	screens map[string]int // Screen calls per ID
	failed  error          // returned by the next mutating call
	presets []fleet.Preset // what Presets returns
	kinds   []session.Kind // what Kinds returns (nil: headless Claude)
	// presetCalls counts Presets calls: the tests check that Update makes
	// none (only the Cmds it returns may).
	presetCalls int
	// next, if set, is what Next returns (else it blocks until cancelled).
	next chan []session.Event
	// inUpdate is set while a test's Update runs (press); a call that may
	// block made then is a violation: Update must leave those to Cmds.
	inUpdate   bool
	violations []string
	// transcripts are the entries of sessions that keep one.
	transcripts     map[string][]session.Entry
	transcriptCalls int
	// reused are the snapshots ScreenInto was handed to write into.
	reused []*vt.Snapshot
	// flood makes every screen a full screen of base64 (floodScreen).
	flood bool
	// views are the sessions told they are looked at (View), by id.
	views map[string]bool
	// hosts is what Hosts returns.
	hosts []fleet.HostInfo
	// diff is what Diff returns.
	diff string
	// notes are the notes kept per session; busy makes Say refuse (not
	// idle).
	notes map[string][]review.Note
	busy  bool
	// wtChanges is how many files of a worktree have changes.
	wtChanges int
}

func newStub() *stub {
	at := func(s int) time.Time { return t0.Add(-time.Duration(s) * time.Second) }
	return &stub{
		screens: map[string]int{},
		presets: []fleet.Preset{{Name: "shell", Argv: []string{"/bin/sh"}, Classifier: "simple", Found: true}},
		infos: []session.Info{
			{ID: "claude-1", Kind: session.KindPty, Caps: ptyCaps, Agent: "claude", Owned: true, Alive: true, State: session.Thinking,
				Started: at(600), StateSince: at(12), LastOutput: at(1), Cols: 80, Rows: 24},
			{ID: "shell-1", Kind: session.KindPty, Caps: ptyCaps, Agent: "shell", Owned: true, Alive: true, State: session.Idle,
				Started: at(500), StateSince: at(300), LastOutput: at(300), Cols: 80, Rows: 24},
			{ID: "claude-2", Kind: session.KindPty, Caps: ptyCaps, Agent: "claude", Owned: true, Alive: true, State: session.Idle, NeedsInput: true,
				Started: at(400), StateSince: at(40), LastOutput: at(40), Cols: 80, Rows: 24},
			{ID: "build", Kind: session.KindPty, Caps: ptyCaps, Agent: "make", Owned: false, Alive: false, ExitCode: 2, State: session.Dead,
				Started: at(300), StateSince: at(100), LastOutput: at(100), Cols: 80, Rows: 24},
		},
	}
}

// ptyCaps are what the fleet's pty sessions can do.
const ptyCaps = session.CapScreen | session.CapAttach | session.CapRestart | session.CapInterrupt | session.CapAnswer | session.CapOutlive

// blocking notes a call that may block; made inside Update, it is a
// violation. s.mu must be held.
func (s *stub) blocking(call string) {
	if s.inUpdate {
		s.violations = append(s.violations, call)
	}
}

func (s *stub) setInUpdate(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inUpdate = on
}

func (s *stub) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.violations)
}

func (s *stub) record(format string, args ...any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blocking(fmt.Sprintf(format, args...))
	s.calls = append(s.calls, fmt.Sprintf(format, args...))
	err := s.failed
	s.failed = nil
	return err
}

func (s *stub) Sessions() []session.Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.infos)
}

func (s *stub) Screen(id string) *vt.Snapshot { return s.ScreenInto(id, nil) }

func (s *stub) ScreenInto(id string, dst *vt.Snapshot) *vt.Snapshot {
	s.mu.Lock()
	s.screens[id]++
	if dst != nil {
		s.reused = append(s.reused, dst)
	}
	s.mu.Unlock()
	if s.flood {
		return floodScreen(id).SnapshotInto(dst)
	}
	e := vt.New(80, 24, vt.Options{})
	fmt.Fprintf(e, "\x1b[1;32m%s\x1b[0m $ echo hi\r\nhi\r\n$ ", id)
	return e.SnapshotInto(dst)
}

// floodScreen is a 76×31 screen filled as `base64 -w 76 /dev/urandom`
// leaves it, different for each id.
func floodScreen(id string) *vt.Emulator {
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	e := vt.New(76, 31, vt.Options{})
	x := uint32(len(id)) * 2654435761
	for _, c := range id {
		x = x*31 + uint32(c)
	}
	line := make([]byte, 76)
	for range 40 {
		for i := range line {
			x = x*1664525 + 1013904223
			line[i] = b64[x>>26]
		}
		e.Write(line)
		e.Write([]byte("\r\n"))
	}
	return e
}

func (s *stub) Next(ctx context.Context) ([]session.Event, error) {
	select {
	case ev := <-s.next:
		return ev, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *stub) Presets() []fleet.Preset {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blocking("presets")
	s.presetCalls++
	return slices.Clone(s.presets)
}

func (s *stub) PresetCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.presetCalls
}

func (s *stub) Spawn(spec fleet.Spec) (string, error) {
	err := s.record("spawn %s %v %dx%d", spec.Agent, spec.Argv, spec.Cols, spec.Rows)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := spec.Agent + "-9"
	s.infos = append(s.infos, session.Info{ID: id, Kind: session.KindPty, Caps: ptyCaps, Agent: spec.Agent, Owned: true, Alive: true, Started: t0})
	return id, nil
}

func (s *stub) Send(id string, in session.Input) error {
	return s.record("write %s %q", id, in.Data)
}

func (s *stub) Transcript(id string, after uint64) []session.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blocking("transcript " + id)
	s.transcriptCalls++
	var out []session.Entry
	for _, e := range s.transcripts[id] {
		if e.Seq > after {
			out = append(out, e)
		}
	}
	return out
}
func (s *stub) Resize(id string, c, r uint16) error {
	return s.record("resize %s %dx%d", id, c, r)
}
func (s *stub) Kill(id string, force bool) error { return s.record("kill %s force=%v", id, force) }
func (s *stub) Restart(id string) error          { return s.record("restart %s", id) }
func (s *stub) Resume(id string) error           { return s.record("resume %s", id) }
func (s *stub) RestartFresh(id string) error     { return s.record("restart-fresh %s", id) }
func (s *stub) Seen(id string) error             { return s.record("seen %s", id) }
func (s *stub) Park(id string, on bool) error    { return s.record("park %s %v", id, on) }
func (s *stub) Continue(id string, at time.Time, text string) error {
	return s.record("continue %s %s %q", id, at.UTC().Format("15:04:05"), text)
}
func (s *stub) Interrupt(id string) error { return s.record("interrupt %s", id) }
func (s *stub) View(id string, on bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blocking("view")
	if s.views == nil {
		s.views = map[string]bool{}
	}
	s.views[id] = on
	return nil
}
func (s *stub) Answer(id string, c answer.Choice, question string) (answer.Given, error) {
	if err := s.record("answer %s %s %d %q", id, c.Kind, c.Option, c.Text); err != nil {
		return answer.Given{}, err
	}
	return answer.Given{Option: max(c.Option, 1), Label: "Yes", Question: "Do you want to proceed?"}, nil
}
func (s *stub) Diff(id, base string) (string, error) {
	call := "diff " + id
	if base != "" {
		call += " from " + base
	}
	if err := s.record("%s", call); err != nil {
		return "", err
	}
	return s.diff, nil
}

func (s *stub) Notes(id string) ([]review.Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.notes[id]), nil
}

func (s *stub) notesFor(id string) []review.Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.notes[id])
}

func (s *stub) SetNotes(id string, notes []review.Note) error {
	if err := s.record("notes %s %d", id, len(notes)); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.notes == nil {
		s.notes = map[string][]review.Note{}
	}
	s.notes[id] = slices.Clone(notes)
	return nil
}

func (s *stub) Say(id, text string) error {
	if err := s.record("say %s %q", id, text); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return fmt.Errorf("%s: %w: it is Thinking", id, fleet.ErrBusy)
	}
	return nil
}

func (s *stub) Ship(id string, sh review.Ship) (review.Shipped, error) {
	if err := s.record("ship %s %q push=%v pr=%v", id, sh.Message, sh.Push, sh.PR); err != nil {
		return review.Shipped{}, err
	}
	out := review.Shipped{Commit: "abc1234", Branch: "agent/fix"}
	if sh.Push {
		out.Pushed = "origin/agent/fix"
	}
	if sh.PR {
		out.NoPR = "gh is not installed"
	}
	return out, nil
}

func (s *stub) WorktreeChanges(id string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wtChanges, nil
}

func (s *stub) RemoveWorktree(id string, force bool) error {
	if err := s.record("remove-worktree %s %v", id, force); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wtChanges > 0 && !force {
		return review.ErrDirty
	}
	return nil
}

func (s *stub) Hosts() []fleet.HostInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.hosts)
}

func (s *stub) Endpoint(id string) (attach.Endpoint, error) {
	return nil, s.record("endpoint %s", id)
}

func (s *stub) Remove(id string) error {
	if err := s.record("remove %s", id); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.infos = slices.DeleteFunc(s.infos, func(in session.Info) bool { return in.ID == id })
	return nil
}

func (s *stub) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

func (s *stub) set(id string, fn func(*session.Info)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.infos {
		if s.infos[i].ID == id {
			fn(&s.infos[i])
		}
	}
}

// newModel is a dashboard over b at w×h with a fixed clock.
func newModel(t *testing.T, b Backend, w, h int, p themes.Palette) *Model {
	t.Helper()
	m := New(Options{Backend: b, Theme: p, Keys: keys.Default(), KillGrace: 5 * time.Second,
		Now: func() time.Time { return t0 }, DefaultDir: "/work", Classifiers: []string{"simple", "claude"}})
	t.Cleanup(m.cancel)
	hold(t, m)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drain(m) // the calls of the first frame (telling the focused session it is viewed)
	return m
}

// held are the Backend calls each model's Update handed to run, not yet
// made (see hold).
var held = map[*Model][]func() tea.Msg{}

// hold makes m's Backend calls wait until drain makes them, and checks at
// the end of the test that Update itself made none that may block.
func hold(t *testing.T, m *Model) {
	m.run = func(fn func() tea.Msg) tea.Cmd {
		held[m] = append(held[m], fn)
		return nil
	}
	t.Cleanup(func() {
		delete(held, m)
		if s, ok := m.opt.Backend.(*stub); ok {
			if v := s.Violations(); len(v) > 0 {
				t.Errorf("Update made Backend calls that may block: %q", v)
			}
		}
	})
}

// update is m.Update with the stub noting calls made inside it.
func update(m *Model, msg tea.Msg) tea.Cmd {
	s, _ := m.opt.Backend.(*stub)
	if s != nil {
		s.setInUpdate(true)
		defer s.setInUpdate(false)
	}
	_, cmd := m.Update(msg)
	return cmd
}

// drain makes the Backend calls m's Update handed to run, in order, and
// gives Update their results (which may hand it more).
func drain(m *Model) {
	for len(held[m]) > 0 {
		fn := held[m][0]
		held[m] = held[m][1:]
		update(m, fn())
	}
}

// press sends key names (or "type:TEXT" to type text), making the Backend
// calls each key's Update handed to run after it, and returns the last
// key's Cmd.
func press(m *Model, names ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, n := range names {
		if text, ok := strings.CutPrefix(n, "type:"); ok {
			for _, r := range text {
				cmd = update(m, tea.KeyPressMsg{Code: r, Text: string(r)})
				drain(m)
			}
			continue
		}
		cmd = update(m, keys.Press(n))
		drain(m)
	}
	return cmd
}

func wantCalls(t *testing.T, b *stub, want ...string) {
	t.Helper()
	if got := b.Calls(); !slices.Equal(got, want) {
		t.Fatalf("backend calls = %q, want %q", got, want)
	}
}

func plain(m *Model) string { return ansi.Strip(m.Render()) }

func TestListOrderAndSelection(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	if m.list.SelectedID() != "claude-1" {
		t.Fatalf("selected %q, want the first session", m.list.SelectedID())
	}
	press(m, "j", "j")
	if m.list.SelectedID() != "claude-2" {
		t.Fatalf("after j j selected %q, want claude-2", m.list.SelectedID())
	}
	press(m, "G")
	if m.list.SelectedID() != "build" {
		t.Fatalf("after G selected %q, want build", m.list.SelectedID())
	}
	// s cycles the order: name, then attention (needs input first, dead last).
	press(m, "s")
	if got := ids(m.list.Visible()); !slices.Equal(got, []string{"build", "claude-1", "claude-2", "shell-1"}) {
		t.Fatalf("by name: %q", got)
	}
	press(m, "s")
	if got := ids(m.list.Visible()); !slices.Equal(got, []string{"claude-2", "claude-1", "shell-1", "build"}) {
		t.Fatalf("by attention: %q", got)
	}
	if m.list.SelectedID() != "build" {
		t.Fatalf("re-sorting moved the selection to %q", m.list.SelectedID())
	}
}

func ids(v []session.Info) []string {
	out := make([]string, len(v))
	for i, in := range v {
		out[i] = in.ID
	}
	return out
}

func TestKillConfirmsWithNoSelected(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "x")
	if len(m.dialogs) != 1 || !strings.Contains(plain(m), "SIGTERM") {
		t.Fatalf("x did not open a kill dialog saying what happens:\n%s", plain(m))
	}
	press(m, "enter") // No is selected
	wantCalls(t, b)
	if len(m.dialogs) != 0 {
		t.Fatal("enter on No left the dialog open")
	}
	press(m, "x", "y")
	press(m, "X", "y")
	wantCalls(t, b, "kill claude-1 force=false", "kill claude-1 force=true")
	// A dead session is not killed again.
	press(m, "G", "x")
	if len(m.dialogs) != 0 || !strings.Contains(m.status, "already exited") {
		t.Fatalf("x on a dead session: dialogs %d, status %q", len(m.dialogs), m.status)
	}
}

func TestCommandLineKillAlsoConfirms(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, ":", "type:kill shell-1", "enter")
	wantCalls(t, b)
	if len(m.dialogs) != 1 {
		t.Fatalf(":kill opened %d dialogs, want the confirmation", len(m.dialogs))
	}
	press(m, "y")
	wantCalls(t, b, "kill shell-1 force=false")
}

func TestSendLine(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 80, 24, themes.Dark())
	press(m, "j", "i", "type:yes please", "enter")
	wantCalls(t, b, `write shell-1 "yes please\r"`)
	// Sending to a dead session is refused before any dialog.
	press(m, "G", "i")
	if len(m.dialogs) != 0 {
		t.Fatal("i on a dead session opened the send dialog")
	}
}

func TestQuitAsksOnlyWhenOwnSessionsRun(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "q")
	if m.quitting || len(m.dialogs) != 1 || !strings.Contains(plain(m), "3 sessions started from the dashboard") {
		t.Fatalf("q with running sessions: quitting=%v dialogs=%d\n%s", m.quitting, len(m.dialogs), plain(m))
	}
	press(m, "esc")
	press(m, "q", "c") // Cancel
	if m.quitting || len(m.dialogs) != 0 {
		t.Fatal("esc or Cancel quit")
	}
	press(m, "q", "enter") // the default: Leave them running
	if !m.quitting || m.StopSessions() {
		t.Fatalf("q enter: quitting=%v stop=%v, want a quit leaving the sessions", m.quitting, m.StopSessions())
	}
	m = newModel(t, b, 120, 35, themes.Dark())
	press(m, "q", "right", "enter") // Stop them
	if !m.quitting || !m.StopSessions() {
		t.Fatalf("q → Stop them: quitting=%v stop=%v", m.quitting, m.StopSessions())
	}
	m = newModel(t, b, 120, 35, themes.Dark())
	press(m, "q", "s")
	if !m.StopSessions() {
		t.Fatal("q s did not quit stopping the sessions")
	}

	b2 := newStub()
	b2.infos = b2.infos[3:] // only the dead session, not ours
	m2 := newModel(t, b2, 120, 35, themes.Dark())
	press(m2, "q")
	if !m2.quitting {
		t.Fatal("q with nothing running asked instead of quitting")
	}
}

// A host that cannot be reached shows in the header with what ssh said,
// from the Changed event that says so until the one that brings it back.
func TestHeaderShowsHostDown(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	b.mu.Lock()
	b.hosts = []fleet.HostInfo{{Name: "box", Up: true}, {Name: "far", Err: "ssh: connect to host far port 22: Connection refused\nmore"}}
	b.mu.Unlock()
	m.onEvents(eventsMsg{events: []session.Event{{Kind: session.Changed}}})
	if v := plain(m); !strings.Contains(v, "✗ far down: ssh: connect to host far port 22: Connection refused") || strings.Contains(v, "box down") {
		t.Fatalf("header with far down:\n%s", v)
	}
	b.mu.Lock()
	b.hosts[0] = fleet.HostInfo{Name: "box", Err: "ssh: lost"}
	b.mu.Unlock()
	m.onEvents(eventsMsg{events: []session.Event{{Kind: session.Changed}}})
	if v := plain(m); !strings.Contains(v, "✗ 2 hosts down: box, far") {
		t.Fatalf("header with two down:\n%s", v)
	}
	b.mu.Lock()
	b.hosts = []fleet.HostInfo{{Name: "box", Up: true}, {Name: "far", Up: true}}
	b.mu.Unlock()
	m.onEvents(eventsMsg{events: []session.Event{{Kind: session.Changed}}})
	if v := plain(m); strings.Contains(v, "down") {
		t.Fatalf("header after both came back:\n%s", v)
	}
}

// tab walks the inbox: what needs input, failed or finished unseen.
func TestTabJumpsToNeedsInput(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "tab")
	if m.list.SelectedID() != "claude-2" {
		t.Fatalf("tab selected %q, want claude-2", m.list.SelectedID())
	}
	if !strings.Contains(plain(m), "1 need input") {
		t.Fatalf("header does not count sessions needing input:\n%s", plain(m))
	}
	// Then the next item of the inbox: build failed.
	press(m, "tab")
	if m.list.SelectedID() != "build" {
		t.Fatalf("second tab selected %q, want build (its error)", m.list.SelectedID())
	}
	b.set("claude-2", func(in *session.Info) { in.NeedsInput = false })
	b.set("build", func(in *session.Info) { in.ExitCode = 0 })
	m.onEvents(eventsMsg{events: []session.Event{{Kind: session.Changed, ID: "claude-2"}, {Kind: session.Changed, ID: "build"}}})
	press(m, "tab")
	if m.list.SelectedID() != "build" || !strings.Contains(m.status, "nothing waits for you") {
		t.Fatalf("tab with nothing waiting: selected %q, status %q", m.list.SelectedID(), m.status)
	}
}

func TestBellOnNewNeedsInput(t *testing.T) {
	b := newStub()
	m := New(Options{Backend: b, Keys: keys.Default(), Bell: true, Now: func() time.Time { return t0 }})
	t.Cleanup(m.cancel)
	b.set("shell-1", func(in *session.Info) { in.NeedsInput = true })
	m.list.SetItems(b.Sessions())
	if !bellIn(m.checkInbox()) {
		t.Fatal("no bell on a new transition")
	}
	if cmd := m.checkInbox(); cmd != nil {
		t.Fatal("bell rang again without a new transition")
	}
	// The focused session (claude-1) alerts nobody; claude-2 asking
	// something new does.
	b.set("claude-1", func(in *session.Info) { in.NeedsInput = true })
	m.list.SetItems(b.Sessions())
	if cmd := m.checkInbox(); cmd != nil {
		t.Fatal("the focused session rang the bell")
	}
	b.set("claude-2", func(in *session.Info) { in.Reason, in.StateSince = "Bash: make", t0 }) // a new wait
	m.list.SetItems(b.Sessions())
	if cmd := m.checkInbox(); cmd == nil {
		t.Fatal("no bell on a new transition")
	} else if raw, ok := cmd().(tea.RawMsg); !ok || raw.Msg != "\a" {
		t.Fatalf("bell cmd produced %#v", cmd())
	}
}

// bellIn reports whether cmd (or a batch of them) writes a bell.
func bellIn(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.RawMsg:
		return msg.Msg == "\a"
	case tea.BatchMsg:
		for _, c := range msg {
			if bellIn(c) {
				return true
			}
		}
	}
	return false
}

func TestFilter(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "/", "type:cla", "enter")
	if got := ids(m.list.Visible()); !slices.Equal(got, []string{"claude-1", "claude-2"}) {
		t.Fatalf("filter cla: %q", got)
	}
	if !strings.Contains(plain(m), "/cla") {
		t.Fatalf("header does not show the filter:\n%s", plain(m))
	}
	press(m, "/", "type:zzz")
	if len(m.list.Visible()) != 0 || !strings.Contains(plain(m), "no sessions match /clazzz") {
		t.Fatalf("filter clazzz: %q\n%s", ids(m.list.Visible()), plain(m))
	}
	press(m, "esc") // clears while typing
	if len(m.list.Visible()) != 4 || m.list.Typing() {
		t.Fatalf("esc did not clear the filter: %q", ids(m.list.Visible()))
	}
}

func TestDirtyPullsVisibleScreensOnly(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	before := b.screens["shell-1"]
	m.onEvents(eventsMsg{events: []session.Event{{Kind: session.Dirty, ID: "claude-1"}, {Kind: session.Dirty, ID: "shell-1"}}})
	if b.screens["shell-1"] != before {
		t.Fatal("a hidden session's screen was pulled")
	}
	n := b.screens["claude-1"]
	// A batch without its screen (shown only since the batch was pulled):
	// pulled after Update, off the event loop.
	update(m, eventsMsg{events: []session.Event{{Kind: session.Dirty, ID: "claude-1"}}})
	if b.screens["claude-1"] != n {
		t.Fatal("Update pulled the screen itself")
	}
	drain(m)
	if b.screens["claude-1"] != n+1 {
		t.Fatal("the shown session's screen was not pulled on Dirty")
	}
	// Only the screens on show are kept: a hidden session's copy is
	// dropped, and showing it again pulls it afresh.
	press(m, "j") // shell-1 shown (pulled), claude-1 hidden
	if m.snaps["claude-1"] != nil {
		t.Fatal("a hidden session's screen was kept")
	}
	press(m, "k")
	before = b.screens["shell-1"]
	press(m, "j", "k")
	if b.screens["shell-1"] != before+1 {
		t.Fatal("showing a session again did not pull its screen")
	}
	before = b.screens["shell-1"]
	m.onEvents(eventsMsg{events: []session.Event{{Kind: session.Dirty, ID: "shell-1"}}})
	press(m, "j")
	if b.screens["shell-1"] != before+1 {
		t.Fatal("selecting a session whose screen changed while hidden did not pull it")
	}
	press(m, "k")
	before = b.screens["shell-1"]
	// In the grid every session is shown.
	press(m, "g")
	m.onEvents(eventsMsg{events: []session.Event{{Kind: session.Dirty, ID: "shell-1"}}})
	if b.screens["shell-1"] == before {
		t.Fatal("grid: a shown session's screen was not pulled")
	}
	if !strings.Contains(plain(m), "shell-1 $ echo hi") {
		t.Fatalf("grid does not show the screens:\n%s", plain(m))
	}
}

func TestEventsUpdateTheList(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	b.set("shell-1", func(in *session.Info) { in.Alive, in.ExitCode = false, 137 })
	m.onEvents(eventsMsg{events: []session.Event{{Kind: session.Exited, ID: "shell-1"},
		{Kind: session.Failed, Err: errors.New("watch: boom")}}})
	out := plain(m)
	if !strings.Contains(out, "Dead 137") || !strings.Contains(out, "watch: boom") {
		t.Fatalf("exit code or error not shown:\n%s", out)
	}
	// The error clears itself.
	seq := m.statusSeq
	m.Update(clearStatusMsg{seq})
	if m.status != "" {
		t.Fatal("status not cleared")
	}
	// Unknown IDs are dropped without harm.
	m.onEvents(eventsMsg{events: []session.Event{{Kind: session.Dirty, ID: "nope"}}})
}

func TestRemoveRestartResizeSpawn(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "d") // alive: refused
	wantCalls(t, b)
	if !strings.Contains(m.status, "kill it first") {
		t.Fatalf("status %q", m.status)
	}
	press(m, "G", "d")
	wantCalls(t, b, "remove build")
	if m.index("build") >= 0 {
		t.Fatal("removed session still listed")
	}
	press(m, "g", "g", "home", "R") // alive: asks first
	wantCalls(t, b, "remove build")
	press(m, "y")
	wantCalls(t, b, "remove build", "restart claude-1")

	press(m, "r", "type:100x30", "enter")
	calls := b.Calls()
	if last := calls[len(calls)-1]; last != "resize claude-1 100x30" {
		t.Fatalf("explicit resize: %q", calls)
	}
	press(m, ":", "type:resize claude-1 terminal", "enter")
	calls = b.Calls()
	if last := calls[len(calls)-1]; last != "resize claude-1 120x35" {
		t.Fatalf("resize to terminal: %q", calls)
	}

	lookUp(t, m, press(m, "n"))
	press(m, "ctrl+s")
	calls = b.Calls()
	cols, rows := m.paneSize(m.mode)
	if want := fmt.Sprintf("spawn shell [/bin/sh] %dx%d", cols, rows); calls[len(calls)-1] != want {
		t.Fatalf("spawn: %q, want %q", calls[len(calls)-1], want)
	}
	if m.list.SelectedID() != "shell-9" {
		t.Fatalf("new session not selected: %q", m.list.SelectedID())
	}
	// A failed spawn leaves the form open with the reason in it, to be
	// corrected.
	b.failed = errors.New("spawn: exec: \"nope\": not found")
	lookUp(t, m, press(m, "n"))
	press(m, "ctrl+s")
	if m.spawnForm() == nil || !strings.Contains(plain(m), "not found") {
		t.Fatalf("spawn error not shown in the form:\n%s", plain(m))
	}
	press(m, "ctrl+s") // again, now that it works
	if m.spawnForm() != nil {
		t.Fatalf("the form stayed open after a spawn that worked:\n%s", plain(m))
	}
}

func TestMouse(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	// Row 3 of the screen: header bar, list header, then sessions.
	m.Update(tea.MouseClickMsg{X: 3, Y: 4, Button: tea.MouseLeft})
	if m.list.SelectedID() != "claude-2" {
		t.Fatalf("click selected %q, want claude-2", m.list.SelectedID())
	}
	m.Update(tea.MouseWheelMsg{X: 3, Y: 4, Button: tea.MouseWheelDown})
	if m.list.SelectedID() != "build" {
		t.Fatalf("wheel selected %q, want build", m.list.SelectedID())
	}
}

func TestZoomHelpAndBack(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "z")
	if !strings.Contains(plain(m), "claude-1 $ echo hi") || strings.Contains(plain(m), "NAME") {
		t.Fatalf("zoom does not show one pane only:\n%s", plain(m))
	}
	press(m, "?")
	if !strings.Contains(plain(m), "Key reference") {
		t.Fatal("? did not open help")
	}
	press(m, "esc", "esc")
	if m.showHelp || m.mode != 0 {
		t.Fatalf("esc esc: help %v mode %v", m.showHelp, m.mode)
	}
}

// The dashboard fits any terminal size exactly and never panics.
func TestRenderEverySize(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 80, 24, themes.Dark())
	for _, mode := range []func(){func() {}, func() { press(m, "g") }, func() { press(m, "z") }, func() { press(m, "?") }, func() { press(m, "x") }} {
		mode()
		for w := 1; w <= 130; w += 7 {
			for h := 1; h <= 45; h += 4 {
				m.Update(tea.WindowSizeMsg{Width: w, Height: h})
				shapetest.Check(t, m.Render(), w, h)
			}
		}
	}
}

// The list's durations are redrawn once per unit of the first one on
// screen to change its text, and no timer runs while none is on screen.
func TestTickOncePerShownUnit(t *testing.T) {
	b := newStub()
	now := t0.Add(300 * time.Millisecond)
	m := New(Options{Backend: b, Keys: keys.Default(), Now: func() time.Time { return now }})
	t.Cleanup(m.cancel)
	hold(t, m)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	rearm := func() tea.Cmd {
		m.tickAt = time.Time{}
		return m.scheduleTick()
	}
	if rearm() == nil || !m.tickAt.Equal(t0.Add(time.Second)) {
		t.Fatalf("a 1s-resolution duration is shown: tick at %v, want the next whole second", m.tickAt)
	}
	// Not on screen, no timer: the help screen, the grid, a zoomed pane,
	// a filter that matches nothing.
	for _, c := range []struct{ name, on, off string }{{"help", "?", "esc"}, {"grid", "g", "g"}, {"zoom", "z", "esc"}} {
		press(m, c.on)
		if rearm() != nil {
			t.Errorf("%s: a tick was armed (at %v) with no duration on screen", c.name, m.tickAt)
		}
		press(m, c.off)
		if m.showHelp || m.mode != layout.ModeSplit {
			t.Fatalf("%s: %q did not go back to the list", c.name, c.off)
		}
	}
	m.list.SetFilter("no-such-session")
	if rearm() != nil {
		t.Errorf("filtered to nothing: a tick was armed at %v", m.tickAt)
	}
	m.list.SetFilter("")
	// Update arms it again when the list comes back.
	m.tickAt = time.Time{}
	press(m, "j")
	if !m.tickAt.Equal(t0.Add(time.Second)) {
		t.Fatalf("back on the list: tick at %v, want the next whole second", m.tickAt)
	}
	// Everything is over a minute old: the first to change text is TIME
	// "1m" (90 s) turning "2m", 30 s from now, rounded up to a second (the
	// list of a 120-column dashboard has no IDLE column).
	for i := range b.infos {
		b.infos[i].StateSince, b.infos[i].LastOutput = t0.Add(-90*time.Second), t0.Add(-2*time.Second)
	}
	m.reload()
	rearm()
	if !m.tickAt.Equal(t0.Add(30 * time.Second)) {
		t.Fatalf("tick at %v, want %v", m.tickAt, t0.Add(30*time.Second))
	}
	// Minutes turning at different seconds are redrawn together, on the
	// next mark of the 30 s grid: TIME "1m" (80 s) turns "2m" 40 s from now.
	for i := range b.infos {
		b.infos[i].StateSince = t0.Add(-80*time.Second - time.Duration(i)*time.Second)
	}
	m.reload()
	rearm()
	if !m.tickAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("minutes turning 37..40 s from now: tick at %v, want %v", m.tickAt, t0.Add(time.Minute))
	}
	for i := range b.infos {
		b.infos[i].StateSince = t0.Add(-90 * time.Second)
	}
	// Dead sessions' TIME counts on.
	for i := range b.infos {
		b.infos[i].Alive = false
	}
	m.reload()
	if rearm() == nil || !m.tickAt.Equal(t0.Add(30*time.Second)) {
		t.Fatalf("dead sessions: tick at %v, want %v", m.tickAt, t0.Add(30*time.Second))
	}
}

// The empty list names the keys of the list itself, also while a dialog
// is open over it (not the dialog's keys, not action names).
func TestEmptyHintNamesListKeys(t *testing.T) {
	b := newStub()
	b.infos = nil
	m := newModel(t, b, 120, 35, themes.Dark())
	want := "no sessions — press n to spawn one, : for commands"
	if v := plain(m); !strings.Contains(v, want) {
		t.Fatalf("empty view lacks %q:\n%s", want, v)
	}
	press(m, "n")
	if v := plain(m); !strings.Contains(v, "press n to spawn one") || strings.Contains(v, "press spawn") {
		t.Fatalf("under the spawn dialog:\n%s", v)
	}
}

// Closing the help screen over a grid pulls no screen in the key's
// Update: the copies of the panes under it are kept, those that changed
// meanwhile are shown until a refresh off the event loop brings them, and
// a refresh is not stored over a newer screen a batch brought meanwhile.
func TestHelpKeepsCoveredScreens(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "g")
	shown := m.visibleIDs()
	if len(shown) != 4 || len(m.snaps) != 4 {
		t.Fatalf("grid shows %q with %d screens", shown, len(m.snaps))
	}
	press(m, "?")
	kept := m.snaps["shell-1"]
	update(m, eventsMsg{events: []session.Event{{Kind: session.Dirty, ID: "shell-1"}}})
	drain(m)
	if m.snaps["shell-1"] != kept || !m.stale["shell-1"] || len(m.snaps) != 4 {
		t.Fatalf("under help: screens %d, shell-1 kept %v, stale %v", len(m.snaps), m.snaps["shell-1"] == kept, m.stale)
	}
	before := b.screens["shell-1"]
	total := func() (n int) {
		for _, c := range b.screens {
			n += c
		}
		return n
	}
	all := total()
	update(m, keys.Press("?"))
	if total() != all || m.showHelp {
		t.Fatalf("closing help pulled %d screens in Update (help shown: %v)", total()-all, m.showHelp)
	}
	if m.snaps["shell-1"] != kept || !strings.Contains(plain(m), "shell-1 $ echo hi") {
		t.Fatalf("the kept screen is not shown:\n%s", plain(m))
	}
	drain(m)
	if b.screens["shell-1"] != before+1 || m.snaps["shell-1"] == kept || m.stale["shell-1"] {
		t.Fatalf("the stale screen was not refreshed: %d pulls, stale %v", b.screens["shell-1"]-before, m.stale)
	}
	if total() != all+1 {
		t.Fatalf("%d screens pulled, want only the stale one", total()-all)
	}

	// A refresh begun before a batch brought a newer screen is dropped.
	m.stale["claude-1"] = true
	refresh := m.refreshStale()
	if refresh != nil || len(held[m]) != 1 {
		t.Fatalf("refreshStale: cmd %v, %d held", refresh, len(held[m]))
	}
	fn := held[m][0]
	held[m] = nil
	newer := b.Screen("claude-1")
	update(m, eventsMsg{events: []session.Event{{Kind: session.Dirty, ID: "claude-1"}}, screens: map[string]*vt.Snapshot{"claude-1": newer}})
	drain(m)
	update(m, fn())
	if m.snaps["claude-1"] != newer {
		t.Fatal("an older refresh replaced the screen a later batch brought")
	}
}

// The event Cmd pulls the screens of shown sessions that became dirty, off
// the event loop; Update then uses them instead of pulling again.
func TestEventCmdPullsShownDirtyScreens(t *testing.T) {
	b := newStub()
	b.next = make(chan []session.Event, 1)
	m := newModel(t, b, 120, 35, themes.Dark())
	cmd := m.waitEvents()
	b.next <- []session.Event{{Kind: session.Dirty, ID: "claude-1"}, {Kind: session.Dirty, ID: "shell-1"}}
	shown, hidden := b.screens["claude-1"], b.screens["shell-1"]
	msg, ok := cmd().(eventsMsg)
	if !ok || msg.screens["claude-1"] == nil || msg.screens["shell-1"] != nil {
		t.Fatalf("event Cmd returned %#v", msg)
	}
	if b.screens["claude-1"] != shown+1 || b.screens["shell-1"] != hidden {
		t.Fatalf("screens pulled by the Cmd: claude-1 %d→%d, shell-1 %d→%d", shown, b.screens["claude-1"], hidden, b.screens["shell-1"])
	}
	m.Update(msg)
	if b.screens["claude-1"] != shown+1 {
		t.Fatal("Update pulled the screen the Cmd had already pulled")
	}
}

// The event Cmd writes a shown session's new screen into the memory of the
// one its previous pull replaced (the spare), rather than into a new copy
// each batch, while the session is writing (its screen replaced twice
// within spareHold); spares it did not use come back with its message.
func TestEventCmdReusesReplacedScreens(t *testing.T) {
	b := newStub()
	b.next = make(chan []session.Event, 1)
	m := newModel(t, b, 120, 35, themes.Dark())
	clock := t0
	m.now = func() time.Time { return clock }
	batch := func(cmd tea.Cmd, ids ...string) tea.Cmd {
		t.Helper()
		var ev []session.Event
		for _, id := range ids {
			ev = append(ev, session.Event{Kind: session.Dirty, ID: id})
		}
		b.next <- ev
		msg, ok := cmd().(eventsMsg)
		if !ok {
			t.Fatal("the event Cmd returned no batch")
		}
		clock = clock.Add(10 * time.Millisecond)
		return m.onEvents(msg)
	}
	// The first replacement after a quiet spell keeps no spare.
	next := batch(m.waitEvents(), "claude-1")
	second := m.snaps["claude-1"]
	next = batch(next, "claude-1")
	third := m.snaps["claude-1"]
	// The spares go with each Cmd that waits for a batch (len(m.spares)
	// is 0 between batches) and come back with its message.
	if len(b.reused) != 0 || third == second || len(m.spares) != 0 {
		t.Fatalf("two batches: reused %d, new screens %v, spares kept %d", len(b.reused), third != second, len(m.spares))
	}
	next = batch(next, "shell-1") // not shown: the spare is not used
	if len(b.reused) != 0 {
		t.Fatal("a spare was handed to a pull of another session")
	}
	next = batch(next, "claude-1")
	if len(b.reused) != 1 || b.reused[0] != second || m.snaps["claude-1"] != second {
		t.Fatalf("third pull: reused %d (the second screen: %v), shown is it: %v",
			len(b.reused), len(b.reused) > 0 && b.reused[0] == second, m.snaps["claude-1"] == second)
	}
	batch(next, "claude-1")
	if len(b.reused) != 2 || b.reused[1] != third || m.snaps["claude-1"] != third {
		t.Fatal("the fourth pull did not reuse the third screen")
	}
	if !strings.Contains(plain(m), "claude-1 $ echo hi") {
		t.Fatalf("the reused screen is not drawn:\n%s", plain(m))
	}

	// A Cmd that waits longer than spareHold for its batch drops its
	// spares: an idle dashboard keeps one copy of each screen.
	cmd := m.onEvents(eventsMsg{events: []session.Event{{Kind: session.Dirty, ID: "claude-1"}},
		screens: map[string]*vt.Snapshot{"claude-1": b.Screen("claude-1")}})
	if len(m.spares) != 0 || cmd == nil {
		t.Fatal("the spare was not handed to the Cmd")
	}
	go func() { time.Sleep(spareHold + 100*time.Millisecond); b.next <- nil }()
	if msg, ok := cmd().(eventsMsg); !ok || len(msg.spares) != 0 {
		t.Fatalf("after a quiet spell the Cmd returned %d spares", len(msg.spares))
	}
	// A screen replaced after a quiet spell leaves no spare.
	clock = clock.Add(spareHold)
	m.setSnap("claude-1", b.Screen("claude-1"))
	if len(m.spares) != 0 {
		t.Fatal("a screen replaced after a quiet spell was kept as a spare")
	}
}

// A session that asked for input while no dashboard watched it is
// selected when one comes back, in the order the user chose (the sort is
// not changed behind their back; one kept from before applies), and the
// status line says so.
func TestComingBackShowsAttentionFirst(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	m.Init()
	if m.list.Order() != sessions.SortStarted || m.list.SelectedID() != "claude-1" || m.status != "" {
		t.Fatalf("without attention: order %v, selected %q, status %q", m.list.Order(), m.list.SelectedID(), m.status)
	}
	b = newStub()
	b.infos[2].Attention = true // claude-2, needing input
	// Needing input too, but it started while watched (started earlier,
	// so it would sort first by start time).
	b.infos[0].NeedsInput, b.infos[0].State = true, session.Idle
	m = newModel(t, b, 120, 35, themes.Dark())
	m.Init()
	if m.list.Order() != sessions.SortStarted || m.list.SelectedID() != "claude-2" {
		t.Fatalf("order %v, selected %q", m.list.Order(), m.list.SelectedID())
	}
	if !strings.Contains(m.status, "claude-2 asked for input while you were away") {
		t.Fatalf("status %q", m.status)
	}
	// The attention order kept from before: claude-2 first.
	m = New(Options{Backend: b, Theme: themes.Dark(), Keys: keys.Default(), Sort: "attention"})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	m.Init()
	if got := ids(m.list.Visible()); m.list.Order() != sessions.SortAttention || got[0] != "claude-2" {
		t.Fatalf("kept attention order: %v %v", m.list.Order(), got)
	}
}

// runAll runs cmd and the commands of the batches it gives, each on a
// goroutine of its own (a status line's timer waits), ignoring what they
// return otherwise.
func runAll(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		if batch, ok := cmd().(tea.BatchMsg); ok {
			for _, c := range batch {
				runAll(c)
			}
		}
	}()
}

// s cycles the sort and keeps the choice (SaveSort, off the event loop).
func TestSortKept(t *testing.T) {
	b := newStub()
	saved := make(chan string, 1)
	m := New(Options{Backend: b, Theme: themes.Dark(), Keys: keys.Default(), SaveSort: func(o string) error { saved <- o; return nil }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	runAll(m.apply(action.Sort{}))
	if m.list.Order() != sessions.SortName {
		t.Fatalf("order %v", m.list.Order())
	}
	select {
	case o := <-saved:
		if o != "name" {
			t.Fatalf("saved %q", o)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the order was not kept")
	}
}

// Sessions that run outside the dashboard (CapOutlive: headless ones in a
// daemon, as pty sessions under their supervisors) outlive it: q offers to
// leave them running or stop them. Heddle workers are the dashboard's own
// and end with it: with only those running, q asks a plain yes/no saying
// so; with others too, the choice says it as well.
func TestQuitByKind(t *testing.T) {
	b := newStub()
	for i := range b.infos[:3] {
		b.infos[i].Kind, b.infos[i].Caps = session.KindHeadless, session.CapTranscript|session.CapInterrupt|session.CapOutlive
	}
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "q")
	if s := plain(m); !strings.Contains(s, "sessions started from the dashboard") || !strings.Contains(s, "Leave them running") {
		t.Fatalf("quit with only headless sessions (they live in the daemon):\n%s", s)
	}
	b = newStub()
	b.infos[0].Kind, b.infos[0].Caps = session.KindHeddle, session.CapTranscript
	m = newModel(t, b, 120, 35, themes.Dark())
	press(m, "q")
	if s := plain(m); !strings.Contains(s, "sessions started from the dashboard") || !strings.Contains(s, "(a heddle worker)") {
		t.Fatalf("quit with pty sessions and a heddle worker:\n%s", s)
	}
	b = newStub()
	for i := range b.infos {
		b.infos[i].Kind, b.infos[i].Caps = session.KindHeddle, session.CapTranscript
	}
	m = newModel(t, b, 120, 35, themes.Dark())
	press(m, "q")
	if s := plain(m); strings.Contains(s, "Leave them running") || !strings.Contains(s, "heddle workers") {
		t.Fatalf("quit with only heddle workers:\n%s", s)
	}
	press(m, "y")
	if !m.quitting || m.StopSessions() {
		t.Fatalf("quitting=%v stop=%v", m.quitting, m.StopSessions())
	}
}

// A session its agent reports Done is counted in the header and shows
// "Done" with its title; selecting it tells the backend it was seen, once
// per finished turn. An error and a reason show in the list.
func TestDoneSeenOnFocus(t *testing.T) {
	b := newStub()
	b.infos[1].Done, b.infos[1].Title = true, "✳ Fix the parser"
	b.infos[2].Reason = "Bash: rm -rf build"
	b.infos = append(b.infos, session.Info{ID: "claude-3", Kind: session.KindPty, Caps: ptyCaps, Agent: "claude", Alive: true,
		State: session.Idle, Error: "rate_limit: resets 3pm", Cols: 80, Rows: 24})
	m := newModel(t, b, 140, 35, themes.Dark())
	out := plain(m)
	for _, want := range []string{"✓ 1 done", "✗ 1 error", "Done ", "Error ", "claude-3 — rate_limit: resets 3pm"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q on the screen:\n%s", want, out)
		}
	}
	wantCalls(t, b) // the selected session is not Done: nothing to clear
	selectID(t, m, "claude-2")
	if out := plain(m); !strings.Contains(out, "claude-2 — Bash: rm -rf build") {
		t.Errorf("no reason in the pane title:\n%s", out)
	}
	selectID(t, m, "shell-1")
	if out := plain(m); !strings.Contains(out, "shell-1 — ✳ Fix the parser") {
		t.Errorf("no title in the pane title:\n%s", out)
	}
	wantCalls(t, b, "seen shell-1")
	press(m, "k", "j") // the same finished turn: told once
	wantCalls(t, b, "seen shell-1")
}

// Restarting a session whose agent reported its conversation asks
// whether to resume it (the default) or start afresh.
func TestRestartResumeOrFresh(t *testing.T) {
	b := newStub()
	b.infos[3].Conversation = "conv-9" // build: dead
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "G", "R")
	if !strings.Contains(plain(m), "conv-9") {
		t.Fatalf("no choice:\n%s", plain(m))
	}
	press(m, "enter")
	wantCalls(t, b, "resume build")
	press(m, "R", "f")
	wantCalls(t, b, "resume build", "restart-fresh build")
}

// selectID moves the selection to id with the keys (bounded).
func selectID(t *testing.T, m *Model, id string) {
	t.Helper()
	press(m, "home")
	for i := 0; i < 20 && m.list.SelectedID() != id; i++ {
		press(m, "j")
	}
	if m.list.SelectedID() != id {
		t.Fatalf("cannot select %s:\n%s", id, plain(m))
	}
}

// A batch that changed more than floodPanes sessions on screen makes the
// next one wait for 1/floodFPS, and one that changed a few, or only
// sessions off screen, for 1/maxFPS: a grid of floods is redrawn less
// often, a streaming agent as often as before.
func TestFloodsSlowTheBatchRate(t *testing.T) {
	b := benchStub(8)
	m := newModel(t, b, 120, 35, themes.Dark())
	dirty := func(ids ...string) eventsMsg {
		var ev []session.Event
		for _, id := range ids {
			ev = append(ev, session.Event{Kind: session.Dirty, ID: id})
		}
		return eventsMsg{events: ev}
	}
	all := []string{"busy-1", "busy-2", "busy-3", "busy-4", "busy-5", "busy-6", "busy-7", "busy-8"}
	m.onEvents(dirty(all...))
	if len(m.visibleIDs()) != 1 || m.nextGap != time.Second/maxFPS {
		t.Fatalf("split view, %d sessions on screen, all 8 changed: gap %v, want %v", len(m.visibleIDs()), m.nextGap, time.Second/maxFPS)
	}
	press(m, "g")
	if len(m.visibleIDs()) != 8 {
		t.Fatalf("grid shows %q", m.visibleIDs())
	}
	for _, c := range []struct {
		changed []string
		want    time.Duration
	}{
		{all, time.Second / floodFPS},
		{all[:floodPanes+1], time.Second / floodFPS},
		{all[:floodPanes], time.Second / maxFPS},
		{all[:1], time.Second / maxFPS},
		{nil, time.Second / maxFPS},
	} {
		m.onEvents(dirty(c.changed...))
		if m.nextGap != c.want {
			t.Errorf("grid, %d of 8 changed: gap %v, want %v", len(c.changed), m.nextGap, c.want)
		}
	}
}

// What was sent to a Done session is forgotten with the session: the
// dashboard's memory of Seen marks does not grow with every session it
// has shown.
func TestSeenMarksGoWithTheirSession(t *testing.T) {
	b := newStub()
	b.infos[0].Done = true // claude-1, selected first
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "j", "k")
	drain(m)
	if _, ok := m.seen["claude-1"]; !ok || !slices.Contains(b.calls, "seen claude-1") {
		t.Fatalf("focusing a Done session: seen marks %v, calls %q", m.seen, b.calls)
	}
	m.onEvents(eventsMsg{events: []session.Event{{Kind: session.Removed, ID: "claude-1"}}})
	if _, ok := m.seen["claude-1"]; ok {
		t.Fatalf("a removed session's Seen mark is kept: %v", m.seen)
	}
}

// A session restarted under its ID (R) shows the new program's screen at
// once: what was pulled of the old one is dropped on Added, and pulled
// again, not kept until the new program writes.
func TestRestartedSessionScreenPulled(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	m.Init()
	before := b.screens["claude-1"]
	if m.snaps["claude-1"] == nil {
		t.Fatal("the selected session's screen was not pulled")
	}
	update(m, eventsMsg{events: []session.Event{{Kind: session.Added, ID: "claude-1"}}})
	drain(m)
	if b.screens["claude-1"] == before {
		t.Fatal("the restarted session's screen was not pulled again")
	}
}
