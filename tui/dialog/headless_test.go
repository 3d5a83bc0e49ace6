package dialog

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
)

// The headless entry is offered only when asked for (OfferHeadless), after
// the presets and before custom command.
func TestSpawnHeadlessOffered(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	if v := ansi.Strip(NewSpawn(testPresets, "", testClassifiers).View(st, 80, 30)); strings.Contains(v, headlessLabel) {
		t.Errorf("headless offered without OfferHeadless:\n%s", v)
	}
	d := NewSpawn(testPresets, "", testClassifiers).OfferHeadless()
	var got []string
	for range 6 {
		switch a := d.submit().(type) {
		case Spawn:
			got = append(got, a.Spec.Agent)
		case SpawnHeadless:
			got = append(got, "headless")
		default:
			got = append(got, "custom") // command required
		}
		d.setFocus(fPreset) // a failed submit focuses the command
		feed(t, d, "down")
	}
	want := []string{"claude", "aider", "shell", "headless", "custom", "claude"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
}

// enter walks the headless form (agent, name, directory, model,
// permissions, system prompt) and submits on the last field.
func TestSpawnHeadlessForm(t *testing.T) {
	dir := t.TempDir()
	d := NewSpawn(testPresets, dir, testClassifiers).OfferHeadless()
	act := feed(t, d, "up", "up", "enter", "type:review", "enter", "enter", "type:sonnet", "enter",
		"right", "right", "enter", "type:be terse", "enter")
	want := fleet.HeadlessSpec{Kind: session.KindHeadless, ID: "review", Dir: dir, Model: "sonnet", PermissionMode: "acceptEdits", SystemPrompt: "be terse"}
	if got, ok := act.(SpawnHeadless); !ok || !reflect.DeepEqual(got.Spec, want) {
		t.Fatalf("got %#v, want %#v", act, SpawnHeadless{Spec: want})
	}
	// Defaults: no flags, the default directory; no classifier field.
	d = NewSpawn(testPresets, dir, testClassifiers).OfferHeadless()
	feed(t, d, "up", "up")
	for range numFields {
		feed(t, d, "tab")
		if d.focus == fClassifier || d.focus == fCommand {
			t.Fatalf("tab reached field %d in the headless form", d.focus)
		}
	}
	if _, err := d.Spec(); err == nil {
		t.Error("Spec() of the headless entry: no error")
	}
	act = feed(t, d, "ctrl+s")
	want = fleet.HeadlessSpec{Kind: session.KindHeadless, Dir: dir}
	if got, ok := act.(SpawnHeadless); !ok || !reflect.DeepEqual(got.Spec, want) {
		t.Fatalf("defaults: got %#v, want %#v", act, SpawnHeadless{Spec: want})
	}
	// shift+tab from the agent wraps to the system prompt, the last field.
	d = NewSpawn(testPresets, dir, testClassifiers).OfferHeadless()
	feed(t, d, "up", "up", "shift+tab")
	if d.focus != fPrompt {
		t.Errorf("shift+tab from the agent: field %d, want the system prompt", d.focus)
	}
}

// The permission modes offered are claude's safe ones: bypassPermissions
// (the unsafe --dangerously-skip-permissions) never.
func TestSpawnHeadlessPermissionModes(t *testing.T) {
	d := NewSpawn(testPresets, "", testClassifiers).OfferHeadless()
	feed(t, d, "up", "up", "shift+tab", "shift+tab")
	if d.focus != fPerm {
		t.Fatalf("focus %d, want permissions", d.focus)
	}
	var modes []string
	for range len(permissionModes) + 1 {
		a, ok := d.submit().(SpawnHeadless)
		if !ok {
			t.Fatalf("not submitted: %q", d.err)
		}
		modes = append(modes, a.Spec.PermissionMode)
		feed(t, d, "space")
	}
	want := []string{"", "default", "acceptEdits", "plan", ""}
	if !reflect.DeepEqual(modes, want) {
		t.Errorf("modes %q, want %q", modes, want)
	}
	if slices.Contains(permissionModes, "bypassPermissions") {
		t.Error("bypassPermissions offered")
	}
	feed(t, d, "left", "left") // from "default" back past the first
	if a := d.submit().(SpawnHeadless); a.Spec.PermissionMode != "plan" {
		t.Errorf("left past the first: %q, want plan", a.Spec.PermissionMode)
	}
}

func TestSpawnHeadlessValidation(t *testing.T) {
	dir := t.TempDir()
	d := NewSpawn(testPresets, dir, testClassifiers).OfferHeadless()
	feed(t, d, "up", "up")
	for _, c := range []struct {
		field       int
		value, want string
		focus       int
	}{
		{fModel, "-x", "model \"-x\"", fModel},
		{fModel, "son net", "model \"son net\"", fModel},
		{fName, "a b", "no '/' or spaces", fName},
		{fDir, "nope", "does not exist", fDir},
		{fPrompt, "--dangerously-skip-permissions", "system prompt: refused flag", fPrompt},
		{fPrompt, "--from-pr=3", "refused flag: --from-pr", fPrompt},
	} {
		d2 := NewSpawn(testPresets, dir, testClassifiers).OfferHeadless()
		feed(t, d2, "up", "up")
		d2.setFocus(c.field)
		d2.textField().SetValue(c.value)
		d2.setFocus(fPreset)
		if act := feed(t, d2, "ctrl+s"); act != nil {
			t.Errorf("%q submitted: %#v", c.value, act)
		}
		if !strings.Contains(d2.err, c.want) || d2.focus != c.focus {
			t.Errorf("%q: err %q focus %d, want %q at %d", c.value, d2.err, d2.focus, c.want, c.focus)
		}
	}
	// Typed text stays after an error.
	feed(t, d, "shift+tab", "shift+tab", "shift+tab", "type:-m", "ctrl+s")
	if d.model.Value() != "-m" || d.focus != fModel {
		t.Errorf("model %q focus %d", d.model.Value(), d.focus)
	}
}

// A pending form offers the headless entry at once; chosen meanwhile, it
// stays chosen when the presets arrive.
func TestSpawnHeadlessPending(t *testing.T) {
	dir := t.TempDir()
	d := NewSpawnPending(dir, testClassifiers).OfferHeadless()
	if !d.custom() {
		t.Fatal("pending form: custom command not selected")
	}
	feed(t, d, "up")
	if !d.isHeadless() {
		t.Fatal("up from custom command: headless not selected")
	}
	feed(t, d, "tab", "type:h1")
	d.SetPresets(testPresets)
	if a, ok := d.submit().(SpawnHeadless); !ok || a.Spec.ID != "h1" {
		t.Fatalf("after SetPresets: %#v (%q)", a, d.err)
	}
	// Not chosen: the first preset is, as without the entry.
	d = NewSpawnPending(dir, testClassifiers).OfferHeadless()
	d.SetPresets(testPresets)
	if s, err := d.Spec(); err != nil || s.Agent != "claude" {
		t.Errorf("after SetPresets: %+v, %v", s, err)
	}
}

// ":spawn claude-headless [NAME]" opens a headless session with claude's
// defaults; tab offers it only when the app can open one.
func TestCommandSpawnHeadless(t *testing.T) {
	for line, want := range map[string]Action{
		"spawn claude-headless":        SpawnHeadless{Spec: fleet.HeadlessSpec{Kind: session.KindHeadless}},
		":spawn claude-headless rev-1": SpawnHeadless{Spec: fleet.HeadlessSpec{Kind: session.KindHeadless, ID: "rev-1"}},
		"spawn heddle w-1":             SpawnHeadless{Spec: fleet.HeadlessSpec{Kind: session.KindHeddle, ID: "w-1"}},
	} {
		got, err := ParseCommand(line, testIDs, testPresets...)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q → %#v, %v; want %#v", line, got, err, want)
		}
	}
	for line, want := range map[string]string{
		"spawn claude-headless " + testIDs[0]: "exists",
		"spawn claude-headless a/b":           "no '/'",
	} {
		if _, err := ParseCommand(line, testIDs, testPresets...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", line, err, want)
		}
	}
	d := NewCommand(testIDs, testPresets...)
	feed(t, d, "type:spawn c", "tab")
	if d.Value() != "spawn claude " {
		t.Errorf("without OfferHeadless: %q", d.Value())
	}
	d = NewCommand(testIDs, testPresets...).OfferHeadless()
	feed(t, d, "type:spawn c", "tab")
	if d.Value() != "spawn claude" || !slices.Contains(d.cands, HeadlessPreset) {
		t.Errorf("with OfferHeadless: %q, candidates %q", d.Value(), d.cands)
	}
}
