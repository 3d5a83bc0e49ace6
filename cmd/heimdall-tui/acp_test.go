package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// Issue 36's done-when, through the dashboard in tmux as a user would: an
// ACP agent (the fake, on the SDK's agent side) spawned from its preset
// streams text, a tool call, a permission request and usage; the
// transcript and the states show; the permission request is in the inbox
// and allow and deny reach the agent as the protocol's reply; I cancels a
// turn; a read outside the working directory is refused and the agent
// sees the error; the dashboard SIGKILLed mid-turn, a new one shows the
// finished transcript.
func TestDashboardACP(t *testing.T) {
	t.Parallel()
	d := newDash(t)
	log := filepath.Join(t.TempDir(), "acp.log")
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("inside\n"), 0o600)
	conf := dashConfig + "[[agent]]\nname = \"fakeacp\"\nacp = true\nacp_fs = \"read\"\ncommand = [\"env\", \"FAKE_ACP_LOG=" + log + "\", \"" + fakeACPPath + "\"]\n"
	if err := os.WriteFile(d.cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	agentLog := func() string { b, _ := os.ReadFile(log); return string(b) }
	waitLog := func(what, want string) {
		t.Helper()
		if !poll(waitTimeout, func() bool { return strings.Contains(agentLog(), want) }) {
			t.Fatalf("%s: the agent logged %q, want %q\n%s", what, agentLog(), want, d.capture())
		}
	}
	d.sendLine("cd " + work) // the dashboard spawns in its directory
	d.waitPrompt("hm$")
	d.open()
	d.waitFor("no sessions")
	d.command("spawn fakeacp a1")
	d.waitFor("started a1")
	d.waitFor("acp session fake-")

	d.sendTo("a1", "hello")
	d.waitFor("Hello from the fake agent.")
	// Done, or Idle once the dashboard has told it the user saw it (it is
	// the selected session).
	d.waitScreen("the turn over", func(s string) bool { return regexp.MustCompile(`a1 +(Done|Idle) `).MatchString(s) })

	// A permission request: needs input, in the inbox; y allows.
	d.sendTo("a1", "tool")
	d.waitScreen("a1 needs input", func(s string) bool { return regexp.MustCompile(`a1 +needs input`).MatchString(s) })
	d.sendKeys("!")
	d.waitScreen("the request in the inbox", func(s string) bool {
		return regexp.MustCompile(`input +a1 +Run ls`).MatchString(s) && strings.Contains(s, "Run ls (1. Allow, 2. Always allow, 3. Reject)")
	})
	d.sendKeys("y")
	d.waitFor("answered a1: 1. Allow")
	waitLog("allow", "permission allow\n")
	d.waitFor("ran ls")
	d.sendKeys("q") // the inbox closes (an Esc before the next key would be Alt+key)
	d.waitFor("NAME")
	// Denied from the list with N.
	d.sendTo("a1", "tool")
	d.waitScreen("asks again", func(s string) bool { return regexp.MustCompile(`a1 +needs input`).MatchString(s) })
	d.sendKeys("N")
	waitLog("deny", "permission reject\n")
	d.waitFor("not allowed")

	// Cancel a turn under way.
	d.sendTo("a1", "slow")
	d.waitFor("working…")
	d.sendKeys("I")
	waitLog("cancel", "cancelled\n")
	d.waitFor("cancelled")

	// Reads: within the working directory served, outside it refused.
	d.sendTo("a1", "read "+filepath.Join(work, "notes.txt"))
	waitLog("read inside", "read ok 7\n")
	d.sendTo("a1", "read /etc/hostname")
	waitLog("read outside", "read error")
	d.waitFor("refused: read /etc/hostname: outside the session's working")

	// The tokens the turns reported.
	if st := statusOf(t, d.dir, "a1"); len(st.Usage) != 1 || st.Usage[0].Input != 100 || st.Usage[0].Output != 20 {
		t.Fatalf("usage: %+v", st.Usage)
	}

	// The dashboard dies mid-turn; the turn goes on in the supervisor.
	d.sendTo("a1", "long")
	d.waitFor("step 2")
	pid := dashboardPID(t, d)
	syscall.Kill(pid, syscall.SIGKILL)
	if !poll(waitTimeout, func() bool { return syscall.Kill(pid, 0) != nil }) {
		t.Fatal("the dashboard survived SIGKILL")
	}
	waitLog("the turn went on to its end", "long finished\n")
	d.run("send-keys", "-t", "main", "clear; tput rmcup", "Enter")
	d.waitDisplay("#{alternate_on}", "0")
	d.waitPrompt("hm$")
	d.open()
	d.waitFor("finished")
	d.waitFor("step 20")
	// Started from a dashboard, it is stopped with "Stop them".
	d.sendKeys("q")
	d.waitFor("Leave them running")
	d.sendKeys("s")
	if !poll(waitTimeout, func() bool { return hmIn(t, d.dir, "status", "a1").code != 0 }) {
		t.Fatal("a1 still runs after Stop them")
	}
}

// An ACP session from the command line: run --acp starts it in the
// background; status --json, send, wait, inbox, answer and kill work on
// it as on any session. Its supervisor SIGKILLed, a dashboard lists it
// Lost, and R resumes it in the agent's own session (session/resume).
func TestACPCommandLine(t *testing.T) {
	t.Parallel()
	d := newDash(t)
	dir := d.dir
	log := filepath.Join(t.TempDir(), "acp.log")
	work := t.TempDir()
	if r := hmIn(t, dir, "run", "--acp", "--id", "a1", "--workdir", work, "--", "env", "FAKE_ACP_LOG="+log, fakeACPPath); r.code != 0 {
		t.Fatalf("run --acp: %s", r)
	}
	st := statusOf(t, dir, "a1")
	if !strings.HasPrefix(st.Conversation, "fake-") {
		t.Fatalf("status --json: %+v", st)
	}
	if r := hmIn(t, dir, "send", "a1", "tool"); r.code != 0 {
		t.Fatalf("send: %s", r)
	}
	if r := hmIn(t, dir, "wait", "a1", "--for", "input", "--timeout", "20s"); r.code != 0 {
		t.Fatalf("wait: %s", r)
	}
	if r := hmIn(t, dir, "inbox"); !regexp.MustCompile(`a1 +input +Run ls \(1\. Allow, 2\. Always allow, 3\. Reject\)`).MatchString(r.stdout) {
		t.Fatalf("inbox:\n%s", r)
	}
	if r := hmIn(t, dir, "answer", "a1", "deny"); r.code != 0 || !strings.HasPrefix(r.stdout, "a1: 3. Reject") {
		t.Fatalf("answer: %s", r)
	}
	if !poll(waitTimeout, func() bool { b, _ := os.ReadFile(log); return strings.Contains(string(b), "permission reject\n") }) {
		b, _ := os.ReadFile(log)
		t.Fatalf("the agent got %q", b)
	}
	if r := hmIn(t, dir, "wait", "a1", "--for", "idle", "--timeout", "20s"); r.code != 0 {
		t.Fatalf("wait for idle: %s", r)
	}
	if r := hmIn(t, dir, "screen", "a1"); !strings.Contains(r.stdout, "assistant: not allowed") {
		t.Fatalf("screen:\n%s", r)
	}

	// Lost: supervisor and agent SIGKILLed; R in a dashboard resumes it.
	rec := mustRecordOf(t, dir, "a1")
	syscall.Kill(rec.Supervisor, syscall.SIGKILL)
	syscall.Kill(-rec.PID, syscall.SIGKILL)
	if !poll(waitTimeout, func() bool { return syscall.Kill(rec.Supervisor, 0) != nil }) {
		t.Fatal("the supervisor survived SIGKILL")
	}
	d.open()
	d.waitScreen("a1 lost", func(s string) bool { return regexp.MustCompile(`a1 +Lost`).MatchString(s) })
	d.sendKeys("R")
	d.waitFor("in its conversation (" + rec.Conversation + ")")
	d.sendKeys("r")
	if !poll(waitTimeout, func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "resumed "+rec.Conversation+"\n")
	}) {
		b, _ := os.ReadFile(log)
		t.Fatalf("the agent got %q\n%s", b, d.capture())
	}
	d.waitScreen("a1 running again", func(s string) bool { return regexp.MustCompile(`a1 +Idle`).MatchString(s) })
	if r := hmIn(t, dir, "kill", "a1"); r.code != 0 {
		t.Fatalf("kill: %s", r)
	}
	d.waitScreen("a1 ended", func(s string) bool { return regexp.MustCompile(`a1 +Dead`).MatchString(s) })
	d.quitChoosing("s")
}

func mustRecordOf(t *testing.T, dir, id string) supervisor.Record {
	t.Helper()
	rec, err := supervisor.ReadRecord(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}
