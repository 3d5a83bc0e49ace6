package dialog

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

// key builds the tea.KeyPressMsg a terminal would deliver for a key name.
func key(s string) tea.KeyPressMsg { return keys.Press(s) }

// feed sends keys (names, or text to type when prefixed by "type:") and
// returns the last action.
func feed(t *testing.T, d Dialog, inputs ...string) Action {
	t.Helper()
	var act Action
	for _, in := range inputs {
		var msgs []tea.Msg
		if txt, ok := strings.CutPrefix(in, "type:"); ok {
			for _, r := range txt {
				if r == ' ' {
					msgs = append(msgs, key("space"))
				} else {
					msgs = append(msgs, key(string(r)))
				}
			}
		} else {
			msgs = append(msgs, key(in))
		}
		for _, m := range msgs {
			if act != nil {
				t.Fatalf("input %q after the dialog returned %#v", in, act)
			}
			act, _ = d.Update(m)
		}
	}
	return act
}

func TestConfirm(t *testing.T) {
	kill := Kill{ID: "claude-1"}
	cases := []struct {
		keys []string
		want Action
	}{
		{[]string{"enter"}, Close{}}, // No is the default
		{[]string{"y"}, kill},
		{[]string{"n"}, Close{}},
		{[]string{"esc"}, Close{}},
		{[]string{"left", "enter"}, kill},
		{[]string{"left", "right", "enter"}, Close{}},
		{[]string{"tab", "enter"}, kill},
		{[]string{"tab", "tab", "enter"}, Close{}},
		{[]string{"shift+tab", "enter"}, kill},
		{[]string{"left", "esc"}, Close{}}, // esc is No even with Yes selected
		{[]string{"x", "q", "enter"}, Close{}},
	}
	for _, c := range cases {
		d := NewConfirm("Kill claude-1", "body", kill)
		if d.YesSelected() {
			t.Fatal("Yes selected on open")
		}
		if got := feed(t, d, c.keys...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v → %#v, want %#v", c.keys, got, c.want)
		}
	}
	d := NewConfirm("t", "b", nil)
	if got := feed(t, d, "y"); got != (Close{}) {
		t.Errorf("nil yes → %#v", got)
	}
	if act, _ := d.Update(tea.WindowSizeMsg{}); act != nil {
		t.Errorf("non-key message → %#v", act)
	}
}

func TestTexts(t *testing.T) {
	cases := []struct{ got, want string }{
		{KillText("claude-1", 5*time.Second, false), "Stop claude-1? SIGTERM goes to its process group; SIGKILL follows after 5s if anything in it is still running."},
		{KillText("x", 1500*time.Millisecond, false), "SIGKILL follows after 1.5s"},
		{KillText("x", 0, false), "SIGKILL goes to its whole process group at once (the kill grace is 0)"},
		{KillText("x", 5*time.Second, true), "Kill x now? SIGKILL goes to its whole process group at once"},
		{QuitText(2, 0, 0, 5*time.Second), "2 sessions started from the dashboard are still running. Leave them running: they keep working and the next heimdall-tui shows them again. Stop them: hangs them up as a closing terminal does (SIGHUP to each process group, SIGTERM a second later, SIGKILL after 5s)."},
		{QuitText(1, 0, 0, 5*time.Second), "1 session started from the dashboard is still running."},
		{QuitText(3, 0, 0, 0), "SIGKILLs each process group at once"},
		{QuitText(1, 2, 0, time.Second), "SIGKILL after 1s). 2 sessions the dashboard runs itself (heddle workers) are closed either way."},
		{QuitText(0, 1, 0, time.Second), "Quit heimdall-tui? 1 session the dashboard runs itself (a heddle worker) is closed either way."},
		{QuitText(0, 0, 2, 0), "Quit heimdall-tui? 2 lost sessions are still queued to start again: they stay lost (A in the next heimdall-tui starts them)."},
		{QuitText(1, 0, 1, time.Second), "SIGKILL after 1s). 1 lost session is still queued to start again"},
	}
	for _, c := range cases {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%q does not contain %q", c.got, c.want)
		}
	}
}

var testPresets = []fleet.Preset{
	{Name: "claude", Argv: []string{"claude"}, Classifier: "claude", Env: []string{"A=1"}, Found: true},
	{Name: "codex", Argv: []string{"codex"}, Classifier: "codex", Found: false},
	{Name: "aider", Argv: []string{"aider", "--no-pretty"}, Classifier: "aider", Found: true},
	{Name: "shell", Argv: []string{"/bin/bash"}, Classifier: "simple", Found: true},
}

var testClassifiers = []string{"simple", "aider", "claude", "codex"}

func TestSpawnPreset(t *testing.T) {
	dir := t.TempDir()
	d := NewSpawn(testPresets, dir, testClassifiers)
	spec, err := d.Spec()
	if err != nil {
		t.Fatal(err)
	}
	want := fleet.Spec{Agent: "claude", Argv: []string{"claude"}, Classifier: "claude", Env: []string{"A=1"}, Dir: dir}
	if !reflect.DeepEqual(spec, want) {
		t.Fatalf("default spec %#v, want %#v", spec, want)
	}
	// enter walks the fields (preset, name, dir, worktree, from,
	// classifier) and submits on the last.
	act := feed(t, d, "down", "enter", "type:ai-1", "enter", "enter", "enter", "enter", "enter")
	want = fleet.Spec{ID: "ai-1", Agent: "aider", Argv: []string{"aider", "--no-pretty"}, Classifier: "aider", Dir: dir}
	if got, ok := act.(Spawn); !ok || !reflect.DeepEqual(got.Spec, want) {
		t.Fatalf("got %#v, want %#v", act, Spawn{Spec: want})
	}
	// A branch name asks for a worktree on it, from the base given.
	d = NewSpawn(testPresets, dir, testClassifiers)
	act = feed(t, d, "enter", "enter", "enter", "type:agent/fix-1", "enter", "type:main", "ctrl+s")
	if got, ok := act.(Spawn); !ok || got.Spec.NewWorktree == nil || !reflect.DeepEqual(*got.Spec.NewWorktree, review.Worktree{Branch: "agent/fix-1", Base: "main"}) {
		t.Fatalf("worktree: %#v", act)
	}
	d = NewSpawn(testPresets, dir, testClassifiers)
	if act := feed(t, d, "enter", "enter", "enter", "type:-x", "ctrl+s"); act != nil || !strings.Contains(d.err, "no branch name") {
		t.Fatalf("a branch like an option: %#v %q", act, d.err)
	}
}

func TestSpawnOnlyFoundPresets(t *testing.T) {
	d := NewSpawn(testPresets, "", testClassifiers)
	var agents []string
	for range 5 {
		s, _ := d.Spec()
		agents = append(agents, s.Agent+"/"+s.Classifier)
		feed(t, d, "down")
	}
	want := []string{"claude/claude", "aider/aider", "shell/simple", "/", "claude/claude"}
	if !reflect.DeepEqual(agents, want) {
		t.Errorf("cycle = %v, want %v", agents, want)
	}
	if v := ansi.Strip(d.View(themes.Build(themes.Dark(), false), 80, 30)); strings.Contains(v, "codex  ") {
		t.Errorf("codex (not found) offered:\n%s", v)
	}
	// No preset found at all: custom command is the only choice.
	d = NewSpawn([]fleet.Preset{{Name: "claude", Argv: []string{"claude"}, Found: false}}, "", nil)
	if _, err := d.Spec(); err == nil || !strings.Contains(err.Error(), "command: required") {
		t.Errorf("no presets: %v", err)
	}
}

func TestSpawnClassifier(t *testing.T) {
	d := NewSpawn(testPresets, "", testClassifiers)
	// Focus the classifier (shift+tab wraps to it) and cycle.
	feed(t, d, "shift+tab", "right")
	if s, _ := d.Spec(); s.Classifier != "codex" {
		t.Errorf("after right: %q", s.Classifier)
	}
	feed(t, d, "right")
	if s, _ := d.Spec(); s.Classifier != "" {
		t.Errorf("after wrap: %q (want default)", s.Classifier)
	}
	feed(t, d, "left", "left")
	if s, _ := d.Spec(); s.Classifier != "claude" {
		t.Errorf("after left left: %q", s.Classifier)
	}
	// Choosing a preset resets it to the preset's own.
	feed(t, d, "tab", "down", "down")
	if s, _ := d.Spec(); s.Agent != "shell" || s.Classifier != "simple" {
		t.Errorf("shell: %+v", s)
	}
}

func TestSpawnCustom(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	d := NewSpawn(testPresets, dir, testClassifiers)
	// Select custom (up wraps to it), then the command field follows the list.
	act := feed(t, d, "up", "tab", "type:bash -c 'echo hi  there' \"a b\"", "tab", "type:build", "tab",
		"ctrl+u", "type:sub", "ctrl+s")
	want := fleet.Spec{ID: "build", Argv: []string{"bash", "-c", "echo hi  there", "a b"}, Dir: sub}
	if got, ok := act.(Spawn); !ok || !reflect.DeepEqual(got.Spec, want) {
		t.Fatalf("got %#v, want %#v", act, Spawn{Spec: want})
	}
}

func TestSpawnValidation(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st := themes.Build(themes.Dark(), false)
	d := NewSpawn(testPresets, dir, testClassifiers)
	// Custom with no command.
	if act := feed(t, d, "up", "ctrl+s"); act != nil {
		t.Fatalf("empty command submitted: %#v", act)
	}
	if v := ansi.Strip(d.View(st, 80, 30)); !strings.Contains(v, "command: required for a custom command") {
		t.Errorf("error not shown:\n%s", v)
	}
	if d.focus != fCommand {
		t.Errorf("focus %d, want command", d.focus)
	}
	// Unclosed quote.
	if act := feed(t, d, "type:sh -c 'x", "ctrl+s"); act != nil {
		t.Fatalf("bad quoting submitted: %#v", act)
	}
	if !strings.Contains(d.err, "unclosed ' quote") {
		t.Errorf("err = %q", d.err)
	}
	// Fix it; break the dir; the typed text is kept.
	feed(t, d, "type:'", "tab", "type:my-job", "tab", "ctrl+u", "type:"+file, "ctrl+s")
	if !strings.Contains(d.err, "is not a directory") || d.focus != fDir {
		t.Errorf("err = %q focus %d", d.err, d.focus)
	}
	feed(t, d, "ctrl+u", "type:"+filepath.Join(dir, "nope"), "ctrl+s")
	if !strings.Contains(d.err, "does not exist") {
		t.Errorf("err = %q", d.err)
	}
	if d.cmd.Value() != "sh -c 'x'" || d.name.Value() != "my-job" {
		t.Errorf("typed text lost: %q %q", d.cmd.Value(), d.name.Value())
	}
	// Bad name.
	feed(t, d, "ctrl+u", "shift+tab", "ctrl+u", "type:a/b", "ctrl+s")
	if !strings.Contains(d.err, "no '/'") || d.focus != fName {
		t.Errorf("err = %q focus %d", d.err, d.focus)
	}
	feed(t, d, "ctrl+u", "type:.hidden", "ctrl+s")
	if !strings.Contains(d.err, "must not start with '.'") {
		t.Errorf("err = %q", d.err)
	}
	// Fixed: the dir was cleared (→ ""), so it submits.
	act := feed(t, d, "ctrl+u", "type:ok", "ctrl+s")
	want := fleet.Spec{ID: "ok", Argv: []string{"sh", "-c", "x"}}
	if got, ok := act.(Spawn); !ok || !reflect.DeepEqual(got.Spec, want) {
		t.Fatalf("got %#v, want %#v", act, Spawn{Spec: want})
	}
	if got := feed(t, NewSpawn(testPresets, dir, nil), "type:zz", "esc"); got != (Close{}) {
		t.Errorf("esc → %#v", got)
	}
}

func TestSpawnHomeDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.Mkdir(filepath.Join(home, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	d := NewSpawn(testPresets, "/", nil)
	d.dir.SetValue("~/src")
	s, err := d.Spec()
	if err != nil || s.Dir != filepath.Join(home, "src") {
		t.Errorf("~/src → %q, %v", s.Dir, err)
	}
}

func TestSend(t *testing.T) {
	if got := feed(t, NewSend("c1", false), "type:yes please", "enter"); got != (Send{ID: "c1", Text: "yes please"}) {
		t.Errorf("got %#v", got)
	}
	if got := feed(t, NewSend("c1", false), "enter"); got != (Send{ID: "c1", Text: ""}) {
		t.Errorf("empty: got %#v", got)
	}
	if got := feed(t, NewSend("c1", false), "type:abc", "esc"); got != (Close{}) {
		t.Errorf("esc: got %#v", got)
	}
	// y and n are text here, not yes/no.
	if got := feed(t, NewSend("c1", false), "y", "n", "enter"); got != (Send{ID: "c1", Text: "yn"}) {
		t.Errorf("y/n: got %#v", got)
	}
	d := NewSend("c1", false)
	d.Update(tea.PasteMsg{Content: "line1\nline2"})
	if got := feed(t, d, "enter"); got != (Send{ID: "c1", Text: "line1 line2"}) {
		t.Errorf("paste: got %#v", got)
	}
}

func TestField(t *testing.T) {
	d := NewSend("x", false)
	feed(t, d, "type:hello world", "ctrl+w")
	if v := d.text.Value(); v != "hello " {
		t.Errorf("ctrl+w: %q", v)
	}
	feed(t, d, "home", "type:>", "end", "backspace", "left", "delete")
	if v := d.text.Value(); v != ">hell" {
		t.Errorf("edit: %q", v)
	}
	feed(t, d, "ctrl+a", "right", "ctrl+k")
	if v := d.text.Value(); v != ">" {
		t.Errorf("ctrl+k: %q", v)
	}
	// Views keep the cursor visible whatever the length.
	st := themes.Build(themes.Dark(), false)
	d.text.SetValue(strings.Repeat("abcdefghij", 10) + "END")
	for _, w := range []int{1, 2, 5, 20} {
		v := d.text.View(st, w)
		if got := ansi.StringWidth(v); got != w {
			t.Errorf("w=%d: width %d", w, got)
		}
		if w >= 5 && !strings.Contains(ansi.Strip(v), "END") && !strings.Contains(ansi.Strip(v), "ND") {
			t.Errorf("w=%d: end not visible: %q", w, ansi.Strip(v))
		}
	}
}

func TestParseSize(t *testing.T) {
	good := map[string][2]uint16{"120x40": {120, 40}, "120×40": {120, 40}, "120 40": {120, 40}, " 80 X 24 ": {80, 24}, "1x1": {1, 1}, "1000x1000": {1000, 1000}}
	for in, want := range good {
		c, r, err := ParseSize(in)
		if err != nil || c != want[0] || r != want[1] {
			t.Errorf("ParseSize(%q) = %d, %d, %v", in, c, r, err)
		}
	}
	bad := map[string]string{"0x10": "columns: 0 is out of range 1..1000", "10x1001": "rows: 1001 is out of range", "axb": `columns: "a" is not a number`,
		"120": "want COLSxROWS", "": "want COLSxROWS", "1 2 3": "want COLSxROWS", "-5x3": "out of range", "10x": "rows"}
	for in, want := range bad {
		if _, _, err := ParseSize(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSize(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestResize(t *testing.T) {
	cases := []struct {
		keys []string
		want Action
	}{
		{[]string{"enter"}, Resize{ID: "s", Fit: FitPane}},
		{[]string{"down", "enter"}, Resize{ID: "s", Fit: FitTerminal}},
		{[]string{"up", "enter"}, Resize{ID: "s", Fit: FitExplicit, Cols: 80, Rows: 24}}, // current size
		{[]string{"type:132x50", "enter"}, Resize{ID: "s", Fit: FitExplicit, Cols: 132, Rows: 50}},
		{[]string{"tab", "ctrl+u", "type:100 30", "enter"}, Resize{ID: "s", Fit: FitExplicit, Cols: 100, Rows: 30}},
		{[]string{"tab", "up", "enter"}, Resize{ID: "s", Fit: FitTerminal}}, // up from the field: back to the choices
		{[]string{"esc"}, Close{}},
	}
	for _, c := range cases {
		if got := feed(t, NewResize("s", 80, 24), c.keys...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v → %#v, want %#v", c.keys, got, c.want)
		}
	}
	d := NewResize("s", 80, 24)
	if act := feed(t, d, "type:5000x2", "enter"); act != nil {
		t.Fatalf("bad size accepted: %#v", act)
	}
	if v := ansi.Strip(d.View(themes.Build(themes.Dark(), false), 80, 20)); !strings.Contains(v, "5000 is out of range") {
		t.Errorf("error not shown:\n%s", v)
	}
	if got := feed(t, d, "ctrl+u", "type:50x20", "enter"); got != (Resize{ID: "s", Fit: FitExplicit, Cols: 50, Rows: 20}) {
		t.Errorf("after fixing: %#v", got)
	}
}

func TestSplitCommand(t *testing.T) {
	good := map[string][]string{
		`make -j8 test`:           {"make", "-j8", "test"},
		`  a   b  `:               {"a", "b"},
		`sh -c 'echo "hi" $X'`:    {"sh", "-c", `echo "hi" $X`},
		`echo "a \"b\" \$c \n"`:   {"echo", `a "b" $c \n`},
		`a\ b c`:                  {"a b", "c"},
		`x '' ""`:                 {"x", "", ""},
		`pre'fix'"ed"`:            {"prefixed"},
		``:                        nil,
		`claude --model 'opus 4'`: {"claude", "--model", "opus 4"},
	}
	for in, want := range good {
		got, err := SplitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{`a 'b`: "unclosed '", `a "b`: "unclosed \"", `a\`: "trailing backslash"} {
		if _, err := SplitCommand(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SplitCommand(%q) = %v, want %q", in, err, want)
		}
	}
}

var testIDs = []string{"claude-1", "claude-2", "shell-1"}

func TestParseCommand(t *testing.T) {
	cases := []struct {
		line string
		want Action
		err  string
	}{
		{"", Close{}, ""},
		{"   ", Close{}, ""},
		{"kill claude-1", Kill{ID: "claude-1"}, ""},
		{":kill claude-1", Kill{ID: "claude-1"}, ""},
		{"KILL claude-1", Kill{ID: "claude-1"}, ""},
		{"kill! shell-1", Kill{ID: "shell-1", Force: true}, ""},
		{"remove shell-1", Remove{ID: "shell-1"}, ""},
		{"restart claude-2", Restart{ID: "claude-2"}, ""},
		{"attach claude-2", Attach{ID: "claude-2"}, ""},
		{"send claude-1 yes,  do it ", Send{ID: "claude-1", Text: "yes,  do it "}, ""},
		{"send claude-1", Send{ID: "claude-1", Text: ""}, ""},
		{"resize shell-1 120x40", Resize{ID: "shell-1", Fit: FitExplicit, Cols: 120, Rows: 40}, ""},
		{"resize shell-1 120 40", Resize{ID: "shell-1", Fit: FitExplicit, Cols: 120, Rows: 40}, ""},
		{"resize shell-1 pane", Resize{ID: "shell-1", Fit: FitPane}, ""},
		{"resize shell-1 terminal", Resize{ID: "shell-1", Fit: FitTerminal}, ""},
		{"theme light", Theme{Name: "light"}, ""},
		{"theme High-Contrast", Theme{Name: "high-contrast"}, ""},
		{"grid", Mode{Name: "grid"}, ""},
		{"zoom", Mode{Name: "zoom"}, ""},
		{"split", Mode{Name: "split"}, ""},
		{"help", Mode{Name: "help"}, ""},
		{"quit", Quit{}, ""},
		{"q", Quit{}, ""},
		{"spawn shell", Spawn{Spec: fleet.Spec{Agent: "shell", Argv: []string{"/bin/bash"}, Classifier: "simple"}}, ""},
		{"spawn claude c9", Spawn{Spec: fleet.Spec{ID: "c9", Agent: "claude", Argv: []string{"claude"}, Classifier: "claude", Env: []string{"A=1"}}}, ""},

		{"frobnicate", nil, `unknown command "frobnicate" (commands: spawn, kill,`},
		{"kill", nil, "kill: missing argument (usage: kill NAME)"},
		{"kill a b", nil, "kill: too many arguments"},
		{"kill claude", nil, `kill: no session "claude" (did you mean claude-1 or claude-2?)`},
		{"kill zzz", nil, `kill: no session "zzz" (sessions: claude-1, claude-2, shell-1)`},
		{"quit now", nil, "quit: too many arguments"},
		{"theme purple", nil, `theme: unknown theme "purple"`},
		{"resize shell-1", nil, "resize: missing argument"},
		{"resize shell-1 0x0", nil, "resize: size"},
		{"resize shell-1 pane 3", nil, "too many arguments"},
		{"spawn", nil, "spawn: missing argument"},
		{"spawn codex", nil, "spawn: codex is not on PATH"},
		{"spawn emacs", nil, `spawn: unknown preset "emacs" (have: claude, aider, shell)`},
		{"spawn shell shell-1", nil, `a session named "shell-1" exists`},
		{"spawn shell a/b", nil, "no '/'"},
		{"send nobody hi", nil, `send: no session "nobody"`},
	}
	for _, c := range cases {
		got, err := ParseCommand(c.line, testIDs, testPresets...)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseCommand(%q) = %#v, %v; want error %q", c.line, got, err, c.err)
			}
		case err != nil || !reflect.DeepEqual(got, c.want):
			t.Errorf("ParseCommand(%q) = %#v, %v; want %#v", c.line, got, err, c.want)
		}
	}
	if _, err := ParseCommand("kill x", nil); err == nil || !strings.Contains(err.Error(), "there are no sessions") {
		t.Errorf("no ids: %v", err)
	}
	if _, err := ParseCommand("spawn shell", testIDs); err == nil || !strings.Contains(err.Error(), "no preset is on PATH") {
		t.Errorf("no presets: %v", err)
	}
}

func TestCommandDialog(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	d := NewCommand(testIDs, testPresets...)
	// A typo keeps the dialog open with the error and the line.
	if act := feed(t, d, "type:kil claude-1", "enter"); act != nil {
		t.Fatalf("typo ran: %#v", act)
	}
	if v := ansi.Strip(d.View(st, 80, 10)); !strings.Contains(v, `unknown command "kil"`) {
		t.Errorf("error not shown:\n%s", v)
	}
	// Fix it in place.
	act := feed(t, d, "home", "right", "right", "right", "type:l", "enter")
	if act != (Kill{ID: "claude-1"}) {
		t.Fatalf("fixed line → %#v (line %q)", act, d.Value())
	}

	// Completion.
	comp := []struct {
		typed, want string
		cands       []string
	}{
		{"att", "attach ", nil},
		{"ki", "kill", []string{"kill", "kill!"}},
		{"kill cl", "kill claude-", []string{"claude-1", "claude-2"}},
		{"kill sh", "kill shell-1 ", nil},
		{"spawn a", "spawn aider ", nil},
		{"theme l", "theme light ", nil},
		{"resize shell-1 t", "resize shell-1 terminal ", nil},
		{"s", "s", []string{"spawn", "send", "split"}},
	}
	for _, c := range comp {
		d := NewCommand(testIDs, testPresets...)
		feed(t, d, "type:"+c.typed, "tab")
		if d.Value() != c.want || !reflect.DeepEqual(d.cands, c.cands) {
			t.Errorf("complete %q → %q %v; want %q %v", c.typed, d.Value(), d.cands, c.want, c.cands)
		}
	}
	d = NewCommand(testIDs)
	feed(t, d, "type:kill zz", "tab")
	if d.err != "no completions" || d.Value() != "kill zz" {
		t.Errorf("no completion: %q %q", d.err, d.Value())
	}
	if got := feed(t, NewCommand(testIDs), "type:grid", "esc"); got != (Close{}) {
		t.Errorf("esc → %#v", got)
	}
	if got := feed(t, NewCommand(testIDs), "type:g", "tab", "enter"); got != (Mode{Name: "grid"}) {
		t.Errorf("g<tab> → %#v", got)
	}
}

var widths = []int{60, 80, 120, 200}

var styles = []struct {
	name string
	st   *themes.Styles
}{
	{"dark", themes.Build(themes.Dark(), false)},
	{"light", themes.Build(themes.Light(), false)},
}

// dialogs are the states rendered in the golden files.
func dialogs(t *testing.T) map[string]Dialog {
	t.Helper()
	confirm := NewConfirm("Kill claude-1", KillText("claude-1", 5*time.Second, false), Kill{ID: "claude-1"})
	quit := NewChoice("Quit", QuitText(3, 0, 0, 5*time.Second), QuitOptions(), 0)
	feed(t, quit, "right")
	spawn := NewSpawn(testPresets, "/home/user/src/app", testClassifiers)
	feed(t, spawn, "down")
	custom := NewSpawn(testPresets, "/home/user/src/app", testClassifiers)
	feed(t, custom, "up", "ctrl+s") // error: command required
	send := NewSend("claude-1", false)
	sendMessage := NewSend("h-1", true)
	feed(t, send, "type:yes, and run the tests")
	resize := NewResize("shell-1", 120, 40)
	feed(t, resize, "type:132x5000", "enter")
	cmdErr := NewCommand(testIDs, testPresets...)
	feed(t, cmdErr, "type:kill claude", "enter")
	cmdCands := NewCommand(testIDs, testPresets...)
	feed(t, cmdCands, "type:kill cl", "tab")
	cmdUsage := NewCommand(testIDs, testPresets...)
	feed(t, cmdUsage, "type:resize shell-1 ")
	pending := NewSpawnPending("/home/user/src/app", testClassifiers)
	// The headless form, its permission mode focused, and with an error.
	hl := NewSpawn(testPresets, "/home/user/src/app", testClassifiers).OfferHeadless()
	feed(t, hl, "up", "up", "tab", "type:review", "tab", "tab", "type:sonnet", "tab", "right", "right")
	hlErr := NewSpawn(testPresets, "/", testClassifiers).OfferHeadless()
	feed(t, hlErr, "up", "up", "shift+tab", "type:--bare", "ctrl+s")
	return map[string]Dialog{
		"spawn-headless": hl, "spawn-headless-error": hlErr,
		"confirm-kill": confirm, "choice-quit-stop": quit, "spawn": spawn, "spawn-custom-error": custom, "spawn-pending": pending,
		"send": send, "send-message": sendMessage, "resize-error": resize, "command-error": cmdErr, "command-complete": cmdCands, "command-usage": cmdUsage,
	}
}

func TestGolden(t *testing.T) {
	for name, d := range dialogs(t) {
		for _, s := range styles {
			for _, w := range widths {
				t.Run(fmt.Sprintf("%s/%s/w%d", name, s.name, w), func(t *testing.T) {
					out := d.View(s.st, w, 30)
					checkBounds(t, out, w, 30)
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}

// TestViewBounds: every dialog fits any box, however small.
func TestViewBounds(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	mono := themes.Build(themes.Dark(), true)
	for name, d := range dialogs(t) {
		for w := 1; w <= 90; w += 7 {
			for h := 1; h <= 20; h += 3 {
				for _, s := range []*themes.Styles{st, mono} {
					out := d.View(s, w, h)
					lines := strings.Split(out, "\n")
					if len(lines) > h {
						t.Fatalf("%s %dx%d: %d lines", name, w, h, len(lines))
					}
					for _, l := range lines {
						if ansi.StringWidth(l) > w {
							t.Fatalf("%s %dx%d: line %q is %d wide", name, w, h, ansi.Strip(l), ansi.StringWidth(l))
						}
					}
				}
			}
		}
		if d.Title() == "" {
			t.Errorf("%s: no title", name)
		}
	}
}

func checkBounds(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) > h {
		t.Fatalf("%d lines > %d", len(lines), h)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Fatalf("line %d is %d wide > %d", i, ansi.StringWidth(l), w)
		}
	}
}

// The command table is the whole command language: each entry's usage
// starts with its name, its argument kinds cover its maximum, and what
// Commands lists is what ParseCommand runs.
func TestCommandTable(t *testing.T) {
	helps := Commands()
	if len(helps) != len(commands) {
		t.Fatalf("Commands lists %d, the table has %d", len(helps), len(commands))
	}
	for i, c := range commands {
		if helps[i].Name != c.name || !strings.HasPrefix(c.usage, c.name) || c.about == "" || c.parse == nil {
			t.Errorf("command %q: usage %q about %q", c.name, c.usage, c.about)
		}
		if c.max >= 0 && len(c.args) < c.max && c.name != "resize" {
			t.Errorf("command %q takes %d arguments but completes %d", c.name, c.max, len(c.args))
		}
		if c.min == 0 {
			if _, err := ParseCommand(c.name, testIDs); err != nil {
				t.Errorf("%q alone: %v", c.name, err)
			}
		} else if _, err := ParseCommand(c.name, testIDs); err == nil || !strings.Contains(err.Error(), c.usage) {
			t.Errorf("%q without arguments: %v, want its usage", c.name, err)
		}
	}
}
