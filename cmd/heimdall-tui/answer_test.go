package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// answer as a script (or another agent) uses it, on fake Claude sessions
// showing Claude's own dialogs: allow, deny, an option and words reach
// the agent as its keys (the fake logs what it read) and the items
// resolve; an answer to a prompt no longer shown, on a session with no
// prompt, or over someone typing writes nothing and says why.
func TestAnswer(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("FAKE_CLAUDE_STEP", "100")
	dir := newSockDir(t)
	logs := t.TempDir()
	keysOf := func(id string) string { return filepath.Join(logs, id+".keys") }
	read := func(id string) string { b, _ := os.ReadFile(keysOf(id)); return string(b) }
	claude := []string{"--agent", "claude", "--classifier", "claude"}
	start := func(id string) *proc {
		p := startRun(t, dir, id, nil, claude, "env", "FAKE_CLAUDE_KEYS="+keysOf(id), fakeClaudePath)
		waitLive(t, p)
		return p
	}
	start("c1")
	start("c2")
	start("c3")
	say := func(id, text string) {
		t.Helper()
		if r := hmIn(t, dir, "send", id, text); r.code != 0 {
			t.Fatalf("send %s: %+v", text, r)
		}
	}
	waitFor := func(id, what string) {
		t.Helper()
		if r := hmIn(t, dir, "wait", id, "--for", what, "--timeout", "30s"); r.code != 0 {
			t.Fatalf("wait %s --for %s: %+v", id, what, r)
		}
	}
	answer := func(id string, args ...string) result {
		t.Helper()
		return hmIn(t, dir, "answer", append([]string{id}, args...)...)
	}

	say("c1", "perm")
	waitFor("c1", "input")
	// A question other than the one shown: refused, nothing typed.
	if r := answer("c1", "allow", "--question", "Do you want to delete it?"); r.code != 1 ||
		!strings.Contains(r.stderr, `c1 not answered: the screen no longer shows that prompt (it asks "Do you want to proceed?")`) {
		t.Fatalf("answer to another question: %+v", r)
	}
	if r := answer("c1", "allow", "--question", "Do you want to proceed?"); r.code != 0 || r.stdout != "c1: 1. Yes (Do you want to proceed?)\n" {
		t.Fatalf("allow: %+v", r)
	}
	waitFor("c1", "done")
	say("c1", "perm")
	waitFor("c1", "input")
	if r := answer("c1", "deny"); r.code != 0 || !strings.HasPrefix(r.stdout, "c1: 3. No, and tell Claude what to do differently") {
		t.Fatalf("deny: %+v", r)
	}
	waitFor("c1", "idle")
	if got := read("c1"); got != "perm key 1\nperm key 3\n" {
		t.Fatalf("c1 read %q", got)
	}

	say("c2", "ask")
	waitFor("c2", "input")
	if r := hmIn(t, dir, "inbox"); !regexp.MustCompile(`c2 +input +Which database should the service use\? \(1\. PostgreSQL · 2\. SQLite · 3\. DynamoDB\)`).MatchString(r.stdout) {
		t.Fatalf("the question in the inbox:\n%s", r.stdout)
	}
	if r := answer("c2", "allow"); r.code != 1 || !strings.Contains(r.stderr, "the prompt has no allow option (its options: PostgreSQL · SQLite · DynamoDB · Type something.)") {
		t.Fatalf("allow on a question: %+v", r)
	}
	if r := answer("c2", "--option", "3"); r.code != 0 || r.stdout != "c2: 3. DynamoDB (Which database should the service use?)\n" {
		t.Fatalf("option 3: %+v", r)
	}
	waitFor("c2", "done")
	say("c2", "ask")
	waitFor("c2", "input")
	if r := answer("c2", "--text", "CockroachDB"); r.code != 0 {
		t.Fatalf("text: %+v", r)
	}
	waitFor("c2", "done")
	if got := read("c2"); got != "ask key 3\nask key 4\nask text CockroachDB\n" {
		t.Fatalf("c2 read %q", got)
	}
	if r := hmIn(t, dir, "inbox"); !regexp.MustCompile(`c2 +done +You chose CockroachDB\.`).MatchString(r.stdout) {
		t.Fatalf("inbox after the answers:\n%s", r.stdout)
	}

	// No prompt on the screen: nothing is typed into its input box.
	say("c3", "hello")
	waitFor("c3", "done")
	if r := answer("c3", "allow"); r.code != 1 || !strings.Contains(r.stderr, "c3 not answered: the screen shows no prompt to answer") {
		t.Fatalf("answer with no prompt: %+v", r)
	}
	if r := hmIn(t, dir, "screen", "c3"); !strings.Contains(r.stdout, "\n❯\n") {
		t.Fatalf("c3's input box after a refused answer:\n%s", r.stdout)
	}
	// Someone typing into the session: not answered over them.
	say("c3", "perm")
	waitFor("c3", "input")
	if r := hmIn(t, dir, "send", "c3", "--no-enter", "x"); r.code != 0 {
		t.Fatalf("typing: %+v", r)
	}
	if r := answer("c3", "allow"); r.code != 1 || !strings.Contains(r.stderr, "someone is typing into the session") {
		t.Fatalf("answer over typing: %+v", r)
	}
	// The fake reads the typed x in its own time; nothing else comes.
	if !poll(waitTimeout, func() bool { return read("c3") == "perm key x\n" }) {
		t.Fatalf("c3 read %q", read("c3"))
	}
	// Usage errors.
	for _, args := range [][]string{{"c1"}, {"c1", "maybe"}, {"c1", "allow", "--option", "2"}, {"c1", "--option", "12"}} {
		if r := answer(args[0], args[1:]...); r.code != 2 {
			t.Errorf("answer %q: %+v", args, r)
		}
	}
}

// Claude's question before resuming an old, long conversation: the
// session needs input with its age and size as the reason (read off the
// screen: no hook reports it), the inbox lists it, and an answer types
// the option's digit.
func TestResumeQuestion(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := newSockDir(t)
	keys := filepath.Join(t.TempDir(), "keys")
	waitLive(t, startRun(t, dir, "c1", nil, []string{"--agent", "claude", "--classifier", "claude"},
		"env", "FAKE_CLAUDE_OLD=1", "FAKE_CLAUDE_KEYS="+keys, fakeClaudePath, "--resume", "abc"))
	if r := hmIn(t, dir, "wait", "c1", "--for", "input", "--timeout", "30s"); r.code != 0 {
		t.Fatalf("wait: %+v", r)
	}
	if r := hmIn(t, dir, "inbox"); !regexp.MustCompile(`c1 +input +This session is 9h 44m old and 540k tokens: resume from a summary, or the full session\?`).MatchString(r.stdout) {
		t.Fatalf("inbox:\n%s", r.stdout)
	}
	if r := hmIn(t, dir, "answer", "c1", "--option", "1"); r.code != 0 || !strings.HasPrefix(r.stdout, "c1: 1. Resume from summary (recommended)") {
		t.Fatalf("answer: %+v", r)
	}
	if !poll(waitTimeout, func() bool { b, _ := os.ReadFile(keys); return string(b) == "resume key 1\n" }) {
		b, _ := os.ReadFile(keys)
		t.Fatalf("the fake read %q", b)
	}
}
