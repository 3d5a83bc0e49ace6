package answer

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
)

// corpusScreen reads a screen of the classifier's corpus (Claude Code's
// own screens).
func corpusScreen(t *testing.T, name string) classify.Screen {
	t.Helper()
	b, err := os.ReadFile("../classify/testdata/claude/" + name)
	if err != nil {
		t.Fatal(err)
	}
	_, screen, ok := strings.Cut(string(b), "=== title: ")
	if !ok {
		t.Fatalf("%s: no screen", name)
	}
	title, body, _ := strings.Cut(screen, "\n")
	return classify.Screen{Title: title, Lines: strings.Split(strings.TrimRight(body, "\n"), "\n")}
}

func TestReadAndKeys(t *testing.T) {
	bash, err := Read("claude", corpusScreen(t, "needs-bash-21.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if bash.Family != "permission" || bash.Question != "Do you want to proceed?" ||
		!reflect.DeepEqual(bash.Labels, []string{"Yes", "Yes, and don't ask again for npm install commands in /home/ada/src/app", "No"}) {
		t.Fatalf("bash prompt %+v", bash)
	}
	for c, want := range map[Choice]string{{Kind: Allow}: "1", {Kind: Always}: "2", {Kind: Deny}: "3", {Kind: Option, Option: 3}: "3"} {
		if keys, _, err := bash.Keys(c); err != nil || string(keys) != want {
			t.Errorf("%+v: %q %v", c, keys, err)
		}
	}
	if _, _, err := bash.Keys(Choice{Kind: Option, Option: 4}); err == nil || !strings.Contains(err.Error(), "has 3 options") {
		t.Errorf("option 4: %v", err)
	}
	if _, _, err := bash.Keys(Choice{Kind: Text, Text: "use pnpm"}); err == nil || !strings.Contains(err.Error(), "no text option") {
		t.Errorf("text on a permission: %v", err)
	}

	ask, err := Read("claude", corpusScreen(t, "needs-ask-question.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if ask.Family != "ask" || ask.Question != "Which database should the service use?" || len(ask.Labels) != 4 || ask.Labels[1] != "SQLite" {
		t.Fatalf("ask prompt %+v", ask)
	}
	if keys, n, err := ask.Keys(Choice{Kind: Option, Option: 3}); err != nil || string(keys) != "3" || n != 3 {
		t.Errorf("option 3: %q %v", keys, err)
	}
	if keys, _, err := ask.Keys(Choice{Kind: Text, Text: "CockroachDB"}); err != nil || string(keys) != "4CockroachDB\r" {
		t.Errorf("text: %q %v", keys, err)
	}
	if _, _, err := ask.Keys(Choice{Kind: Allow}); err == nil {
		t.Error("allow on a question answered")
	}
	if _, _, err := ask.Keys(Choice{Kind: Text, Text: "two\rlines"}); err == nil {
		t.Error("a text with Enter in it answered")
	}

	multi, err := Read("claude", corpusScreen(t, "needs-ask-multiselect-120.txt"))
	if err != nil || !multi.Multi {
		t.Fatalf("multi-select: %+v %v", multi, err)
	}
	if _, _, err := multi.Keys(Choice{Kind: Option, Option: 1}); err == nil {
		t.Error("a multi-select question answered with one key")
	}

	// A transcript quoting a permission prompt above the input box asks nothing.
	if _, err := Read("claude", corpusScreen(t, "idle-quoted-permission-text.txt")); !errors.Is(err, ErrNoDialog) {
		t.Fatalf("quoted prompt: %v", err)
	}
	if _, err := Read("simple", corpusScreen(t, "needs-bash-21.txt")); !errors.Is(err, ErrNoDialog) {
		t.Fatalf("no rules: %v", err)
	}
}

// Claude's question before resuming an old, long conversation is
// answered by its options' digits; the reason is read off its screen.
func TestResumeDialog(t *testing.T) {
	s := corpusScreen(t, "needs-resume-summary.txt")
	p, err := Read("claude", s)
	if err != nil {
		t.Fatal(err)
	}
	if p.Family != "resume" || !reflect.DeepEqual(p.Labels, []string{"Resume from summary (recommended)", "Resume full session as-is", "Don't ask me again"}) {
		t.Fatalf("resume prompt %+v", p)
	}
	if keys, _, err := p.Keys(Choice{Kind: Option, Option: 2}); err != nil || string(keys) != "2" {
		t.Fatalf("option 2: %q %v", keys, err)
	}
	r := classify.NewRules(classify.Claude, time.Time{})
	l := classify.NewLayered(r)
	at := time.Unix(100, 0)
	l.Screen(at, s)
	d := l.Detail(at.Add(classify.DebounceHold + time.Second))
	if !d.NeedsInput || d.Reason != "This session is 9h 44m old and 540k tokens: resume from a summary, or the full session?" {
		t.Fatalf("detail %+v", d)
	}
}
