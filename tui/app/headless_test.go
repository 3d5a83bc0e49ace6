package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/action"
)

// Open makes the stub a HeadlessOpener: the session it opens is listed.
func (s *stub) Open(spec fleet.HeadlessSpec) (string, error) {
	kind := spec.Kind
	if kind == "" {
		kind = session.KindHeadless
	}
	err := s.record("open %s %q dir=%s model=%s perm=%s prompt=%q", kind, spec.ID, spec.Dir, spec.Model, spec.PermissionMode, spec.SystemPrompt)
	if err != nil {
		return "", err
	}
	id := spec.ID
	if id == "" {
		id = "claude-0123abcd"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.infos = append(s.infos, session.Info{ID: id, Kind: kind, Caps: session.CapTranscript | session.CapInterrupt,
		Agent: "claude", Owned: true, Alive: true, Started: t0})
	return id, nil
}

// Kinds makes the stub a HeadlessOpener of its kinds (none set: headless
// Claude only).
func (s *stub) Kinds() []session.Kind {
	if s.kinds == nil {
		return []session.Kind{session.KindHeadless}
	}
	return s.kinds
}

// newHeadlessModel is a dashboard over a stub that is its HeadlessOpener
// too (as if it ran blemeesd).
func newHeadlessModel(t *testing.T) (*stub, *Model) {
	t.Helper()
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	m.opt.Headless = b
	return b, m
}

// Without an opener (no blemeesd in the dashboard) the spawn form offers
// no headless entry, and a SpawnHeadless says why it cannot be done.
func TestSpawnHeadlessUnavailable(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	lookUp(t, m, press(m, "n"))
	if v := plain(m); strings.Contains(v, "claude (headless)") {
		t.Fatalf("headless offered without an opener:\n%s", v)
	}
	press(m, "esc")
	m.exec(action.SpawnHeadless{})
	drain(m)
	wantCalls(t, b)
	if !m.statusErr || !strings.Contains(m.status, "--blemeesd") {
		t.Fatalf("status %q (error %v)", m.status, m.statusErr)
	}
}

// The headless entry's form reaches the opener off the event loop; the new
// session is selected, and an error is reported on the status line.
func TestSpawnHeadless(t *testing.T) {
	b, m := newHeadlessModel(t)
	lookUp(t, m, press(m, "n"))
	// Entries: shell, claude (headless), custom command.
	press(m, "up", "up")
	if v := plain(m); !strings.Contains(v, "▸ claude (headless)") || !strings.Contains(v, "Permissions") {
		t.Fatalf("headless form not shown:\n%s", v)
	}
	press(m, "tab", "type:rev", "tab", "tab", "type:opus", "tab", "right", "tab", "type:be brief", "enter")
	wantCalls(t, b, `open headless "rev" dir=/work model=opus perm=default prompt="be brief"`)
	if len(m.dialogs) != 0 {
		t.Fatalf("form still open: %d dialogs", len(m.dialogs))
	}
	if m.list.SelectedID() != "rev" || !strings.Contains(m.status, "started rev") {
		t.Fatalf("selected %q, status %q", m.list.SelectedID(), m.status)
	}

	b.failed = errors.New("cannot start claude: exec: \"claude\": not found")
	lookUp(t, m, press(m, "n"))
	press(m, "up", "up", "ctrl+s")
	if m.spawnForm() == nil || !strings.Contains(plain(m), "cannot start claude") {
		t.Fatalf("open error not shown in the form:\n%s", plain(m))
	}
	if m.list.SelectedID() != "rev" {
		t.Fatalf("selection moved on a failed open: %q", m.list.SelectedID())
	}
}

// ":spawn claude-headless NAME" reaches the opener as the form does.
func TestCommandSpawnHeadless(t *testing.T) {
	b, m := newHeadlessModel(t)
	lookUp(t, m, press(m, ":"))
	press(m, "type:spawn claude-headless h2", "enter")
	wantCalls(t, b, `open headless "h2" dir= model= perm= prompt=""`)
	if m.list.SelectedID() != "h2" {
		t.Fatalf("selected %q", m.list.SelectedID())
	}
}

// With heddle workers offered too, the form has their entry (Model and
// System prompt, no Permissions) after claude's; it opens a heddle spec;
// ":spawn heddle NAME" too; closing one asks to close, not kill.
func TestSpawnHeddle(t *testing.T) {
	b, m := newHeadlessModel(t)
	b.kinds = []session.Kind{session.KindHeadless, session.KindHeddle}
	lookUp(t, m, press(m, "n"))
	// Entries: shell (selected), claude (headless), heddle worker, custom
	// command; up wraps.
	press(m, "up", "up")
	v := plain(m)
	if !strings.Contains(v, "▸ heddle worker") || strings.Contains(v, "Permissions") || !strings.Contains(v, "Sys. prompt") {
		t.Fatalf("heddle form not shown:\n%s", v)
	}
	press(m, "tab", "type:w1", "tab", "tab", "type:test/model", "tab", "type:be brief", "enter")
	wantCalls(t, b, `open heddle "w1" dir=/work model=test/model perm= prompt="be brief"`)
	if m.list.SelectedID() != "w1" || !strings.Contains(m.status, "started w1 (a heddle worker session)") {
		t.Fatalf("selected %q, status %q", m.list.SelectedID(), m.status)
	}
	lookUp(t, m, press(m, ":"))
	press(m, "type:spawn heddle w2", "enter")
	wantCalls(t, b, `open heddle "w1" dir=/work model=test/model perm= prompt="be brief"`, `open heddle "w2" dir= model= perm= prompt=""`)
	m.exec(action.Kill{ID: "w2"})
	if v := plain(m); !strings.Contains(v, "Close w2") || !strings.Contains(v, "Its program is stopped") {
		t.Fatalf("close dialog:\n%s", v)
	}

	// An opener without heddle: the command says what is missing.
	b.kinds = nil
	m.exec(action.SpawnHeadless{Spec: fleet.HeadlessSpec{Kind: session.KindHeddle}})
	drain(m)
	if !m.statusErr || !strings.Contains(m.status, "config [heddle] command") {
		t.Fatalf("status %q", m.status)
	}
}
