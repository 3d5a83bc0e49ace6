package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What an agent changed, reviewed as a user would: a fake agent in a git
// repository (the user's own edit from before it started stays out of its
// diff) edits two files and then works a while; D shows exactly its
// changes; three notes on lines of both files, S while it works: they
// wait; once it reads idle at its prompt they reach it as one prompt,
// logged once.
func TestDashboardReview(t *testing.T) {
	repo := gitRepo(t)
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\ntwo (the user's)\nthree\n"), 0o644)
	logs := t.TempDir()
	gate, typed := filepath.Join(logs, "gate"), filepath.Join(logs, "typed")
	agent := "stty raw -echo; printf '\\033[?2004h'; printf 'four (the agent)\\n' >> a.txt; sed -i 's/return 1/return 2/' b.go; " +
		"printf 'edited\\r\\n'; while [ ! -e " + gate + " ]; do printf .; sleep 0.1; done; printf '\\r\\n> '; exec cat > " + typed
	d := newDash(t)
	startRun(t, d.dir, "ag", nil, []string{"--workdir", repo}, "sh", "-c", agent)
	d.open()
	d.waitFor("edited")
	d.sendKeys("D")
	d.waitScreen("the agent's diff", func(s string) bool {
		return strings.Contains(s, "Diff ag since it started  2 files +2 -1") && strings.Contains(s, "+four (the agent)") &&
			strings.Contains(s, "-    return 1") && strings.Contains(s, "+    return 2")
	})
	if s := d.capture(); strings.Contains(s, "+two (the user's)") || strings.Contains(s, "-two") {
		t.Fatalf("the user's own edit is in the agent's diff:\n%s", s)
	}
	note := func(text string) {
		t.Helper()
		d.sendKeys("a")
		d.waitFor("Note on ")
		d.run("send-keys", "-t", "main", "-l", text)
		d.sendKeys("Enter")
		d.waitFor("✎ " + text)
	}
	d.sendKeys("j", "j", "j") // a.txt: +four
	note("Why four?")
	d.sendKeys("}", "j", "j", "j") // b.go: -return 1
	note("Keep the old value.")
	d.sendKeys("j") // b.go: +return 2
	note("Name the constant.")
	d.waitFor("✎ 3 notes")
	d.sendKeys("S")
	d.waitFor("3 notes wait for ag")
	if b, _ := os.ReadFile(typed); len(b) != 0 {
		t.Fatalf("typed while the agent worked: %q", b)
	}
	os.WriteFile(gate, nil, 0o600)
	d.waitFor("sent 3 notes to ag as one prompt")
	var got string
	if !poll(waitTimeout, func() bool { b, _ := os.ReadFile(typed); got = string(b); return strings.HasSuffix(got, "\r") }) {
		t.Fatalf("the agent read %q", got)
	}
	want := "\x1b[200~Review notes on your changes (3). Please address each one:\n\n" +
		"1. a.txt:4\n   > four (the agent)\n   Why four?\n\n" +
		"2. b.go:4 (a line you removed)\n   > return 1\n   Keep the old value.\n\n" +
		"3. b.go:4\n   > return 2\n   Name the constant.\n\x1b[201~\r"
	if got != want {
		t.Fatalf("the agent read\n%q\nwant\n%q", got, want)
	}
	d.sendKeys("Escape")
	d.waitScreen("the diff closed", func(s string) bool { return !strings.Contains(s, "Diff ag") })
	d.quitChoosing("s")
}

// A session in a worktree of its own, from the spawn form: it runs on a
// new branch beside the repository (with the config's copied files);
// removing it once it has ended asks about the worktree, and one with
// uncommitted changes goes only after a second yes (the branch stays).
func TestDashboardWorktree(t *testing.T) {
	repo := gitRepo(t)
	os.WriteFile(filepath.Join(repo, ".env"), []byte("TOKEN=1\n"), 0o600)
	d := newDash(t)
	b, _ := os.ReadFile(d.cfg)
	os.WriteFile(d.cfg, append(b, []byte("[worktree]\ncopy = [\".env\"]\n")...), 0o600)
	d.sendLine("cd " + shellQuote(repo))
	d.open()
	d.sendKeys("n")
	d.waitScreen("the presets looked up", func(s string) bool {
		return strings.Contains(s, "custom command") && !strings.Contains(s, "looking up presets")
	})
	d.choose("▸ sh ")
	d.sendKeys("Tab")
	d.run("send-keys", "-t", "main", "-l", "wt1")
	d.sendKeys("Tab", "Tab")
	d.run("send-keys", "-t", "main", "-l", "agent/wt1")
	d.sendKeys("C-s")
	d.waitFor("started wt1")
	wt := repo + "-agent-wt1"
	d.sendTo("wt1", "git branch --show-current; cat .env; echo new > new.txt")
	d.waitScreen("the session in its worktree", func(s string) bool {
		return paneLine("agent/wt1").MatchString(s) && paneLine("TOKEN=1").MatchString(s)
	})
	if _, err := os.Stat(filepath.Join(wt, "new.txt")); err != nil {
		t.Fatalf("the session did not run in %s: %v", wt, err)
	}
	d.sendKeys("x")
	d.waitFor("SIGTERM")
	d.sendKeys("y")
	d.waitFor("Dead")
	d.sendKeys("d")
	d.waitFor("uncommitted changes")
	d.sendKeys("r")
	d.waitFor("Remove them with")
	d.sendKeys("n") // no: nothing is removed
	d.waitScreen("the question closed", func(s string) bool { return !strings.Contains(s, "Remove them with") })
	if _, err := os.Stat(filepath.Join(wt, "new.txt")); err != nil {
		t.Fatalf("the worktree went without the second yes: %v", err)
	}
	d.sendKeys("d")
	d.waitFor("uncommitted changes")
	d.sendKeys("r")
	d.waitFor("Remove them with")
	d.sendKeys("y")
	d.waitFor("removed wt1 and its worktree")
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("the worktree is still there: %v", err)
	}
	if out := gitIn(t, repo, nil, "branch", "--list", "agent/wt1"); !strings.Contains(out, "agent/wt1") {
		t.Fatal("the branch went with the worktree")
	}
	d.quit()
}
