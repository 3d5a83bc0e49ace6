package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Worktree asks for a session of its own checkout: a new worktree on a
// new branch from Base (a commit or ref; "" = HEAD), with the untracked
// files Copy names (such as .env) copied into it from the repository.
type Worktree struct {
	Branch string   `json:"branch"`
	Base   string   `json:"base,omitempty"`
	Copy   []string `json:"copy,omitempty"`
}

// ErrDirty is RemoveWorktree's error for a worktree with uncommitted
// changes (unless forced).
var ErrDirty = errors.New("it has uncommitted changes")

// AddWorktree creates w for the repository dir is in, beside it
// (REPO-BRANCH), and returns its top level and the directory to start the
// session in: the new worktree's, at dir's place within the repository.
func AddWorktree(ctx context.Context, dir string, w Worktree) (top, wd string, err error) {
	repo, err := TopLevel(ctx, dir)
	if err != nil {
		return "", "", err
	}
	if w.Branch == "" || strings.HasPrefix(w.Branch, "-") {
		return "", "", fmt.Errorf("worktree: branch %q: a branch name", w.Branch)
	}
	for _, name := range w.Copy {
		if !filepath.IsLocal(name) {
			return "", "", fmt.Errorf("worktree: copy %s: a path within the repository", name)
		}
	}
	if _, err := git(ctx, repo, nil, "check-ref-format", "--branch", w.Branch); err != nil {
		return "", "", fmt.Errorf("worktree: %q is not a valid branch name", w.Branch)
	}
	base := w.Base
	if base == "" {
		base = "HEAD"
	}
	commit, err := git(ctx, repo, nil, "rev-parse", "--verify", "-q", "--end-of-options", base+"^{commit}")
	if err != nil || commit == "" {
		return "", "", fmt.Errorf("worktree: %q names no commit in %s", base, repo)
	}
	path := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-"+strings.ReplaceAll(w.Branch, "/", "-"))
	if _, err := os.Lstat(path); err == nil {
		return "", "", fmt.Errorf("worktree: %s exists already", path)
	}
	if _, err := git(ctx, repo, nil, "worktree", "add", "-q", "-b", w.Branch, path, commit); err != nil {
		return "", "", fmt.Errorf("worktree: %w", err)
	}
	for _, name := range w.Copy {
		if err := copyInto(repo, path, name); err != nil {
			return "", "", fmt.Errorf("worktree: copy %s: %w", name, err)
		}
	}
	rel, err := filepath.Rel(repo, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = "."
	}
	return path, filepath.Join(path, rel), nil
}

// copyInto copies file name (relative to repo, not leaving it) from repo
// into the same place in wt; a name the repository lacks is skipped.
func copyInto(repo, wt, name string) error {
	src, err := os.Open(filepath.Join(repo, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return err
	}
	dst := filepath.Join(wt, name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// WorktreeChanges is how many files of worktree path differ from its
// HEAD (git status: modified, added, deleted, untracked).
func WorktreeChanges(ctx context.Context, path string) (int, error) {
	out, err := git(ctx, path, nil, "status", "--porcelain")
	if err != nil {
		return 0, err
	}
	if out == "" {
		return 0, nil
	}
	return strings.Count(out, "\n") + 1, nil
}

// RemoveWorktree removes worktree path (its branch stays). One with
// uncommitted changes is refused (ErrDirty) unless force.
func RemoveWorktree(ctx context.Context, path string, force bool) error {
	if !force {
		n, err := WorktreeChanges(ctx, path)
		if err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("%s: %w (%d files)", path, ErrDirty, n)
		}
	}
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	}
	if _, err := git(ctx, path, nil, append(args, path)...); err != nil {
		return err
	}
	return nil
}
