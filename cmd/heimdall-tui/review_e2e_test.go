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
