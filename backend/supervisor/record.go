package supervisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/atomicfile"
	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// Record is what a session's supervisor (`heimdall run`) keeps of it in
// the state dir (RecordPath): how the session was started, which neither
// the socket nor the process table says (the agent preset, the classifier,
// the extra environment, who started it), what it last showed, and once it
// has ended, how. A dashboard reads it to show and restart sessions it did
// not start, to list as Dead a session that ended while no dashboard ran,
// and as Lost one whose supervisor died without recording an end (killed,
// or the machine rebooted: the record is not in the runtime dir a reboot
// empties). The file is written whole (temp file + rename, mode 0600), so
// a reader never sees half of one; the pid file's flock serialises writers
// of one ID.
//
// Lifetime: written when the session starts; rewritten as it runs
// (Seen: its screen once it has stood still, its conversation id) and
// with Ended when it ends (before its socket goes); removed by whoever has
// shown that end to the user: `run` in the foreground (it printed the
// exit), a dashboard once the user removed the Dead or Lost session or
// quit after seeing it end, or `clean --force` (with the session's other
// files).
type Record struct {
	ID string `json:"id"`
	// Kind is "acp" for an Agent Client Protocol agent's session (run
	// --acp; ACPFS its file access), "" for a pty session.
	Kind       string   `json:"kind,omitempty"`
	ACPFS      string   `json:"acp_fs,omitempty"`
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
	// Seen is when the supervisor last wrote what the session showed
	// (Screen, State, Reason) while it ran: once its screen has stood
	// still a while. Boot is the machine's boot id then: a record from
	// another boot was lost to a reboot.
	Seen   *time.Time `json:"seen,omitempty"`
	State  string     `json:"state,omitempty"`  // session.State's name, as last seen
	Reason string     `json:"reason,omitempty"` // why it waited for the user, as last seen
	Boot   string     `json:"boot,omitempty"`
	// Usage is the tokens its agent reported (its transcript), as last
	// recorded.
	Usage session.Usage `json:"usage,omitempty"`
	// Context is what going on with its conversation re-sends, as last
	// recorded (its tokens and model).
	Context      int64  `json:"context_tokens,omitempty"`
	ContextModel string `json:"context_model,omitempty"`
	// Ended is set once the program has exited, with its code (128+signal
	// when a signal killed it), and the screen it left: Screen draws it on
	// a fresh terminal of Cols×Rows (Session.Repaint).
	Ended    *time.Time `json:"ended,omitempty"`
	ExitCode int        `json:"exit_code"`
	Cols     int        `json:"cols,omitempty"`
	Rows     int        `json:"rows,omitempty"`
	Screen   string     `json:"screen,omitempty"`
}

// StateDir returns where heimdall keeps what must outlive a reboot but is
// not configuration (session records, logs, the web token):
// $XDG_STATE_HOME/heimdall, else ~/.local/state/heimdall, else a directory
// of this uid's under the system's temp dir.
func StateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "heimdall")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "state", "heimdall")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("heimdall-state-%d", os.Getuid()))
}

// RecordDir is where the records of the sessions served in socket dir dir
// are kept: StateDir()/sessions followed by dir's absolute path, so they
// outlive a reboot that empties the runtime dir, and two socket dirs never
// share one.
func RecordDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	return filepath.Join(StateDir(), "sessions", abs)
}

// RecordPath is the path of the record of session id of socket dir dir.
func RecordPath(dir, id string) string { return filepath.Join(RecordDir(dir), id+".json") }

// legacyRecordPath is where releases before the state dir kept a record:
// in the socket dir itself. Those are still read (a supervisor of an
// older release writes there) and removed with the session.
func legacyRecordPath(dir, id string) string { return filepath.Join(dir, id+".json") }

// WriteRecord writes r as the record of session r.ID of socket dir dir,
// replacing any earlier one; the record dir is made 0700 if missing and
// refused if another user owns it or others may write it.
func WriteRecord(dir string, r Record) error {
	if err := ValidateID(dir, r.ID); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := unixsock.EnsureDir(RecordDir(dir)); err != nil {
		return fmt.Errorf("session record: %w", err)
	}
	if err := atomicfile.Write(RecordPath(dir, r.ID), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("session record: %w", err)
	}
	return nil
}

// maxRecord bounds a record file (its screen is the largest part: tens of
// KiB for a big terminal); a larger one is refused, not read.
const maxRecord = 4 << 20

// ReadRecord reads the record of session id of socket dir dir (where an
// older release kept it, if it is not in the state dir). A missing one is
// an error satisfying errors.Is(err, os.ErrNotExist); one over 4 MiB, or
// that does not parse, is refused.
func ReadRecord(dir, id string) (Record, error) {
	var r Record
	if err := ValidateID(dir, id); err != nil {
		return r, err
	}
	path := RecordPath(dir, id)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		path = legacyRecordPath(dir, id)
		f, err = os.Open(path)
	}
	if err != nil {
		return r, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRecord+1))
	if err != nil {
		return r, err
	}
	if len(b) > maxRecord {
		return r, fmt.Errorf("session record %s: over %d bytes", path, maxRecord)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("session record %s: %w", path, err)
	}
	if r.ID != id {
		return r, fmt.Errorf("session record %s: names session %q", path, r.ID)
	}
	return r, nil
}

// RemoveRecord removes id's record (and one an older release left in the
// socket dir); a missing one is not an error.
func RemoveRecord(dir, id string) error {
	if err := ValidateID(dir, id); err != nil {
		return err
	}
	var errs []error
	for _, p := range []string{RecordPath(dir, id), legacyRecordPath(dir, id)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Lost reports whether r is the record of a session whose supervisor
// ended without recording an end (PastRecords returns it only then).
func (r Record) Lost() bool { return r.Ended == nil }

// PastRecords returns the records of the sessions of socket dir dir that
// no longer run: those that ended (Ended set) and those lost, whose
// supervisor died without recording an end (its pid file's lock is free:
// SIGKILLed, or the machine rebooted). A record whose ID a live socket
// serves now is not returned (a later session under the ID; or a stale
// one left by a supervisor killed between recording the end and removing
// its socket). Unreadable records are skipped: they are reported by
// nothing but `clean`.
func PastRecords(dir string) ([]Record, error) {
	ids := map[string]bool{}
	for _, d := range []string{RecordDir(dir), dir} {
		ents, err := os.ReadDir(d)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, de := range ents {
			id, ok := strings.CutSuffix(de.Name(), ".json")
			if ok && ValidateID(dir, id) == nil && !strings.HasSuffix(id, notesSuffix) && de.Type().IsRegular() {
				ids[id] = true
			}
		}
	}
	var out []Record
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		r, err := ReadRecord(dir, id)
		if err != nil {
			continue
		}
		if st, _ := unixsock.Inspect(SocketPath(dir, id)); st == unixsock.Live {
			continue // served again (a later session under the ID)
		}
		if r.Ended == nil && !supervisorGone(dir, id) {
			continue // running, or starting (its claim holds the lock)
		}
		out = append(out, r)
	}
	return out, nil
}

// supervisorGone reports whether no process holds session id's pid file
// lock (which a supervisor holds from its claim to its end). It takes the
// lock for an instant, as RemoveStale does: a claim meanwhile waits it
// out.
func supervisorGone(dir, id string) bool {
	path := PidPath(dir, id)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return true // a reboot emptied the runtime dir, or it was cleaned
	}
	// A holder that is not the supervisor holds it for a moment only
	// (RemoveStale judging a stale socket, a claim about to listen):
	// wait that out, as ClaimID does.
	for range 25 {
		lock, err := lockFile(path)
		if err == nil {
			lock.Close()
			return true
		}
		if !errors.Is(err, ErrAlreadyRunning) {
			return false
		}
		if st, _ := unixsock.Inspect(SocketPath(dir, id)); st == unixsock.Live {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// BootID is the kernel's id of this boot ("" where there is none): a
// record written in another boot was lost to a reboot.
func BootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// notesSuffix ends the name (before .json) of a session's review notes,
// kept beside its record (NotesPath).
const notesSuffix = ".notes"

// NotesPath is where the review notes of session id of socket dir dir are
// kept: beside its record, so they go when it goes.
func NotesPath(dir, id string) string {
	return filepath.Join(RecordDir(dir), id+notesSuffix+".json")
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
