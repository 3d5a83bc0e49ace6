package fleet

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/atomicfile"
)

// The names a dashboard gives the headless sessions it opens live only in
// the fleet; blemees/1 has no label for a session. So they are kept in a
// file (BlemeesOptions.Names: session id → fleet ID, the newest last), and
// a dashboard that follows a session later — the next one, after a quit —
// lists it under the name it was opened with. Dashboards share the file:
// a name written by one while another rewrites it may be lost, which costs
// only the name.

// maxNames bounds the names kept (the oldest go first), and maxNamesFile
// the file read.
const (
	maxNames     = 256
	maxNamesFile = 1 << 20
)

type sessionName struct {
	SessionID string `json:"session_id"`
	Name      string `json:"name"`
}

// readNames reads the names file at path; a missing or broken one has none.
func readNames(path string) []sessionName {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxNamesFile))
	if err != nil {
		return nil
	}
	var names []sessionName
	if json.Unmarshal(b, &names) != nil {
		return nil
	}
	return names
}

// nameOf is the name sid was opened with, "" if none is kept.
func nameOf(path, sid string) string {
	if path == "" {
		return ""
	}
	names := readNames(path)
	for i := len(names) - 1; i >= 0; i-- {
		if names[i].SessionID == sid {
			return names[i].Name
		}
	}
	return ""
}

// rememberName keeps name for sid in the file at path.
func rememberName(path, sid, name string) error {
	if path == "" {
		return nil
	}
	names := readNames(path)
	kept := names[:0]
	for _, n := range names {
		if n.SessionID != sid {
			kept = append(kept, n)
		}
	}
	kept = append(kept, sessionName{SessionID: sid, Name: name})
	if len(kept) > maxNames {
		kept = kept[len(kept)-maxNames:]
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o600)
}
