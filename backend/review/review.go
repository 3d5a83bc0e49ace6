// Package review answers "what did this agent change": a baseline of the
// git working tree taken when a session starts, and the diff from it (or
// from another base) to the working tree now.
//
// A baseline is a tree object of the working tree as it was — tracked
// files as they were on disk and untracked ones that are not ignored —
// written through an index of its own (a copy of the repository's), as
// `git stash create` makes its commit: nothing the user sees changes (not
// the index, not the working tree, no ref). The diff is between two such
// trees, so an agent that shares a checkout with the user's uncommitted
// work shows only what changed since it started, new files included.
package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Baseline is what a session's repository looked like when it started.
type Baseline struct {
	Repo string `json:"repo"`           // the working tree's top level
	Head string `json:"head,omitempty"` // HEAD's commit then ("" before the first commit)
	Tree string `json:"tree"`           // the working tree then, as a tree object
}

// ErrNotRepo is Take's error for a directory outside any git working tree.
var ErrNotRepo = errors.New("not in a git working tree")

// TopLevel is the top level of the git working tree dir is in.
func TopLevel(ctx context.Context, dir string) (string, error) {
	top, err := git(ctx, dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		if strings.Contains(err.Error(), "not a git repository") || strings.Contains(err.Error(), "must be run in a work tree") {
			return "", ErrNotRepo
		}
		return "", err
	}
	return top, nil
}

// Take takes the baseline of the working tree dir is in.
func Take(ctx context.Context, dir string) (Baseline, error) {
	top, err := TopLevel(ctx, dir)
	if err != nil {
		return Baseline{}, err
	}
	b := Baseline{Repo: top}
	b.Head, _ = git(ctx, top, nil, "rev-parse", "--verify", "-q", "HEAD")
	b.Tree, err = Snapshot(ctx, top)
	return b, err
}

// Snapshot writes the working tree of repo (its top level) as a tree
// object and returns its id.
func Snapshot(ctx context.Context, repo string) (string, error) {
	index, err := git(ctx, repo, nil, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp("", "heimdall-index-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	// A copy of the index: git rehashes only what changed on disk.
	if src, err := os.Open(index); err == nil {
		_, err = io.Copy(tmp, src)
		src.Close()
		if err != nil {
			tmp.Close()
			return "", err
		}
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	env := []string{"GIT_INDEX_FILE=" + tmp.Name()}
	if _, err := git(ctx, repo, env, "add", "-A", "--", "."); err != nil {
		return "", err
	}
	return git(ctx, repo, env, "write-tree")
}

// Diff is the diff from base (a tree, commit or ref; resolved first, so
// that it is never read as an option) to the working tree of repo now,
// as `git diff` prints it, with --stat if stat.
func Diff(ctx context.Context, repo, base string, stat bool) ([]byte, error) {
	from, err := ResolveTree(ctx, repo, base)
	if err != nil {
		return nil, err
	}
	to, err := Snapshot(ctx, repo)
	if err != nil {
		return nil, err
	}
	args := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames"}
	if stat {
		args = append(args, "--stat")
	}
	args = append(args, from, to, "--")
	out, err := gitBytes(ctx, repo, nil, args...)
	return out, err
}

// ErrNoBaseline is Since's error for a session without a baseline and
// no other base given.
var ErrNoBaseline = errors.New("no baseline: it did not start in a git working tree, or git failed then (see its log)")

// Since is what a session changed: the diff from its baseline b (nil if
// it has none) to the working tree now, or from base if not "" (in b's
// repository, else the one dir, the session's directory, is in).
func Since(ctx context.Context, b *Baseline, dir, base string, stat bool) ([]byte, error) {
	repo, from := "", base
	if b != nil {
		repo = b.Repo
		if from == "" {
			from = b.Tree
		}
	} else if from == "" {
		return nil, ErrNoBaseline
	} else if repo, _ = TopLevel(ctx, dir); repo == "" {
		return nil, fmt.Errorf("%s is in no git working tree", dir)
	}
	return Diff(ctx, repo, from, stat)
}

// ResolveTree is the tree id base names in repo.
func ResolveTree(ctx context.Context, repo, base string) (string, error) {
	if base == "" {
		return "", errors.New("no base to diff from")
	}
	t, err := git(ctx, repo, nil, "rev-parse", "--verify", "-q", "--end-of-options", base+"^{tree}")
	if err != nil || t == "" {
		return "", fmt.Errorf("%q names no commit or tree in %s", base, repo)
	}
	return t, nil
}

// git runs git in dir and returns its output without the final newline.
func git(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	out, err := gitBytes(ctx, dir, env, args...)
	return strings.TrimSuffix(string(out), "\n"), err
}

func gitBytes(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	// The user's config applies, but no prompt and no pager.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "GIT_OPTIONAL_LOCKS=0")
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return out, fmt.Errorf("git %s in %s: %s", args[0], filepath.Base(dir), msg)
	}
	return out, nil
}
