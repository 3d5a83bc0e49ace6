package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
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
	d.waitScreen("the turn done", func(s string) bool { return regexp.MustCompile(`a1 +Done`).MatchString(s) })

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
	waitLog("the turn went on", "prompt long\n")
	d.run("send-keys", "-t", "main", "clear; tput rmcup", "Enter")
	d.waitDisplay("#{alternate_on}", "0")
	d.waitPrompt("hm$")
	d.open()
	d.waitFor("finished")
	d.waitFor("step 20")
	d.quitChoosing("s")
}
