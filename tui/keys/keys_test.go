package keys

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"
)

var update = flag.Bool("update", false, "rewrite docs/KEYS.md and the README key section")

func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+b":
		return tea.KeyPressMsg{Code: 'b', Mod: tea.ModCtrl}
	}
	r := []rune(s)
	if len(r) != 1 {
		panic("press: " + s)
	}
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

func TestEveryActionHasHelpAndIsBound(t *testing.T) {
	km := Default()
	bound := map[Action]bool{}
	for _, c := range Contexts() {
		for _, b := range km.Bindings(c) {
			bound[b.Action] = true
			if b.Desc() == "" || b.Help().Key == "" {
				t.Errorf("%s: %s has no help", c, b.Action)
			}
		}
	}
	for _, a := range Actions() {
		if a.Desc() == "" {
			t.Errorf("action %s has no help text", a)
		}
		if !bound[a] {
			t.Errorf("action %s is bound nowhere", a)
		}
	}
}

func TestDefaultValid(t *testing.T) {
	km := Default()
	if err := km.Validate(); err != nil {
		t.Fatal(err)
	}
	// No duplicate key inside any one context, and never ctrl+b.
	for _, c := range Contexts() {
		seen := map[string]Action{}
		for _, b := range km.Bindings(c) {
			for _, k := range b.Keys() {
				if k == "ctrl+b" {
					t.Errorf("%s: %s uses ctrl+b", c, b.Action)
				}
				if prev, ok := seen[k]; ok {
					t.Errorf("%s: key %q bound to %s and %s", c, k, prev, b.Action)
				}
				seen[k] = b.Action
			}
		}
	}
	if a, ok := km.Lookup(CtxList, press("ctrl+b")); ok {
		t.Errorf("ctrl+b does %s", a)
	}
}

func TestValidateCatchesDuplicates(t *testing.T) {
	km := Default()
	km.ctx[CtxSession] = append(km.ctx[CtxSession], bind(Send, false, "n")) // n is Global spawn
	if err := km.Validate(); err == nil || !strings.Contains(err.Error(), `"n"`) {
		t.Fatalf("Validate = %v, want duplicate n", err)
	}
}

func TestLookupPrecedence(t *testing.T) {
	km := Default()
	cases := []struct {
		ctx  Context
		key  string
		want Action
		ok   bool
	}{
		{CtxList, "enter", Attach, true},      // Session, via List's chain
		{CtxGrid, "x", Kill, true},            // Session, via Grid's chain
		{CtxList, "n", Spawn, true},           // Global
		{CtxList, "k", Up, true},              // List
		{CtxList, "h", "", false},             // only the grid moves with h
		{CtxGrid, "h", Up, true},              // grid: previous pane
		{CtxHelp, "q", Back, true},            // Help shadows Global quit
		{CtxHelp, "?", Help, true},            //
		{CtxHelp, "n", "", false},             // Help does not fall through
		{CtxFilter, "q", "", false},           // typing: q is text
		{CtxFilter, "esc", Back, true},        //
		{CtxDialog, "y", DialogYes, true},     //
		{CtxDialog, "q", "", false},           //
		{CtxGlobal, "enter", "", false},       // Global does not see Session
		{CtxList, "X", KillNow, true},         // case-sensitive
		{CtxList, "shift+tab", "", false},     //
		{CtxList, "ctrl+c", Quit, true},       //
		{Context(99), "q", "", false},         // unknown context
		{CtxGrid, "tab", NextAttention, true}, //
	}
	for _, c := range cases {
		got, ok := km.Lookup(c.ctx, press(c.key))
		if got != c.want || ok != c.ok {
			t.Errorf("Lookup(%s, %q) = %q, %v; want %q, %v", c.ctx, c.key, got, ok, c.want, c.ok)
		}
	}
}

func TestOverride(t *testing.T) {
	km := Default()
	orig := Default()
	copyBefore := km
	if err := km.Override("kill", []string{"K", "delete"}); err != nil {
		t.Fatal(err)
	}
	if a, ok := km.Lookup(CtxList, press("K")); !ok || a != Kill {
		t.Errorf("K = %q, %v", a, ok)
	}
	if a, ok := km.Lookup(CtxList, press("x")); ok {
		t.Errorf("x still bound to %s", a)
	}
	if got := km.KeysOf(CtxGrid, Kill); !slices.Equal(got, []string{"K", "delete"}) {
		t.Errorf("KeysOf = %v", got)
	}
	if got := km.Bindings(CtxSession)[2].Help().Key; got != "K/delete" {
		t.Errorf("help key = %q", got)
	}
	// The copy taken before is untouched.
	if a, ok := copyBefore.Lookup(CtxList, press("x")); !ok || a != Kill {
		t.Errorf("override leaked into a copy: x = %q %v", a, ok)
	}
	// "up" changes both list and grid.
	if err := km.Override("up", []string{"w"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []Context{CtxList, CtxGrid} {
		if a, _ := km.Lookup(c, press("w")); a != Up {
			t.Errorf("%s: w = %q", c, a)
		}
	}
	// Names of multi-letter keys are case-insensitive.
	if err := km.Override("attach", []string{"Enter", "o"}); err != nil {
		t.Fatal(err)
	}
	if a, _ := km.Lookup(CtxList, press("enter")); a != Attach {
		t.Errorf("enter = %q", a)
	}

	bad := []struct {
		action string
		keys   []string
		want   string
	}{
		{"explode", []string{"e"}, "valid: accept, add, allow, allow-always"},
		{"kill", nil, "no keys"},
		{"kill", []string{""}, "bad key"},
		{"kill", []string{"a b"}, "bad key"},
		{"kill", []string{"ctrl+b"}, "tmux"},
		{"kill", []string{"Ctrl+B"}, "tmux"},
		{"kill", []string{"n"}, `"n"`},          // Global spawn
		{"spawn", []string{"x"}, `"x"`},         // Session kill (as bound in orig)
		{"kill", []string{"k", "k"}, "twice"},   //
		{"dialog-yes", []string{"j"}, "dialog"}, // fixed
	}
	for _, b := range bad {
		k := orig
		err := k.Override(b.action, b.keys)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Override(%q, %q) = %v; want error containing %q", b.action, b.keys, err, b.want)
			continue
		}
		if a, ok := k.Lookup(CtxList, press("x")); !ok || a != Kill {
			t.Errorf("failed Override(%q) changed the map", b.action)
		}
	}
	k := orig
	if err := k.Override("explode", []string{"e"}); !errors.Is(err, ErrUnknownAction) {
		t.Errorf("want ErrUnknownAction, got %v", err)
	}
	if strings.Contains(func() string { k := orig; return k.Override("explode", []string{"e"}).Error() }(), "dialog-") {
		t.Error("unknown-action error lists fixed dialog actions")
	}
}

// DetachName's names parse back to their byte (attach.ParseDetachKey),
// for every control key that may detach.
func TestDetachName(t *testing.T) {
	for b := byte(0); b < 0x20; b++ {
		got, err := attach.ParseDetachKey(DetachName(b))
		if err != nil && strings.Contains(err.Error(), "cannot be used") {
			continue
		}
		if err != nil || got != b {
			t.Errorf("round trip %#x via %q = %#x, %v", b, DetachName(b), got, err)
		}
	}
	if DetachName(DefaultDetach) != `ctrl+\` {
		t.Errorf("DetachName(default) = %q", DetachName(DefaultDetach))
	}
}

func TestMarkdownMentionsEveryBinding(t *testing.T) {
	km := Default()
	md := km.Markdown()
	for _, c := range Contexts() {
		if !strings.Contains(md, "### "+c.String()+"\n") {
			t.Errorf("no section for %s", c)
		}
		for _, b := range km.Bindings(c) {
			if !strings.Contains(md, "| `"+string(b.Action)+"` | "+b.Desc()+" |") {
				t.Errorf("%s: %s missing", c, b.Action)
			}
		}
	}
	if !strings.Contains(md, "`ctrl+\\`") {
		t.Error("detach key missing")
	}
	if got := code("|"); got != "`\\|`" {
		t.Errorf("code(|) = %q", got)
	}
	if got := code("`"); got != "`` ` ``" {
		t.Errorf("code(`) = %q", got)
	}
}

const (
	startMarker = "<!-- keys:start -->"
	endMarker   = "<!-- keys:end -->"
)

// repoRoot is two levels up from this package's directory (tui/keys).
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(wd, "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repo root not found from %s: %v", wd, err)
	}
	return root
}

// TestReferenceUpToDate fails when docs/KEYS.md or the README's key section
// differ from the key map; -update rewrites them.
func TestReferenceUpToDate(t *testing.T) {
	root := repoRoot(t)
	km := Default()

	docPath := filepath.Join(root, "docs", "KEYS.md")
	if *update {
		if err := os.WriteFile(docPath, []byte(km.Doc()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatalf("%v (run go test ./tui/keys -update)", err)
	}
	if string(doc) != km.Doc() {
		t.Errorf("docs/KEYS.md is stale: run go test ./tui/keys -update")
	}

	readmePath := filepath.Join(root, "README.md")
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		out, err := replaceSection(string(readme), km.Markdown())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(readmePath, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		readme = []byte(out)
	}
	got, ok := section(string(readme))
	if !ok {
		t.Fatalf("README.md has no %s … %s section (run go test ./tui/keys -update)", startMarker, endMarker)
	}
	if got != km.Markdown() {
		t.Errorf("README.md key section is stale: run go test ./tui/keys -update")
	}
}

// section returns the text between the markers (without the newline after
// the start marker).
func section(s string) (string, bool) {
	i := strings.Index(s, startMarker+"\n")
	j := strings.Index(s, endMarker)
	if i < 0 || j < i {
		return "", false
	}
	return s[i+len(startMarker)+1 : j], true
}

// replaceSection puts md between the markers, adding a "## Keys" section
// with them before "## Development" (or at the end) when they are absent.
func replaceSection(s, md string) (string, error) {
	if _, ok := section(s); !ok {
		if strings.Contains(s, startMarker) || strings.Contains(s, endMarker) {
			return "", errors.New("README.md has a broken keys section: fix the markers by hand")
		}
		block := "## Keys\n\n" + startMarker + "\n" + endMarker + "\n\n"
		if i := strings.Index(s, "\n## Development\n"); i >= 0 {
			s = s[:i+1] + block + s[i+1:]
		} else {
			s = strings.TrimRight(s, "\n") + "\n\n" + strings.TrimSuffix(block, "\n")
		}
	}
	i := strings.Index(s, startMarker+"\n") + len(startMarker) + 1
	j := strings.Index(s, endMarker)
	return s[:i] + md + s[j:], nil
}

func TestReplaceSection(t *testing.T) {
	in := "# x\n\nintro\n\n## Development\n\ndev\n"
	out, err := replaceSection(in, "T1\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# x\n\nintro\n\n## Keys\n\n" + startMarker + "\nT1\n" + endMarker + "\n\n## Development\n\ndev\n"
	if out != want {
		t.Fatalf("got %q\nwant %q", out, want)
	}
	out2, _ := replaceSection(out, "T2\n")
	if out2 != strings.Replace(want, "T1", "T2", 1) {
		t.Fatalf("second replace: %q", out2)
	}
	if _, err := replaceSection("a "+startMarker+" b", "x"); err == nil {
		t.Error("broken markers accepted")
	}
}

func TestApplySwap(t *testing.T) {
	km := Default()
	// Swapping two keys fails one at a time but works as one Apply.
	if err := km.Override("kill", []string{"d"}); err == nil {
		t.Fatal("kill=d accepted while remove has d")
	}
	if err := km.Apply(map[string][]string{"kill": {"d"}, "remove": {"x"}}); err != nil {
		t.Fatal(err)
	}
	if a, _ := km.Lookup(CtxList, press("d")); a != Kill {
		t.Errorf("d = %q", a)
	}
	if a, _ := km.Lookup(CtxList, press("x")); a != Remove {
		t.Errorf("x = %q", a)
	}
	// Several bad entries: all reported, nothing changed.
	before := km.Markdown()
	err := km.Apply(map[string][]string{"nope": {"a"}, "kill": {"ctrl+b"}, "up": {"w"}})
	if err == nil || !strings.Contains(err.Error(), "nope") || !strings.Contains(err.Error(), "tmux") {
		t.Errorf("Apply = %v", err)
	}
	if km.Markdown() != before {
		t.Error("failed Apply changed the map")
	}
	if err := km.Apply(nil); err != nil {
		t.Errorf("empty Apply: %v", err)
	}
}
