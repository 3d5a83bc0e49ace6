package blackboard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/internal/shapetest"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

func facts(v string, kv ...string) planning.Facts {
	f := planning.Facts{Facts: map[string]string{}, Version: planning.Version(v)}
	for i := 0; i+1 < len(kv); i += 2 {
		f.Facts[kv[i]] = kv[i+1]
	}
	return f
}

func editor() *Editor {
	e := New(keys.Default())
	e.SetFacts(facts("v1", "dev_port", "5173", "node_version", "20.11.0", "api_url", "http://localhost:8080/a/rather/long/path/that/will/not/fit/in/a/narrow/table"))
	return e
}

// press sends key names, or "type:TEXT", and returns the last action.
func press(e *Editor, names ...string) Action {
	var act Action
	for _, n := range names {
		if text, ok := strings.CutPrefix(n, "type:"); ok {
			for _, r := range text {
				act = e.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			continue
		}
		act = e.Update(keys.Press(n))
	}
	return act
}

func TestEditSavesWithTheStartingVersion(t *testing.T) {
	e := editor()
	press(e, "j", "e") // dev_port (sorted: api_url, dev_port, node_version)
	if !e.Editing() {
		t.Fatal("e did not start an edit")
	}
	// Another process changes the file while the user types.
	e.SetFacts(facts("v2", "api_url", "x", "dev_port", "9999", "node_version", "20"))
	act := press(e, "ctrl+u", "type:3000", "enter")
	want := Set{Key: "dev_port", Value: "3000", Version: "v1"}
	if act != want {
		t.Fatalf("save = %#v, want %#v (the Version the edit began from)", act, want)
	}
	if e.Editing() {
		t.Fatal("still editing after the save")
	}
	// The write conflicted: the app reloads and calls Conflict; enter now
	// saves the user's value over the current version, deliberately.
	e.Conflict("dev_port", "3000")
	if !e.Editing() || !strings.Contains(ansi.Strip(e.View(themes.Build(themes.Dark(), false), 100, 10)), "changed by another process") {
		t.Fatal("conflict not shown")
	}
	if act := press(e, "enter"); act != (Set{Key: "dev_port", Value: "3000", Version: "v2"}) {
		t.Fatalf("save after conflict = %#v", act)
	}
}

func TestAddAndCancel(t *testing.T) {
	e := editor()
	if act := press(e, "a", "enter"); act != nil {
		t.Fatalf("empty key saved: %#v", act)
	}
	press(e, "esc")
	if e.Editing() {
		t.Fatal("esc did not cancel the add")
	}
	if act := press(e, "a", "type:region", "tab", "type:eu-west-1", "enter"); act != (Set{Key: "region", Value: "eu-west-1", Version: "v1"}) {
		t.Fatalf("add = %#v", act)
	}
	// esc while editing cancels and does not close; esc after closes.
	if act := press(e, "e", "type:zzz", "esc"); act != nil || e.Editing() {
		t.Fatalf("esc while editing: %#v, editing %v", act, e.Editing())
	}
	if act := press(e, "esc"); act != (Close{}) {
		t.Fatalf("esc = %#v, want Close", act)
	}
}

func TestDeleteConfirmsWithNoDefault(t *testing.T) {
	e := editor()
	for _, no := range []string{"enter", "n", "esc"} {
		if act := press(e, "d", no); act != nil || e.Editing() {
			t.Fatalf("d %s = %#v", no, act)
		}
	}
	if act := press(e, "d", "y"); act != (Delete{Key: "api_url", Version: "v1"}) {
		t.Fatalf("d y = %#v", act)
	}
}

func TestSetFactsKeepsTheSelection(t *testing.T) {
	e := editor()
	press(e, "G") // node_version
	e.SetFacts(facts("v2", "a", "1", "b", "2", "node_version", "22"))
	if got := e.selectedKey(); got != "node_version" {
		t.Fatalf("selection moved to %q", got)
	}
}

func TestGolden(t *testing.T) {
	states := map[string]func(*Editor){
		"list":     func(e *Editor) { press(e, "j") },
		"adding":   func(e *Editor) { press(e, "a", "type:region", "tab", "type:eu-west") },
		"editing":  func(e *Editor) { press(e, "j", "e", "ctrl+u", "type:3000") },
		"confirm":  func(e *Editor) { press(e, "j", "d") },
		"conflict": func(e *Editor) { e.Conflict("dev_port", "3000") },
		"empty": func(e *Editor) {
			e.SetFacts(facts("v0"))
		},
	}
	for name, setup := range states {
		for _, p := range []themes.Palette{themes.Dark(), themes.Light()} {
			for _, w := range []int{60, 80, 120, 200} {
				t.Run(fmt.Sprintf("%s/%s/w%d", name, p.Name, w), func(t *testing.T) {
					e := editor()
					setup(e)
					golden.RequireEqual(t, []byte(e.View(themes.Build(p, false), w, 12)))
				})
			}
		}
	}
}

func TestShape(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	for _, setup := range []func(*Editor){func(*Editor) {}, func(e *Editor) { press(e, "a") }, func(e *Editor) { e.Conflict("dev_port", "x") }} {
		e := editor()
		setup(e)
		for w := 1; w <= 200; w += 9 {
			for h := 1; h <= 60; h += 7 {
				shapetest.Check(t, e.View(st, w, h), w, h)
			}
		}
	}
}

func TestConfirmLineKeepsTheDefaultVisible(t *testing.T) {
	for _, w := range []int{20, 40, 60} {
		e := editor()
		press(e, "j", "d")
		out := ansi.Strip(e.View(themes.Build(themes.Dark(), false), w, 12))
		if !strings.Contains(out, "y/N") {
			t.Errorf("w%d: confirm lost its y/N:\n%s", w, out)
		}
	}
}

func TestEditingInEachState(t *testing.T) {
	e := editor()
	if e.Editing() {
		t.Fatal("list: Editing")
	}
	for _, c := range []struct {
		open, close []string
	}{
		{[]string{"a"}, []string{"esc"}},
		{[]string{"e"}, []string{"esc"}},
		{[]string{"enter"}, []string{"esc"}},
		{[]string{"d"}, []string{"n"}},
	} {
		press(e, c.open...)
		if !e.Editing() {
			t.Fatalf("%v: not Editing", c.open)
		}
		press(e, c.close...)
		if e.Editing() {
			t.Fatalf("%v then %v: still Editing", c.open, c.close)
		}
	}
	e.Conflict("dev_port", "x")
	if !e.Editing() {
		t.Fatal("conflict: not Editing")
	}
}

func TestSetFactsDuringAnEditKeepsTheTypedText(t *testing.T) {
	e := editor()
	press(e, "j", "e", "ctrl+u", "type:30")
	e.SetFacts(facts("v2", "api_url", "x", "dev_port", "9999", "node_version", "20"))
	if !e.Editing() {
		t.Fatal("SetFacts ended the edit")
	}
	if act := press(e, "type:00", "enter"); act != (Set{Key: "dev_port", Value: "3000", Version: "v1"}) {
		t.Fatalf("save = %#v", act)
	}
}

// Facts come from agents: an escape sequence in one is shown, not sent to
// the terminal.
func TestFactsAreSanitized(t *testing.T) {
	e := New(keys.Default())
	e.SetFacts(facts("v1", "evil\x1b]2;pwned\x07", "\x1b[2Jvalue"))
	st := themes.Build(themes.Dark(), true)
	// The table, the edit line, the delete confirmation and the note after
	// it all show the key.
	for _, step := range [][]string{nil, {"e"}, {"esc", "d"}, {"n"}} {
		press(e, step...)
		out := e.View(st, 80, 8)
		if strings.Contains(out, "\x1b]2;") || strings.Contains(out, "\x1b[2J") {
			t.Fatalf("after %q control sequences reached the output: %q", step, out)
		}
	}
}

// One fact is "1 fact".
func TestOneFact(t *testing.T) {
	e := New(keys.Default())
	e.SetFacts(facts("v1", "dev_port", "5173"))
	if out := ansi.Strip(e.View(themes.Build(themes.Dark(), false), 80, 8)); !strings.Contains(out, "1 fact ") && !strings.Contains(out, "1 fact\n") {
		t.Fatalf("%q", out)
	}
}
