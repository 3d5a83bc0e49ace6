package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// gitRepo makes a git repository with a.txt and b.txt committed, its git
// config the test's own.
func gitRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "t")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "t@example.com")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.go"), []byte("package b\n\nfunc B() int {\n\treturn 1\n}\n"), 0o644)
	gitIn(t, dir, nil, "init", "-q", "-b", "main")
	gitIn(t, dir, nil, "add", ".")
	gitIn(t, dir, nil, "commit", "-q", "-m", "first")
	return dir
}

func gitIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// `diff ID` is what the session changed since it started: the user's
// uncommitted edit from before is not in it, the agent's edits and new
// file are; it is `git diff` of the baseline's tree and the working
// tree's now, byte for byte; --stat, --base and --base-of too.
func TestDiffCmd(t *testing.T) {
	repo := gitRepo(t)
	dir := newSockDir(t)
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\ntwo (the user's)\nthree\n"), 0o644)
	agent := "printf 'four (the agent)\\n' >> a.txt; sed -i 's/return 1/return 2/' b.go; printf 'new\\n' > c.txt; echo edited; exec sleep 60"
	waitLive(t, startRun(t, dir, "s1", nil, []string{"--workdir", repo}, "sh", "-c", agent))
	if !poll(waitTimeout, func() bool { return strings.Contains(hmIn(t, dir, "screen", "s1").stdout, "edited") }) {
		t.Fatal("the agent did not edit")
	}
	r := hmIn(t, dir, "diff", "s1")
	if r.code != 0 {
		t.Fatalf("diff: %+v", r)
	}
	for _, want := range []string{"+four (the agent)", "-\treturn 1", "+\treturn 2", "+new", "diff --git a/c.txt b/c.txt"} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("diff lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "+two (the user's)") {
		t.Fatalf("the user's edit is in the agent's diff:\n%s", r.stdout)
	}
	// git diff of the same two trees: the baseline's, and the working
	// tree's now written through an index of the test's own.
	rec, err := supervisor.ReadRecord(dir, "s1")
	if err != nil || rec.Baseline == nil {
		t.Fatalf("record: %+v %v", rec, err)
	}
	idx := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	gitIn(t, repo, idx, "add", "-A")
	now := strings.TrimSpace(gitIn(t, repo, idx, "write-tree"))
	want := gitIn(t, repo, nil, "diff", "--no-color", "--find-renames", rec.Baseline.Tree, now)
	if r.stdout != want {
		t.Fatalf("diff s1:\n%s\ngit diff of the trees:\n%s", r.stdout, want)
	}
	if r := hmIn(t, dir, "diff", "s1", "--stat"); r.code != 0 || !strings.Contains(r.stdout, "3 files changed, 3 insertions(+), 1 deletion(-)") {
		t.Fatalf("diff --stat: %+v", r)
	}
	if r := hmIn(t, dir, "diff", "s1", "--base", "main"); r.code != 0 || !strings.Contains(r.stdout, "+two (the user's)") {
		t.Fatalf("diff --base main: %+v", r)
	}
	if r := hmIn(t, dir, "diff", "s1", "--base", "--output=/tmp/x"); r.code == 0 || !strings.Contains(r.stderr, "names no commit or tree") {
		t.Fatalf("a base that looks like an option: %+v", r)
	}
	if r := hmIn(t, dir, "diff", "s1", "--base", "@s1"); r.code != 0 || r.stdout != want {
		t.Fatalf("diff --base @s1: %+v", r)
	}
	if r := hmIn(t, dir, "diff", "s1", "--base", "@nope"); r.code == 0 || !strings.Contains(r.stderr, "nope has no baseline") {
		t.Fatalf("diff --base @nope: %+v", r)
	}
	if r := hmIn(t, dir, "diff", "nope"); r.code != 1 || !strings.Contains(r.stderr, "No session found: nope") {
		t.Fatalf("diff nope: %+v", r)
	}
	// The user's index and status are as they were: only a.txt modified
	// by them, the agent's new file untracked.
	if s := gitIn(t, repo, nil, "status", "--porcelain"); s != " M a.txt\n M b.go\n?? c.txt\n" {
		t.Fatalf("git status after: %q", s)
	}
}
