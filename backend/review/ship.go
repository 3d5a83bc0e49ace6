package review

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Ship asks for a session's changes to be committed with Message and,
// with Push, pushed (its branch to its upstream, or to origin as a new
// one), and with PR, a pull request opened through gh.
type Ship struct {
	Message  string
	Push, PR bool
}

// Shipped says what Ship did: the commit made, where it was pushed, the
// pull request's URL, and why a step asked for was not taken (NoPR).
type Shipped struct {
	Commit, Branch, Pushed, PR, NoPR string
}

// Do commits everything in the working tree dir is in (git add -A: in a
// checkout shared with the user, their own changes too), then pushes and
// opens a pull request as s asks. gh must be installed and logged in for
// the pull request; without it Shipped.NoPR says why.
func (s Ship) Do(ctx context.Context, dir string) (Shipped, error) {
	var out Shipped
	msg := strings.TrimSpace(s.Message)
	if msg == "" {
		return out, errors.New("ship: a commit message is needed")
	}
	repo, err := TopLevel(ctx, dir)
	if err != nil {
		return out, err
	}
	if n, err := WorktreeChanges(ctx, repo); err != nil {
		return out, err
	} else if n == 0 {
		return out, errors.New("ship: nothing to commit")
	}
	if _, err := git(ctx, repo, nil, "add", "-A", "--", "."); err != nil {
		return out, err
	}
	if _, err := git(ctx, repo, nil, "commit", "-q", "-m", msg); err != nil {
		return out, err
	}
	out.Commit, _ = git(ctx, repo, nil, "rev-parse", "--short", "HEAD")
	out.Branch, _ = git(ctx, repo, nil, "branch", "--show-current")
	if !s.Push && !s.PR {
		return out, nil
	}
	if out.Branch == "" {
		return out, errors.New("ship: committed, but HEAD is on no branch: nothing to push")
	}
	if _, err := git(ctx, repo, nil, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"); err == nil {
		_, err = git(ctx, repo, nil, "push", "-q")
		if err != nil {
			return out, err
		}
	} else if _, err := git(ctx, repo, nil, "push", "-q", "-u", "origin", "--", out.Branch); err != nil {
		return out, err
	}
	out.Pushed, _ = git(ctx, repo, nil, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
	if !s.PR {
		return out, nil
	}
	gh, err := exec.LookPath("gh")
	if err != nil {
		out.NoPR = "gh is not installed (https://cli.github.com): open the pull request from " + out.Pushed
		return out, nil
	}
	if err := exec.CommandContext(ctx, gh, "auth", "status").Run(); err != nil {
		out.NoPR = "gh is not logged in (gh auth login): open the pull request from " + out.Pushed
		return out, nil
	}
	title, body, _ := strings.Cut(msg, "\n")
	cmd := exec.CommandContext(ctx, gh, "pr", "create", "--head="+out.Branch, "--title="+title, "--body="+strings.TrimSpace(body))
	cmd.Dir = repo
	b, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("ship: gh pr create: %s", strings.TrimSpace(string(b)))
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	out.PR = lines[len(lines)-1]
	return out, nil
}
