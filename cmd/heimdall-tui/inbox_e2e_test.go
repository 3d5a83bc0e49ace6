package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// row reports whether screen s has an inbox row of session id whose
// reason starts with reason.
func row(s, id, reason string) bool {
	return regexp.MustCompile(`(?m)` + regexp.QuoteMeta(id) + ` +` + regexp.QuoteMeta(reason)).MatchString(s)
}

// The inbox in the dashboard, as a user would use it: three fake Claude
// sessions — a Bash permission with Claude's three options, a question
// with four, a plain turn — driven from another terminal while the inbox
// is open; it lists all three with their reasons; allow, deny and option
// 3 from the inbox reach the agents as their own keys (each fake logs what
// it read) and the items resolve; an answer to an item that waits for
// nothing is refused with the reason and nothing is typed.
func TestDashboardInbox(t *testing.T) {
	t.Parallel()
	d := newDash(t, "HOME="+t.TempDir(), "FAKE_CLAUDE_STEP=100")
	logs := t.TempDir()
	keysOf := func(id string) string { return filepath.Join(logs, id+".keys") }
	read := func(id string) string { b, _ := os.ReadFile(keysOf(id)); return string(b) }
	cfg := dashConfig
	for _, id := range []string{"a1", "b1", "c1"} {
		cfg += fmt.Sprintf("[[agent]]\nname = \"claude-%s\"\ncommand = [%q]\nclassifier = \"claude\"\nenv = [{ name = \"FAKE_CLAUDE_KEYS\", value = %q }]\n",
			id, fakeClaudePath, keysOf(id))
	}
	if err := os.WriteFile(d.cfg, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	d.open()
	d.waitFor("no sessions")
	for _, id := range []string{"a1", "b1", "c1"} {
		d.command("spawn claude-" + id + " " + id)
		d.waitFor("started " + id)
	}
	d.waitScreen("three sessions at their prompts", func(s string) bool { return strings.Contains(s, "3 running") })
	d.sendKeys("!")
	d.waitFor("Nothing waits for you")

	// From another terminal: the agents get to work; the inbox fills.
	say := func(id, text string) {
		t.Helper()
		if r := hmIn(t, d.dir, "send", id, text); r.code != 0 {
			t.Fatalf("send %s %s: %+v", id, text, r)
		}
	}
	say("c1", "hello")
	say("a1", "perm")
	say("b1", "ask")
	d.waitScreen("the three items with their reasons", func(s string) bool {
		return strings.Contains(s, "Inbox  3 waiting") && row(s, "a1", "Bash: rm -rf build") &&
			row(s, "b1", "Which database should the service") && row(s, "c1", "echo: hello")
	})
	// select moves the inbox's selection to id's item.
	// The items move as their sessions report (Claude reports a prompt
	// twice), so it looks again after each key: down, then up.
	// selected is the session of the item the inbox selects ("" if none).
	selected := func(screen string) string {
		for _, l := range strings.Split(screen, "\n") {
			if _, rest, ok := strings.Cut(l, "▶"); ok {
				if f := strings.Fields(rest); len(f) >= 4 {
					return f[3]
				}
			}
		}
		return ""
	}
	selectItem := func(id string) {
		t.Helper()
		for i := range 12 {
			before := selected(d.capture())
			if before == id {
				return
			}
			d.sendKeys(map[bool]string{true: "j", false: "k"}[i%8 < 4])
			// Wait for the key's own effect (not another change of the
			// screen): the selection moves, unless it is at an end.
			poll(time.Second, func() bool { return selected(d.capture()) != before })
		}
		t.Fatalf("no item of %s:\n%s", id, d.capture())
	}

	selectItem("a1")
	d.sendKeys("y")
	d.waitFor("answered a1: 1. Yes")
	d.waitScreen("a1 allowed, its turn done", func(s string) bool { return row(s, "a1", "Done with rm -rf build.") })
	selectItem("b1")
	d.sendKeys("3")
	d.waitFor("answered b1: 3. DynamoDB")
	d.waitScreen("b1 answered, its turn done", func(s string) bool { return row(s, "b1", "You chose DynamoDB.") })
	say("a1", "perm")
	d.waitScreen("a1 asks again", func(s string) bool { return row(s, "a1", "Bash: rm -rf build") })
	selectItem("a1")
	d.sendKeys("N")
	d.waitFor("answered a1: 3. No, and tell Claude what to do differently")
	if got := read("a1"); got != "perm key 1\nperm key 3\n" {
		t.Fatalf("a1 read %q", got)
	}
	if got := read("b1"); got != "ask key 3\n" {
		t.Fatalf("b1 read %q", got)
	}

	// c1 waits for nothing: refused, nothing typed. a1's item leaves
	// first (its turn goes on after the answer): the selection is by
	// position, so it is made once the list stands still.
	d.waitScreen("a1's item gone", func(s string) bool { return strings.Contains(s, "Inbox  2 waiting") })
	selectItem("c1")
	d.sendKeys("y")
	d.waitFor("answer: c1 is not waiting for an answer")
	if got := read("c1"); got != "" {
		t.Fatalf("c1 read %q", got)
	}
	// enter goes to its session, which sees it: its item goes.
	d.sendKeys("Enter")
	d.waitScreen("c1 focused in the list", func(s string) bool { return strings.Contains(s, "╭─ c1") })
	d.sendKeys("!")
	d.waitScreen("c1's item gone", func(s string) bool { return strings.Contains(s, "Inbox") && !row(s, "c1", "echo: hello") })
	d.sendKeys("Escape")
	d.waitScreen("the inbox closed", func(s string) bool { return !strings.Contains(s, "Inbox") })
	d.quitChoosing("s")
}
