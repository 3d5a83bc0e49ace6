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
// started (review.Since, from the baseline in its record), as git diff
// prints it. It runs git: call it off the event loop.
func (f *Fleet) Diff(id string) (string, error) {
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
	ctx, cancel := context.WithTimeout(context.Background(), diffWait)
	defer cancel()
	out, err := review.Since(ctx, rec.Baseline, rec.Dir, "", false)
	if errors.Is(err, review.ErrNoBaseline) {
		return "", fmt.Errorf("diff %s: %w", id, err)
	}
	return string(out), err
}
