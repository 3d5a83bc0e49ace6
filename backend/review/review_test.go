package review

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo makes a git repository with one commit of a.txt, its config the
// test's own.
func repo(t *testing.T) string {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	dir := t.TempDir()
	write(t, dir, "a.txt", "one\ntwo\nthree\n")
	run(t, dir, "git", "init", "-q", "-b", "main")
	run(t, dir, "git", "add", "a.txt")
	run(t, dir, "git", "commit", "-q", "-m", "first")
	return dir
}

func write(t *testing.T, dir, name, s string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", argv, err, out)
	}
	return string(out)
}

// The user's uncommitted work before the baseline stays out of the diff;
// what came after (an edit of the same file, a new file) is in it; the
// user's index and working tree are untouched by either.
func TestBaselineAndDiff(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	write(t, dir, "a.txt", "one\ntwo (the user's)\nthree\n")
	write(t, dir, "notes.txt", "the user's own untracked file\n")
	run(t, dir, "git", "add", "notes.txt") // staged, as a user may have
	status := run(t, dir, "git", "status", "--porcelain")
	b, err := Take(ctx, filepath.Join(dir, "."))
	if err != nil {
		t.Fatal(err)
	}
	if b.Repo != dir && !strings.HasSuffix(b.Repo, filepath.Base(dir)) || b.Head == "" || b.Tree == "" {
		t.Fatalf("baseline %+v", b)
	}
	if s := run(t, dir, "git", "status", "--porcelain"); s != status {
		t.Fatalf("the baseline changed what git status says:\n%s\nwas\n%s", s, status)
	}

	write(t, dir, "a.txt", "one\ntwo (the user's)\nthree\nfour (the agent's)\n")
	write(t, dir, "b.txt", "new from the agent\n")
	d, err := Diff(ctx, b.Repo, b.Tree, false)
	if err != nil {
		t.Fatal(err)
	}
	got := string(d)
	for _, want := range []string{"+four (the agent's)", "+new from the agent", "diff --git a/b.txt b/b.txt"} {
		if !strings.Contains(got, want) {
			t.Fatalf("diff lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"two (the user's)\n-", "+two (the user's)", "notes.txt"} {
		if strings.Contains(got, not) {
			t.Fatalf("diff holds the user's own work (%q):\n%s", not, got)
		}
	}
	if s, err := Diff(ctx, b.Repo, b.Tree, true); err != nil || !strings.Contains(string(s), "2 files changed, 2 insertions(+)") {
		t.Fatalf("stat: %q %v", s, err)
	}
	// From HEAD, the user's edit is in it too.
	if s, err := Diff(ctx, b.Repo, "HEAD", false); err != nil || !strings.Contains(string(s), "+two (the user's)") {
		t.Fatalf("diff from HEAD: %q %v", s, err)
	}
	if s := run(t, dir, "git", "diff", "--cached", "--name-only"); s != "notes.txt\n" {
		t.Fatalf("the user's index changed: %q", s)
	}
}

// A base that looks like an option is no option; a directory outside a
// repository has no baseline.
func TestBaseRefused(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "written")
	for _, base := range []string{"--output=" + out, "-p", "no-such-branch"} {
		if _, err := Diff(ctx, dir, base, false); err == nil || !strings.Contains(err.Error(), "names no commit or tree") {
			t.Fatalf("base %q: %v", base, err)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a base wrote a file")
	}
	if _, err := Take(ctx, t.TempDir()); err != ErrNotRepo {
		t.Fatalf("outside a repository: %v", err)
	}
}

// Notes are kept whole (0600) and removed when none are left; bounds
// refuse; the prompt quotes each line under its file and line.
func TestNotes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.notes.json")
	if ns, err := LoadNotes(path); err != nil || ns != nil {
		t.Fatalf("no notes yet: %v %v", ns, err)
	}
	ns := []Note{{File: "a.txt", Line: 4, Quote: "four (the agent)", Text: "Why four?"},
		{File: "b.go", Line: 4, Old: true, Quote: "\treturn 1", Text: "Keep the old value\nfor now."},
		{File: "c.go", Line: 2, End: 3, Quote: "a()\nb()", Text: "One call."}}
	if err := SaveNotes(path, ns); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("notes file: %v %v", fi, err)
	}
	got, err := LoadNotes(path)
	if err != nil || len(got) != 3 || got[1] != ns[1] || got[2] != ns[2] {
		t.Fatalf("loaded %+v %v", got, err)
	}
	want := "Review notes on your changes (3). Please address each one:\n\n1. a.txt:4\n   > four (the agent)\n   Why four?\n\n" +
		"2. b.go:4 (a line you removed)\n   > return 1\n   Keep the old value\n   for now.\n\n" +
		"3. c.go:2-3\n   > a()\n   > b()\n   One call.\n"
	if p := Prompt(ns); p != want {
		t.Fatalf("prompt:\n%s\nwant:\n%s", p, want)
	}
	if err := SaveNotes(path, []Note{{Text: strings.Repeat("x", MaxNoteText+1)}}); err == nil {
		t.Fatal("an oversized note was kept")
	}
	if err := SaveNotes(path, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("no notes left, the file stays: %v", err)
	}
}

// A worktree on a new branch beside the repository, with .env copied;
// its removal refuses while it has uncommitted changes, unless forced.
func TestWorktree(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	write(t, dir, ".env", "SECRET=1\n")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	_, _, err := AddWorktree(ctx, filepath.Join(dir, "sub"), Worktree{Branch: "agent/fix-1", Copy: []string{".env", "missing", "../x"}})
	if err == nil || !strings.Contains(err.Error(), "a path within the repository") {
		t.Fatalf("a copy leaving the repository: %v", err)
	}
	if _, err := os.Stat(dir + "-agent-fix-1"); err == nil {
		t.Fatal("a refused worktree was made")
	}
	top, wd, err := AddWorktree(ctx, filepath.Join(dir, "sub"), Worktree{Branch: "agent/fix-1", Copy: []string{".env", "missing"}})
	if err != nil {
		t.Fatal(err)
	}
	wt := dir + "-agent-fix-1"
	if top != wt || wd != filepath.Join(wt, "sub") {
		t.Fatalf("dir %q, want %q", wd, filepath.Join(wt, "sub"))
	}
	if b, err := os.ReadFile(filepath.Join(wt, ".env")); err != nil || string(b) != "SECRET=1\n" {
		t.Fatalf(".env in the worktree: %q %v", b, err)
	}
	if b := run(t, wt, "git", "branch", "--show-current"); b != "agent/fix-1\n" {
		t.Fatalf("branch %q", b)
	}
	if _, _, err := AddWorktree(ctx, dir, Worktree{Branch: "-x"}); err == nil {
		t.Fatal("a branch like an option")
	}
	if _, _, err := AddWorktree(ctx, dir, Worktree{Branch: "b2", Base: "--output=/tmp/x"}); err == nil || !strings.Contains(err.Error(), "names no commit") {
		t.Fatalf("a base like an option: %v", err)
	}
	// .env is untracked there too: dirty.
	if err := RemoveWorktree(ctx, wt, false); !errors.Is(err, ErrDirty) {
		t.Fatalf("remove while dirty: %v", err)
	}
	if err := RemoveWorktree(ctx, wt, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("the worktree is still there: %v", err)
	}
	if b := run(t, dir, "git", "branch", "--list", "agent/fix-1"); !strings.Contains(b, "agent/fix-1") {
		t.Fatal("the branch went with the worktree")
	}
}

// Ship commits, pushes the branch to origin (upstream set) and opens a
// pull request through gh (a fake here, logging its arguments); without
// gh it says why there is no pull request.
func TestShip(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	bare := t.TempDir()
	run(t, bare, "git", "init", "-q", "--bare")
	run(t, dir, "git", "remote", "add", "origin", bare)
	run(t, dir, "git", "checkout", "-q", "-b", "agent/fix")
	if _, err := (Ship{Message: "x"}).Do(ctx, dir); err == nil || !strings.Contains(err.Error(), "nothing to commit") {
		t.Fatalf("nothing to commit: %v", err)
	}
	write(t, dir, "b.txt", "new\n")
	bin := t.TempDir()
	log := filepath.Join(bin, "log")
	os.WriteFile(filepath.Join(bin, "gh"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" >> "+log+"\n[ \"$1\" = pr ] && echo https://example.com/pr/1\nexit 0\n"), 0o755)
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	s, err := Ship{Message: "Fix the thing\n\nBecause.", Push: true, PR: true}.Do(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Branch != "agent/fix" || s.Pushed != "origin/agent/fix" || s.PR != "https://example.com/pr/1" || s.NoPR != "" {
		t.Fatalf("shipped %+v", s)
	}
	if b := run(t, bare, "git", "log", "--format=%s", "agent/fix"); b != "Fix the thing\nfirst\n" {
		t.Fatalf("the remote's branch: %q", b)
	}
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), "pr\ncreate\n--head=agent/fix\n--title=Fix the thing\n--body=Because.\n") {
		t.Fatalf("gh got %q", b)
	}
	write(t, dir, "c.txt", "more\n")
	t.Setenv("PATH", "/usr/bin:/bin")
	if _, err := exec.LookPath("gh"); err == nil {
		t.Skip("a real gh is installed")
	}
	s, err = Ship{Message: "More", PR: true}.Do(ctx, dir)
	if err != nil || s.PR != "" || !strings.Contains(s.NoPR, "gh is not installed") {
		t.Fatalf("without gh: %+v %v", s, err)
	}
}
