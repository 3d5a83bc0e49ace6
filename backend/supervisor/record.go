package supervisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/atomicfile"
	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// Record is what a session's supervisor (`heimdall-tui run`) leaves in the
// socket dir as DIR/ID.json: how the session was started, which neither the
// socket nor the process table says (the agent preset, the classifier, the
// extra environment, who started it), and once it has ended, how. A
// dashboard reads it to show and restart sessions it did not start, and to
// list as Dead a session that ended while no dashboard ran. The file is
// written whole (temp file + rename, mode 0600), so a reader never sees
// half of one; the pid file's flock serialises writers of one ID.
//
// Lifetime: written when the session starts; rewritten with Ended when it
// ends (before its socket goes); removed by whoever has shown that end to
// the user: `run` in the foreground (it printed the exit), a dashboard once
// the user removed the Dead session or quit after seeing it, or `clean
// --force` (with the session's other files).
type Record struct {
	ID         string   `json:"id"`
	Agent      string   `json:"agent,omitempty"` // the preset's name ("" = a custom command)
	Classifier string   `json:"classifier"`
	Argv       []string `json:"argv"`
	Dir        string   `json:"dir"`           // the program's working directory
	Env        []string `json:"env,omitempty"` // NAME=value the starter added to its own environment
	// Dashboard: started by a dashboard (its Spawn or Restart), which offers
	// to stop it on quit; false for a `run` a user typed.
	Dashboard  bool      `json:"dashboard,omitempty"`
	PID        int       `json:"pid"`        // the program's
	Supervisor int       `json:"supervisor"` // the `run` process's pid
	Started    time.Time `json:"started"`
	// Conversation is the agent's own conversation id as its hooks last
	// reported it (claude --resume ID), if any.
	Conversation string `json:"conversation_id,omitempty"`
	// Baseline is the git working tree the program started in, as it was
	// then (review.Take): what "what it changed" is measured from. Nil
	// outside a repository (or if git failed).
	Baseline *review.Baseline `json:"baseline,omitempty"`
	// Worktree is the git worktree made for the session when it was
	// spawned with one (its top level): removing the session offers to
	// remove it.
	Worktree string `json:"worktree,omitempty"`
	// Ended is set once the program has exited, with its code (128+signal
	// when a signal killed it), and the screen it left: Screen draws it on
	// a fresh terminal of Cols×Rows (Session.Repaint).
	Ended    *time.Time `json:"ended,omitempty"`
	ExitCode int        `json:"exit_code"`
	Cols     int        `json:"cols,omitempty"`
	Rows     int        `json:"rows,omitempty"`
	Screen   string     `json:"screen,omitempty"`
}

// RecordPath is the path of id's record in dir.
func RecordPath(dir, id string) string { return filepath.Join(dir, id+".json") }

// WriteRecord writes r as DIR/r.ID.json, replacing any earlier one.
func WriteRecord(dir string, r Record) error {
	if err := ValidateID(dir, r.ID); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(RecordPath(dir, r.ID), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("session record: %w", err)
	}
	return nil
}

// maxRecord bounds a record file (its screen is the largest part: tens of
// KiB for a big terminal); a larger one is refused, not read.
const maxRecord = 4 << 20

// ReadRecord reads id's record in dir. A missing one is an error satisfying
// errors.Is(err, os.ErrNotExist); one over 4 MiB, or that does not parse, is
// refused.
func ReadRecord(dir, id string) (Record, error) {
	var r Record
	f, err := os.Open(RecordPath(dir, id))
	if err != nil {
		return r, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRecord+1))
	if err != nil {
		return r, err
	}
	if len(b) > maxRecord {
		return r, fmt.Errorf("session record %s: over %d bytes", RecordPath(dir, id), maxRecord)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("session record %s: %w", RecordPath(dir, id), err)
	}
	if r.ID != id {
		return r, fmt.Errorf("session record %s: names session %q", RecordPath(dir, id), r.ID)
	}
	return r, nil
}

// RemoveRecord removes id's record; a missing one is not an error.
func RemoveRecord(dir, id string) error {
	if err := os.Remove(RecordPath(dir, id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// EndedRecords returns the records in dir of sessions that have ended and
// whose ID no live socket serves now (a stale one may be left by a
// supervisor killed between recording the end and removing its socket). Unreadable records are skipped: they are
// reported by nothing but `clean`.
func EndedRecords(dir string) ([]Record, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Record
	for _, de := range ents {
		id, ok := strings.CutSuffix(de.Name(), ".json")
		if !ok || id == "" || strings.HasPrefix(id, ".") || !de.Type().IsRegular() {
			continue
		}
		r, err := ReadRecord(dir, id)
		if err != nil || r.Ended == nil {
			continue
		}
		if st, _ := unixsock.Inspect(SocketPath(dir, id)); st == unixsock.Live {
			continue // served again (a later session under the ID)
		}
		out = append(out, r)
	}
	return out, nil
}

// DiffBase resolves what a diff of session rec is from: base as given (a
// branch or commit; "" for rec's own baseline), or for "@ID" the
// baseline of session ID in dir, which must be of the same repository.
func DiffBase(dir string, rec Record, base string) (string, error) {
	other, ok := strings.CutPrefix(base, "@")
	if !ok {
		return base, nil
	}
	o, err := ReadRecord(dir, other)
	if err != nil || o.Baseline == nil || rec.Baseline == nil || o.Baseline.Repo != rec.Baseline.Repo {
		return "", fmt.Errorf("%s has no baseline in %s's repository", other, rec.ID)
	}
	return o.Baseline.Tree, nil
}
