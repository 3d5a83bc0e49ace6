package app

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/dialog"
)

// lookUp runs cmd, which must be the presets lookup a key returned, and
// hands its message to Update (making the Backend calls that hands to run).
func lookUp(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	msg := presetsOf(t, cmd)
	update(m, msg)
	drain(m)
}

// presetsOf runs cmd and returns its message, which must be a presetsMsg.
func presetsOf(t *testing.T, cmd tea.Cmd) presetsMsg {
	t.Helper()
	if cmd == nil {
		t.Fatal("no Cmd: the presets are not looked up")
	}
	raw := cmd()
	msg, ok := raw.(presetsMsg)
	if !ok {
		t.Fatalf("Cmd returned %T, want presetsMsg", raw)
	}
	return msg
}

// n opens the spawn form at once, without looking anything up in Update;
// the Cmd it returns looks the presets up, and its message fills them in.
func TestSpawnPresetsOffEventLoop(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	cmd := press(m, "n")
	if n := b.PresetCalls(); n != 0 {
		t.Fatalf("Update called Presets %d times", n)
	}
	if len(m.dialogs) != 1 || !strings.Contains(plain(m), "looking up presets") {
		t.Fatalf("n did not open the form at once (dialogs %d):\n%s", len(m.dialogs), plain(m))
	}
	msg := presetsOf(t, cmd)
	if n := b.PresetCalls(); n != 1 {
		t.Fatalf("the Cmd called Presets %d times, want 1", n)
	}
	m.Update(msg)
	if v := plain(m); strings.Contains(v, "looking up presets") || !strings.Contains(v, "▸ shell") {
		t.Fatalf("presets not filled in:\n%s", v)
	}
	if n := b.PresetCalls(); n != 1 {
		t.Fatalf("Presets called %d times, want 1", n)
	}
}

// A lookup that ends after its dialog was closed changes nothing, and a
// dialog opened again takes only its own lookup's presets.
func TestPresetsLateOrStale(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	first := presetsOf(t, press(m, "n"))
	press(m, "esc")
	m.Update(first)
	if len(m.dialogs) != 0 {
		t.Fatalf("a late lookup reopened a dialog: %d", len(m.dialogs))
	}

	// PATH changed: a new lookup finds fish; the first lookup's
	// message, arriving late, must not fill the new form.
	first = presetsOf(t, press(m, "n"))
	press(m, "esc")
	b.mu.Lock()
	b.presets = append(b.presets, fleet.Preset{Name: "fish", Argv: []string{"fish"}, Found: true})
	b.mu.Unlock()
	second := press(m, "n")
	m.Update(first)
	d, ok := m.dialogs[len(m.dialogs)-1].(*dialog.SpawnDialog)
	if !ok || !d.Pending() {
		t.Fatalf("the first lookup filled the second form:\n%s", plain(m))
	}
	lookUp(t, m, second)
	if v := plain(m); !strings.Contains(v, "fish") || d.Pending() {
		t.Fatalf("the second lookup did not fill its form:\n%s", v)
	}
	if len(m.dialogs) != 1 {
		t.Fatalf("dialogs %d, want 1", len(m.dialogs))
	}
}

// The command line opens at once too; ":spawn" entered before the
// presets arrive runs when they do.
func TestCommandPresetsOffEventLoop(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	cmd := press(m, ":")
	press(m, "type:spawn shell", "enter")
	if n := b.PresetCalls(); n != 0 {
		t.Fatalf("Update called Presets %d times", n)
	}
	wantCalls(t, b)
	if len(m.dialogs) != 1 || !strings.Contains(plain(m), "looking up presets") {
		t.Fatalf("queued :spawn not shown as waiting (dialogs %d):\n%s", len(m.dialogs), plain(m))
	}
	lookUp(t, m, cmd)
	cols, rows := m.paneSize(m.mode)
	wantCalls(t, b, fmt.Sprintf("spawn shell [/bin/sh] %dx%d", cols, rows))
	if len(m.dialogs) != 0 {
		t.Fatalf("command line still open after the queued spawn ran")
	}

	// Lines that need no preset run at once.
	press(m, ":", "type:kill! shell-1", "enter")
	if len(m.dialogs) != 1 || !strings.Contains(plain(m), "SIGKILL") {
		t.Fatalf(":kill! did not ask at once:\n%s", plain(m))
	}
}
