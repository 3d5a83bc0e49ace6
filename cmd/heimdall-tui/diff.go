package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// diffWait bounds the git work of one diff.
const diffWait = time.Minute

func newDiffCmd(a *app) *cobra.Command {
	var base string
	var stat bool
	cmd := &cobra.Command{
		Use:   "diff ID",
		Short: "What session ID changed: the diff from its baseline to the working tree now",
		Long: "diff prints, as git diff does, what changed in the git working tree of session ID since\n" +
			"it started: from the baseline taken then (the tree as it was, uncommitted and untracked\n" +
			"files included) to the working tree now, new files included. --base REF diffs from a\n" +
			"branch or commit instead, --base @OTHER from session OTHER's baseline.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			if _, _, ok := a.hostOf(id); ok {
				return fmt.Errorf("diff %s: not for another host's session yet (run heimdall-tui diff on that host)", id)
			}
			dir, err := a.checkedDir()
			if err != nil {
				return err
			}
			rec, err := a.recordOf(dir, id)
			if err != nil {
				return err
			}
			if base, err = supervisor.DiffBase(dir, rec, base); err != nil {
				return fmt.Errorf("diff %s: %w", id, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), diffWait)
			defer cancel()
			out, err := review.Since(ctx, rec.Baseline, rec.Dir, base, stat)
			if errors.Is(err, review.ErrNoBaseline) {
				return fmt.Errorf("diff %s: %w: give --base REF", id, err)
			}
			if err != nil {
				return err
			}
			_, err = a.stdout.Write(out)
			return err
		},
	}
	cmd.Flags().StringVar(&base, "base", "", "diff from this branch, tag or commit, or @SESSION: that session's baseline")
	cmd.Flags().BoolVar(&stat, "stat", false, "print the files changed with counts (git diff --stat)")
	return cmd
}

// recordOf reads session id's record in dir; a session without one is
// "No session found" (exit 1).
func (a *app) recordOf(dir, id string) (supervisor.Record, error) {
	rec, err := supervisor.ReadRecord(dir, id)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(a.stderr, "No session found: %s\n", id)
		return rec, exitCode(1)
	}
	return rec, err
}
