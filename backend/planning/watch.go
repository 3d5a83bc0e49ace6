package planning

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// FileKind says which piece of state a changed file belongs to.
type FileKind int

// The kinds of state, one per file (KindCapsule: any capsule); KindOther
// is anything else (lock files, temp files, foreign files).
const (
	KindOther FileKind = iota
	KindLog
	KindBlackboard
	KindSymbols
	KindBaselines
	KindLedger
	KindSchema
	KindCapsule
	KindClaims    // a claim file under ledger/claims (backend/coord)
	KindDecisions // ledger/decisions.md
)

var kindNames = [...]string{"other", "log", "blackboard", "symbols", "baselines", "ledger", "schema", "capsule", "claims", "decisions"}

func (k FileKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// WatchDirs are the directories a watcher (fsnotify) should watch to see
// every change to the state: the JSON files are replaced by rename, so
// watching the files themselves would lose the watch at the first write.
// A directory that does not exist yet is still listed; the watcher adds it
// when it appears (or calls Init first).
func (s *Store) WatchDirs() []string {
	return []string{s.root, s.ProtocolDir(), s.CapsuleDir(), s.ledgerDir(), s.claimsDir()}
}

// structuralPaths are the paths whose creation, removal or renaming can
// change the set of directories Watch must watch: the WatchDirs and all
// their ancestors, cleaned. Any other event (a state file written, a lock
// or temp file) leaves the set as it is.
func (s *Store) structuralPaths() map[string]bool {
	m := map[string]bool{}
	for _, d := range s.WatchDirs() {
		for p := filepath.Clean(d); !m[p]; p = filepath.Dir(p) {
			m[p] = true
		}
	}
	return m
}

// Classify maps a path from a watch event to the state it changed. Lock
// files and temp files are KindOther: a writer's rename is the change.
func (s *Store) Classify(path string) FileKind {
	base := filepath.Base(path)
	if strings.HasPrefix(base, ".") {
		return KindOther
	}
	switch filepath.Clean(path) {
	case filepath.Clean(s.LogPath()):
		return KindLog
	case filepath.Clean(s.BlackboardPath()):
		return KindBlackboard
	case filepath.Clean(s.SymbolsPath()):
		return KindSymbols
	case filepath.Clean(s.BaselinesPath()):
		return KindBaselines
	case filepath.Clean(s.LedgerPath()):
		return KindLedger
	case filepath.Clean(s.SchemaPath()):
		return KindSchema
	}
	dir := filepath.Clean(filepath.Dir(path))
	switch {
	case dir == filepath.Clean(s.CapsuleDir()) && strings.HasSuffix(base, ".md"):
		return KindCapsule
	case dir == filepath.Clean(s.claimsDir()) && strings.HasSuffix(base, ".json"):
		return KindClaims
	case filepath.Clean(path) == filepath.Join(filepath.Clean(s.ledgerDir()), "decisions.md"):
		return KindDecisions
	}
	return KindOther
}

// Changes is a set of FileKinds, reported by Watch.
type Changes uint32

// Has reports whether k is in the set.
func (c Changes) Has(k FileKind) bool { return c&(1<<k) != 0 }

func (c Changes) String() string {
	var names []string
	for k := KindLog; k <= KindDecisions; k++ {
		if c.Has(k) {
			names = append(names, k.String())
		}
	}
	return strings.Join(names, ",")
}

// allChanges is every kind: what a newly watched directory may hold.
const allChanges = Changes(1<<KindLog | 1<<KindBlackboard | 1<<KindSymbols | 1<<KindBaselines | 1<<KindLedger | 1<<KindSchema | 1<<KindCapsule | 1<<KindClaims | 1<<KindDecisions)

// Watch calls fn with the kinds of state that changed, until ctx is done
// (it then returns nil) or the watcher fails. Changes that arrive within
// debounce of the first are merged into one call, so a burst of appends
// is one reload; nothing runs while nothing changes (no polling). fn runs
// on Watch's goroutine.
//
// Watch creates nothing: a missing root (or protocol/, capsules/) is
// watched for from its nearest existing parent, and once it appears it is
// watched too and fn gets every kind (its files may have been written
// before the watch was in place).
func (s *Store) Watch(ctx context.Context, debounce time.Duration, fn func(Changes)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", s.root, err)
	}
	defer w.Close()
	watched := map[string]bool{}
	structural := s.structuralPaths()
	// sync adds every WatchDir that exists, and the nearest existing
	// parent of each that does not; it reports whether a state
	// directory was added. It loops until nothing changes: a directory
	// created after its stat but before its parent's watch was in place
	// is found on the next pass.
	sync := func() (bool, error) {
		added := false
		for {
			progress := false
			for _, d := range s.WatchDirs() {
				d = filepath.Clean(d)
				if st, err := os.Stat(d); err == nil && st.IsDir() {
					if !watched[d] {
						if err := w.Add(d); err != nil {
							return added, fmt.Errorf("watch %s: %w", d, err)
						}
						watched[d], added, progress = true, true, true
					}
					continue
				}
				for p := filepath.Dir(d); ; p = filepath.Dir(p) {
					if st, err := os.Stat(p); err == nil && st.IsDir() {
						if !watched[p] {
							if err := w.Add(p); err != nil {
								return added, fmt.Errorf("watch %s: %w", p, err)
							}
							watched[p], progress = true, true
						}
						break
					}
					if p == filepath.Dir(p) {
						break
					}
				}
				// On to the next: a missing directory (protocol/ in a
				// tree only `claim` has written) must not hide the ones
				// after it that exist (ledger/, ledger/claims/).
			}
			if !progress {
				return added, nil
			}
		}
	}
	if _, err := sync(); err != nil {
		return err
	}
	var (
		pending Changes
		timer   *time.Timer
		fire    <-chan time.Time
	)
	note := func(c Changes) {
		if c == 0 {
			return
		}
		pending |= c
		if timer == nil {
			timer = time.NewTimer(debounce)
			fire = timer.C
		}
	}
	for {
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			name := filepath.Clean(ev.Name)
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				// A watched directory that goes away loses its watch.
				delete(watched, name)
			}
			// Only a state directory, or a directory on the way to one,
			// appearing or going away can change what must be watched.
			// Every JSON write creates and renames a temp file: those
			// events are not re-checked (no stat per write).
			if structural[name] && (ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
				added, err := sync()
				if err != nil {
					return err
				}
				if added {
					note(allChanges)
				}
			}
			if k := s.Classify(ev.Name); k != KindOther {
				note(1 << k)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			return fmt.Errorf("watch %s: %w", s.root, err)
		case <-fire:
			c := pending
			pending, timer, fire = 0, nil, nil
			fn(c)
		}
	}
}
