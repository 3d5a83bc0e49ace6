package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// diffWait bounds the git work of one Diff.
const diffWait = time.Minute

// Diff is what pty session id changed in its git working tree since it
// started (review.Since, from the baseline in its record) or since base
// (a branch or commit; @ID: session ID's baseline), as git diff prints
// it. It runs git: call it off the event loop.
func (f *Fleet) Diff(id, base string) (string, error) {
	e, err := f.get(id)
	if err != nil {
		return "", err
	}
	if in := e.m.Info(); in.Host != "" {
		return "", fmt.Errorf("diff %s: not for another host's session yet (run heimdall-tui diff on %s)", id, in.Host)
	}
	if _, pty := e.m.(recorded); !pty {
		return "", fmt.Errorf("diff %s: %s keeps no baseline", id, e.kind.Describe())
	}
	rec, err := supervisor.ReadRecord(f.dir, id)
	if err != nil {
		return "", fmt.Errorf("diff %s: %w", id, err)
	}
	if base, err = supervisor.DiffBase(f.dir, rec, base); err != nil {
		return "", fmt.Errorf("diff %s: %w", id, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), diffWait)
	defer cancel()
	out, err := review.Since(ctx, rec.Baseline, rec.Dir, base, false)
	if errors.Is(err, review.ErrNoBaseline) {
		return "", fmt.Errorf("diff %s: %w", id, err)
	}
	return string(out), err
}

// ErrBusy is Say's error while the agent is not waiting at its prompt or
// someone is typing into it: the prompt may be sent later.
var ErrBusy = errors.New("not waiting at its prompt")

// Say types text into session id's agent as one prompt, once it waits
// at its prompt (an error wrapping ErrBusy: not now).
func (f *Fleet) Say(id, text string) error {
	e, err := f.get(id)
	if err != nil {
		return err
	}
	s, ok := e.m.(Sayer)
	if !ok {
		return fmt.Errorf("say: %s is %s: it has no prompt to type into", id, e.kind.Describe())
	}
	if err := s.Say(text); err != nil {
		return fmt.Errorf("%s: %w", id, err)
	}
	return nil
}

// Notes are the review notes kept for session id (with its record).
func (f *Fleet) Notes(id string) ([]review.Note, error) {
	if err := f.local(id); err != nil {
		return nil, err
	}
	return review.LoadNotes(supervisor.NotesPath(f.dir, id))
}

// SetNotes keeps notes as session id's review notes.
func (f *Fleet) SetNotes(id string, notes []review.Note) error {
	if err := f.local(id); err != nil {
		return err
	}
	return review.SaveNotes(supervisor.NotesPath(f.dir, id), notes)
}

// local checks that id is a session of this machine's socket dir.
func (f *Fleet) local(id string) error {
	e, err := f.get(id)
	if err != nil {
		return err
	}
	if in := e.m.Info(); in.Host != "" {
		return fmt.Errorf("%s is another host's session: not from here yet (run heimdall-tui there)", id)
	}
	return supervisor.ValidateID(f.dir, id)
}

// RemoveWorktree removes the git worktree made for session id (its
// branch stays), which must have ended; one with uncommitted changes is
// refused (an error wrapping review.ErrDirty) unless force.
func (f *Fleet) RemoveWorktree(id string, force bool) error {
	e, err := f.get(id)
	if err != nil {
		return err
	}
	in := e.m.Info()
	switch {
	case in.Alive:
		return fmt.Errorf("%s is running: its worktree stays", id)
	case in.Worktree == "":
		return fmt.Errorf("%s was given no worktree", id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), diffWait)
	defer cancel()
	return review.RemoveWorktree(ctx, in.Worktree, force)
}

// WorktreeChanges is how many files of session id's worktree have
// uncommitted changes.
func (f *Fleet) WorktreeChanges(id string) (int, error) {
	e, err := f.get(id)
	if err != nil {
		return 0, err
	}
	in := e.m.Info()
	if in.Worktree == "" {
		return 0, fmt.Errorf("%s was given no worktree", id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), diffWait)
	defer cancel()
	return review.WorktreeChanges(ctx, in.Worktree)
}

// Ship commits the working tree of session id's repository (its
// worktree's, if it was given one) and pushes it and opens a pull
// request as s says (review.Ship).
func (f *Fleet) Ship(id string, s review.Ship) (review.Shipped, error) {
	if err := f.local(id); err != nil {
		return review.Shipped{}, err
	}
	rec, err := supervisor.ReadRecord(f.dir, id)
	if err != nil {
		return review.Shipped{}, fmt.Errorf("ship %s: %w", id, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*diffWait)
	defer cancel()
	return s.Do(ctx, rec.Dir)
}
