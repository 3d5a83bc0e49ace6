package dialog

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/themes"
)

// The spawn form opens before the presets are known, says so, refuses to
// start nothing, and takes the presets when they come: the first one
// selected with its classifier.
func TestSpawnPending(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	dir := t.TempDir()
	d := NewSpawnPending(dir, testClassifiers)
	if !d.Pending() {
		t.Fatal("NewSpawnPending is not pending")
	}
	view := ansi.Strip(d.View(st, 80, 30))
	if !strings.Contains(view, "looking up presets…") || !strings.Contains(view, "custom command") {
		t.Fatalf("pending form:\n%s", view)
	}
	if act := feed(t, d, "ctrl+s"); act != nil {
		t.Fatalf("submit while pending → %#v, want the form kept", act)
	}
	if view := ansi.Strip(d.View(st, 80, 30)); !strings.Contains(view, "still looking up presets") {
		t.Fatalf("no error after submitting while pending:\n%s", view)
	}
	d.SetPresets(testPresets)
	if d.Pending() {
		t.Fatal("still pending after SetPresets")
	}
	view = ansi.Strip(d.View(st, 80, 30))
	if strings.Contains(view, "looking up presets") || !strings.Contains(view, "▸ claude") || strings.Contains(view, "codex") {
		t.Fatalf("form after SetPresets (claude selected, codex not found):\n%s", view)
	}
	act := feed(t, d, "ctrl+s")
	want := fleet.Spec{Agent: "claude", Argv: []string{"claude"}, Classifier: "claude", Env: []string{"A=1"}, Dir: dir}
	if got, ok := act.(Spawn); !ok || !reflect.DeepEqual(got.Spec, want) {
		t.Fatalf("after SetPresets: %#v, want %#v", act, Spawn{Spec: want})
	}
}

// What the user did while the presets were looked up survives their
// arrival: a custom command being typed stays selected, a classifier
// chosen stays chosen.
func TestSpawnPendingKeepsInput(t *testing.T) {
	dir := t.TempDir()
	d := NewSpawnPending(dir, testClassifiers)
	feed(t, d, "enter", "type:make test") // enter on "custom command": its field
	d.SetPresets(testPresets)
	want := fleet.Spec{Argv: []string{"make", "test"}, Dir: dir}
	if got, ok := feed(t, d, "ctrl+s").(Spawn); !ok || !reflect.DeepEqual(got.Spec, want) {
		t.Fatalf("custom command typed while pending: %#v, want %#v", got, want)
	}

	d = NewSpawnPending(dir, testClassifiers)
	feed(t, d, "shift+tab", "right", "right") // classifier: default → simple → aider
	d.SetPresets(testPresets)
	want = fleet.Spec{Agent: "claude", Argv: []string{"claude"}, Classifier: "aider", Env: []string{"A=1"}, Dir: dir}
	if got, ok := feed(t, d, "ctrl+s").(Spawn); !ok || !reflect.DeepEqual(got.Spec, want) {
		t.Fatalf("classifier chosen while pending: %#v, want %#v", got, want)
	}
}

// The command line runs what needs no preset at once; a line naming a
// preset waits for SetPresets, which runs it, unless it was edited since.
func TestCommandPending(t *testing.T) {
	d := NewCommandPending(testIDs)
	if !d.Pending() {
		t.Fatal("NewCommandPending is not pending")
	}
	if act := feed(t, NewCommandPending(testIDs), "type:kill claude-1", "enter"); act != (Kill{ID: "claude-1"}) {
		t.Fatalf("kill while pending → %#v", act)
	}
	if act := feed(t, d, "type:spawn sh", "tab"); act != nil || !strings.Contains(d.err, "still looking up presets") {
		t.Fatalf("preset completion while pending → %#v, err %q", act, d.err)
	}
	if act := feed(t, d, "type:ell x-1", "enter"); act != nil {
		t.Fatalf("spawn while pending → %#v, want it queued", act)
	}
	st := themes.Build(themes.Dark(), false)
	if view := ansi.Strip(d.View(st, 80, 20)); !strings.Contains(view, "looking up presets") {
		t.Fatalf("queued line does not say it waits:\n%s", view)
	}
	want := Spawn{Spec: fleet.Spec{ID: "x-1", Agent: "shell", Argv: []string{"/bin/bash"}, Classifier: "simple"}}
	if act := d.SetPresets(testPresets); !reflect.DeepEqual(act, want) {
		t.Fatalf("SetPresets after enter → %#v, want %#v", act, want)
	}
	if d.Pending() {
		t.Fatal("still pending after SetPresets")
	}

	// Edited after enter: nothing runs by itself.
	d = NewCommandPending(testIDs)
	feed(t, d, "type:spawn shell", "enter", "type: x")
	if act := d.SetPresets(testPresets); act != nil {
		t.Fatalf("SetPresets after an edit → %#v, want nil", act)
	}
	// A queued line that fails shows its error.
	d = NewCommandPending(testIDs)
	feed(t, d, "type:spawn emacs", "enter")
	if act := d.SetPresets(testPresets); act != nil || !strings.Contains(d.err, "unknown preset") {
		t.Fatalf("queued bad line → %#v, err %q", act, d.err)
	}
}
