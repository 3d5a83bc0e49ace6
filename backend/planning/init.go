package planning

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Init creates the planning tree: the directories, empty symbol, fact and
// baseline tables (non-empty ones are kept, after a version check; an
// empty one is rewritten stamped with this version), and the
// message schema (installed or replaced by this version's). It logs
// `protocol init <version>`.
func (s *Store) Init() error {
	for _, d := range []string{s.root, s.ProtocolDir(), s.CapsuleDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
	}
	tables := []func() error{
		func() error { _, err := s.Symbols().table().update(nil, ensure[string]); return err },
		func() error { _, err := s.Blackboard().table().update(nil, ensure[string]); return err },
		func() error { _, err := s.Ledger().baselines().update(nil, ensure[int64]); return err },
	}
	for _, f := range tables {
		if err := f(); err != nil {
			return err
		}
	}
	path := s.SchemaPath()
	cur, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if !bytes.Equal(cur, messageSchema) {
		if err := withLock(path, func() error { return writeAtomic(path, messageSchema) }); err != nil {
			return err
		}
	}
	for _, p := range []string{s.LedgerPath(), s.LogPath()} {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
		f.Close()
	}
	return s.Log("protocol", "init", ProtocolVersion)
}

// ensure is an update that writes the table only if it is missing or
// empty (load returned an empty map for it).
func ensure[V any](m map[string]V) (bool, error) { return len(m) == 0, nil }
